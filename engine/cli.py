"""The ``mjrules`` command: check, score, test, export, diff, sheet, simulate, replay, play, fmt and serve.

Exit status (docs/cli.md has the table; ``EXIT_CODES`` below is it, and ``--help`` prints it):
0 success; 1 the answer is "no": a test failed, a diff or replay differs, ``score`` was given a
hand that does not win, ``play`` ran out of input, ``check --strict`` found warnings; 2 bad input (a rule or scenario file, a flag
or its value), with ``file:line:col`` where there is a file, never a traceback; 3 a bug in
mjrules (an internal error, reported in one line); 130 interrupted (Ctrl-C); 141 standard
output closed early (``mjrules … | head``), silently. Every command but ``play``, ``sheet`` and ``lsp``
takes ``--json`` for a program to read.
"""
from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Optional

import typer

from engine.lang.resources import bundled_ruleset_names as list_bundled
from engine.errors import IllegalAction, ImpossibleState, MjError, OptionError, ScenarioError

if TYPE_CHECKING:
    from engine.core.scoring import Scorer

# Start-up: `mjrules --help` imports only typer and the two small modules above; the compiler
# (pydantic, the parser), the scoring core and rich are imported by the commands that use them
# (benchmarks/startup.py measures it).

_FIRST = (list_bundled() or ["RULES"])[0]

EXIT_OK, EXIT_NO, EXIT_BAD_INPUT, EXIT_BUG, EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 0, 1, 2, 3, 130, 141
EXIT_CODES = {  # the exit-code table of docs/cli.md and of `mjrules --help`
    EXIT_OK: "success",
    EXIT_NO: "the answer is no: a test failed, a diff or replay differs, a hand does not win (score), "
             "play ran out of input, check --strict found warnings",
    EXIT_BAD_INPUT: "bad input: a rule or scenario file, a flag or its value (file:line:col where there is a file)",
    EXIT_BUG: "a bug in mjrules: an internal error, reported in one line (MJRULES_DEBUG=1 for the traceback)",
    EXIT_INTERRUPTED: "interrupted (Ctrl-C)",
    EXIT_BROKEN_PIPE: "standard output was closed early (mjrules … | head): stops silently",
}

app = typer.Typer(
    name="mjrules",
    help=(
        "Jiangxi mahjong rule variants as rule files.\n\n"
        "A ruleset is a bundled name (" + ", ".join(list_bundled()) + ") or a path to a .rules file "
        "(a bare name is always bundled: give a file as ./NAME.rules); "
        "`--option name=value` picks the options a file declares.\n\n"
        "Examples:\n\n"
        f"  mjrules check {_FIRST}\n\n"
        f"  mjrules score --rules {_FIRST} --jing 3p --hand S=456m789m123s东西7p3p --win S --tile 南 --by discard --from W\n\n"
        "  mjrules test tests/cases/*.yaml"
    ),
    epilog="Exit status: " + "; ".join(f"{k} {v}" for k, v in EXIT_CODES.items()) + ".",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

def _console(**kwargs):
    """A rich console that, when its reader goes away (``| head``), stops quietly with exit 141
    rather than rich's exit 1 (which means "the answer is no" here)."""
    from rich.console import Console

    class _Console(Console):
        def on_broken_pipe(self) -> None:
            self.quiet = True
            _quiet_exit_on_broken_pipe()

    return _Console(**kwargs)


class _LazyConsole:
    """Stands for a rich console made (and rich imported) at its first use."""

    def __init__(self, **kwargs):
        self._kwargs, self._console = kwargs, None

    def real(self):
        """The rich console itself (for rich's own objects: a progress bar, a player)."""
        if self._console is None:
            self._console = _console(**self._kwargs)
        return self._console

    def __getattr__(self, name: str):
        return getattr(self.real(), name)


# user text (rule names, source lines, hands) is printed literally: no markup, no :emoji: codes
out = _LazyConsole(highlight=False, soft_wrap=True, markup=False, emoji=False)
err = _LazyConsole(stderr=True, highlight=False, soft_wrap=True, markup=False, emoji=False)

# Bounds on the work one command line may ask for (not rules): checked before any work starts.
IMPACT_NAME_WIDTH = 12     # impact tables: the rule/effect column never narrower (it folds)
IMPACT_PIPE_WIDTH = 200    # impact tables are measured at this width and printed as wide as they need
MAX_HANDS = 1_000_000      # simulate -n and diff --impact (about 2 hours of one core with greedy bots)
MAX_PLAY_HANDS = 1_000     # play --hands: a match keeps every hand it has played (~150 KB each)
MAX_SEED = 2**31 - 1       # hand seeds are taken modulo 2**31 (engine.table.match.hand_seed)
MAX_FLOOR = 10_000         # score --floor: the 爬楼 floor multiplies payments
SeedOpt = Annotated[int, typer.Option(min=0, max=MAX_SEED, help="Seed: the same seed gives the same hands and output.")]


def _max_workers() -> int:
    """The most ``--workers`` allowed: twice this machine's CPUs (at least 2)."""
    import os

    return max(2, 2 * (os.cpu_count() or 1))


def _check_count(flag: str, value: int, most: int, what: str) -> None:
    """:class:`MjError` naming ``flag`` when ``value`` is over ``most`` (exit 2 before any work)."""
    if value > most:
        raise MjError(f"{flag} {value}: at most {most:,} {what}",
                      hint="split the work into several runs with different --seed" if "hands" in what else None)

RulesOpt = Annotated[str, typer.Option("--rules", "-r", metavar="RULES",
                                       help="Bundled ruleset name or path to a .rules file.")]
OptionOpt = Annotated[Optional[list[str]], typer.Option("--option", "-o", metavar="NAME=VALUE",
                                                        help="Choose an option the rule file declares (repeatable).")]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")]
FileArg = Annotated[str, typer.Argument(metavar="FILE", help="A .rules file or a bundled ruleset name.")]
BackendOpt = Annotated[str, typer.Option(metavar="local|ray", help="Where blocks of hands run: local processes, or Ray tasks (pip install 'mjrules[ray]'); the output does not depend on it.")]
AddressOpt = Annotated[Optional[str], typer.Option(metavar="HOST:PORT", help="With --backend ray: the Ray cluster to use (its head's address, or auto); else a local Ray of --workers CPUs.")]


def _name_values(specs: list[str] | None, flag: str, example: str) -> dict[str, str]:
    """``NAME=VALUE`` flags as a dict; :class:`MjError` naming the flag for a malformed one."""
    out = {}
    for spec in specs or []:
        if "=" not in spec:
            raise MjError(f"{flag} {spec!r} is not NAME=VALUE", hint=f"e.g. {flag} {example}")
        k, v = spec.split("=", 1)
        out[k.strip()] = v.strip()
    return out


def _options(pairs: list[str] | None) -> dict[str, str]:
    return _name_values(pairs, "--option", "NAME=VALUE, with a name the rule file declares")


def _option_error(exc: OptionError, flag: str = "--option") -> MjError:
    """An unknown option or choice given on the command line, reported about the flag that gave
    it (``--option NAME=VALUE: …``, the hint listing the choices), not at the rule file."""
    spec = f"{flag} {exc.option}" + (f"={exc.value}" if exc.value is not None else "")
    return MjError(f"{spec}: {exc.message}", hint=exc.hint)


def compile_ruleset(ref: str, options: dict[str, str] | None = None):
    """:func:`engine.lang.compiler.compile_ruleset`, the compiler imported at its first use."""
    from engine.lang.compiler import compile_ruleset as compile_

    return compile_(ref, options)


def _compile(ref: str, option: list[str] | None, as_json: bool):
    """The ruleset, or the compile error printed and exit 2."""
    try:
        return compile_ruleset(ref, _options(option))
    except OptionError as exc:
        _fail(_option_error(exc), as_json)
    except MjError as exc:
        _fail(exc, as_json)


def _fail(exc: MjError, as_json: bool, code: int = 2) -> None:
    if as_json:
        print(json.dumps(exc.to_json(), ensure_ascii=False, indent=2))
    else:
        err.print(exc.render(), markup=False)
    raise typer.Exit(code)


# ---- check ------------------------------------------------------------------------------------


CodesOpt = Optional[list[str]]


@app.command()
def check(files: Annotated[list[str], typer.Argument(metavar="FILE...", help="Rule files or bundled ruleset names.")],
          option: OptionOpt = None, as_json: JsonOpt = False,
          select: Annotated[CodesOpt, typer.Option("--select", metavar="CODES",
                                                   help="Report only these warnings: codes or prefixes, comma-separated (default: W, all).")] = None,
          extend_select: Annotated[CodesOpt, typer.Option("--extend-select", metavar="CODES",
                                                          help="Report these warnings as well as the selected ones.")] = None,
          ignore: Annotated[CodesOpt, typer.Option("--ignore", metavar="CODES",
                                                   help="Do not report these warnings.")] = None,
          strict: Annotated[bool, typer.Option("--strict", help="Exit 1 when there are warnings (and no error).")] = False,
          ) -> None:
    """Compile rule files: every error (exit 2) and warning of each, with its code (docs/cli.md).

    A file with no error also gets its summary (what it declares, its options). Warnings alone
    exit 0 (1 with --strict). `# noqa` or `# noqa: W201` on a line drops its warnings."""
    from engine.lang.compiler import check_text, read_rule_file
    from engine.lang.lint import Selection, diagnose, from_error
    from engine.lang.resources import resolve_ruleset_path

    def codes(flag: str, values: list[str] | None) -> list[str] | None:
        if values is None:
            return None
        out = [c.strip() for v in values for c in v.split(",") if c.strip()]
        for c in out:
            if not Selection(select=[c]).valid():
                _fail(MjError(f"{flag} {c!r}: no code starts with {c!r}",
                              hint="the codes are listed in docs/cli.md (E… errors, W… warnings)"), as_json)
        return out

    selection = Selection(select=codes("--select", select), extend_select=codes("--extend-select", extend_select) or [],
                          ignore=codes("--ignore", ignore) or [])
    options = None
    try:
        options = _options(option)
    except MjError as exc:
        _fail(exc, as_json)
    reports, diagnostics, bad = [], [], 0
    for ref in files:
        try:
            path = resolve_ruleset_path(ref)
        except MjError as exc:  # not a rule file at all: said as any command says it
            if as_json:
                reports.append({**exc.to_json(), "file": ref, "ok": False})
            else:
                err.print(exc.render(), markup=False)
            bad += 1
            continue
        rs = None
        try:
            text = read_rule_file(path)
        except MjError as exc:  # not readable as a rule file: one error at its place
            found = [from_error(exc, str(path))]
        else:
            try:  # one compile, every error and warning (engine/lang/lint.py)
                checked = check_text(text, str(path), options, path.parent)
            except OptionError as exc:
                _fail(_option_error(exc), as_json)
            found = diagnose(checked, str(path), selection)
            if not checked.errors:
                rs = checked.ruleset
        diagnostics += found
        report = {"file": str(path), "ok": rs is not None}
        if rs is not None:
            report.update(_check_summary(rs))
        reports.append(report)
        if not as_json:
            if report["ok"]:
                _print_check_summary(rs)
            for d in found:
                err.print(d.error.render() if d.error is not None else d.concise(), markup=False)
    n_warn = sum(d.severity == "warning" for d in diagnostics)
    n_err = len(diagnostics) - n_warn + bad  # a name that is no rule file is an error too
    if as_json:
        data = {"ok": not bad and n_err == 0, "errors": n_err, "warnings": n_warn,
                "diagnostics": [d.to_json() for d in diagnostics], "files": reports}
        if len(reports) == 1:  # one file: its summary, or its first error, where they were before
            first = next((d.error for d in diagnostics if d.error is not None), None)
            data.update({k: v for k, v in {**reports[0], **(first.to_json() if first else {})}.items()
                         if k not in data})
        print(json.dumps(data, ensure_ascii=False, indent=2))
    elif diagnostics or (bad and len(files) > 1):
        err.print(f"Found {n_err} error{'s' * (n_err != 1)}, {n_warn} warning{'s' * (n_warn != 1)}.", markup=False)
    if bad or n_err:
        raise typer.Exit(EXIT_BAD_INPUT)
    if n_warn and strict:
        raise typer.Exit(EXIT_NO)


def _check_summary(rs) -> dict:
    counts = {
        "tile kinds": sum(len(range(s.low, s.high + 1)) for s in rs.suits.values()) + sum(len(h.tiles) for h in rs.honours.values()),
        "melds": len(rs.melds), "patterns": len(rs.patterns), "indicators": len(rs.indicators),
        "jing rules": len(rs.jing), "fans": len(rs.fans), "payments": len(rs.payments),
        "factors": len(rs.factors), "flow policies": len(rs.flow),
    }
    return {"ruleset": rs.name, "extends": rs.extends, "counts": counts,
            "options": {k: o.chosen for k, o in rs.options.items()}}


def _print_check_summary(rs) -> None:
    counts = _check_summary(rs)["counts"]
    chain = f" (extends {' ← '.join(reversed(rs.extends))})" if rs.extends else ""
    out.print(f"ok: {rs.name}{chain} — {rs.label or ''}".rstrip(" —"), markup=False)
    out.print("  " + ", ".join(f"{v} {k}" for k, v in counts.items()), markup=False)
    for o in rs.options.values():
        out.print(f"  option {o.name} = {o.chosen} (default {o.default}; choices {', '.join(o.choices)})", markup=False)


@app.command()
def lsp() -> None:
    """Run the rule-file language server on stdin/stdout, for an editor (needs the `lsp` extra:
    pip install 'mjrules[lsp]'): diagnostics, hover, completion, go to definition, outline, formatting."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        _fail(MjError("`mjrules lsp` needs pygls, which is not installed",
                      hint="pip install 'mjrules[lsp]'"), False)
    from engine.tools.lsp import serve

    serve()


@app.command()
def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    data: Annotated[Optional[Path], typer.Option(metavar="DIR", help="The server's data folder (uploaded rule files, work files); default ~/.local/share/mjrules/serve.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Say where it listens as one line of JSON (url, data folder), and errors as JSON.")] = False,
) -> None:
    """Play and edit rules in a browser (needs the `serve` extra: pip install 'mjrules[serve]'):
    a table against three bots, replays, and a rule playground (diagnostics as you type, rule
    sheet, diff, scenarios, impact runs). Listens on 127.0.0.1 unless --host says otherwise."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        _fail(MjError("`mjrules serve` needs starlette and uvicorn, which are not installed",
                      hint="pip install 'mjrules[serve]'"), as_json)
    from engine.tools.server import default_data_dir, listen, serve as run

    folder = data or default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        _fail(MjError(f"--data {folder}: cannot make the data folder: {exc.strerror or exc}"), as_json)
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"note: listening on {host}: anyone who can reach it can play and run rule files here", markup=False)
    try:  # bound before anything is said: a taken port is bad input, not a server that started
        sock = listen(host, port)
    except OSError as exc:
        _fail(MjError(f"--port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}",
                      hint="another program uses that port: try another --port"), as_json)
    url = f"http://{host}:{port}/"
    if as_json:
        print(json.dumps({"url": url, "data": str(folder)}), flush=True)
    else:
        out.print(f"mjrules serve: {url}  (data folder {folder}; Ctrl-C stops it)", markup=False)
    run(host, port, folder, sock=sock)


# ---- export -----------------------------------------------------------------------------------


@app.command()
def export(file: FileArg, option: OptionOpt = None, as_json: JsonOpt = False) -> None:
    """Print the resolved ruleset (after extends, overrides and options) as YAML, in a stable order."""
    from engine.table.records import to_yaml

    rs = _compile(file, option, as_json)
    data = rs.model_dump(mode="json")
    if as_json:
        print(json.dumps(data, ensure_ascii=False, indent=2))
        return
    sys.stdout.write(to_yaml(data, compact=False))


# ---- score ------------------------------------------------------------------------------------


def _hands(scorer: Scorer, specs: list[str]) -> dict:
    """``--hand`` flags → the scenario notation of each seat's hand, checked: an error names the
    flag and the value it was given in."""
    from engine.core.snapshot import parse_hand, seats_of

    seats = seats_of(scorer)
    hands: dict = {}
    for spec in specs:
        seat, value = _hand_arg(scorer, spec)
        if seat not in seats:
            raise ScenarioError(f"--hand {spec!r}: no seat {seat!r}", hint=f"seats: {' '.join(seats)}")
        if seat in hands:
            raise ScenarioError(f"--hand gives seat {seat} twice", hint="one --hand per seat: SEAT=TILES; MELD; …")
        try:
            parse_hand(scorer, value, seats)
        except MjError as exc:
            raise _flag_error("--hand", spec, exc) from None
        hands[seat] = value
    return hands


def _hand_arg(scorer: Scorer, spec: str) -> tuple[str, object]:
    if "=" not in spec:
        raise ScenarioError(f"--hand {spec!r}: write SEAT=TILES[; MELD; MELD]",
                            hint="e.g. --hand 'N=1s; pung 777p from W; kong 8888m concealed'")
    seat, rest = spec.split("=", 1)
    parts = [p.strip() for p in rest.split(";")]
    if len(parts) == 1:
        return seat.strip(), parts[0]
    return seat.strip(), {"concealed": parts[0], "melds": [p for p in parts[1:] if p]}


def _flag_error(flag: str, value: str, exc: MjError) -> MjError:
    """``exc`` (about a flag's value) restated to name the flag: ``--jing 'x9': cannot read …``."""
    return type(exc)(f"{flag} {value!r}: {exc.message}", hint=exc.hint)


def _tile_flag(scorer: Scorer, flag: str, value: str) -> int:
    """The one tile a flag names, or :class:`ScenarioError` naming the flag."""
    try:
        return scorer.tiles.parse_one(value)
    except MjError as exc:
        raise _flag_error(flag, value, exc) from None


def _check_score_flags(scorer: Scorer, *, win, tile, by, from_, first_turn, dealer, jing, lower) -> None:
    """Refuse, naming the flag, a value ``score`` cannot use and a flag it would ignore:
    ``--tile/--by/--from/--first-turn`` without ``--win``, ``--from`` on a self-draw."""
    from engine.core.scoring import WIN_BY
    from engine.core.snapshot import seats_of

    seats = seats_of(scorer)
    hint = f"seats: {' '.join(seats)}"
    for flag, value in (("--win", win), ("--from", from_), ("--dealer", dealer)):
        if value is not None and value not in seats:
            raise ScenarioError(f"{flag} {value!r} is not a seat", hint=hint)
    if by is not None and by not in WIN_BY:
        raise ScenarioError(f"--by {by!r} is not one of {', '.join(WIN_BY)}")
    for flag, value in (("--tile", tile), ("--jing", jing), ("--lower", lower)):
        if value is not None:
            _tile_flag(scorer, flag, value)
    if win is None:
        given = [f for f, v in (("--tile", tile), ("--by", by), ("--from", from_), ("--first-turn", first_turn or None))
                 if v is not None]
        if given:
            raise ScenarioError(f"{'/'.join(given)} describe{'s' if len(given) == 1 else ''} a win, but no --win is given",
                                hint="add --win SEAT, or leave out " + " and ".join(given) + " to score a 荒庄")
        return
    how = by or "self_draw"
    if tile is None:
        raise ScenarioError("--win needs --tile (the winning tile)")
    if from_ and how in ("self_draw", "kong_draw"):
        raise ScenarioError(f"--from is for a discard or a robbed kong, not a {how}",
                            hint="leave out --from, or use --by discard / rob_kong")
    if how in ("discard", "rob_kong") and from_ is None:
        raise ScenarioError(f"--by {how} needs --from SEAT: the seat whose tile was taken", hint=hint)
    if from_ == win:
        raise ScenarioError(f"--from {from_} is the winner: a seat cannot win on its own tile")


def _indicator_flags(scorer: Scorer, specs: list[str] | None) -> dict[str, str]:
    """``--indicator NAME=TILE`` flags, each name declared and each tile readable."""
    pairs = _name_values(specs, "--indicator", "left=5p")
    names = [spec.split("=", 1)[0].strip() for spec in specs or []]
    twice = next((n for n in names if names.count(n) > 1), None)
    if twice is not None:
        raise ScenarioError(f"--indicator gives {twice!r} twice", hint="one --indicator NAME=TILE per indicator")
    for name, value in pairs.items():
        if name not in scorer.rs.indicators:
            raise ScenarioError(f"--indicator {name}={value}: the ruleset declares no indicator {name!r}",
                                hint="indicators: " + ", ".join(scorer.rs.indicators))
        try:
            scorer.tiles.parse_one(value)
        except MjError as exc:
            raise _flag_error("--indicator", f"{name}={value}", exc) from None
    return pairs


def _score_notes(scorer: Scorer, jing: str | None, others: dict) -> list[str]:
    """What ``score`` says on stderr (and under ``notes`` in JSON) about its input: that no 精
    was given when the ruleset has a wild indicator."""
    from engine.core.snapshot import wild_indicator

    name = wild_indicator(scorer)
    if name is None or jing is not None or name in others:
        return []
    return [f"no --jing given: scored with no {scorer.rs.indicators[name].label or name} flipped "
            "(no 精 wilds, no 精 settlement); give --jing TILE for the indicator tile"]


@app.command()
def score(
    rules: RulesOpt,
    hand: Annotated[list[str], typer.Option("--hand", "-H", metavar="SEAT=TILES", help="SEAT=TILES[; MELD; …], e.g. 'S=456m789m123s东西7p3p' or 'N=1s; pung 777p from W'. Repeat per seat.")],
    jing: Annotated[Optional[str], typer.Option(metavar="TILE", help="The upper (上精) indicator tile: 正精 = it, 副精 = the next.")] = None,
    lower: Annotated[Optional[str], typer.Option(metavar="TILE", help="The lower (下精) indicator tile.")] = None,
    indicator: Annotated[Optional[list[str]], typer.Option("--indicator", metavar="NAME=TILE", help="Any other indicator the ruleset declares, e.g. left=5p or 回头=3p (repeatable).")] = None,
    win: Annotated[Optional[str], typer.Option("--win", metavar="SEAT", help="The winning seat; leave out for a 荒庄 (drawn hand).")] = None,
    tile: Annotated[Optional[str], typer.Option(metavar="TILE", help="The winning tile.")] = None,
    by: Annotated[Optional[str], typer.Option(metavar="HOW", help="discard, self_draw (the default with --win), kong_draw (杠开) or rob_kong (抢杠).")] = None,
    from_: Annotated[Optional[str], typer.Option("--from", metavar="SEAT", help="Seat that discarded (discard) or whose kong is robbed.")] = None,
    first_turn: Annotated[bool, typer.Option("--first-turn", help="Marks 天胡 (the dealer self-draws on the deal) or 地胡 (a win on the dealer's first discard).")] = False,
    dealer: Annotated[Optional[str], typer.Option(metavar="SEAT", help="Dealer seat (default: the first seat).")] = None,
    floor: Annotated[int, typer.Option(min=1, max=MAX_FLOOR, help="The dealer's 爬楼 floor.")] = 1,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """Score one hand: the win (or 荒庄) and each 精 settlement, as a ledger that explains every 子.

    Hands use the scenario notation: the winner's concealed tiles exclude the winning tile.
    Without --jing the hand is scored with no 精 flipped (no wilds, no 精 settlement), and a
    note on stderr says so. A bad value of any flag exits 2 naming the flag; a hand that is not
    a winning hand exits 1.
    """
    from engine.core.scoring import Ledger, Scorer
    from engine.core.snapshot import build_snapshot

    try:
        rs = compile_ruleset(rules, _options(option))
        scorer = Scorer(rs)
        _check_score_flags(scorer, win=win, tile=tile, by=by, from_=from_, first_turn=first_turn,
                           dealer=dealer, jing=jing, lower=lower)
        hands = _hands(scorer, hand)
        w = None
        if win:
            w = {"seat": win, "tile": tile, "by": by or "self_draw", "first_turn": first_turn}
            if from_:
                w["from"] = from_
        others = _indicator_flags(scorer, indicator)
        notes = _score_notes(scorer, jing, others)
        for note in [] if as_json else notes:  # before the result, or the refusal it may explain
            err.print(f"note: {note}", markup=False)
        snap = build_snapshot(scorer, hands=hands, jing=jing, lower=lower, dealer=dealer, floor=floor, win=w,
                              indicators=others or None)
        end_parts, winres = scorer.settle_end_parts(snap)
        parts = dict(end_parts)  # the hand, and the indicators settled at the end …
        for name in snap.indicators:  # … and those settled after the deal, for the table
            if name not in parts:
                parts[name] = scorer.settle_indicator(snap, name)
        total = Ledger.joined(lg for _, lg in end_parts)
    except ImpossibleState as exc:  # a table the game could not produce: bad input
        _fail(exc, as_json)
    except IllegalAction as exc:  # a possible table, but no win the ruleset allows
        _fail(exc, as_json, code=1)
    except OptionError as exc:
        _fail(_option_error(exc), as_json)
    except MjError as exc:
        _fail(exc, as_json)
    seats = snap.seats
    nets = {k: lg.net(seats) for k, lg in parts.items()}
    nets["total"] = total.net(seats)
    if as_json:
        print(json.dumps({
            "ruleset": rs.name,
            "reading": winres and {"pattern": winres.reading.pattern, "wilds": winres.reading.wilds,
                                   "jing_wait": winres.reading.jing_wait},
            "fans": winres.fans if winres else [],
            "transfers": [{"part": t.part, "payer": t.payer, "payee": t.payee, "amount": t.amount, "rule": t.rule,
                           "factors": list(t.factors)} for lg in parts.values() for t in lg.transfers],
            "net": nets,
            "settled_at_end": [k for k, ind in rs.indicators.items() if ind.settle == "at_end"],
            "notes": notes,
        }, ensure_ascii=False, indent=2))
        return
    _print_score(scorer, snap, parts, nets, winres)


def _print_score(scorer, snap, parts, nets, winres) -> None:
    from rich.table import Table

    rs = scorer.rs
    out.print(f"ruleset {rs.name}" + (f" — {rs.label}" if rs.label else ""), markup=False)
    for name, k in snap.indicators.items():
        main, nxt = scorer.jing_kinds(k)
        label = rs.indicators[name].label or name
        out.print(f"{label} ({name}): 正精 {scorer.tiles.code(main)}, 副精 {scorer.tiles.code(nxt) if nxt is not None else '-'}",
                  markup=False)
    if winres:
        w = snap.win
        r = winres.reading
        how = {"discard": f"on {w.from_seat}'s discard", "self_draw": "self-drawn (自摸)",
               "kong_draw": "on a kong replacement (杠开)", "rob_kong": f"robbing {w.from_seat}'s kong (抢杠)"}[w.by]
        out.print(f"win: {w.seat} on {scorer.tiles.code(w.tile)} {how}; reading {r.pattern}, "
                  f"{r.wilds} 精 as wild{', 精钓' if r.jing_wait else ''}", markup=False)
        fans = Table(title="rules of the win", title_justify="left")
        fans.add_column("rule")
        fans.add_column("effect")
        fans.add_row(f"pattern.{r.pattern}", "the reading scored (best for the winner)")
        pay = next((n for n in winres.ledger.fired if n in rs.payments), None)
        if pay:
            fans.add_row(f"payment.{pay}", ", ".join(f"{k} x{v}" for k, v in rs.payments[pay].weights.items()))
        for name in winres.fans:
            f = rs.fans[name]
            eff = []
            if f.fixed:
                eff.append(f"fixed {f.fixed.amount} each")
            if f.multiplier != 1:
                eff.append(f"x{f.multiplier}")
            eff += [f"+{a.amount} from {a.payer}" + (f" else {a.fallback}" if a.fallback else "") for a in f.adders]
            fans.add_row(f"fan.{name}", ", ".join(eff))
        out.print(fans)
    else:
        out.print("no win: 荒庄 (exhaustive draw)", markup=False)
    led = Table(title="ledger", title_justify="left")
    for c in ("part", "payer → payee", "子", "how"):
        led.add_column(c, justify="right" if c == "子" else "left")
    for part, lg in parts.items():
        for t in lg.transfers:
            led.add_row(part, f"{t.payer} → {t.payee}", str(t.amount), " · ".join(t.factors))
    out.print(led)
    net = Table(title="net 子 per seat", title_justify="left")
    net.add_column("seat")
    for k in nets:
        net.add_column(k, justify="right")
    for s in snap.seats:
        net.add_row(s, *[f"{nets[k][s]:+d}" for k in nets])
    out.print(net)
    at_end = [k for k, ind in rs.indicators.items() if ind.settle == "at_end"]
    out.print(f"total = hand + the settlements made at the end ({', '.join(at_end) or 'none'})", markup=False)


# ---- test -------------------------------------------------------------------------------------


@app.command()
def test(
    files: Annotated[list[Path], typer.Argument(metavar="FILE...", help="Scenario YAML files (docs/scenarios.md, format v1); the ruleset and options come from each file.")],
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Explain passing cases too.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Run scenario files: a PASS/FAIL line per case (ERROR for a file or case that cannot be run;
    the rest still run) and `N passed, M failed` (`, K errors` when there are any).

    Exit 2 when any file or case is an error, else 1 when any case fails, else 0.
    """
    from engine.tools.scenario import run_files

    results = run_files(files, keep_going=True)
    passed = sum(r.status == "pass" for r in results)
    failed = sum(r.status == "fail" for r in results)
    errors = sum(r.status == "error" for r in results)
    if as_json:
        print(json.dumps({"passed": passed, "failed": failed, "errors": errors,
                          "cases": [r.to_json() for r in results]}, ensure_ascii=False, indent=2))
    else:
        for r in results:
            if r.error is not None:
                out.print(f"ERROR {r.name if r.name is not None else r.file}", markup=False)
                out.print("    " + r.error.render().replace("\n", "\n    "), markup=False)
                continue
            out.print(f"{'PASS' if r.passed else 'FAIL'} {r.name}", markup=False)
            for d in r.differences:
                out.print(f"    {d}", markup=False)
            if not r.passed or verbose:
                if r.fired:
                    out.print(f"    fired: {', '.join(r.fired)}", markup=False)
                for e in r.explanation:
                    out.print(f"    {e}", markup=False)
        out.print(f"{passed} passed, {failed} failed" + (f", {errors} error{'s' * (errors != 1)}" if errors else ""),
                  markup=False)
    raise typer.Exit(2 if errors else 1 if failed else 0)


# ---- diff -----------------------------------------------------------------------------------------


@app.command()
def diff(
    a: Annotated[str, typer.Argument(metavar="A", help="The ruleset before: a bundled name or a .rules file.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The ruleset after.")],
    impact: Annotated[int, typer.Option(metavar="N", min=0, help="Also play N paired hands (greedy bots, the same seeds) and print the `mjrules impact` report.")] = 0,
    seed: Annotated[Optional[int], typer.Option(min=0, max=MAX_SEED, help="Seed of the --impact hands (default 1).")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option for each side that declares it (repeatable).")] = None,
    option_b: Annotated[Optional[list[str]], typer.Option("--option-b", metavar="NAME=VALUE", help="An option for B only: diff a ruleset against one of its options.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """What B changes from A, rule path by rule path: + added, - removed, ~ changed (old → new),
    each with the file and line it comes from. Exit 0 when they are the same, 1 when they differ.

    With --impact N, the same N hands (same seeds, same bots) are played under A and under B and
    each is re-scored by the other side: the `mjrules impact` report follows the rule diff
    (docs/impact.md; `mjrules impact` takes --bots, --workers and --format too)."""
    from engine.tools.diff import diff as compare, where

    try:
        _check_count("--impact", impact, MAX_HANDS, "hands under each ruleset")
        if seed is not None and not impact:
            raise MjError("--seed is the seed of the --impact hands, and no --impact is given",
                          hint="add --impact N, or leave out --seed")
        seed = 1 if seed is None else seed
    except MjError as exc:
        _fail(exc, as_json)
    opts_a, opts_b, ra, rb = _two_sides(a, b, option, option_b, as_json)
    changes = compare(ra, rb)
    effect = _impact(a, b, opts_a, opts_b, impact, seed, show=not as_json and err.is_terminal,
                     as_json=as_json) if impact else None
    counts = {op: sum(c.op == op for c in changes) for op in "+-~"}
    summary = (f"{len(changes)} difference{'s' if len(changes) != 1 else ''}: {counts['+']} added, "
               f"{counts['-']} removed, {counts['~']} changed") if changes else "no differences"
    if as_json:
        print(json.dumps({"a": ra.name, "b": rb.name, "changes": [c.to_json() for c in changes],
                          "added": counts["+"], "removed": counts["-"], "changed": counts["~"],
                          **({"impact": effect.to_json()} if effect else {})}, ensure_ascii=False, indent=2))
    else:
        out.print(f"--- {ra.name}  ({where_file(ra)})", markup=False)
        out.print(f"+++ {rb.name}  ({where_file(rb)})", markup=False)
        for c in changes:
            if c.op == "~":
                out.print(f"~ {c.path}", markup=False)
                out.print(f"    - {c.old.text}    [{where(c.old.origin)}]", markup=False)
                out.print(f"    + {c.new.text}    [{where(c.new.origin)}]", markup=False)
            else:
                r = c.new or c.old
                out.print(f"{c.op} {c.path} = {r.text}    [{where(r.origin)}]", markup=False)
        out.print(summary, markup=False)
        if effect:
            _print_impact(effect)
    raise typer.Exit(1 if changes else 0)


def _two_sides(a: str, b: str, option: list[str] | None, option_b: list[str] | None, as_json: bool):
    """(options of A, options of B, ruleset A, ruleset B): ``--option`` goes to each side that
    declares it, ``--option-b`` to B only; a bad option or ruleset prints its error, exit 2."""
    only_b: dict[str, str] = {}
    try:
        both, only_b = _options(option), _name_values(option_b, "--option-b", "NAME=VALUE")
        opts_a, opts_b = _declared_options(a, both), {**_declared_options(b, both), **only_b}
        unknown = set(both) - set(opts_a) - set(opts_b)
        if unknown:
            raise MjError(f"unknown option {sorted(unknown)[0]!r}: neither {a} nor {b} declares it")
        return opts_a, opts_b, compile_ruleset(a, opts_a), compile_ruleset(b, opts_b)
    except OptionError as exc:
        _fail(_option_error(exc, "--option-b" if exc.option in only_b else "--option"), as_json)
    except MjError as exc:
        _fail(exc, as_json)


@app.command()
def impact(
    a: Annotated[str, typer.Argument(metavar="A", help="The ruleset before: a bundled name or a .rules file.")],
    b: Annotated[str, typer.Argument(metavar="B", help="The ruleset after.")],
    n: Annotated[int, typer.Option("-n", "--hands", min=1, help="Paired hands: each is played under A and under B.")] = 1000,
    seed: SeedOpt = 1,
    bots: Annotated[str, typer.Option(metavar="KIND[,KIND…]", help="Bot per seat: greedy, random or value (value chases what this rule file pays); one kind for all, or one per seat.")] = "greedy",
    workers: Annotated[int, typer.Option(min=1, help="Processes to play in (at most twice the CPUs); the output does not depend on it.")] = 1,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option for each side that declares it (repeatable).")] = None,
    option_b: Annotated[Optional[list[str]], typer.Option("--option-b", metavar="NAME=VALUE", help="An option for B only: measure one of a ruleset's options.")] = None,
    fmt: Annotated[str, typer.Option("--format", metavar="FORMAT", help="table (default) or markdown (a pull-request comment).")] = "table",
    backend: BackendOpt = "local",
    address: AddressOpt = None,
    as_json: JsonOpt = False,
) -> None:
    """What B changes from A, played: the same seeded hands under both (paired), each re-scored by
    the other side. Effects per hand (B − A, mean with 95% CI) by role: total, scoring (the
    same hands, no play noise), play; each changed rule's firing count and scoring effect, with
    a warning for a changed rule never exercised. docs/impact.md explains the plan."""
    import time

    try:
        _check_count("-n/--hands", n, MAX_HANDS, "paired hands in one run")
        _check_count("--workers", workers, _max_workers(), "(twice this machine's CPUs)")
        _check_bots(bots)
        if fmt not in ("table", "markdown"):
            raise MjError(f"--format {fmt!r}: give table or markdown")
        from engine.tools.runner import check_backend

        check_backend(backend, address)
    except MjError as exc:
        _fail(exc, as_json)
    opts_a, opts_b, _, _ = _two_sides(a, b, option, option_b, as_json)
    started = time.perf_counter()
    report = _impact(a, b, opts_a, opts_b, n, seed, bots, workers, show=not as_json and err.is_terminal,
                     as_json=as_json, backend=backend, address=address)
    elapsed = time.perf_counter() - started
    if as_json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    elif fmt == "markdown":
        from engine.tools.impact import markdown

        print(markdown(report, _impact_command(a, b, n, seed, bots, option, option_b)), end="")
    else:
        _print_impact(report)
    err.print(f"{n} paired hands in {elapsed:.1f}s ({n / max(elapsed, 1e-9):.1f} paired hands/s)",
              markup=False, style="dim")


def _impact_command(a: str, b: str, n: int, seed: int, bots: str, option, option_b) -> str:
    """The command line that makes a report (shown in its Markdown)."""
    words = ["mjrules", "impact", a, b, "-n", str(n), "--seed", str(seed), "--bots", bots]
    words += [w for o in option or [] for w in ("--option", o)] + [w for o in option_b or [] for w in ("--option-b", o)]
    return " ".join(words)


def _declared_options(ref: str, opts: dict[str, str]) -> dict[str, str]:
    """The options of ``opts`` that ruleset ``ref`` declares."""
    declared = compile_ruleset(ref).options
    return {k: v for k, v in opts.items() if k in declared}


def _impact(a: str, b: str, opts_a: dict, opts_b: dict, hands: int, seed: int, bots: str = "greedy",
            workers: int = 1, show: bool = False, as_json: bool = False, backend: str = "local",
            address: str | None = None):
    """Paired hands under A and B (engine/tools/impact.py): the :class:`Report`; a progress bar
    on stderr when ``show``. Exit 2 on bad input."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from engine.tools.impact import impact as run

    try:
        with Progress(TextColumn("impact"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err.real(), disable=not show, transient=True) as prog:
            task = prog.add_task("hands", total=hands)
            return run(a, opts_a, b, opts_b, hands, seed, bots.split(","), workers,
                       progress=lambda done: prog.update(task, completed=done), backend=backend, address=address)
    except MjError as exc:
        _fail(exc, as_json)


def _print_impact(report) -> None:
    """The impact report as rich tables (the sections of docs/impact.md)."""
    from rich.table import Table

    from engine.tools.impact import heading, sections

    title, sub = heading(report)
    out.print(title, markup=False)
    out.print(sub, markup=False, style="dim")
    for s in sections(report):
        if s.columns:
            t = Table(title=s.title, title_justify="left")
            for i, c in enumerate(s.columns):  # numbers are never cut; the first column folds
                t.add_column(c, justify="left" if i == 0 else "right", no_wrap=i > 0, overflow="fold",
                             min_width=IMPACT_NAME_WIDTH if i == 0 else None)
            for row in s.rows:
                t.add_row(*row)
            console = out.real()  # as wide as the table needs: a cut number is worse than a long line
            width = console.width
            console.width = IMPACT_PIPE_WIDTH
            console.width = max(width, console.measure(t).maximum)
            try:
                console.print(t)
            finally:
                console.width = width
            for line in s.lines:
                out.print(line, markup=False, style="dim")
        else:
            out.print(s.title, markup=False)
            for line in s.lines:
                out.print(f"  - {line}", markup=False)


def where_file(rs) -> str:
    """A ruleset's file as shown in diff headers, with its extends chain."""
    from engine.tools.diff import short_path

    return short_path(rs.file) + (f", extends {' ← '.join(reversed(rs.extends))}" if rs.extends else "")


# ---- simulate, replay, play ---------------------------------------------------------------------


@app.command()
def simulate(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Bundled ruleset name or path to a .rules file.")],
    n: Annotated[int, typer.Option("-n", "--hands", min=1, help="How many hands.")] = 100,
    seed: SeedOpt = 1,
    bots: Annotated[str, typer.Option(metavar="KIND[,KIND…]", help="Bot per seat: greedy, random or value; one kind for all, or one per seat.")] = "greedy",
    workers: Annotated[int, typer.Option(min=1, help="Processes to play in (at most twice the CPUs); the output does not depend on it.")] = 1,
    records: Annotated[Optional[Path], typer.Option(metavar="DIR", help="Save every hand's record (YAML) in DIR; `mjrules replay` plays one again.")] = None,
    option: OptionOpt = None,
    as_json: JsonOpt = False,
    backend: BackendOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Play many hands with bots and summarise them: wins by seat, patterns, fans, 精 rules, 子 per hand.

    Hands run as matches (the deal rotates, floors climb) in blocks seeded from --seed alone.
    """
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from engine.tools.runner import check_backend
    from engine.tools.simulate import simulate as run

    try:
        _check_count("-n/--hands", n, MAX_HANDS, "hands in one run")
        _check_count("--workers", workers, _max_workers(), "(twice this machine's CPUs)")
        _check_bots(bots)
        check_backend(backend, address)
        opts = _options(option)
        _writable_dir(records, "--records")
    except MjError as exc:
        _fail(exc, as_json)
    _compile(rules, option, as_json)
    started = time.perf_counter()
    show = not as_json and err.is_terminal
    try:
        with Progress(TextColumn("simulating"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                      console=err.real(), disable=not show, transient=True) as prog:
            task = prog.add_task("hands", total=n)
            summary = run(rules, opts, n, seed, bots.split(","), workers, records,
                          progress=lambda done: prog.update(task, completed=done), backend=backend, address=address)
    except MjError as exc:
        _fail(exc, as_json)
    elapsed = time.perf_counter() - started
    data = summary.to_json()
    if as_json:
        print(json.dumps({"ruleset": rules, "seed": seed, "bots": bots, **data}, ensure_ascii=False, indent=2))
    else:
        _print_summary(rules, seed, bots, data)
    err.print(f"{summary.hands} hands in {elapsed:.1f}s ({summary.hands / max(elapsed, 1e-9):.1f} hands/s)",
              markup=False, style="dim")


def _check_bots(spec: str) -> None:
    """:class:`MjError` naming ``--bots`` when a kind in ``spec`` (comma-separated) is no bot."""
    from engine.table.bots import BOTS

    unknown = [b for b in spec.split(",") if b not in BOTS]
    if unknown:
        raise MjError(f"--bots {spec!r}: no bot {unknown[0]!r} (bots: give one kind or one per seat, from: "
                      f"{', '.join(BOTS)})", hint="e.g. --bots greedy or --bots greedy,greedy,random,random")


def _writable_dir(path: Path | None, flag: str = "--records") -> None:
    """Create ``path`` for records now, or say why it cannot be (before any hand is played)."""
    if path is None:
        return
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".mjrules-write-test"
        probe.write_text("", encoding="utf-8")
        probe.unlink()
    except OSError as exc:
        raise MjError(f"{flag}: cannot write records in {path}: {exc.strerror or exc}",
                      hint="give a folder that exists or can be created") from None


def _print_summary(rules: str, seed: int, bots: str, d: dict) -> None:
    from rich.table import Table

    out.print(f"simulate {rules}: {d['hands']} hands, seed {seed}, bots {bots}", markup=False)
    t = Table(title="by seat", title_justify="left")
    for c in ("seat", "wins", "win rate", "hands as dealer", "子 per hand", "± 95%", "p5…p95", "worst"):
        t.add_column(c, justify="left" if c == "seat" else "right")
    for s, v in d["seats"].items():
        sp = d["spread"]["seats"][s]
        t.add_row(s, str(v["wins"]), f"{v['win_rate']:.1%}", str(v["dealer_hands"]), f"{v['avg_zi_per_hand']:+.2f}",
                  f"±{(sp['ci95'][1] - sp['ci95'][0]) / 2:.2f}" if sp["ci95"] else "—", f"{sp['p5']:+d}…{sp['p95']:+d}", f"{sp['min']:+d}")
    out.print(t)
    mv = d["spread"]["zi_moved"]
    ci = f"95% CI {mv['ci95'][0]:.2f} … {mv['ci95'][1]:.2f}; " if mv["ci95"] else ""
    out.print(f"子 moved per hand: {d['avg_zi_moved_per_hand']:.2f} ({ci}p5 {mv['p5']}, p95 {mv['p95']}, "
              f"most {mv['max']})", markup=False)
    out.print(f"荒庄 (drawn hands): {d['exhaustive_rate']:.1%}   抄庄 (follow_first): {d['follow_first_rate']:.1%}   "
              f"highest floor: {d['max_floor']}", markup=False)
    for title, key in (("win by", "win_by"), ("patterns (share of hands)", "patterns"),
                       ("fans (share of hands)", "fans"), ("精 rules (share of hands)", "jing_rules")):
        items = d[key]
        if items:
            out.print(f"{title}: " + ", ".join(f"{k} {v:.1%}" for k, v in items.items()), markup=False)


@app.command()
def replay(
    file: Annotated[Path, typer.Argument(metavar="RECORD", help="A hand record (YAML or JSON) from simulate --records or play --record.")],
    as_json: JsonOpt = False,
) -> None:
    """Play a recorded hand again and check it ends exactly as recorded: exit 0 when it does, 1 when
    it ends differently, 2 when the record cannot be played (malformed, or an action now illegal)."""
    from engine.table.records import load, replay as run

    try:
        rec = load(file)
        g, diffs = run(rec)
    except MjError as exc:
        _fail(exc, as_json)
    if as_json:
        print(json.dumps({"identical": not diffs, "differences": diffs, "actions": len(g.actions),
                          "total": g.result.net(g.seats) if g.result else None}, ensure_ascii=False, indent=2))
    else:
        for e in g.events:
            out.print(_event_text(e), markup=False)
        out.print("identical to the record" if not diffs else "DIFFERS from the record:\n  " + "\n  ".join(diffs),
                  markup=False)
    raise typer.Exit(0 if not diffs else 1)


def _event_text(e: dict) -> str:
    kind = e["event"]
    rest = " ".join(f"{k}={v}" for k, v in e.items() if k not in ("n", "event", "seat"))
    return f"{e['n']:4d} {e.get('seat', '-'):>2} {kind:15s} {rest}"


@app.command()
def play(
    rules: Annotated[str, typer.Argument(metavar="RULES", help="Bundled ruleset name or path to a .rules file.")],
    seat: Annotated[str, typer.Option(metavar="SEAT", help="Your seat.")] = "S",
    bots: Annotated[str, typer.Option(metavar="KIND", help="The other players: greedy, random or value.")] = "greedy",
    auto: Annotated[bool, typer.Option("--auto", help="Watch four bots play instead of playing.")] = False,
    hands: Annotated[int, typer.Option(min=1, help="Hands to play.")] = 1,
    seed: Annotated[Optional[int], typer.Option(min=0, max=MAX_SEED, help="Seed for the wall and dice (random if left out).")] = None,
    record: Annotated[Optional[Path], typer.Option(metavar="DIR", help="Save each hand's record in DIR.")] = None,
    option: OptionOpt = None,
) -> None:
    """Play in the terminal against three bots (or watch four with --auto): your tiles, the table,
    and the legal actions as a numbered menu; the ledger after each hand."""
    from engine.table.bots import BOTS
    from engine.table.match import Match
    from engine.tools.play import Narrator, TerminalPlayer, show_hand_end

    try:
        _check_count("--hands", hands, MAX_PLAY_HANDS, "hands in one match")
    except MjError as exc:
        _fail(exc, False)
    rs = _compile(rules, option, False)
    try:
        _writable_dir(record, "--record")
    except MjError as exc:
        _fail(exc, False)
    import random as _random

    seed = seed if seed is not None else _random.SystemRandom().randrange(2**31)
    if bots not in BOTS:
        _fail(MjError(f"--bots {bots!r}: unknown bot {bots!r}", hint=f"one of: {', '.join(BOTS)}"), False)
    m = Match(rs, seed)
    if seat not in m.seats:
        _fail(MjError(f"--seat {seat!r}: no seat {seat!r}", hint=f"seats: {' '.join(m.seats)}"), False)
    players = {s: BOTS[bots](seed + i) for i, s in enumerate(m.seats)}
    if not auto:
        players[seat] = TerminalPlayer(out.real())
    out.print(f"{rs.label or rs.name} — seed {seed}" + ("" if auto else f"; you are {seat}"), markup=False)

    def after(g):
        show_hand_end(out.real(), g, None if auto else seat)
        if record is not None:
            from engine.table.records import dump, game_record

            dump(game_record(g), record / f"hand-{len(m.games):06d}.yaml")

    try:
        m.play(players, hands, after, Narrator(out.real(), None if auto else seat))
    except EOFError:
        out.print("\nleft the table (no more input)", markup=False)
        raise typer.Exit(1)
    total = Counter()
    for g in m.games:
        total.update(g.result.net(g.seats))
    out.print("match total: " + ", ".join(f"{s} {total[s]:+d}" for s in m.seats), markup=False)


@app.command()
def sheet(
    file: FileArg,
    output: Annotated[Optional[Path], typer.Option("--output", "-O", metavar="FILE", help="Write the sheet to FILE instead of printing it.")] = None,
    option: OptionOpt = None,
) -> None:
    """Print a ruleset as a Markdown rule sheet: every rule after extends, overrides and options,
    what it says, the file and line it comes from, and the source comment written there."""
    from engine.tools.sheet import rule_sheet

    if output is not None and not output.parent.is_dir():
        _fail(MjError(f"--output {output}: no folder {output.parent}", hint="give a file in a folder that exists"), False)
    text = rule_sheet(_compile(file, option, False)) + "\n"
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(MjError(f"--output {output}: cannot write the sheet there: {exc.strerror or exc}",
                      hint="give a file in a folder that exists"), False)


@app.command(name="fmt")
def fmt_(
    files: Annotated[list[str], typer.Argument(metavar="FILE...", help="Rule files, or folders (their *.rules files); - reads standard input and writes standard output.")],
    check: Annotated[bool, typer.Option("--check", help="Write nothing; list the files that would change and exit 1 if any.")] = False,
    diff: Annotated[bool, typer.Option("--diff", help="Write nothing; print the changes as a unified diff and exit 1 if any.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Rewrite rule files in place in the one canonical layout (docs/language.md, "Layout"):
    normalised spacing and clause order, aligned comments, comments kept where they stand; the
    meaning does not change. A file that does not parse is reported (file:line:col, exit 2) and
    nothing is written."""
    from engine.lang.compiler import decode_rule_bytes
    from engine.lang.fmt import Formatted, format_file, format_text, rule_files, write_formatted
    from engine.lang.limits import MAX_FILE_BYTES

    def plural(n: int) -> str:
        return f"{n} file{'s' if n != 1 else ''}"

    if "-" in files and len(files) > 1:
        _fail(MjError("- (standard input) cannot be formatted together with files", hint="format them in two runs"),
              as_json)
    try:
        if files == ["-"]:
            text = decode_rule_bytes(sys.stdin.buffer.read(MAX_FILE_BYTES + 1), "<stdin>")
            done = [Formatted("-", text, format_text(text, "<stdin>"))]
        else:
            paths = rule_files(files)
            done, errors = [], []
            for p in paths:
                try:
                    done.append(format_file(p))
                except MjError as exc:
                    errors.append(exc)
            if errors:  # nothing is written while any file is bad
                for exc in errors[:-1] if not as_json else []:
                    err.print(exc.render(), markup=False)
                _fail(errors[0] if as_json else errors[-1], as_json)
    except MjError as exc:
        _fail(exc, as_json)
    changed = [f for f in done if f.changed]
    stdin = files == ["-"]
    if not check and not diff and not stdin:
        for f in changed:
            try:
                write_formatted(Path(f.file), f.after)
            except MjError as exc:
                _fail(exc, as_json)
    if as_json:
        print(json.dumps({"files": [{"file": f.file, "changed": f.changed, **({"diff": f.diff()} if diff else {}),
                                     **({"text": f.after} if stdin and not (check or diff) else {})} for f in done],
                          "reformatted": len(changed), "unchanged": len(done) - len(changed),
                          "written": len(changed) if not (check or diff or stdin) else 0},  # files rewritten
                         ensure_ascii=False, indent=2))
    elif stdin and not (check or diff):
        sys.stdout.write(done[0].after)
    else:
        if diff:
            sys.stdout.write("".join(f.diff() for f in changed))
        elif check:
            for f in changed:
                out.print(f"would reformat: {f.file}", markup=False)
        if not done:
            err.print("warning: no .rules files found", markup=False)
        elif check or diff:
            (err if diff else out).print(f"{plural(len(changed))} would be reformatted, "
                                         f"{plural(len(done) - len(changed))} already formatted", markup=False)
        else:
            out.print(f"{plural(len(changed))} reformatted, {plural(len(done) - len(changed))} left unchanged",
                      markup=False)
    if (check or diff) and changed:
        raise typer.Exit(EXIT_NO)


@app.command(name="list")
def list_(as_json: JsonOpt = False) -> None:
    """List the bundled rulesets with their titles, parents and options."""
    rows = []
    for name in list_bundled():
        try:
            rs = compile_ruleset(name)
        except MjError as exc:  # a broken bundled file is reported, not hidden
            rows.append({"name": name, "error": str(exc)})
            continue
        rows.append({"name": name, "label": rs.label, "extends": rs.extends,
                     "options": {k: o.choices for k, o in rs.options.items()}})
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
        return
    for r in rows:
        parent = f" (extends {r['extends'][-1]})" if r.get("extends") else ""
        opts = f"; options: {', '.join(r['options'])}" if r.get("options") else ""
        out.print(f"{r['name']}{parent} — {r.get('label') or r.get('error', '')}{opts}", markup=False)


_BUG_LINE = 300  # characters of an internal error's message shown (one line)


def _quiet_exit_on_broken_pipe() -> None:
    """Standard output was closed early (``mjrules … | head -1``): point it at devnull, as the
    Python docs advise for SIGPIPE, so the interpreter's final flush is quiet, and exit 141."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.__stdout__.fileno())
    except (OSError, AttributeError, ValueError):
        pass
    raise SystemExit(EXIT_BROKEN_PIPE)


def main() -> None:
    """Console-script entry point: the exit codes of :data:`EXIT_CODES`. An unexpected internal
    error is reported in one line (set MJRULES_DEBUG=1 for the traceback) rather than as a wall
    of Python; Ctrl-C exits 130 with one line; a closed pipe on stdout exits 141 silently."""
    import os

    for stream in (sys.stdout, sys.stderr):  # a non-UTF-8 argument echoed back must not crash
        try:
            stream.reconfigure(errors="backslashreplace")
        except (AttributeError, ValueError):
            pass
    try:
        try:
            rv = _run_app()  # an int: a typer.Exit's code (non-standalone click returns it)
            raise SystemExit(rv if isinstance(rv, int) else 0)
        finally:
            if type(sys.stdout).__name__ == "PacifyFlushWrapper":  # typer (click) saw EPIPE on stdout
                _quiet_exit_on_broken_pipe()
    except SystemExit as exc:
        if exc.code == EXIT_INTERRUPTED:
            err.print("\ninterrupted (Ctrl-C): stopped, nothing more done", markup=False)
        _flush_or_quiet()
        raise
    except KeyboardInterrupt:
        err.print("\ninterrupted (Ctrl-C): stopped, nothing more done", markup=False)
        raise SystemExit(EXIT_INTERRUPTED)
    except BrokenPipeError:
        _quiet_exit_on_broken_pipe()
    except Exception as exc:  # a bug of ours, not bad input: say so plainly
        if os.environ.get("MJRULES_DEBUG"):
            raise
        said = " ".join(str(exc).split())
        said = said if len(said) <= _BUG_LINE else said[:_BUG_LINE] + " …"
        err.print(f"internal error: {type(exc).__name__}: {said}\n"
                  "this is a bug in mjrules; rerun with MJRULES_DEBUG=1 for details and report it", markup=False)
        raise SystemExit(EXIT_BUG)


def _run_app():
    """Run the typer app; a usage error that click finds before a command runs (a bad flag value,
    a missing argument) exits 2 as the command's own errors do — as JSON on stdout with --json."""
    from typer._click.exceptions import ClickException
    from typer.exceptions import Abort

    try:
        return app(standalone_mode=False)
    except ClickException as exc:
        if "--json" in sys.argv[1:]:
            command = next((a for a in sys.argv[1:] if not a.startswith("-")), None)
            print(json.dumps({"error": exc.format_message(), "file": None, "line": None, "column": None,
                              "hint": f"mjrules {command or ''} --help".replace("  ", " "), "notes": []},
                             ensure_ascii=False, indent=2))
        else:
            from typer import rich_utils

            rich_utils.rich_format_error(exc)
        return exc.exit_code
    except Abort:
        err.print("aborted", markup=False)
        return 1


def _flush_or_quiet() -> None:
    """Flush stdout now, so a reader that went away is noticed here (exit 141) and not by the
    interpreter at exit (a traceback-like 'Exception ignored' and status 120)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_exit_on_broken_pipe()
    except (OSError, ValueError):
        pass
