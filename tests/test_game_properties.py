"""Property tests over random seeds and bot mixes (hypothesis): whatever happens in a hand,
the tiles are conserved after every action, every settlement is zero-sum, no illegal action
is accepted (and refusing one changes nothing), and a hand's record replays identically."""
from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine import Scorer, compile_ruleset
from engine.errors import IllegalAction
from engine.table.bots import BOTS
from engine.table.game import KINDS, Action, Game
from engine.table.records import game_record, replay

RULESETS = {name: Scorer(compile_ruleset(name)) for name in ("nanchang", "nanchang-table")}


def tiles_in_play(g: Game) -> int:
    held = sum(len(h.concealed) + sum(len(m.tiles) for m in h.melds) for h in g.hands.values())
    return held + sum(len(d) for d in g.discards.values()) + g.wall.remaining


def fingerprint(g: Game) -> tuple:
    return (g.phase, g.current, len(g.actions), len(g.events), frozenset(g.wall.taken), g.last_drawn, g.from_tail,
            tuple((s, tuple(h.concealed), tuple(h.melds)) for s, h in g.hands.items()),
            tuple((s, tuple(d)) for s, d in g.discards.items()), tuple(sorted(g.locks.items())),
            tuple((s, c.answer) for s, c in g.pending.items()), g.result is None)


def some_illegal(g: Game, rng: random.Random) -> Action:
    """A random action that is not legal now (or any action by a seat that may not act)."""
    while True:
        seat = rng.choice(g.seats)
        kind = rng.choice(KINDS)
        tile = rng.randrange(len(g.tiles))
        tiles = tuple(sorted(rng.sample(range(len(g.tiles)), 2))) if kind == "chow" else ()
        a = Action(seat, kind, None if kind == "chow" else tile, tiles)
        if a not in g.legal_actions(seat):
            return a


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), mix=st.lists(st.sampled_from(sorted(BOTS)), min_size=4, max_size=4),
       ruleset=st.sampled_from(sorted(RULESETS)))
def test_a_hand_keeps_its_invariants(seed, mix, ruleset):
    scorer = RULESETS[ruleset]
    g = Game(scorer.rs, seed, scorer=scorer)
    bots = {s: BOTS[k](seed + i) for i, (s, k) in enumerate(zip(g.seats, mix))}
    rng = random.Random(seed)
    total = tiles_in_play(g)
    assert total == scorer.tiles.total_tiles
    steps = 0
    while not g.over:
        if steps % 3 == 0:  # an illegal action is refused and changes nothing
            before = fingerprint(g)
            with pytest.raises(IllegalAction):
                g.apply(some_illegal(g, rng))
            assert fingerprint(g) == before
        seat = g.to_act()[0]
        g.apply(bots[seat](g, seat))
        assert tiles_in_play(g) == total
        steps += 1
    for when, part, lg in g.result.parts:
        assert sum(lg.net(g.seats).values()) == 0, (when, part)
    assert sum(g.result.net(g.seats).values()) == 0
    # after the end nothing more is accepted
    with pytest.raises(IllegalAction):
        g.apply(Action(g.seats[0], "draw"))
    replayed, diffs = replay(game_record(g))
    assert diffs == []
    assert [a.text(scorer) for a in replayed.actions] == [a.text(scorer) for a in g.actions]
    assert replayed.result.net(g.seats) == g.result.net(g.seats)


def test_the_checks_can_fail():
    """A broken record is reported: replay notices a changed result."""
    scorer = RULESETS["nanchang"]
    g = Game(scorer.rs, 11, scorer=scorer)
    bots = {s: BOTS["greedy"](i) for i, s in enumerate(g.seats)}
    while not g.over:
        seat = g.to_act()[0]
        g.apply(bots[seat](g, seat))
    rec = game_record(g)
    rec["result"]["total"] = dict.fromkeys(g.seats, 0)
    _, diffs = replay(rec)
    assert diffs and diffs[0].startswith("total: recorded")
