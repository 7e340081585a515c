"""Win evaluation with 精 (engine/core/hands.py) against a brute-force oracle, plus unit cases.

The oracle knows nothing of the evaluator's search: it gives each wild every tile kind in
turn and checks ``sets + pair`` with a plain recursion over the declared meld shapes.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import Scorer, compile_ruleset

SCORER = Scorer(compile_ruleset("nanchang"))
EV = SCORER.hands
TILES = SCORER.tiles
N = len(TILES)
SET_TEMPLATES = sorted({t for m in SCORER.rs.melds.values() if m.meld_kind in ("chow", "pung")
                        for t in EV.concealed_shapes(m)})


@lru_cache(maxsize=200_000)
def oracle_sets_pair(counts: tuple[int, ...], pair_left: bool) -> bool:
    """Plain recursion: the first tile is in a set or (once) the pair."""
    i = next((j for j, c in enumerate(counts) if c), None)
    if i is None:
        return not pair_left
    if pair_left and counts[i] >= 2:
        c = list(counts)
        c[i] -= 2
        if oracle_sets_pair(tuple(c), False):
            return True
    for t in SET_TEMPLATES:
        if t[0] != i:
            continue
        c = list(counts)
        if all(c[k] >= t.count(k) for k in set(t)):
            for k in t:
                c[k] -= 1
            if oracle_sets_pair(tuple(c), pair_left):
                return True
    return False


def oracle_fewest_wilds(tiles: list[int], wild_kinds: set[int]) -> int | None:
    """Fewest 精 that must stand for another tile, by trying every assignment."""
    held = [t for t in tiles if t in wild_kinds]
    rest = [t for t in tiles if t not in wild_kinds]
    for w in range(len(held) + 1):
        for wild_idx in itertools.combinations(range(len(held)), w):
            natural = rest + [h for i, h in enumerate(held) if i not in wild_idx]
            for faces in itertools.product(range(N), repeat=w):
                c = [0] * N
                for t in natural + list(faces):
                    c[t] += 1
                if oracle_sets_pair(tuple(c), True):
                    return w
    return None


@st.composite
def near_winning_hands(draw):
    """14 tiles: four random sets and a pair, some tiles then swapped for 精 or random tiles."""
    tiles = []
    for _ in range(4):
        tiles += list(draw(st.sampled_from(SET_TEMPLATES)))
    tiles += [draw(st.integers(0, N - 1))] * 2
    indicator = draw(st.integers(0, N - 1))
    wild = {indicator, TILES.successor(indicator)}
    for _ in range(draw(st.integers(0, 2))):
        i = draw(st.integers(0, 13))
        tiles[i] = draw(st.sampled_from(sorted(wild)))
    for _ in range(draw(st.integers(0, 1))):
        tiles[draw(st.integers(0, 13))] = draw(st.integers(0, N - 1))
    return tiles, wild


@settings(max_examples=150, deadline=None)
@given(near_winning_hands())
def test_pinghu_matches_the_oracle(hand):
    tiles, wild = hand
    if any(tiles.count(k) > 4 for k in set(tiles)):
        return
    # the oracle tries 34**w faces: past 3 held 精 one example can take minutes and gigabytes
    # (more 精 are compared with the recursive evaluator in tests/test_tables.py)
    assume(sum(t in wild for t in tiles) <= 3)
    plan = EV.plans["平胡"]
    got = EV.recursive.fewest_wilds(plan, TILES.counts(tiles), frozenset(wild), 0, pair_removed=False)
    assert got == oracle_fewest_wilds(tiles, wild), TILES.format(tiles)


def _readings(text, jing, win, natural=False):
    tiles = TILES.parse(text)
    ind = TILES.parse_one(jing)
    wild = frozenset({ind, TILES.successor(ind)})
    return {(r.pattern, r.wilds, r.jing_wait) for r in EV.readings(tiles, [], wild, TILES.parse_one(win), natural)}


def test_quad_counts_as_two_pairs_in_seven_pairs():
    assert ("小七对", 0, False) in _readings("1111m2233p5566s东东", "9s", "东")


def test_shisanlan_needs_rank_gap_three():
    assert ("十三烂", 0, False) in _readings("147m258p369s东南西北中", "9s", "中")
    assert not _readings("147m257p369s东南西北中", "9s", "中")  # 5p and 7p are 2 apart


def test_qixing_needs_seven_natural_honours():
    # 3p is 正精, wild; standing in for 白 would make 七星 — not allowed, so only 十三烂
    got = _readings("147m258p3s东南西北中发3p", "3p", "3p")
    assert {p for p, _, _ in got} == {"十三烂"}
    got = _readings("147m258p3s东南西北中发白", "9s", "白")
    assert ("七星十三烂", 0, False) in got


def test_jing_wait_is_the_winning_tile_on_a_lone_jing():
    # 123m 456m 789s 东南西 + lone 3p (正精) waits on anything: 5s drawn pairs with it
    got = _readings("123m456m789s东南西3p5s", "3p", "5s")
    assert ("平胡", 1, True) in got
    # an ordinary single wait on 5s, drawing the 精 3p, is not 精钓
    got = _readings("123m456m789s东南西5s3p", "3p", "3p")
    assert all(not jw for _, _, jw in got)


def test_discarded_jing_counts_only_as_its_face():
    assert _readings("123m456m789s东南西5p4p", "3p", "4p")  # self-drawn 4p is wild: a win
    assert not _readings("123m456m789s东南西5p4p", "3p", "4p", natural=True)  # discarded: face only


@pytest.mark.parametrize("text", ["123m456m789s东南西北", "1m"])
def test_incomplete_hands_are_not_wins(text):
    assert not _readings(text, "9s", TILES.code(TILES.parse(text)[-1]))
