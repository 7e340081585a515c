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

from .compiler import compile_ruleset
from .errors import MjError, ScenarioError
from .game import Action, Game
from .scoring import Scorer

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
        "ruleset_file": g.rs.file,
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


def replay(rec: dict) -> tuple[Game, list[str]]:
    """Play a record again. Returns the game and the differences from the recorded result
    ([] when identical). Raises :class:`MjError` if the record cannot be played."""
    ref = rec.get("ruleset_file") if rec.get("ruleset_file") and Path(rec["ruleset_file"]).is_file() else rec["ruleset"]
    rs = compile_ruleset(ref, {k: str(v) for k, v in (rec.get("options") or {}).items()})
    scorer = Scorer(rs)
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
    if "result" in rec:
        got = result_summary(g) if g.result else {}
        for key, want in rec["result"].items():
            if got.get(key) != want:
                diffs.append(f"{key}: recorded {want!r}, replayed {got.get(key)!r}")
    return g, diffs
