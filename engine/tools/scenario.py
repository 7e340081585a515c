"""``mjrules test``: the scenario-file contract of SCENARIOS.md (format v1), kept exactly.

A file pins a ruleset (bundled name or path relative to the file) and options, and lists
cases; each case is a snapshot, a win (or none: 荒庄) and the expected net 子 per seat.
Results: one :class:`CaseResult` per case; a file that cannot be read raises
:class:`~engine.errors.ScenarioError` with file:line:column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Protocol, Union

from pydantic import AfterValidator, BaseModel, Field, StringConstraints

from engine.core.ledger import TILE_MARK
from engine.core.scoring import Ledger, Scorer, Snapshot
from engine.core.snapshot import build_snapshot, lower_indicator, wild_indicator
from engine.errors import IllegalAction, Location, MjError, OptionError, RuleError, ScenarioError, did_you_mean
from engine.lang.compiler import compile_ruleset
from engine.lang.playable import DIE_FACES
from engine.lang.yamlio import (
    MAX_FLOOR,
    MAX_ITEMS,
    MAX_SEED,
    MAX_TEXT,
    MAX_WORD,
    MAX_ZI,
    Strict,
    load_yaml,
    node_location,
    validate,
)
from engine.tools.scripted import build_game

if TYPE_CHECKING:
    from engine.table.game import Game


class CaseError(Protocol):
    """Makes the :class:`ScenarioError` of a case, placed at ``node`` (its ``key``) in the file."""

    def __call__(self, msg: str, node: Any = None, key: str | int | None = None,
                 hint: str | None = None) -> ScenarioError: ...


# ---- the schema (docs/scenarios.md): types and bounds; what a value means is checked later -------

Word = Annotated[str, StringConstraints(max_length=MAX_WORD)]  # a seat, a tile, a name
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]  # a tile string, a meld, free text
Zi = Annotated[int, Field(ge=-MAX_ZI, le=MAX_ZI)]
Floor = Annotated[int, Field(ge=1, le=MAX_FLOOR)]
Nets = Annotated[dict[Word, Zi], Field(max_length=MAX_WORD)]
Named = Annotated[dict[Word, Word], Field(max_length=MAX_WORD)]
Tiles = Union[Text, Annotated[list[Word], Field(max_length=MAX_ITEMS)]]  # noqa: UP007 (a run-time alias pydantic reads)


class HandSpec(Strict):
    """``hands.SEAT`` as a mapping: concealed tiles, melds and (added after v1) the tiles the seat
    discarded that nobody claimed."""

    concealed: Text | None = None
    melds: Annotated[list[Text], Field(max_length=MAX_WORD)] | None = None
    discards: Text | None = None


class WinSpec(Strict):
    """``win``: who won, on which tile, how, from whom."""

    seat: Word
    tile: Word
    by: Word
    from_: Word | None = Field(None, alias="from")
    first_turn: bool = False


class ExpectSpec(Strict):
    """``expect``: what must come out (each key optional)."""

    hand: Nets | None = None
    upper: Nets | None = None
    lower: Nets | None = None
    total: Nets | None = None
    fans: Annotated[list[Text], Field(max_length=MAX_ITEMS)] | None = None
    win: bool | None = None
    winner: Word | None = None
    by: Word | None = None
    follow_first: bool | None = None
    phase: Word | None = None
    settlements: Annotated[dict[Word, Nets], Field(max_length=MAX_WORD)] | None = None
    wall: Annotated[int, Field(ge=0, le=MAX_ITEMS)] | None = None
    next_dealer: Word | None = None
    next_floor: Floor | None = None


def _one_action(value: object) -> object:
    """An action of a ``game``: a text, ``{refused: TEXT}``, ``{legal: TEXT}`` or ``{play: discard_drawn}``."""
    if isinstance(value, str) and len(value) <= MAX_TEXT:
        return value
    if isinstance(value, dict) and len(value) == 1:
        [(k, v)] = value.items()
        if (k in ("refused", "legal") and isinstance(v, str) and len(v) <= MAX_TEXT) or (
                k == "play" and v == "discard_drawn"):
            return value
    raise ValueError("an action is a text `SEAT KIND [TILE]`, {refused: …}, {legal: …} or {play: discard_drawn}")


Action = Annotated[Any, AfterValidator(_one_action)]


class GameSpec(Strict):
    """``game``: a scripted hand (docs/scenarios.md, Scripted games)."""

    dealer: Word | None = None
    floor: Floor = 1
    jing: Word | None = None
    lower: Word | None = None
    indicators: Named | None = None
    previous: Named | None = None
    hands: Annotated[dict[Word, Tiles], Field(max_length=MAX_WORD)] | None = None
    draws: Tiles | None = None
    replacements: Tiles | None = None
    dice: Annotated[list[Annotated[list[Annotated[int, Field(ge=1, le=DIE_FACES)]], Field(max_length=MAX_WORD)]], Field(max_length=MAX_WORD)] | None = None
    seed: Annotated[int, Field(ge=-MAX_SEED, le=MAX_SEED)] = 0
    actions: Annotated[list[Action], Field(max_length=MAX_ITEMS)] | None = None


class CaseSpec(Strict):
    """One case: a snapshot and a win (or a scripted ``game``), and ``expect``."""

    name: Text | int
    source: Text | None = None
    dealer: Word | None = None
    floor: Floor = 1
    jing: Word | None = None
    lower: Word | None = None
    hands: Annotated[dict[Word, Text | HandSpec | None], Field(max_length=MAX_WORD)] | None = None
    win: WinSpec | None = None
    expect: ExpectSpec
    game: GameSpec | None = None
    indicators: Named | None = None
    picks: Named | None = None
    stopped: Word | None = None  # (added after v1) the seat that stopped an indicator's flips (发电)


class ScenarioFile(Strict):
    """The file: a ruleset, its options and the cases (each case is checked on its own, so one
    bad case does not stop the others)."""

    ruleset: Text
    options: Annotated[dict[Word, Word | int], Field(max_length=MAX_ITEMS)] | None = None
    cases: Annotated[list[Any], Field(min_length=1, max_length=MAX_ITEMS)]


def _keys(model: type[BaseModel]) -> set[str]:
    return {f.alias or n for n, f in model.model_fields.items()}


FILE_KEYS = _keys(ScenarioFile)
CASE_KEYS = _keys(CaseSpec)
EXPECT_KEYS = _keys(ExpectSpec)
GAME_EXPECT_KEYS = EXPECT_KEYS - {"win"}


@dataclass
class CaseResult:
    """One case: passed, failed (with each expected/actual difference and what fired), or an
    error (``error``: the case or its file cannot be run; ``name`` is None for a file)."""

    file: str
    name: str | None
    passed: bool
    differences: list[str] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)
    error: MjError | None = None

    @property
    def status(self) -> str:
        """``pass``, ``fail`` or ``error``."""
        return "error" if self.error is not None else ("pass" if self.passed else "fail")

    def to_json(self) -> dict[str, Any]:
        """The result as JSON: file, name, status, passed, differences, fired rules, explanation,
        and the error (message, file, line, column, hint) or None."""
        return {"file": self.file, "name": self.name, "status": self.status, "passed": self.passed,
                "differences": self.differences, "fired": self.fired, "explanation": self.explanation,
                "error": self.error.to_json() if self.error is not None else None}


def _loc(file: str, node: Any, key: str | int | None = None) -> Location:
    """file:line:col of a mapping key (or the node itself), 1-based."""
    try:
        if key is not None and hasattr(node, "lc"):
            line, col = node.lc.key(key)
        else:
            line, col = node.lc.line, node.lc.col
        return Location(file, line + 1, col + 1)
    except Exception:
        return Location(file, 1, 1)


def _option_error(exc: OptionError, file: str, doc: Any, text: str) -> OptionError:
    """An option error placed at the scenario's ``options:`` entry that chose it (the key for
    an unknown option, the value for an unknown choice), the declaration kept as a note."""
    options = doc.get("options")
    if not isinstance(options, dict) or exc.option not in options:
        return exc
    declared = exc.location
    exc.location = node_location(file, doc, ("options", exc.option), key=declared is None)
    exc.source_text = text
    if declared is not None:
        exc.related = [*exc.related, (f"option {exc.option} is declared here", declared)]
    return exc


def run_file(path: Path, keep_going: bool = False) -> list[CaseResult]:
    """Run every case of one scenario file.

    Raises :class:`ScenarioError` / :class:`RuleError` (with file:line:col) when the file or
    its ruleset cannot be read. A case that cannot be run raises too, unless ``keep_going``:
    then it is a :class:`CaseResult` with its ``error`` and the other cases still run.
    """
    doc, text = load_yaml(path, "scenario file")
    file = str(path)

    def err(msg: str, node: Any = None, key: str | int | None = None, hint: str | None = None) -> ScenarioError:
        return ScenarioError(msg, _loc(file, node, key) if node is not None else Location(file, 1, 1),
                             hint=hint, source_text=text)

    if not isinstance(doc, dict):
        raise err("a scenario file is a mapping with `ruleset` and `cases`", doc)
    spec = validate(ScenarioFile, doc, file, text)
    options = {str(k): str(v) for k, v in (spec.options or {}).items()}
    try:
        rs = compile_ruleset(spec.ruleset, options, base_dir=path.parent)
    except OptionError as exc:
        raise _option_error(exc, file, doc, text) from None
    except RuleError as exc:
        if exc.location is None:
            exc.location = _loc(file, doc, "ruleset")
            exc.source_text = text
        raise
    scorer = Scorer(rs)
    names: set[str] = set()
    results = []
    for i, case in enumerate(doc["cases"]):
        try:
            results.append(_run_one(scorer, file, text, doc, i, case, names, err))
        except MjError as exc:
            if not keep_going:
                raise
            name = case.get("name") if isinstance(case, dict) else None
            results.append(CaseResult(file, str(name) if name is not None else f"case {i + 1}", False, error=exc))
    return results


def _run_one(scorer: Scorer, file: str, text: str, doc: Any, i: int, case: Any, names: set[str],
             err: CaseError) -> CaseResult:
    """One case of a file: checked against the schema, built, run."""
    spec = validate(CaseSpec, case, file, text, prefix=("cases", i), root=doc)
    name = str(spec.name)
    if name in names:
        raise err(f"two cases are named {name!r}", case, "name", hint="case names are unique in a file")
    names.add(name)
    expect = case["expect"]
    if not expect:
        raise err(f"case {name!r} has no `expect`", case, "expect")
    if "game" in case:
        if not isinstance(case["game"], dict):
            raise err(f"case {name!r}: `game` is empty", case, "game",
                      hint="a scripted game is a mapping: dealt tiles, draws and actions (docs/scenarios.md)")
        bad = set(expect) - GAME_EXPECT_KEYS
        table_keys = {"hands", "win", "jing", "lower", "dealer", "floor", "indicators", "picks", "stopped"}
        if bad or set(case) & table_keys:
            what = sorted(bad)[0] if bad else sorted(set(case) & table_keys)[0]
            raise err(f"case {name!r}: {what!r} does not go with `game` (put table keys inside `game`)",
                      case, "game", hint="game expect keys: " + ", ".join(sorted(GAME_EXPECT_KEYS)))
        try:
            game = build_game(scorer, dict(case["game"]))
        except ScenarioError as exc:
            key = getattr(exc, "key", None)  # a GameKeyError points at its key inside `game`
            node, key = (case["game"], key) if key in case["game"] else (case, "game")
            raise err(f"case {name!r}: {exc.message}", node, key, hint=exc.hint) from None
        return _run_game_case(scorer, file, name, game, case["game"].get("actions") or [], expect, err, case)
    try:
        snap = build_snapshot(scorer, hands=case.get("hands") or {}, jing=case.get("jing"), lower=case.get("lower"),
                              dealer=case.get("dealer"), floor=case.get("floor", 1), win=case.get("win"),
                              indicators=case.get("indicators"), picks=case.get("picks"))
    except (ScenarioError, IllegalAction) as exc:
        at = getattr(exc, "at", ())
        if at and at[0] in case:
            where = node_location(file, case, at, key=len(at) == 1)
        else:
            key = next((k for k in ("hands", "win", "jing", "lower", "indicators", "picks", "dealer", "floor")
                        if k in case),
                       "name")
            where = _loc(file, case, key)
        raise type(exc)(f"case {name!r}: {exc.message}", where, hint=exc.hint, source_text=text) from None
    stopped = case.get("stopped")
    if stopped is not None and stopped not in snap.seats:
        raise err(f"case {name!r}: `stopped` names no seat {stopped!r}", case, "stopped",
                  hint=f"the seat that stopped the flips, one of: {' '.join(snap.seats)}")
    return _run_case(scorer, file, name, snap, expect, err, case)


def _run_case(scorer: Scorer, file: str, name: str, snap: Snapshot, expect: dict[str, Any], err: CaseError,
              case: Any) -> CaseResult:
    res = CaseResult(file, name, True)
    seats = snap.seats
    if expect.get("win") is False:
        try:
            scorer.legal.check_win_hand(snap)
        except IllegalAction as exc:
            res.explanation.append(f"refused: {exc.message}")
            return res
        res.passed = False
        res.differences.append("win: expected the hand to be refused, but it is a winning hand")
        return res
    fired: list[str] = []
    try:
        # after-deal indicators settled here too; 发电: the seat that stopped the flips pays unless it won
        settled, end_parts, win = scorer.settle_snapshot(snap, case.get("stopped"))
        if win:
            r = win.reading
            res.explanation.append(f"reading: {r.pattern}, wilds {r.wilds}" + (", 精钓" if r.jing_wait else ""))
        parts: dict[str, Ledger] = {"hand": settled["hand"]}
        for key, named in (("upper", wild_indicator(scorer)), ("lower", lower_indicator(scorer))):
            if named and named in snap.indicators:
                parts[key] = settled[named]
        for ind in snap.indicators:
            if ind in settled:
                parts[f"settlements.{ind}"] = settled[ind]
        for part_name, lg in settled.items():  # NAME@TILE: an indicator made of the hands' tiles
            if TILE_MARK in part_name:
                parts[f"settlements.{part_name}"] = lg
        total = Ledger.joined(lg for _, lg in end_parts)
    except IllegalAction as exc:
        res.passed = False
        res.differences.append(f"the engine refused the hand: {exc.message}")
        return res
    for lg in parts.values():
        fired += [f for f in lg.fired if f not in fired]
    res.fired = fired
    for key in ("hand", "upper", "lower", "total"):
        if key not in expect:
            continue
        want = expect[key]
        if not isinstance(want, dict):
            raise err(f"case {name!r}: expect.{key} is a mapping seat → 子", expect, key)
        if key == "total":
            got = total.net(seats)
        elif key in parts:
            got = parts[key].net(seats)
        else:
            res.passed = False
            res.differences.append(f"{key}: no settlement (give the indicator tile: "
                                   f"`{'jing' if key == 'upper' else 'lower'}:`)")
            continue
        wrong = False
        for seat, v in want.items():
            if seat not in seats:
                raise err(f"case {name!r}: expect.{key} names no seat {seat!r}", want, seat)
            if got[seat] != v:
                res.passed = False
                res.differences.append(f"{key}.{seat}: expected {v}, got {got[seat]}")
                wrong = True
        if wrong or key != "total":  # the total repeats the parts: explain it only when it is off
            lg = total if key == "total" else parts[key]
            for t in lg.transfers:
                res.explanation.append(f"{key}: {t.payer}→{t.payee} {t.amount} [{' · '.join(t.factors)}]")
    for ind, want in (expect.get("settlements") or {}).items():
        key = f"settlements.{ind}"
        if key not in parts:
            raise err(f"case {name!r}: expect.settlements.{ind}: give its tile under `indicators` "
                      f"(indicators of this ruleset: {', '.join(scorer.rs.indicators)})", expect, "settlements")
        got = parts[key].net(seats)
        for seat, v in want.items():
            if got.get(seat) != v:
                res.passed = False
                res.differences.append(f"settlements.{ind}.{seat}: expected {v}, got {got.get(seat)}")
    if "fans" in expect:
        if not isinstance(expect["fans"], list):
            raise err(f"case {name!r}: expect.fans is a list of names", expect, "fans")
        _check_fans(scorer, res, expect["fans"], name, err, expect)
    return res


def _check_fans(scorer: Scorer, res: CaseResult, want: list[Any], name: str, err: CaseError,
                expect: dict[str, Any]) -> None:
    """``expect.fans``: every name is a rule of the ruleset that can fire (an unknown one is an
    error, with the nearest name) and fired in the case (else a difference; the fired rules are
    listed with the result)."""
    rs = scorer.rs
    known = [*rs.patterns, *rs.fans, *rs.payments, *rs.jing, *rs.exhaustive, *rs.indicators,
             *{f.policy for f in rs.flow.values()}]
    for f in want:
        if str(f) not in known:
            close = did_you_mean(str(f), known)
            raise err(f"case {name!r}: expect.fans names {f!r}, which is no rule of ruleset {rs.name}", expect, "fans",
                      hint=close or "fans: " + ", ".join(rs.fans))
        if str(f) not in res.fired:
            res.passed = False
            res.differences.append(f"fans: expected {f} to fire")


def run_files(paths: list[Path], keep_going: bool = False) -> list[CaseResult]:
    """All cases of several files, in order. Raises on the first file or case that cannot be
    read, unless ``keep_going``: then each is a :class:`CaseResult` with its ``error`` (a file's
    has ``name`` None) and the rest still run."""
    out: list[CaseResult] = []
    for p in paths:
        try:
            out += run_file(p, keep_going)
        except MjError as exc:
            if not keep_going:
                raise
            out.append(CaseResult(str(p), None, False, error=exc))
    return out


def _fingerprint(game: Game) -> tuple[object, ...]:
    return (game.phase, game.current, len(game.actions), len(game.events), len(game.wall.taken),
            tuple((s, tuple(h.concealed), tuple(h.melds)) for s, h in game.hands.items()),
            tuple((s, tuple(d)) for s, d in game.discards.items()), tuple(sorted(game.locks)),
            tuple((s, c.answer) for s, c in game.pending.items()))


def _auto(game: Game) -> None:
    """Play on by a simple rule: ``discard_drawn`` draws, discards the drawn tile and passes
    every claim, until the hand is over (a 荒庄 unless a discard-free win was forced)."""
    while not game.over:
        seat = game.to_act()[0]
        acts = game.legal_actions(seat)
        kinds = {a.kind: a for a in acts}
        if "draw" in kinds:
            game.apply(kinds["draw"])
        elif "pass" in kinds:
            game.apply(kinds["pass"])
        else:
            tile = game.last_drawn if game.last_drawn is not None else game.hands[seat].concealed[0]
            game.apply(next(a for a in acts if a.kind == "discard" and a.tile == tile))


def _run_game_case(scorer: Scorer, file: str, name: str, game: Game, actions: list[Any], expect: dict[str, Any],
                   err: CaseError, case: Any) -> CaseResult:
    """Apply a scripted game's actions and compare the outcome with ``expect``."""
    from engine.table.game import Action

    res = CaseResult(file, name, True)
    for i, item in enumerate(actions, 1):
        where = f"action {i}"
        try:
            if isinstance(item, str):
                game.apply(Action.parse(item, scorer))
                res.explanation.append(f"{where}: {item}")
            elif isinstance(item, dict) and set(item) == {"refused"}:
                before = _fingerprint(game)
                try:
                    game.apply(Action.parse(str(item["refused"]), scorer))
                except IllegalAction as exc:
                    res.explanation.append(f"{where}: {item['refused']} refused ({exc.message}" + (f"; {exc.hint})" if exc.hint else ")"))
                    if _fingerprint(game) != before:
                        res.passed = False
                        res.differences.append(f"{where}: refusing {item['refused']!r} changed the game")
                    continue
                res.passed = False
                res.differences.append(f"{where}: expected {item['refused']!r} to be refused, but it was applied")
                return res
            elif isinstance(item, dict) and set(item) == {"legal"}:
                want = Action.parse(str(item["legal"]), scorer)
                if want not in game.legal_actions(want.seat):
                    res.passed = False
                    res.differences.append(f"{where}: expected {item['legal']!r} to be legal; legal: "
                                           + ", ".join(a.text(scorer) for a in game.legal_actions(want.seat)))
            elif isinstance(item, dict) and set(item) == {"play"} and item["play"] == "discard_drawn":
                _auto(game)
                res.explanation.append(f"{where}: played on, discarding each drawn tile")
            else:
                raise err(f"case {name!r}: {where} is an action string, {{refused: …}}, {{legal: …}} or "
                          "{play: discard_drawn}", case, "game")
        except IllegalAction as exc:
            res.passed = False
            res.differences.append(f"{where} ({item!r}) was refused: {exc.message}" + (f" — {exc.hint}" if exc.hint else ""))
            return res
    r = game.result
    seats = game.seats
    if "wall" in expect and game.wall.remaining != expect["wall"]:
        res.passed = False
        res.differences.append(f"wall: expected {expect['wall']} tiles left, got {game.wall.remaining}")
    if "phase" in expect and game.phase != expect["phase"]:
        res.passed = False
        res.differences.append(f"phase: expected {expect['phase']}, got {game.phase}")
    for ind, want in (expect.get("settlements") or {}).items():  # made so far (after the deal, or at the end)
        got = dict.fromkeys(seats, 0)
        for _, part, lg in game.parts:
            if part == ind:
                for x, v in lg.net(seats).items():
                    got[x] += v
        for seat, v in want.items():
            if got.get(seat) != v:
                res.passed = False
                res.differences.append(f"settlements.{ind}.{seat}: expected {v}, got {got.get(seat)}")
    if any(k in expect for k in ("hand", "upper", "lower", "total", "winner", "by", "fans", "follow_first",
                                 "next_dealer", "next_floor")) and r is None:
        res.passed = False
        res.differences.append(f"the hand is not over (phase {game.phase}); expectations need its end")
        return res
    if r is None:
        return res
    winner = r.winner or "none"
    if "winner" in expect and str(expect["winner"]) != winner:
        res.passed = False
        res.differences.append(f"winner: expected {expect['winner']}, got {winner}")
    if "by" in expect and expect["by"] != (r.win.by if r.win else "exhaustive"):
        res.passed = False
        res.differences.append(f"by: expected {expect['by']}, got {r.win.by if r.win else 'exhaustive'}")
    if "next_dealer" in expect or "next_floor" in expect:
        from engine.table.match import next_deal
        nd, nf = next_deal(scorer.rs, seats, r, game.dealer, game.floor)
        if "next_dealer" in expect and str(expect["next_dealer"]) != nd:
            res.passed = False
            res.differences.append(f"next_dealer: expected {expect['next_dealer']}, got {nd}")
        if "next_floor" in expect and expect["next_floor"] != nf:
            res.passed = False
            res.differences.append(f"next_floor: expected {expect['next_floor']}, got {nf}")
    if "follow_first" in expect and bool(expect["follow_first"]) != r.follow_first:
        res.passed = False
        res.differences.append(f"follow_first: expected {expect['follow_first']}, got {r.follow_first}")
    fired = [r.reading] if r.reading else []
    for _, _, lg in r.parts:
        fired += [f for f in lg.fired if f not in fired]
    fired += [f for f in r.fans if f not in fired]
    res.fired = fired
    nets = {"total": r.net(seats)}
    for _, part, lg in r.parts:
        key = {"hand": "hand", wild_indicator(scorer): "upper", lower_indicator(scorer): "lower"}.get(part)
        if key:
            acc = nets.setdefault(key, dict.fromkeys(seats, 0))
            for x, v in lg.net(seats).items():
                acc[x] += v
    for key in ("hand", "upper", "lower", "total"):
        if key in expect:
            got = nets.get(key, dict.fromkeys(seats, 0))
            for seat, v in expect[key].items():
                if got.get(seat) != v:
                    res.passed = False
                    res.differences.append(f"{key}.{seat}: expected {v}, got {got.get(seat)}")
    _check_fans(scorer, res, expect.get("fans") or [], name, err, expect)
    for when, part, lg in r.parts:
        for t in lg.transfers:
            res.explanation.append(f"{when} {part}: {t.payer}→{t.payee} {t.amount} [{' · '.join(t.factors)}]")
    return res
