"""The commands that score: ``score`` (one hand given by flags: its win or 荒庄 and every 精
settlement, as a ledger) and ``test`` (scenario files, PASS/FAIL per case). Every ``score`` flag
is checked against the ruleset before anything is scored, and a bad one is named.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

import engine.cli.inputs as inputs
from engine.cli.inputs import MAX_FLOOR, JsonOpt, OptionOpt, RulesOpt, name_values, option_error, parse_options
from engine.cli.output import counted, err, fail, out, print_score
from engine.errors import IllegalAction, ImpossibleState, MjError, OptionError, ScenarioError

if TYPE_CHECKING:
    from engine.core.scoring import Scorer


def _hands(scorer: Scorer, specs: list[str]) -> dict[str, object]:
    """``--hand`` flags → the scenario notation of each seat's hand, checked: an error names the
    flag and the value it was given in."""
    from engine.core.snapshot import parse_hand, seats_of

    seats = seats_of(scorer)
    hands: dict[str, object] = {}
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


def _check_score_flags(scorer: Scorer, *, win: str | None, tile: str | None, by: str | None, from_: str | None,
                       first_turn: bool, dealer: str | None, jing: str | None, lower: str | None) -> None:
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
    pairs = name_values(specs, "--indicator", "left=5p")
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


def _score_notes(scorer: Scorer, jing: str | None, others: dict[str, str]) -> list[str]:
    """What ``score`` says on stderr (and under ``notes`` in JSON) about its input: that no 精
    was given when the ruleset has a wild indicator."""
    from engine.core.snapshot import wild_indicator

    name = wild_indicator(scorer)
    if name is None or jing is not None or name in others:
        return []
    return [f"no --jing given: scored with no {scorer.rs.indicators[name].label or name} flipped "
            "(no 精 wilds, no 精 settlement); give --jing TILE for the indicator tile"]


def score(
    rules: RulesOpt,
    hand: Annotated[list[str], typer.Option("--hand", "-H", metavar="SEAT=TILES", help="SEAT=TILES[; MELD; …], e.g. 'S=456m789m123s东西7p3p' or 'N=1s; pung 777p from W'. Repeat per seat.")],
    jing: Annotated[str | None, typer.Option(metavar="TILE", help="The upper (上精) indicator tile: 正精 = it, 副精 = the next.")] = None,
    lower: Annotated[str | None, typer.Option(metavar="TILE", help="The lower (下精) indicator tile.")] = None,
    indicator: Annotated[list[str] | None, typer.Option("--indicator", metavar="NAME=TILE", help="Any other indicator the ruleset declares, e.g. left=5p or 回头=3p (repeatable).")] = None,
    win: Annotated[str | None, typer.Option("--win", metavar="SEAT", help="The winning seat; leave out for a 荒庄 (drawn hand).")] = None,
    tile: Annotated[str | None, typer.Option(metavar="TILE", help="The winning tile.")] = None,
    by: Annotated[str | None, typer.Option(metavar="HOW", help="discard, self_draw (the default with --win), kong_draw (杠开) or rob_kong (抢杠).")] = None,
    from_: Annotated[str | None, typer.Option("--from", metavar="SEAT", help="Seat that discarded (discard) or whose kong is robbed.")] = None,
    first_turn: Annotated[bool, typer.Option("--first-turn", help="Marks 天胡 (the dealer self-draws on the deal) or 地胡 (a win on the dealer's first discard).")] = False,
    dealer: Annotated[str | None, typer.Option(metavar="SEAT", help="Dealer seat (default: the first seat).")] = None,
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
        rs = inputs.compile_ruleset(rules, parse_options(option))
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
        parts, end_parts, winres = scorer.settle_snapshot(snap)  # the end parts, and the after-deal ones
        total = Ledger.joined(lg for _, lg in end_parts)
    except ImpossibleState as exc:  # a table the game could not produce: bad input
        fail(exc, as_json)
    except IllegalAction as exc:  # a possible table, but no win the ruleset allows
        fail(exc, as_json, code=1)
    except OptionError as exc:
        fail(option_error(exc), as_json)
    except MjError as exc:
        fail(exc, as_json)
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
    print_score(scorer, snap, parts, nets, winres)


def test(
    files: Annotated[list[Path], typer.Argument(metavar="FILE", help="Scenario YAML files (docs/scenarios.md, format v1); the ruleset and options come from each file.")],
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
        out.print(f"{passed} passed, {failed} failed" + (f", {counted(errors, 'errors')}" if errors else ""),
                  markup=False)
    raise typer.Exit(2 if errors else 1 if failed else 0)
