"""The playground's work, run in a child process per request (see :mod:`engine.tools.server.app`):
check rule text, its rule sheet, a diff against a base, scenario cases, an impact run.

Every function takes plain data and returns a JSON-ready dict, or raises :class:`MjError`.
Rule text from the page is untrusted: it is capped at :data:`~engine.lang.limits.MAX_FILE_BYTES`
(the compiler's own limits apply), and it may ``extends`` a bundled ruleset or a rule file
uploaded to the data folder by its name, never a path: no file outside the data folder is read.
"""
from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from engine.errors import Location, MjError, OptionError, RuleError
from engine.lang.compiler import check_text, compile_ruleset, decode_rule_bytes, parse_text_collect
from engine.lang.limits import MAX_NAME_CHARS
from engine.lang.resources import bundled_ruleset_names
from engine.lang.ruleset import Ruleset
from engine.tools.server.caps import CLIP

EDITED = "edited.rules"  # the editor's text, as a file of a job folder
SCENARIO = "scenario.yaml"


def ruleset_ref(name: object, rules_dir: Path) -> str:
    """The reference of a ruleset the page names: a bundled name, or ``NAME`` of an uploaded
    ``rules_dir/NAME.rules``. Raises :class:`MjError` for anything else (a path, ``..``)."""
    if not isinstance(name, str) or not name:
        raise MjError("no ruleset named", hint="a bundled name: " + ", ".join(bundled_ruleset_names()))
    if name in bundled_ruleset_names():
        return name
    if safe_name(name) == name and (rules_dir / f"{name}.rules").is_file():
        return str(rules_dir / f"{name}.rules")
    raise MjError(f"no ruleset {name[:CLIP]!r} here",
                  hint="a bundled ruleset (" + ", ".join(bundled_ruleset_names()) + ") or one uploaded by its name")


def safe_name(name: str) -> str:
    """``name`` with every character but letters, digits, ``-`` and ``_`` dropped (at most ``MAX_NAME_CHARS``)."""
    return "".join(c for c in str(name) if c.isalnum() or c in "-_")[:MAX_NAME_CHARS]


def rule_text(raw: str, file: str = EDITED) -> str:
    """The page's rule text checked as a rule file's bytes are (size, UTF-8, no NUL)."""
    return decode_rule_bytes(str(raw).encode("utf-8", "surrogatepass"), file)


def _extends_error(text: str) -> RuleError | None:
    """An error when the text ``extends`` anything but a bundled ruleset by name (a path would
    read a file outside the data folder)."""
    pf, _ = parse_text_collect(text, EDITED)
    if not pf.extends or pf.extends[0] in bundled_ruleset_names():
        return None
    ref, loc = pf.extends
    return RuleError(f"cannot extend {ref[:CLIP]!r} here: in the browser a rule file extends a bundled ruleset by name",
                     loc, hint="one of: " + ", ".join(bundled_ruleset_names()), source_text=text)


def _job_file(text: str, job: Path) -> Path:
    """The editor's text written as ``job/edited.rules`` (refused if it extends a path)."""
    err = _extends_error(text)
    if err is not None:
        raise err
    job.mkdir(parents=True, exist_ok=True)
    path = job / EDITED
    path.write_text(text, encoding="utf-8")
    return path


def check(raw: str, options: dict[str, str], rules_dir: Path, job: Path) -> dict[str, Any]:
    """Diagnostics of the editor's text (errors and warnings, with positions, as ``mjrules
    check --json`` gives them), and its rule sheet (Markdown) when it compiles."""
    from engine.lang.lint import diagnose, from_error
    from engine.tools.sheet import rule_sheet

    try:
        text = rule_text(raw)
        err = _extends_error(text)
    except RuleError as exc:
        d = from_error(exc, EDITED, "")
        return {"ok": False, "diagnostics": [d.to_json()], "sheet": None, "options": {}}
    if err is not None:
        return {"ok": False, "diagnostics": [from_error(err, EDITED, text).to_json()], "sheet": None, "options": {}}
    path = _job_file(text, job)
    try:
        checked = check_text(path.read_text(encoding="utf-8"), EDITED, options, job)
    except OptionError as exc:
        raise MjError(f"option {exc.option}: {exc.message}", hint=exc.hint) from None
    found = diagnose(checked, EDITED)
    rs = checked.ruleset
    return {"ok": rs is not None, "diagnostics": [d.to_json() for d in found],
            "errors": sum(d.severity == "error" for d in found), "warnings": sum(d.severity == "warning" for d in found),
            "sheet": rule_sheet(rs) if rs is not None else None,
            "options": {k: {"chosen": o.chosen, "default": o.default, "choices": list(o.choices)}
                        for k, o in rs.options.items()} if rs is not None else {}}


def compile_edited(raw: str, options: dict[str, str], rules_dir: Path, job: Path) -> Ruleset:
    """The editor's text compiled (its first error raised as :class:`RuleError`)."""
    path = _job_file(rule_text(raw), job)
    return compile_ruleset(str(path), options)


def diff(raw: str, options: dict[str, str], base: str, base_options: dict[str, str], rules_dir: Path,
         job: Path) -> dict[str, Any]:
    """What the editor's text changes from ``base`` (a bundled or uploaded name), as ``mjrules
    diff --json`` gives it, each rule's place written ``NAME.rules:LINE`` (``edited.rules:13``)."""
    from engine.tools.diff import diff as compare

    ra = compile_ruleset(ruleset_ref(base, rules_dir), base_options)
    rb = compile_edited(raw, options, rules_dir, job)
    changes = compare(ra, rb)
    shown = []
    for c in changes:  # each side at FILE.rules:LINE, the file by its name: no server path on the page
        j = c.to_json()
        for side, rule in (("old", c.old), ("new", c.new)):
            if j[side] is not None and rule is not None and rule.origin is not None:
                j[side]["at"] = f"{Path(rule.origin.file).name}:{rule.origin.line}"
        shown.append(j)
    return {"a": ra.name, "b": rb.name, "changes": shown,
            "added": sum(c.op == "+" for c in changes), "removed": sum(c.op == "-" for c in changes),
            "changed": sum(c.op == "~" for c in changes)}


def scenarios(raw: str, scenario: str, rules_dir: Path, job: Path, max_bytes: int) -> dict[str, Any]:
    """Run a scenario file (``mjrules test``) whose ``ruleset`` is ``edited.rules`` (the
    editor's text) or a bundled or uploaded name; no other path is read."""
    from engine.lang.yamlio import load_text
    from engine.tools.scenario import run_file

    data = str(scenario).encode("utf-8", "surrogatepass")
    if len(data) > max_bytes:
        raise MjError(f"the scenario file is larger than {max_bytes} bytes")
    doc = load_text(str(scenario), SCENARIO)
    ref = doc.get("ruleset") if isinstance(doc, dict) else None
    if not isinstance(ref, str):
        raise MjError("a scenario file names its ruleset: `ruleset: edited.rules` for the editor's text")
    if ref in (EDITED, "./" + EDITED):
        compile_edited(raw, {}, rules_dir, job)  # its errors first, with their lines
    else:
        ruleset_ref(ref, rules_dir)
        if ref not in bundled_ruleset_names():  # an uploaded ruleset: named by its path
            raise MjError(f"ruleset {ref!r}: in the playground a scenario tests the editor's text "
                          "(`ruleset: edited.rules`) or a bundled ruleset")
    job.mkdir(parents=True, exist_ok=True)
    path = job / SCENARIO
    path.write_text(str(scenario), encoding="utf-8")
    results = run_file(path, keep_going=True)
    return {"passed": sum(r.status == "pass" for r in results), "failed": sum(r.status == "fail" for r in results),
            "errors": sum(r.status == "error" for r in results), "cases": [r.to_json() for r in results]}


def impact(raw: str, options: dict[str, str], base: str, base_options: dict[str, str], hands: int, seed: int,
           rules_dir: Path, job: Path, progress: Callable[[int, int], None] | None = None) -> dict[str, Any]:
    """The impact run: ``hands`` seeded hands under ``base`` and under the editor's text.
    Returns ``{"hands", "seed", "report", "markdown"}`` (:func:`impact_adapter`); ``progress(done, total)`` after each block."""
    ra = compile_ruleset(ruleset_ref(base, rules_dir), base_options)
    path = _job_file(rule_text(raw), job)
    rb = compile_ruleset(str(path), options)
    return impact_adapter(ruleset_ref(base, rules_dir), str(path), base_options, options, hands, seed, progress,
                          names=(ra.name, rb.name))


# ---- the impact review (engine/tools/impact.py) ---------------------------------------------------------


def impact_adapter(a: str, b: str, opts_a: dict[str, str], opts_b: dict[str, str], hands: int, seed: int,
                   progress: Callable[[int, int], None] | None = None, names: tuple[str, str] | None = None) -> dict[str, Any]:
    """The impact review of ``mjrules impact`` (:mod:`engine.tools.impact`, greedy bots): the same
    seeded hands under A and B, each re-scored by the other side. Returns ``{"hands", "seed",
    "report": the review's JSON, "markdown"}``; ``progress(done, hands)`` after each block."""
    from engine.tools.impact import impact as review
    from engine.tools.impact_view import markdown

    rep = review(a, opts_a, b, opts_b, hands, seed, ["greedy"],
                 progress=(lambda d: progress(d, hands)) if progress else None)
    return {"hands": hands, "seed": seed, "report": rep.to_json(), "markdown": markdown(rep)}


def location_json(loc: Location | None) -> dict[str, Any] | None:
    """A location as ``{file, line, column}``."""
    return None if loc is None else {"file": loc.file, "line": loc.line, "column": loc.column}
