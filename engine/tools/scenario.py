"""``mjrules test``: the scenario-file contract of SCENARIOS.md (format v1), kept exactly.

A file pins a ruleset (bundled name or path relative to the file) and options, and lists
cases; each case is a snapshot, a win (or none: 荒庄) and the expected net 子 per seat.
Results: one :class:`CaseResult` per case; a file that cannot be read raises
:class:`~engine.errors.ScenarioError` with file:line:column.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError

from engine.lang.compiler import compile_ruleset
from engine.errors import IllegalAction, Location, RuleError, ScenarioError
from engine.core.scoring import Ledger, Scorer
from engine.tools.scripted import build_game
from engine.core.snapshot import build_snapshot, lower_indicator, wild_indicator

FILE_KEYS = {"ruleset", "options", "cases"}
CASE_KEYS = {"name", "source", "dealer", "floor", "jing", "lower", "hands", "win", "expect", "game", "indicators"}
EXPECT_KEYS = {"hand", "upper", "lower", "total", "fans", "win", "winner", "by", "follow_first", "phase", "settlements",
               "wall"}
GAME_EXPECT_KEYS = {"hand", "upper", "lower", "total", "fans", "winner", "by", "follow_first", "phase", "settlements",
                    "wall"}


@dataclass
class CaseResult:
    """One case: passed or not, each expected/actual difference, and what fired."""

    file: str
    name: str
    passed: bool
    differences: list[str] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)
    explanation: list[str] = field(default_factory=list)

    def to_json(self) -> dict:
        """The result as JSON: file, name, passed, differences, fired rules, explanation."""
        return {"file": self.file, "name": self.name, "passed": self.passed,
                "differences": self.differences, "fired": self.fired, "explanation": self.explanation}


def _loc(file: str, node, key=None) -> Location:
    """file:line:col of a mapping key (or the node itself), 1-based."""
    try:
        if key is not None and hasattr(node, "lc"):
            line, col = node.lc.key(key)
        else:
            line, col = node.lc.line, node.lc.col
        return Location(file, line + 1, col + 1)
    except Exception:
        return Location(file, 1, 1)


def load_yaml(path: Path):
    """Parse a YAML file keeping positions; :class:`ScenarioError` on bad YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return YAML(typ="rt").load(text), text
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        loc = Location(str(path), mark.line + 1, mark.column + 1) if mark else Location(str(path), 1, 1)
        raise ScenarioError(f"not valid YAML: {exc.problem or exc.context}", loc, source_text=text) from None


def run_file(path: Path) -> list[CaseResult]:
    """Run every case of one scenario file. Raises :class:`ScenarioError` / :class:`RuleError`
    (with file:line:col) when the file or its ruleset cannot be read."""
    doc, text = load_yaml(path)
    file = str(path)

    def err(msg, node=None, key=None, hint=None):
        return ScenarioError(msg, _loc(file, node, key) if node is not None else Location(file, 1, 1),
                             hint=hint, source_text=text)

    if not isinstance(doc, dict):
        raise err("a scenario file is a mapping with `ruleset` and `cases`")
    for k in doc:
        if k not in FILE_KEYS:
            raise err(f"unknown key {k!r}", doc, k, hint="top-level keys: ruleset, options, cases")
    if "ruleset" not in doc:
        raise err("missing `ruleset`: a bundled name or a path to a .rules file", doc)
    options = doc.get("options") or {}
    if not isinstance(options, dict):
        raise err("`options` is a mapping name → value", doc, "options")
    try:
        rs = compile_ruleset(str(doc["ruleset"]), {str(k): str(v) for k, v in options.items()}, base_dir=path.parent)
    except RuleError as exc:
        if exc.location is None:
            exc.location = _loc(file, doc, "ruleset")
            exc.source_text = text
        raise
    scorer = Scorer(rs)
    cases = doc.get("cases")
    if not isinstance(cases, list) or not cases:
        raise err("`cases` is a non-empty list", doc, "cases" if "cases" in doc else None)
    names: set[str] = set()
    results = []
    for case in cases:
        if not isinstance(case, dict) or "name" not in case:
            raise err("each case is a mapping with a `name`", case if hasattr(case, "lc") else doc)
        name = str(case["name"])
        if name in names:
            raise err(f"two cases are named {name!r}", case, "name", hint="case names are unique in a file")
        names.add(name)
        for k in case:
            if k not in CASE_KEYS:
                raise err(f"unknown case key {k!r}", case, k, hint="case keys: " + ", ".join(sorted(CASE_KEYS)))
        expect = case.get("expect")
        if not isinstance(expect, dict) or not expect:
            raise err(f"case {name!r} has no `expect`", case, "name")
        for k in expect:
            if k not in EXPECT_KEYS:
                raise err(f"unknown expect key {k!r}", expect, k, hint="expect keys: " + ", ".join(sorted(EXPECT_KEYS)))
        if "game" in case:
            bad = set(expect) - GAME_EXPECT_KEYS
            table_keys = {"hands", "win", "jing", "lower", "dealer", "floor", "indicators"}
            if bad or set(case) & table_keys:
                what = sorted(bad)[0] if bad else sorted(set(case) & table_keys)[0]
                raise err(f"case {name!r}: {what!r} does not go with `game` (put table keys inside `game`)",
                          case, "game", hint="game expect keys: " + ", ".join(sorted(GAME_EXPECT_KEYS)))
            try:
                game = build_game(scorer, dict(case["game"]) if isinstance(case["game"], dict) else {})
            except ScenarioError as exc:
                raise err(f"case {name!r}: {exc.message}", case, "game", hint=exc.hint) from None
            results.append(_run_game_case(scorer, file, name, game, case["game"].get("actions") or [], expect, err,
                                          case))
            continue
        try:
            snap = build_snapshot(scorer, hands=case.get("hands") or {}, jing=case.get("jing"), lower=case.get("lower"),
                                  dealer=case.get("dealer"), floor=case.get("floor", 1), win=case.get("win"),
                                  indicators=case.get("indicators"))
        except ScenarioError as exc:
            key = next((k for k in ("hands", "win", "jing", "lower", "indicators", "dealer", "floor") if k in case),
                       "name")
            raise err(f"case {name!r}: {exc.message}", case, key, hint=exc.hint) from None
        results.append(_run_case(scorer, file, name, snap, expect, err, case))
    return results


def _run_case(scorer: Scorer, file: str, name: str, snap, expect: dict, err, case) -> CaseResult:
    res = CaseResult(file, name, True)
    seats = snap.seats
    if expect.get("win") is False:
        try:
            scorer.check_win_hand(snap)
        except IllegalAction as exc:
            res.explanation.append(f"refused: {exc.message}")
            return res
        res.passed = False
        res.differences.append("win: expected the hand to be refused, but it is a winning hand")
        return res
    fired: list[str] = []
    try:
        end_parts, win = scorer.settle_end_parts(snap)
        if win:
            r = win.reading
            res.explanation.append(f"reading: {r.pattern}, wilds {r.wilds}" + (", 精钓" if r.jing_wait else ""))
        settled = dict(end_parts)
        for ind in snap.indicators:  # indicators settled after the deal are settled here too
            if ind not in settled:
                settled[ind] = scorer.settle_indicator(snap, ind)
        parts: dict[str, Ledger] = {"hand": settled["hand"]}
        for key, ind in (("upper", wild_indicator(scorer)), ("lower", lower_indicator(scorer))):
            if ind and ind in snap.indicators:
                parts[key] = settled[ind]
        for ind in snap.indicators:
            parts[f"settlements.{ind}"] = settled[ind]
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
        want_fans = expect["fans"]
        if not isinstance(want_fans, list):
            raise err(f"case {name!r}: expect.fans is a list of names", expect, "fans")
        for f in want_fans:
            if str(f) not in fired:
                res.passed = False
                res.differences.append(f"fans: expected {f} to fire; fired: {', '.join(fired) or 'nothing'}")
    return res


def run_files(paths: list[Path]) -> list[CaseResult]:
    """All cases of several files, in order. Raises on the first file that cannot be read."""
    out: list[CaseResult] = []
    for p in paths:
        out += run_file(p)
    return out


def _fingerprint(game) -> tuple:
    return (game.phase, game.current, len(game.actions), len(game.events), len(game.wall.taken),
            tuple((s, tuple(h.concealed), tuple(h.melds)) for s, h in game.hands.items()),
            tuple((s, tuple(d)) for s, d in game.discards.items()), tuple(sorted(game.locks)),
            tuple((s, c.answer) for s, c in game.pending.items()))


def _auto(game) -> None:
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


def _run_game_case(scorer, file: str, name: str, game, actions: list, expect: dict, err, case) -> CaseResult:
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
        got = {x: 0 for x in seats}
        for _, part, lg in game.parts:
            if part == ind:
                for x, v in lg.net(seats).items():
                    got[x] += v
        for seat, v in want.items():
            if got.get(seat) != v:
                res.passed = False
                res.differences.append(f"settlements.{ind}.{seat}: expected {v}, got {got.get(seat)}")
    if any(k in expect for k in ("hand", "upper", "lower", "total", "winner", "by", "fans", "follow_first")) and r is None:
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
    if "follow_first" in expect and bool(expect["follow_first"]) != r.follow_first:
        res.passed = False
        res.differences.append(f"follow_first: expected {expect['follow_first']}, got {r.follow_first}")
    fired = [r.reading] if r.reading else []
    for _, _, lg in r.parts:
        fired += [f for f in lg.fired if f not in fired]
    fired += [f for f in r.fans if f not in fired]
    res.fired = fired
    nets = {"total": r.net(seats)}
    for when, part, lg in r.parts:
        key = {"hand": "hand", wild_indicator(scorer): "upper", lower_indicator(scorer): "lower"}.get(part)
        if key:
            acc = nets.setdefault(key, {x: 0 for x in seats})
            for x, v in lg.net(seats).items():
                acc[x] += v
    for key in ("hand", "upper", "lower", "total"):
        if key in expect:
            got = nets.get(key, {x: 0 for x in seats})
            for seat, v in expect[key].items():
                if got.get(seat) != v:
                    res.passed = False
                    res.differences.append(f"{key}.{seat}: expected {v}, got {got.get(seat)}")
    for f in expect.get("fans") or []:
        if str(f) not in fired:
            res.passed = False
            res.differences.append(f"fans: expected {f} to fire; fired: {', '.join(fired) or 'nothing'}")
    for when, part, lg in r.parts:
        for t in lg.transfers:
            res.explanation.append(f"{when} {part}: {t.payer}→{t.payee} {t.amount} [{' · '.join(t.factors)}]")
    return res
