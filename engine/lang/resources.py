"""Where the grammar and the bundled rulesets are: inside the installed package
(``engine/grammar``, ``engine/rulesets``, put there by the wheel build) or, in a source
checkout, the top-level ``grammar/`` and ``rulesets/`` folders.
"""
from __future__ import annotations

from pathlib import Path

from engine.errors import RuleError, did_you_mean
from engine.lang.limits import MAX_NAME_CHARS

_PKG = Path(__file__).resolve().parent.parent  # engine/


def data_dir(name: str) -> Path:
    """The folder `name` (grammar, rulesets, docs) shipped with the package, or beside it in a
    checkout; :class:`RuntimeError` when it is missing (a packaging bug)."""
    for cand in (_PKG / name, _PKG.parent / name):
        if cand.is_dir():
            return cand
    raise RuntimeError(f"mjrules is installed without its {name}/ folder")  # a packaging bug


def grammar_text() -> str:
    """The Lark grammar of the rule language."""
    return (data_dir("grammar") / "mjrules.lark").read_text(encoding="utf-8")


def rulesets_dir() -> Path:
    """The folder of bundled ``*.rules`` files."""
    return data_dir("rulesets")


def bundled_ruleset_names() -> list[str]:
    """Names of the bundled rulesets, sorted."""
    return sorted(p.stem for p in rulesets_dir().glob("*.rules"))


BUNDLED_SHOWN = "<bundled>/"  # how a bundled rule file is shown, before its name (``<bundled>/NAME.rules``)


def is_bundled_file(file: str | Path) -> bool:
    """True when ``file`` is one of the bundled rule files (in :func:`rulesets_dir`), however it
    was named; False for any other file, or one that cannot be resolved."""
    try:
        return Path(file).resolve().parent == rulesets_dir().resolve()
    except OSError:
        return False


def is_bundled_ref(ref: str) -> bool:
    """True when ``ref`` names a bundled ruleset: a bare name, with no ``/`` (or ``\\``) and no
    ``.rules`` suffix. Anything else is a path to a file."""
    return "/" not in ref and "\\" not in ref and not ref.endswith(".rules")


def resolve_ruleset_path(ref: str, base_dir: Path | None = None) -> Path:
    """The file a ruleset reference names.

    A bare name (:func:`is_bundled_ref`: no ``/``, no ``.rules`` suffix) is ALWAYS a bundled
    ruleset, whatever files the working directory holds; a file is given as a path
    (``./house.rules``, ``house/a.rules``, ``x.rules``, or absolute), relative to ``base_dir``
    (the file that refers to it), else to the working directory.

    A rule file's name ends in ``.rules``, and so does the file a link points to: nothing else
    is read as rules, so a scenario, a record or an ``extends`` naming ``/etc/shadow`` (or a link
    to it) never shows a line of it.

    Raises :class:`RuleError` (no location: the caller adds its own) for a bare name that is not
    bundled (the hint lists the bundled names and how to give a file), a path that does not
    exist, one that is not a regular file (a directory, a device, a pipe), or one whose name (or
    whose link's target) does not end in ``.rules``.
    """
    if not ref or "\x00" in ref:
        raise RuleError(f"{ref[:MAX_NAME_CHARS]!r} is not a ruleset name nor a path", None,
                        hint="give a bundled ruleset name or a path like ./NAME.rules")
    if is_bundled_ref(ref):
        names = bundled_ruleset_names()
        if ref in names:
            return rulesets_dir() / f"{ref}.rules"
        close = did_you_mean(ref, names)
        listing = f"bundled rulesets: {', '.join(names)}; to use a file, give a path like ./{ref}{'' if Path(ref).suffix else '.rules'}"
        raise RuleError(f"no bundled ruleset {ref!r}", None, hint=f"{close} ({listing})" if close else listing)
    p = Path(ref)
    full = p if p.is_absolute() else (base_dir or Path.cwd()) / p
    try:
        if full.is_dir():
            raise RuleError(f"{ref!r} is a directory, not a rule file", None)
        if not full.exists():
            raise RuleError(f"no rule file {ref!r}", None, hint=f"looked for {full}")
        if not full.is_file():
            raise RuleError(f"{ref!r} is not a regular file", None)
        if full.suffix != ".rules" or full.resolve().suffix != ".rules":
            raise RuleError(f"{ref!r} is not a .rules file", None,
                            hint="a rule file's name ends in .rules (a link, too, must point to one)")
    except OSError as exc:  # a name too long, a loop of links, no permission
        raise RuleError(f"cannot open {ref!r}: {exc.strerror}", None) from None
    return full
