"""Hand records: everything needed to play a hand again exactly, and what it settled.

A record (YAML or JSON, format ``mjrules-record/1``) holds the ruleset (name, file, options),
the seed, dealer and floor, the wall (the shuffled ring, or a scripted linear wall), every
dice throw, the previous hand's indicators, every action as text (``S discard 5p``) and the
result (winner, reading, fans, net 子 per part, and every settlement transfer). :func:`replay` rebuilds the game from it and
reports any difference from the recorded result.
"""
from __future__ import annotations

import io
import json
from pathlib import Path

from ruamel.yaml import YAML

from engine.lang.compiler import compile_ruleset
from engine.errors import MjError, ScenarioError
from engine.table.game import Action, Game
from engine.core.scoring import Scorer
from engine.table.wall import DIE_FACES

FORMAT = "mjrules-record/1"


def result_summary(g: Game) -> dict:
    """The recorded outcome of a finished game: winner, how, reading, fans and nets by part."""
    r = g.result
    parts: dict[str, dict[str, int]] = {}
    for when, part, lg in r.parts:
        key = f"{when}:{part}"
        acc = parts.setdefault(key, {s: 0 for s in g.seats})
        for s, v in lg.net(g.seats).items():
            acc[s] += v
    transfers = [{"when": when, "part": part, "payer": t.payer, "payee": t.payee, "amount": t.amount,
                  "rule": t.rule, "factors": list(t.factors)} for when, part, lg in r.parts for t in lg.transfers]
    return {
        "winner": r.winner, "by": r.win.by if r.win else "exhaustive", "reading": r.reading, "fans": list(r.fans),
        "follow_first": r.follow_first, "net": parts, "total": r.net(g.seats), "settlements": transfers,
    }


def game_record(g: Game) -> dict:
    """A finished (or unfinished) game as a record dict, ready for YAML or JSON."""
    code = g.tiles.code
    rec = {
        "format": FORMAT,
        "ruleset": g.rs.name,
        # a bundled ruleset is named; another file is kept by its path
        "ruleset_file": None if _bundled(g.rs.file) else g.rs.file,
        "options": {k: o.chosen for k, o in g.rs.options.items()},
        "seed": g.seed,
        "dealer": g.dealer,
        "floor": g.floor,
        "ring": [code(t) for t in g.ring] if g.ring is not None else None,
        "wall": None if g.ring is not None else [code(t) for t in g.wall.tiles],
        "dice": [list(r) for r in g.dice_rolls],
        "previous_indicators": {k: code(v) for k, v in g.previous_indicators.items()},
        "actions": [a.text(g.scorer) for a in g.actions],
    }
    if g.result is not None:
        rec["result"] = result_summary(g)
    return rec


def to_yaml(data, compact: bool = True) -> str:
    """YAML text in the data's key order (ruamel.yaml); ``compact`` writes short lists inline."""
    y = YAML()
    y.allow_unicode = True
    y.default_flow_style = None if compact else False
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def dump(rec: dict, path: Path) -> None:
    """Write a record as JSON (``.json``) or YAML (anything else)."""
    if path.suffix == ".json":
        path.write_text(json.dumps(rec, ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        path.write_text(to_yaml(rec), encoding="utf-8")


def load(path: Path) -> dict:
    """Read a record file; :class:`ScenarioError` if it is not one."""
    try:
        text = path.read_text(encoding="utf-8")
        rec = json.loads(text) if path.suffix == ".json" else YAML(typ="safe").load(text)
    except (OSError, ValueError) as exc:
        raise ScenarioError(f"cannot read record {path}: {exc}") from None
    except Exception as exc:  # ruamel's parse errors
        raise ScenarioError(f"cannot read record {path}: {exc}") from None
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise ScenarioError(f"{path} is not an mjrules record (format {FORMAT})")
    return rec


def _bundled(file: str) -> bool:
    from engine.lang.resources import rulesets_dir

    try:
        return Path(file).resolve().parent == rulesets_dir().resolve()
    except OSError:
        return False


def _check_record(rec: dict) -> None:
    """The fields replay relies on, with what is wrong; :class:`MjError`."""
    for key in ("ruleset", "actions", "dice"):
        if key not in rec:
            raise MjError(f"the record has no `{key}`")
    if not isinstance(rec["actions"], list) or not all(isinstance(a, str) for a in rec["actions"]):
        raise MjError("`actions` is a list of action texts such as `S discard 5p`")
    if not isinstance(rec.get("floor", 1), int) or rec.get("floor", 1) < 1:
        raise MjError(f"`floor` must be a whole number ≥ 1, not {rec.get('floor')!r}")
    for throw in rec["dice"]:
        if not isinstance(throw, list) or not all(isinstance(d, int) and 1 <= d <= DIE_FACES for d in throw):
            raise MjError(f"a dice throw is a list of dice from 1 to {DIE_FACES}, not {throw!r}")


def replay(rec: dict) -> tuple[Game, list[str]]:
    """Play a record again. Returns the game and the differences from the recorded result
    ([] when identical). Raises :class:`MjError` if the record cannot be played."""
    _check_record(rec)
    own = rec.get("ruleset_file")
    if own and not Path(own).is_file():
        raise MjError(f"the record's ruleset file {own} is not there")
    rs = compile_ruleset(own or rec["ruleset"], {k: str(v) for k, v in (rec.get("options") or {}).items()})
    if rs.name != rec["ruleset"]:
        raise MjError(f"the record is of ruleset {rec['ruleset']!r}, but {own or rec['ruleset']} is {rs.name!r}")
    scorer = Scorer(rs)
    seats = [str(v) for v in rs.table["seats"].values]
    if rec.get("dealer") is not None and rec["dealer"] not in seats:
        raise MjError(f"the record's dealer {rec['dealer']!r} is not a seat", hint=f"seats: {' '.join(seats)}")
    parse = scorer.tiles.parse_one
    ring = [parse(c) for c in rec["ring"]] if rec.get("ring") else None
    wall = [parse(c) for c in rec["wall"]] if rec.get("wall") else None
    g = Game(rs, rec.get("seed"), dealer=rec.get("dealer"), floor=rec.get("floor", 1), ring=ring, wall=wall,
             dice=[tuple(r) for r in rec.get("dice") or []],
             previous_indicators={k: parse(v) for k, v in (rec.get("previous_indicators") or {}).items()},
             scorer=scorer)
    for i, text in enumerate(rec.get("actions") or []):
        try:
            g.apply(Action.parse(text, scorer))
        except MjError as exc:
            raise MjError(f"action {i + 1} ({text!r}) cannot be replayed: {exc.message}", hint=exc.hint) from None
    diffs = []
    if "result" not in rec:
        diffs.append("the record has no result to compare with")
        return g, diffs
    if g.result is None:
        diffs.append(f"the actions end before the hand is over (phase {g.phase})")
        return g, diffs
    got = result_summary(g)
    for key, want in rec["result"].items():
        if key == "settlements" and isinstance(want, list) and got.get(key) != want:
            first = next((i for i, (a, b) in enumerate(zip(want, got[key])) if a != b), min(len(want), len(got[key])))
            w = want[first] if first < len(want) else None
            r = got[key][first] if first < len(got[key]) else None
            diffs.append(f"settlements: transfer {first + 1} recorded {w!r}, replayed {r!r}")
        elif got.get(key) != want:
            diffs.append(f"{key}: recorded {want!r}, replayed {got.get(key)!r}")
    return g, diffs
