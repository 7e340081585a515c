"""The max-plus Shanten (engine/core/shanten.py) equals the reference ShantenOracle on random hands
with 0–8 精, for every bundled ruleset and a house rule without wind chows."""
from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from engine import Scorer, compile_ruleset
from engine.core.shanten import Shanten
from engine.core.shanten_blocks import block_options, cell_bits, fewer_sets, group_tables, pack, unpack
from engine.core.shanten_oracle import ShantenOracle
from engine.lang.resources import bundled_ruleset_names

HOUSE = "ruleset nowind \"no wind chows\"\nextends nanchang\nremove meld 风顺\n"


def _scorers() -> dict[str, Scorer]:
    out = {name: Scorer(compile_ruleset(name)) for name in bundled_ruleset_names()}
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "nowind.rules"
        f.write_text(HOUSE, encoding="utf-8")
        out["nowind"] = Scorer(compile_ruleset(str(f)))
    return out


SCORERS = _scorers()
PAIRS = {name: (Shanten(sc.hands), ShantenOracle(sc.hands)) for name, sc in SCORERS.items()}


def test_the_house_rule_changes_the_shapes():
    assert SCORERS["nowind"].hands.plans.keys() and len(SCORERS) >= 2


def _draw_hand(data, sc: Scorer) -> tuple[list[int], int, frozenset[int]]:
    """A random hand the tile set can deal: (concealed tiles, declared melds, the two 精 kinds)."""
    kinds = len(sc.tiles.kinds)
    suited = [k.index for k in sc.tiles.kinds if k.is_suit]
    indicator = data.draw(st.sampled_from(suited))
    wild = frozenset({indicator, sc.tiles.successor(indicator)})
    n_wild = data.draw(st.integers(0, 8))
    n_melds = data.draw(st.one_of(st.just(0), st.integers(0, 4)))  # 0 half the time: pairs, rotten
    size = max(sc.hands.hand_size - sc.hands.set_size * n_melds, 1)
    size = data.draw(st.sampled_from([size, size - 1])) if size > 1 else size
    # the 精 drawn as at most 4 of each of the two kinds, so the filter below rarely fires
    held = min(n_wild, size)
    first, second = sorted(wild)
    n_first = data.draw(st.integers(max(0, held - 4), min(4, held)))
    wild_tiles = [first] * n_first + [second] * (held - n_first)
    rest = data.draw(st.lists(st.integers(0, kinds - 1), min_size=size - len(wild_tiles),
                              max_size=size - len(wild_tiles)))
    tiles = wild_tiles + rest
    counts = [tiles.count(x) for x in set(tiles)]
    assume(max(counts) <= 4 and sum(tiles.count(x) for x in wild) <= 8)  # a hand the set can deal
    return tiles, n_melds, wild


@pytest.mark.parametrize("name", sorted(PAIRS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_equal_to_the_oracle(name, data):
    sc = SCORERS[name]
    fast, oracle = PAIRS[name]
    tiles, n_melds, wild = _draw_hand(data, sc)
    assert fast.of(tiles, n_melds, wild) == oracle.of(tiles, n_melds, wild), sc.tiles.format(tiles)
    discards = sorted(set(tiles)) + [tiles[0]]
    want = [oracle.of([t for j, t in enumerate(tiles) if j != tiles.index(d)], n_melds, wild) for d in discards]
    assert fast.of_each_discard(tiles, n_melds, wild, discards) == want, sc.tiles.format(tiles)


@pytest.mark.parametrize("name", sorted(PAIRS))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_discard_bounds_hold_every_discard(name, data):
    """``discard_bounds`` (the value bot leaves out patterns by them) brackets what each discard
    gives, pattern by pattern, with 精 as wilds and as natural tiles."""
    sc = SCORERS[name]
    fast = Shanten(sc.hands)  # a fresh one: no memo from the other tests
    tiles, n_melds, wild = _draw_hand(data, sc)
    names = list(sc.hands.plans)
    discards = sorted(set(tiles))
    for wilds in (wild, frozenset()):
        each = fast.plans_each_discard(tiles, n_melds, wilds, discards, names)
        for name_, (least, most) in fast.discard_bounds(tiles, n_melds, wilds, names).items():
            assert least <= min(each[name_]) and max(each[name_]) <= most, (name_, sc.tiles.format(tiles), wilds)


def _table_of_options(templates: tuple[tuple[int, ...], ...], counts: tuple[int, ...], pair: int,
                      k: int) -> tuple[int, ...]:
    """The reference: a group table read from every Pareto option of block_options."""
    cells = [-1] * (2 * (k + 1))
    for a, b, c in block_options(templates, counts, pair):
        cells[2 * min(a, k) + c] = max(cells[2 * min(a, k) + c], min(b, k))
    return tuple(cells)


GROUP_TEMPLATES = sorted({(name, templates, Scorer(compile_ruleset(name)).hands.patterns.pair_size)
                          for name in bundled_ruleset_names()
                          for templates in Scorer(compile_ruleset(name)).hands.patterns.templates_by_id})


@pytest.mark.parametrize("name, templates, pair", GROUP_TEMPLATES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(GROUP_TEMPLATES)])
@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_group_table_is_the_table_of_the_options(name, templates, pair, data):
    """GroupTables.table (what Shanten folds) equals the table of block_options's options (what
    ShantenOracle folds), for every cap and every fewer sets read from it."""
    width = max((max(t) + 1 for t in templates if t), default=7)  # (a group may have no set templates)
    tiles = data.draw(st.lists(st.integers(0, width - 1), max_size=14), label="tiles")
    counts = tuple(min(tiles.count(i), 4) for i in range(width))
    cap = data.draw(st.integers(0, 5), label="cap")
    full = group_tables(templates, pair, cap).table(counts)
    assert full == _table_of_options(templates, counts, pair, cap)
    for k in range(cap):
        assert fewer_sets(full, k) == _table_of_options(templates, counts, pair, k)


@settings(max_examples=200, deadline=None)
@given(cap=st.integers(0, 64), data=st.data())
def test_a_packed_table_unpacks_to_itself(cap, data):
    """The fast counter keys its memos by tables packed into ints (shanten_blocks.pack): a table of
    any k up to the cap (a rule file may ask for up to 64 sets) packs and unpacks to itself, and
    two tables of one k pack apart."""
    bits = cell_bits(cap)
    k = data.draw(st.integers(0, cap))
    cells = st.tuples(*[st.integers(-1, k) for _ in range(2 * k + 2)])
    x, y = data.draw(cells), data.draw(cells)
    assert unpack(pack(x, k, bits), bits) == (x, k)
    assert (pack(x, k, bits) == pack(y, k, bits)) == (x == y)

