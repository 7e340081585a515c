"""Scripted games for scenario files: a wall built from what the case says, then its actions.

A ``game:`` case (docs/scenarios.md) gives the dealt hands, the next draws from the head, the
kong replacements from the tail, the indicator tiles and a seed for everything left out. This
module turns that into the linear wall :class:`~engine.table.game.Game` takes, placing each given
tile where the deal, the draws and the dice will put it (RULES.md §1 Wall).
"""
from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.core.scoring import Scorer
from engine.core.snapshot import lower_indicator, seats_of, wild_indicator
from engine.errors import ScenarioError
from engine.table.game import Game
from engine.table.wall import Wall

GAME_KEYS = {"dealer", "floor", "jing", "lower", "indicators", "previous", "hands", "draws", "replacements", "dice",
             "seed", "actions"}


@dataclass
class GameKeyError(ScenarioError):
    """A ``game:`` value that cannot be placed; ``key`` names the game key at fault, so the
    scenario runner points at it (file:line:col of that key)."""

    key: str | None = None


def _tiles(scorer: Scorer, value: object) -> list[int]:
    if value is None:
        return []
    if isinstance(value, list):
        return [t for v in value for t in scorer.tiles.parse(str(v))]
    return scorer.tiles.parse(str(value))


def build_game(scorer: Scorer, spec: dict[str, Any]) -> Game:
    """A game whose wall holds the case's tiles where play will find them.

    Raises :class:`ScenarioError` when the spec is malformed or asks for more copies of a tile
    than the set has; a :class:`GameKeyError` (naming its key) for more ``draws`` than the
    deal leaves or more ``replacements`` than the wall holds.
    """
    unknown = set(spec) - GAME_KEYS
    if unknown:
        raise ScenarioError(f"unknown game key {sorted(unknown)[0]!r}", hint="game keys: " + ", ".join(sorted(GAME_KEYS)))
    rs = scorer.rs
    seats = seats_of(scorer)
    dealer = str(spec.get("dealer", seats[0]))
    if dealer not in seats:
        raise ScenarioError(f"dealer {dealer!r} is not a seat", hint=f"seats: {' '.join(seats)}")
    height = scorer.rules.table_int("stack_height")
    total = [k.index for k in scorer.tiles.kinds for _ in range(k.copies)]
    size = len(total)
    dice = [tuple(int(x) for x in r) for r in (spec.get("dice") or [])]
    if not dice:
        dice = [(1, 2)]  # the indicator throw: the third stack from the tail
    probe = Wall([0] * size, height)
    placed: dict[int, int] = {}

    def put(pos: int, tile: int, what: str) -> None:
        if pos in placed and placed[pos] != tile:
            raise ScenarioError(f"{what}: wall position {pos} is already given another tile")
        placed[pos] = tile

    # indicators: where the game will look for them (the same dice, the same positions)
    given = dict(spec.get("indicators") or {})
    for key, finder in (("jing", wild_indicator), ("lower", lower_indicator)):
        if spec.get(key) is not None and finder(scorer):
            given[finder(scorer)] = spec[key]
    throws = iter(dice)
    where: dict[str, int] = {}
    for name, ind in rs.indicators.items():
        if ind.position.type == "previous":
            continue
        p = probe.locate(ind.position.type, ind.position.end, where.get(ind.position.ref) if ind.position.ref else None,
                           lambda: next(throws))
        if p is not None:
            where[name] = p
    reserved = set(where.values())
    for name, tile in given.items():
        if name not in where:
            raise ScenarioError(f"game.indicators: {name!r} is not an indicator on the wall",
                                hint="on the wall: " + ", ".join(where) or "none")
        put(where[name], scorer.tiles.parse_one(str(tile)), f"indicator {name}")
    # the deal: chunks in seat order from the dealer, then the dealer's extra tile(s)
    hands = spec.get("hands") or {}
    if not isinstance(hands, dict):
        raise ScenarioError("game.hands is a mapping seat → dealt tiles")
    deal = rs.table.get("deal")
    chunks = [int(v) for v in deal.values] if deal else [scorer.rules.table_int("hand")]
    order = seats[seats.index(dealer):] + seats[:seats.index(dealer)]
    slots: dict[str, list[int]] = {s: [] for s in seats}
    pos = 0
    for chunk in chunks:
        for s in order:
            for _ in range(chunk):
                slots[s].append(pos)
                pos += 1
    for _ in range(scorer.rules.table_int("dealer_extra")):
        slots[dealer].append(pos)
        pos += 1
    for s, value in hands.items():
        if s not in seats:
            raise ScenarioError(f"game.hands: no seat {s!r}", hint=f"seats: {' '.join(seats)}")
        tiles = _tiles(scorer, value)
        if len(tiles) != len(slots[s]):
            raise ScenarioError(f"game.hands.{s}: {len(tiles)} tiles given; {s} is dealt {len(slots[s])}")
        for p, t in zip(slots[s], tiles):
            put(p, t, f"hands.{s}")
    # the head draws after the deal, and the tail replacements
    draws = _tiles(scorer, spec.get("draws"))
    head = [p for p in range(pos, size) if p not in reserved]
    if len(draws) > len(head):
        raise GameKeyError(f"game.draws: {len(draws)} tiles given; the wall has {len(head)} left after the deal",
                           hint=f"give at most {len(head)} draws", key="draws")
    for p, t in zip(head, draws):
        put(p, t, "draws")
    tail = probe.tail_order()
    replacements = _tiles(scorer, spec.get("replacements"))
    if len(replacements) > len(tail):
        raise GameKeyError(f"game.replacements: {len(replacements)} tiles given; the wall has {len(tail)}",
                           hint=f"give at most {len(tail)} replacements (a replacement is one tile from the tail)",
                           key="replacements")
    for p, t in zip(tail, replacements):
        put(p, t, "replacements")
    # the rest at random, from the tiles not given
    left = Counter(total)
    left.subtract(placed.values())
    over = [scorer.tiles.code(k) for k, n in left.items() if n < 0]
    if over:
        raise ScenarioError(f"the game uses more {over[0]} than the set has "
                            f"({scorer.tiles.kinds[scorer.tiles.parse_one(over[0])].copies})")
    rest = list(left.elements())
    random.Random(spec.get("seed", 0)).shuffle(rest)
    given_at = [placed.get(p) for p in range(size)]
    it = iter(rest)
    wall = [t if t is not None else next(it) for t in given_at]
    previous = {name: scorer.tiles.parse_one(str(t)) for name, t in (spec.get("previous") or {}).items()}
    return Game(rs, spec.get("seed", 0), dealer=dealer, floor=int(spec.get("floor", 1)), wall=wall, dice=dice,
                previous_indicators=previous, scorer=scorer)
