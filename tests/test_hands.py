"""Win evaluation with 精 (engine/core/hands.py) against a brute-force oracle, plus unit cases.

The oracle knows nothing of the evaluator: it expands the rule file's ``meld`` shapes into tile
sets itself (docs/language.md, Melds: ``run N`` N consecutive ranks of one suit, never
wrapping; ``distinct N`` N different tiles of one group; ``same N`` N identical tiles), gives
each wild every tile kind in turn and checks ``sets + pair`` with a plain recursion.
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


def group_kinds(rs, name: str) -> list[list[int]]:
    """The tile kinds, in successor order, of each group a shape's ``in`` name stands for: a
    suit, an honours group, ``suits`` (every suit) or ``honours`` (every honours group)."""
    suits = {s.name: [TILES.parse_one(f"{r}{s.name}") for r in range(s.low, s.high + 1)] for s in rs.suits.values()}
    honours = {h.name: [TILES.parse_one(t.code or t.name) for t in h.tiles] for h in rs.honours.values()}
    if name == "suits":
        return list(suits.values())
    if name == "honours":
        return list(honours.values())
    return [suits[name] if name in suits else honours[name]]


def shape_templates(rs, shape) -> set[tuple[int, ...]]:
    """The tile sets (sorted kinds) one ``meld`` shape of the rule text makes."""
    if shape.type == "same":
        return {(k,) * shape.size for k in range(N)}
    out = set()
    for g in (kinds for name in shape.groups for kinds in group_kinds(rs, name)):
        if shape.type == "run":
            out |= {tuple(sorted(g[i:i + shape.size])) for i in range(len(g) - shape.size + 1)}
        else:  # distinct
            out |= {tuple(sorted(c)) for c in itertools.combinations(g, shape.size)}
    return out


# the sets a concealed hand is read into: every chow and pung shape not only `declared`
SET_TEMPLATES = sorted({t for m in SCORER.rs.melds.values() if m.meld_kind in ("chow", "pung")
                        for sh in m.shapes if not sh.declared for t in shape_templates(SCORER.rs, sh)})


def test_the_oracle_reads_the_meld_shapes_as_the_rules_say():
    """Spot checks of the oracle's own expansion against the rule text (nanchang §1 Melds)."""
    def has(text):
        return tuple(sorted(TILES.parse(text))) in SET_TEMPLATES

    assert has("123m") and has("789s") and has("777p") and has("东东东") and has("白白白")
    assert has("东南西") and has("东南北") and has("中发白")  # 风顺: any three winds; 箭顺
    assert not has("891m") and not has("912m")  # runs never wrap
    assert not has("135m") and not has("东东南") and not has("东中发") and not has("1m2p3s")
    assert len(SET_TEMPLATES) == 3 * 7 + 4 + 1 + 34  # runs, wind chows, 中发白, pungs


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
    for _ in range(4):  # sets the 4 copies of each kind can make (most examples valid by construction)
        tiles += list(draw(st.sampled_from([t for t in SET_TEMPLATES
                                            if all(tiles.count(k) + t.count(k) <= 4 for k in t)])))
    tiles += [draw(st.sampled_from([k for k in range(N) if tiles.count(k) <= 2]))] * 2
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
    assume(all(tiles.count(k) <= 4 for k in set(tiles)))  # a hand the set can deal
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
