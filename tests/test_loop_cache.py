"""The game loop's caches (for speed) change nothing: an action offered before the state changed
is checked again in full, the count vectors follow the hands, the self-drawn win is the one
offered."""
from __future__ import annotations

import random

import pytest

from engine import Scorer, compile_ruleset
from engine.errors import IllegalAction
from engine.table.game import Action, Game

SC = Scorer(compile_ruleset("nanchang"))


def test_an_action_offered_before_the_last_change_is_refused():
    g = Game(SC.rs, 5, scorer=SC)
    seat = g.to_act()[0]
    offered = g.legal_actions(seat)
    discard = next(a for a in offered if a.kind == "discard")
    g.apply(discard)
    with pytest.raises(IllegalAction, match=r"illegal action '.* discard .*'"):
        g.apply(discard)  # offered once, but the state has moved on (and the tile is gone)


def test_counts_follow_the_hands_and_offers_match_a_fresh_game():
    for seed in range(6):
        g = Game(SC.rs, seed, scorer=SC)
        rng = random.Random(seed)
        while not g.over:
            seat = g.to_act()[0]
            acts = g.legal_actions(seat)
            for s in g.seats:
                assert g.counts[s] == SC.tiles.counts(g.hands[s].concealed)
            assert g.legal_actions(seat) == acts  # the cached offer is the same list
            g.apply(rng.choice(acts))
        for s in g.seats:
            assert g.counts[s] == SC.tiles.counts(g.hands[s].concealed)


def test_a_win_not_offered_is_refused_with_the_usual_message():
    g = Game(SC.rs, 5, scorer=SC)
    seat = g.to_act()[0]
    assert Action(seat, "win") not in g.legal_actions(seat)
    with pytest.raises(IllegalAction, match="illegal action"):
        g.apply(Action(seat, "win"))
