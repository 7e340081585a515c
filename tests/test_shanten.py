"""Shanten with 精 (engine/core/shanten.py): known values, and −1 exactly when the hand wins."""
from __future__ import annotations

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import Scorer, compile_ruleset
from engine.core.shanten import Shanten

SC = Scorer(compile_ruleset("nanchang"))
SH = Shanten(SC.hands)
T = SC.tiles


def wild_of(code: str) -> frozenset[int]:
    k = T.parse_one(code)
    return frozenset({k, T.successor(k)})


@pytest.mark.parametrize("hand, jing, want", [
    ("123m456m789s东南西5p5p", "9p", -1),   # complete: 4 sets + pair
    ("123m456m789s东南西5p", "9p", 0),      # one tile away
    ("123m456m789s东南西1p", "9p", 0),      # a lone 精 (1p is wild): 精钓, any tile wins
    ("123m456m789s东南1p5p", "9p", 0),      # the 精 completes 东南 + ?; 5p waits
    ("1122m3344p5566s7z", "9p", 0),        # six pairs and a single: 小七对 in one
    ("147m258p369s东南西北", "9p", 0),      # 13 compatible singles: 十三烂 in one
    ("159m159p159s东南西北", "9p", 0),      # 1-5-9 are each 4 apart: 13 compatible singles too
    ("1234m5678p东东南南西", "9p", 1),        # 123m 567p 东南西 + 东南: a drawn 西 makes a second chow and tenpai
])
def test_known_values(hand, jing, want):
    assert SH.of(T.parse(hand), 0, wild_of(jing)) == want


def test_melds_count_as_sets():
    # 9 concealed tiles + 1 exposed pung: 3 sets + a lone 5p
    assert SH.of(T.parse("123m456m789s5p"), 1, wild_of("9p")) == 0


SUITED = [k.index for k in T.kinds if k.is_suit]


@settings(max_examples=120, deadline=None)
@given(st.lists(st.sampled_from(range(len(T.kinds))), min_size=14, max_size=14), st.sampled_from(SUITED))
def test_minus_one_exactly_when_the_hand_wins(tiles, indicator):
    assume(max(tiles.count(x) for x in tiles) <= 4)
    wild = frozenset({indicator, T.successor(indicator)})
    wins = SC.hands.is_win(tiles, [], wild, tiles[-1])
    assert (SH.of(tiles, 0, wild) == -1) == wins, T.format(tiles)
