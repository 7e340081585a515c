"""The ``mjrules`` command: check, score, test, export, diff, sheet, simulate, replay and play.

Exit status (docs/cli.md has the table; ``EXIT_CODES`` below is it, and ``--help`` prints it):
0 success; 1 the answer is "no": a test failed, a diff or replay differs, ``score`` was given a
hand that does not win, ``play`` ran out of input; 2 bad input (a rule or scenario file, a flag
or its value), with ``file:line:col`` where there is a file, never a traceback; 3 a bug in
mjrules (an internal error, reported in one line); 130 interrupted (Ctrl-C); 141 standard
output closed early (``mjrules … | head``), silently. Every command but ``play`` and ``sheet``
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
             "play ran out of input",
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
MAX_HANDS = 1_000_000      # simulate -n and diff --impact (about 11 hours of one core)
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


@app.command()
def check(file: FileArg, option: OptionOpt = None, as_json: JsonOpt = False) -> None:
    """Compile a rule file and report what it declares; errors give file:line:col and exit 2."""
    rs = _compile(file, option, as_json)
    counts = {
        "tile kinds": sum(len(range(s.low, s.high + 1)) for s in rs.suits.values()) + sum(len(h.tiles) for h in rs.honours.values()),
        "melds": len(rs.melds), "patterns": len(rs.patterns), "indicators": len(rs.indicators),
        "jing rules": len(rs.jing), "fans": len(rs.fans), "payments": len(rs.payments),
        "factors": len(rs.factors), "flow policies": len(rs.flow),
    }
    if as_json:
        print(json.dumps({"ok": True, "ruleset": rs.name, "file": rs.file, "extends": rs.extends,
                          "counts": counts, "options": {k: o.chosen for k, o in rs.options.items()}},
                         ensure_ascii=False, indent=2))
        return
    chain = f" (extends {' ← '.join(reversed(rs.extends))})" if rs.extends else ""
    out.print(f"ok: {rs.name}{chain} — {rs.label or ''}".rstrip(" —"), markup=False)
    out.print("  " + ", ".join(f"{v} {k}" for k, v in counts.items()), markup=False)
    for o in rs.options.values():
        out.print(f"  option {o.name} = {o.chosen} (default {o.default}; choices {', '.join(o.choices)})", markup=False)


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
    impact: Annotated[int, typer.Option(metavar="N", min=0, help="Also play N seeded hands under each (greedy bots, the same seeds) and compare what they pay.")] = 0,
    seed: Annotated[Optional[int], typer.Option(min=0, max=MAX_SEED, help="Seed of the --impact hands (default 1).")] = None,
    option: Annotated[Optional[list[str]], typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option for each side that declares it (repeatable).")] = None,
    option_b: Annotated[Optional[list[str]], typer.Option("--option-b", metavar="NAME=VALUE", help="An option for B only: diff a ruleset against one of its options.")] = None,
    as_json: JsonOpt = False,
) -> None:
    """What B changes from A, rule path by rule path: + added, - removed, ~ changed (old → new),
    each with the file and line it comes from. Exit 0 when they are the same, 1 when they differ.

    With --impact N, the same N hands (same seeds, same bots) are played under A and under B, and
    the summaries are set side by side: 子 moved per hand, 荒庄, fans and 精 rules by share."""
    from engine.tools.diff import diff as compare, where

    try:
        _check_count("--impact", impact, MAX_HANDS, "hands under each ruleset")
        if seed is not None and not impact:
            raise MjError("--seed is the seed of the --impact hands, and no --impact is given",
                          hint="add --impact N, or leave out --seed")
        seed = 1 if seed is None else seed
        both, only_b = _options(option), _name_values(option_b, "--option-b", "NAME=VALUE")
        opts_a, opts_b = _declared_options(a, both), {**_declared_options(b, both), **only_b}
        unknown = set(both) - set(opts_a) - set(opts_b)
        if unknown:
            raise MjError(f"unknown option {sorted(unknown)[0]!r}: neither {a} nor {b} declares it")
        ra, rb = compile_ruleset(a, opts_a), compile_ruleset(b, opts_b)
    except OptionError as exc:
        _fail(_option_error(exc, "--option-b" if exc.option in only_b else "--option"), as_json)
    except MjError as exc:
        _fail(exc, as_json)
    changes = compare(ra, rb)
    effect = _impact(a, b, opts_a, opts_b, impact, seed) if impact else None
    counts = {op: sum(c.op == op for c in changes) for op in "+-~"}
    summary = (f"{len(changes)} difference{'s' if len(changes) != 1 else ''}: {counts['+']} added, "
               f"{counts['-']} removed, {counts['~']} changed") if changes else "no differences"
    if as_json:
        print(json.dumps({"a": ra.name, "b": rb.name, "changes": [c.to_json() for c in changes],
                          "added": counts["+"], "removed": counts["-"], "changed": counts["~"],
                          **({"impact": effect} if effect else {})}, ensure_ascii=False, indent=2))
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
            _print_impact(ra.name, rb.name, effect)
    raise typer.Exit(1 if changes else 0)


def _declared_options(ref: str, opts: dict[str, str]) -> dict[str, str]:
    """The options of ``opts`` that ruleset ``ref`` declares."""
    declared = compile_ruleset(ref).options
    return {k: v for k, v in opts.items() if k in declared}


def _impact(a: str, b: str, opts_a: dict, opts_b: dict, hands: int, seed: int) -> dict:
    """The same seeded hands under A and under B: their summaries, side by side."""
    from engine.tools.simulate import simulate as run

    try:
        sa = run(a, opts_a, hands, seed, ["greedy"]).to_json()
        sb = run(b, opts_b, hands, seed, ["greedy"]).to_json()
    except MjError as exc:
        _fail(exc, False)
    rows = [("子 moved per hand", sa["avg_zi_moved_per_hand"], sb["avg_zi_moved_per_hand"]),
            ("荒庄 (drawn hands)", sa["exhaustive_rate"], sb["exhaustive_rate"])]
    for key in ("win_by", "patterns", "fans", "jing_rules"):
        for name in dict.fromkeys([*sa[key], *sb[key]]):
            rows.append((f"{key.replace('_', ' ')}: {name}", sa[key].get(name, 0.0), sb[key].get(name, 0.0)))
    return {"hands": hands, "seed": seed, "rows": [{"what": w, "a": x, "b": y} for w, x, y in rows]}


def _print_impact(a: str, b: str, effect: dict) -> None:
    from rich.table import Table

    t = Table(title=f"impact over {effect['hands']} hands (seed {effect['seed']}, greedy bots)", title_justify="left")
    for c in ("", a, b, "change"):
        t.add_column(c, justify="left" if not c else "right")
    for r in effect["rows"]:
        if r["a"] == r["b"] == 0:
            continue
        share = r["what"] != "子 moved per hand"
        fmt = (lambda v: f"{v:.1%}") if share else (lambda v: f"{v:.2f}")
        delta = r["b"] - r["a"]
        t.add_row(r["what"], fmt(r["a"]), fmt(r["b"]), "" if r["a"] == r["b"] else f"{delta:+.1%}" if share else f"{delta:+.2f}")
    out.print(t)


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
) -> None:
    """Play many hands with bots and summarise them: wins by seat, patterns, fans, 精 rules, 子 per hand.

    Hands run as matches (the deal rotates, floors climb) in blocks seeded from --seed alone.
    """
    import time

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    from engine.tools.simulate import simulate as run

    try:
        _check_count("-n/--hands", n, MAX_HANDS, "hands in one run")
        _check_count("--workers", workers, _max_workers(), "(twice this machine's CPUs)")
        _check_bots(bots)
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
                          progress=lambda done: prog.update(task, completed=done))
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
    for c in ("seat", "wins", "win rate", "hands as dealer", "子 per hand"):
        t.add_column(c, justify="left" if c == "seat" else "right")
    for s, v in d["seats"].items():
        t.add_row(s, str(v["wins"]), f"{v['win_rate']:.1%}", str(v["dealer_hands"]), f"{v['avg_zi_per_hand']:+.2f}")
    out.print(t)
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
            app()
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


def _flush_or_quiet() -> None:
    """Flush stdout now, so a reader that went away is noticed here (exit 141) and not by the
    interpreter at exit (a traceback-like 'Exception ignored' and status 120)."""
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        _quiet_exit_on_broken_pipe()
    except (OSError, ValueError):
        pass
