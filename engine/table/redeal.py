"""What could the tiles a seat cannot see be? A copy of a hand being played, and a copy with
everything one seat cannot see dealt again at random, consistent with what it sees.

- :func:`copy_game`: an independent copy of a :class:`~engine.table.game.Game` to play on (a
  search's look-ahead); the original is not changed by playing the copy.
- :func:`unseen_tiles`: the tile kinds a seat cannot locate, from what it sees alone
  (:func:`engine.table.view.unseen_counts`, the count the value bot reads too): every copy of
  each kind, less its own tiles and melds, the other seats' exposed melds, every discard and
  the face-up tiles still on the wall (shown indicators, turned flips).
- :func:`redealt`: a copy of the game in which those tiles are shuffled (by a given generator)
  into the places the seat cannot see — the other seats' concealed tiles (as many as each
  holds), the kinds of their concealed kongs, and the wall's undrawn face-down tiles; the
  hidden indicators follow their new tiles, the other seats' 随精 picks are made again, their
  claims are recomputed and their 弃先胡后 locks kept on their (public) tiles, the worth of the
  win they passed taken as 0; of the real hand's actions only the last is copied, and not its
  seed. Everything public (melds, discards, the face-up indicators, the wall counts, whose
  turn, every settlement made) is kept.

A determinised copy is a function of the seat's view and the generator alone: two games the
seat cannot tell apart give the same copy for the same generator (tests/test_redeal.py). Its
``events`` are those the seat may see (:func:`engine.table.view.public_event`); it is a game to
play on, not a record.
"""
from __future__ import annotations

import copy
import random

from engine.core.handparts import MeldTiles
from engine.table.actions import ANSWERS, CLAIM, FLIP, OVER, PICK, ROB, SECRET_TURNS, Lock
from engine.table.game import Game
from engine.table.picks import likely_pick
from engine.table.turn import claims_on, robbers
from engine.table.valuemodel import model_of
from engine.table.view import public_event, public_wall, unseen_counts
from engine.table.wins import Wins


def copy_game(game: Game) -> Game:
    """An independent copy of ``game`` as it is now: playing it leaves ``game`` unchanged. The
    ruleset, the scorer, the immutable actions, the events logged and the settlements made so far
    are shared (neither is changed once made); the wall, hands, discards, claims, indicators,
    caches and the random generator (in its state) are copied. A deep copy, about 0.3 ms."""
    shared = (game.rs, game.scorer, game.tiles, game.policies, game.plain_actions, game.draw_actions,
              game.discard_actions, game.after, game.seats, game.deal_chunks, game.meld_size, game.ring,
              game.previous_indicators, game.wild, *game.wilds.values())
    memo: dict[int, object] = {id(x): x for x in shared if x is not None}
    memo[id(game.events)] = list(game.events)
    memo[id(game.parts)] = list(game.parts)
    rng = memo[id(game.rng)] = random.Random()
    rng.setstate(game.rng.getstate())
    return copy.deepcopy(game, memo)


def unseen_tiles(game: Game, seat: str) -> list[int]:
    """The tile kinds ``seat`` cannot locate, sorted, one entry a copy
    (:func:`~engine.table.view.unseen_counts`). Raises ``ValueError`` for a seat not at the table."""
    return [k for k, n in enumerate(unseen_counts(game, seat)) for _ in range(n)]


def redealt(game: Game, seat: str, rng: random.Random) -> Game:
    """A copy of ``game`` with what ``seat`` cannot see dealt again by ``rng`` (module
    docstring): the same view for ``seat``, another possible truth. The other seats keep how
    many concealed tiles and concealed kongs they hold; each concealed kong's kind is drawn
    among the kinds with enough unseen copies. A hidden indicator on a drawn position takes a
    random unseen kind (unless the seat drew that position itself). A 随精 pick of another seat
    is made again by :func:`~engine.table.picks.likely_pick` on its new tiles.

    Raises ``ValueError`` for a seat not at the table, a hand that is over, or one in the
    ``pick`` or ``flip`` phase (before play: the picks and stops asked depend on the dealt hands)."""
    if seat not in game.seats:
        raise ValueError(f"no seat {seat!r} at this table")
    if game.phase in (OVER, PICK, FLIP):
        raise ValueError(f"no redeal in phase {game.phase!r}: only while the hand is played")
    pool = unseen_tiles(game, seat)
    g = copy_game(game)
    g.events = [v for e in game.events if (v := public_event(e, seat)) is not None]
    g.ring = None
    g.rng = random.Random(rng.random())  # the copy's own dice (none are thrown in play)
    others = [s for s in g.seats if s != seat]
    size = g.meld_size["kong"] or 0
    for s in others:  # the kinds of concealed kongs, drawn first (a kong needs `size` copies)
        melds = g.hands[s].melds
        for i, m in enumerate(melds):
            if m.concealed:
                kinds = sorted({t for t in pool if pool.count(t) >= size})
                kind = kinds[rng.randrange(len(kinds))]
                for _ in range(size):
                    pool.remove(kind)
                melds[i] = MeldTiles(m.meld_kind, (kind,) * size, concealed=True, added=m.added,
                                     from_seat=m.from_seat, claimed=m.claimed)
    rng.shuffle(pool)
    robbed = g.robbed if g.phase == ROB and g.robbed is not None and g.robbed[0] != seat else None
    for s in others:
        n = len(g.hands[s].concealed)
        known = [robbed[1]] if robbed is not None and robbed[0] == s else []
        tiles = known + [pool.pop() for _ in range(n - len(known))]
        g.set_concealed(s, tiles)
    taken = g.wall.taken
    face_up = public_wall(game)
    for p in range(len(g.wall.tiles)):
        if p not in taken and p not in face_up:
            g.wall.tiles[p] = pool.pop()
    assert not pool, "the unseen tiles fill exactly the places the seat cannot see"
    _redo_indicators(game, g, seat, rng)
    # 弃先胡后: another seat's lock and its tile are public (its pass_lock event), the worth of the
    # win it passed is not: taken as 0 (any later win of worth lifts a higher-score lock)
    g.locks = {s: lk if s == seat else Lock(lk.tile, 0) for s, lk in g.locks.items()}
    # the last action (a view reads it); the others hold others' picks and kongs. Another seat's
    # answer to a claim is its secret until every seat asked has answered.
    g.actions = [a for a in game.actions[-1:]
                 if not (game.phase in SECRET_TURNS and a.seat != seat and a.kind in ANSWERS)]
    g.seed = 0  # the real hand's seed deals its wall: not the copy's
    g.wins = Wins(g)
    if g.current != seat and g.last_drawn is not None:
        g.last_drawn = g.hands[g.current].concealed[-1]  # the other seat's draw: one of its new tiles
    _redo_claims(g, seat)
    return g


def _redo_indicators(game: Game, g: Game, seat: str, rng: random.Random) -> None:
    """The hidden indicators read their new tiles; the other seats' picks are made again; the 精 follow."""
    unseen = unseen_tiles(game, seat)
    own = {e.get("position") for e in game.events if e["event"] == "draw" and e.get("seat") == seat}
    indicators = dict(g.indicators)
    for name, p in g.indicator_positions.items():
        ind = g.rs.indicators[name]
        if not ind.hidden or ind.picked or name not in indicators:
            continue
        if p not in g.wall.taken:
            indicators[name] = g.wall.tiles[p]
        elif p not in own:
            indicators[name] = unseen[rng.randrange(len(unseen))]
    g.set_indicators(indicators)  # the shared 精 of the new tiles, before the picks are made on them
    if g.picked is not None:
        shanten = model_of(g.scorer).any_shanten
        for s in list(g.picked.chosen):
            if s != seat:
                g.picked.chosen[s] = likely_pick(g.scorer, shanten, g.hands[s].concealed, g.wild)
        g.set_indicators(indicators)  # each seat's own 精 of its new pick


def _redo_claims(g: Game, seat: str) -> None:
    """The claims waiting on a discard (or robbed kong) asked again of the other seats, on their
    new tiles; the seat's own claim is kept as it was."""
    if g.phase == CLAIM and g.last_discard is not None:
        fresh = claims_on(g, *g.last_discard)
        first = g.last_discard[0]
    elif g.phase == ROB and g.robbed is not None:
        fresh = robbers(g, *g.robbed)
        first = g.robbed[0]
    else:
        return
    mine = g.pending.get(seat)
    if mine is not None:
        fresh[seat] = mine
    g.pending = {s: fresh[s] for s in g.after[first][1:] if s in fresh}
