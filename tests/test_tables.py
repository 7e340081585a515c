"""The win tables (engine/core/wintables/) against the recursive evaluator they replace.

The recursive search (HandEvaluator.recursive: is_win / readings) is the oracle:
on random hands with 0–8 精, for every bundled ruleset and for house rules with changed shapes
(no wind chows; an added shape), both must give the same answer and the same readings. The
disk cache is untrusted input: a corrupt file is ignored and rebuilt.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine import Scorer, compile_ruleset
from engine.core.hands import MeldTiles
from engine.core.wintables import build, cachefile, forms, packing, store

HOUSE_NO_WIND_CHOWS = """\
ruleset nowind "no wind chows"
extends nanchang
remove meld 风顺
pattern 清一色 = sets 4 + pair, one of suits
"""
HOUSE_ADDED_SHAPE = """\
ruleset spread "an added shape"
extends nanchang
meld 散顺 chow = distinct 3 in suits
pattern 字碰 = sets 4 of pung + pair, honours natural, honours >= 2
"""


def _scorers(tmp: Path) -> dict[str, Scorer]:
    out = {name: Scorer(compile_ruleset(name)) for name in ("nanchang", "chongguan", "ganzhou", "nanchang-table")}
    for name, text in (("nowind", HOUSE_NO_WIND_CHOWS), ("spread", HOUSE_ADDED_SHAPE)):
        f = tmp / f"{name}.rules"
        f.write_text(text, encoding="utf-8")
        out[name] = Scorer(compile_ruleset(str(f)))
    return out


@pytest.fixture(scope="module")
def scorers(tmp_path_factory) -> dict[str, Scorer]:
    return _scorers(tmp_path_factory.mktemp("house"))


RULESETS = ["nanchang", "chongguan", "ganzhou", "nanchang-table", "nowind", "spread"]


@st.composite
def hands(draw, scorer: Scorer):
    """A near-winning hand: 0–2 declared melds, sets and a pair from the ruleset's shapes, a few
    tiles swapped for random ones, then 0–8 精 put in; the winning tile is one of the tiles."""
    ev, tiles = scorer.hands, scorer.tiles
    n = len(tiles)
    shapes = sorted({t for m in scorer.rs.melds.values() if m.meld_kind != "pair" for t in ev.concealed_shapes(m)})
    pungs = [t for t in shapes if len(set(t)) == 1]
    indicator = draw(st.integers(0, n - 1))
    wild = frozenset(k for k in (indicator, tiles.successor(indicator)) if k is not None)
    melds = []
    for _ in range(draw(st.integers(0, 2))):
        t = draw(st.sampled_from(pungs + shapes))
        kind = "pung" if len(set(t)) == 1 else "chow"
        melds.append(MeldTiles(kind, tuple(t)))
    concealed: list[int] = []
    for _ in range(4 - len(melds)):
        concealed += list(draw(st.sampled_from(shapes)))
    concealed += [draw(st.integers(0, n - 1))] * 2
    for _ in range(draw(st.integers(0, 3))):
        concealed[draw(st.integers(0, len(concealed) - 1))] = draw(st.integers(0, n - 1))
    jing = sorted(wild)
    for i in range(draw(st.integers(0, 8))):
        concealed[draw(st.integers(0, len(concealed) - 1))] = jing[i % len(jing)]
    if draw(st.booleans()):  # seven pairs / 十三烂-like shapes now and then
        concealed = draw(st.lists(st.integers(0, n - 1), min_size=len(concealed), max_size=len(concealed)))
        melds = []
    win = draw(st.sampled_from(concealed))
    return concealed, melds, wild, win, draw(st.booleans())


@pytest.mark.parametrize("name", RULESETS)
def test_tables_match_the_recursive_evaluator(scorers, name):
    scorer = scorers[name]
    ev = scorer.hands

    @settings(max_examples=120, deadline=None, derandomize=True)
    @given(hands(scorer))
    def check(hand):
        concealed, melds, wild, win, natural = hand
        want = ev.recursive.readings(concealed, melds, wild, win, natural)
        assert ev.readings(concealed, melds, wild, win, natural) == want, scorer.tiles.format(concealed)
        assert ev.is_win(concealed, melds, wild, win, natural) == ev.recursive.is_win(concealed, melds, wild, win, natural)
        assert ev.is_win(concealed, melds, wild, win, natural) == bool(want)

    check()


@pytest.mark.parametrize("name", RULESETS)
def test_the_claim_filter_never_hides_a_win(scorers, name):
    """could_win_on_claim is a necessary condition: when it says no, no claimed or self-drawn
    tile wins (checked against the recursive oracle on every tile kind)."""
    scorer = scorers[name]
    ev = scorer.hands
    seen = {True: 0, False: 0}

    @settings(max_examples=80, deadline=None, derandomize=True)
    @given(hands(scorer))
    def check(hand):
        concealed, melds, wild, win, _ = hand
        rest = list(concealed)
        rest.remove(win)
        could = ev.tables.could_win_on_claim(rest, melds, wild)
        seen[could] += 1
        if not could:
            for t in range(len(scorer.tiles)):
                if rest.count(t) < scorer.tiles.kinds[t].copies:
                    for natural in (True, False):  # claimed, or self-drawn (a drawn 精 is wild)
                        assert not ev.recursive.is_win(rest + [t], melds, wild, t, natural), scorer.tiles.format(rest + [t])

    check()
    # both answers occur (the check is not vacuous), unless a set pattern with natural or counted
    # honours makes the filter answer True for most hands (the house rule "spread")
    mostly_true = any(cp.kind != "rotten" and cp.needs_splits for cp in ev.tables.plans)
    assert seen[True] and (seen[False] or mostly_true), seen


def test_known_hands(scorers):
    scorer = scorers["nanchang"]
    ev, t = scorer.hands, scorer.tiles
    none = frozenset()
    assert ev.is_win(t.parse("123m456m789s东南西5p5p"), [], none, t.parse_one("5p"))  # 风顺 is a set
    assert not scorers["nowind"].hands.is_win(t.parse("123m456m789s东南西5p5p"), [], none, t.parse_one("5p"))
    spread = scorers["spread"].hands
    assert spread.is_win(t.parse("159m456m789s东东东5p5p"), [], none, t.parse_one("5p"))  # 散顺 1-5-9
    assert not ev.is_win(t.parse("159m456m789s东东东5p5p"), [], none, t.parse_one("5p"))
    # five copies of a tile (not a real hand) go to the recursive evaluator, same answer
    five = t.parse("11111m") + t.parse("234m567m99p")
    assert ev.is_win(five, [], none, five[0]) == ev.recursive.is_win(five, [], none, five[0])
    # 小七对 with 精 3m/4m and a natural 3m won from a discard: 1111 2222 3333 as four pairs each
    # two, the 4m wild beside the 5m — one wild (the discarded 3m counts with the held 3m)
    hand = t.parse("11112222333345m")
    jing = frozenset(t.parse("34m"))
    got = ev.readings(hand, [], jing, t.parse_one("3m"), True)
    assert ("小七对", 1, False) in got
    assert got == ev.recursive.readings(hand, [], jing, t.parse_one("3m"), True)


def test_house_shapes_change_the_tables(scorers):
    nanchang = scorers["nanchang"].hands.tables
    nowind = scorers["nowind"].hands.tables
    wind = [s for cp in nanchang.plans for s in cp.specs if s[0] == 4]
    no_chow = [s for cp in nowind.plans for s in cp.specs if s[0] == 4]
    assert wind and no_chow and set(wind) != set(no_chow)
    # with wind chows, 东南西 completes; without, it needs wilds
    key = sum(1 << (packing.FIELD_BITS * i) for i in range(3))
    assert store.load_table(wind[0])[key] & packing.NONE == 0
    assert all(store.load_table(s).get(key, packing.NONE) & packing.NONE for s in no_chow)


SPEC = (3, ((0, 0, 0), (0, 1, 2), (1, 1, 1), (2, 2, 2)), 2, 14, (4, 4, 4))  # the dragons


def test_cache_is_written_atomically_and_read_back(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    built = store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS)
    files = list((tmp_path / "mjrules").iterdir())
    assert [f.suffix for f in files] == [".bin"]  # no temp file left behind
    assert store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS) == built == build.build_table(*SPEC)
    assert built[0] & packing.NONE == 0 and built[0] >> packing.VALUE_BITS == 2  # empty: no wild; the pair: two


@pytest.mark.parametrize("damage", ["truncate", "flip", "garbage", "empty"])
def test_a_corrupt_cache_file_is_ignored_and_rebuilt(tmp_path, monkeypatch, damage):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    good = store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS)
    [path] = (tmp_path / "mjrules").iterdir()
    data = path.read_bytes()
    bad = {"truncate": data[: len(data) // 2], "flip": data[:-1] + bytes([data[-1] ^ 1]),
           "garbage": os.urandom(len(data)), "empty": b""}[damage]
    path.write_bytes(bad)
    assert cachefile.decode(bad, (1 << (packing.FIELD_BITS * SPEC[0])) - 1, 2 * packing.VALUE_BITS) is None
    assert store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS) == good
    assert path.read_bytes() == data  # rewritten


def test_no_cache_env_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("MJRULES_NO_CACHE", "1")
    assert cachefile.cache_dir() is None
    assert store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS) == build.build_table(*SPEC)
    assert not (tmp_path / "mjrules").exists()


def test_an_unwritable_cache_directory_is_no_error(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))  # a file where the directory should be
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    assert store.load_or_build(("full", SPEC), lambda: build.build_table(*SPEC), SPEC[0], 2 * packing.VALUE_BITS) == build.build_table(*SPEC)


def test_the_cache_directory_stays_bounded(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(cachefile, "MAX_CACHE_FILES", 3)
    for i in range(6):
        store.load_or_build(("test", i), lambda: {i: i}, 1, 8)
    assert len(list((tmp_path / "mjrules").glob("table-*.bin"))) == 3


def _every_key(n: int, most: int):
    keys = [0]
    for i in range(n):
        keys = [k + c * (1 << (packing.FIELD_BITS * i)) for k in keys for c in range(most + 1)]
    return keys


@pytest.mark.parametrize("form", ["dense", "sparse"])
def test_a_lazy_table_answers_as_the_built_table(tmp_path, monkeypatch, form):
    """Read from a dense file (every count vector) or, for a table too big for one, from the
    sparse file's sorted arrays: the same answers as the built table, and from a fresh process's
    cache too."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    if form == "sparse":
        monkeypatch.setattr(forms, "DENSE_MAX", 0)
    built = build.build_table(*SPEC)
    store.load_table(SPEC)  # writes the cache file
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    lazy = store.load_table_lazy(SPEC)
    if form == "dense":
        assert lazy.dense_entries == 5 ** SPEC[0]
        monkeypatch.setattr(store, "LAZY_TABLES", {})
        monkeypatch.setattr(store, "LOADED_TABLES", {})
        lazy = store.load_table_lazy(SPEC)  # now from the dense file
        assert lazy.dense_entries == 5 ** SPEC[0]
    else:
        assert lazy.dense_entries is None and lazy.stored_keys == len(built)
    assert len(lazy) == 0  # nothing moved into the dict yet
    missing = packing.NONE | packing.NONE << packing.VALUE_BITS
    for key in _every_key(SPEC[0], 4):
        assert lazy[key] == built.get(key, missing)
        assert lazy[key] == built.get(key, missing)  # second time from the dict
    assert store.load_table_lazy(SPEC) is lazy


@pytest.mark.parametrize("damage", ["unsorted", "repeated", "big value"])
def test_a_well_hashed_but_malformed_cache_file_gives_no_error(tmp_path, monkeypatch, damage):
    """The hash cannot rule out a crafted file (wrong values in range are as bad): lookups in a
    malformed one answer an entry of the file or "cannot complete", never raise."""
    import hashlib
    from array import array

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    monkeypatch.setattr(forms, "DENSE_MAX", 0)  # the sorted-array form
    built = build.build_table(*SPEC)
    store.load_table(SPEC)
    [path] = (tmp_path / "mjrules").iterdir()
    keys = sorted(built)
    values = [built[k] for k in keys]
    if damage == "unsorted":
        keys[0], keys[-1] = keys[-1], keys[0]  # same entries, out of order
        values[0], values[-1] = values[-1], values[0]
    elif damage == "repeated":
        keys[1] = keys[0]
        values[1] = values[0]
    else:
        values[0] = 1 << (2 * packing.VALUE_BITS)
    body = array("Q", keys).tobytes() + array("I", values).tobytes()
    path.write_bytes(cachefile.HEADER.pack(cachefile.MAGIC, cachefile.CACHE_VERSION, len(keys), hashlib.sha256(body).digest()) + body)
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    lazy = store.load_table_lazy(SPEC)
    assert lazy.stored_keys == len(keys)  # read lazily
    missing = packing.NONE | packing.NONE << packing.VALUE_BITS
    assert all(lazy[key] in (built.get(key), missing) for key in _every_key(SPEC[0], 4))
    if damage == "big value":
        assert lazy[keys[0]] == missing


@pytest.mark.parametrize("damage", ["big value", "short", "bad hash"])
def test_a_damaged_dense_file_gives_no_error(tmp_path, monkeypatch, damage):
    """A dense cache file of the wrong size or hash is rebuilt; a well-hashed one with a value
    out of range answers "cannot complete" there, never raises."""
    import hashlib

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    built = build.build_table(*SPEC)
    store.load_table_lazy(SPEC)  # writes the sparse and the dense file
    path = tmp_path / "mjrules" / f"table-{cachefile.spec_hash(('dense', SPEC))}.bin"
    data = bytearray(path.read_bytes())
    body = data[cachefile.HEADER.size:]
    first = forms.dense_index(next(iter(built)), SPEC[0], 5)
    if damage == "big value":
        body[first] = 0xFF  # both halves "cannot"
        data = cachefile.HEADER.pack(cachefile.MAGIC, cachefile.CACHE_VERSION, 5 ** SPEC[0],
                                   hashlib.sha256(body).digest()) + body
    elif damage == "short":
        data = data[:-2]
    else:
        data[-1] ^= 1
    path.write_bytes(bytes(data))
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    lazy = store.load_table_lazy(SPEC)
    missing = packing.NONE | packing.NONE << packing.VALUE_BITS
    for key in _every_key(SPEC[0], 4):
        if damage == "big value" and key == next(iter(built)):
            assert lazy[key] == missing
        else:
            assert lazy[key] == built.get(key, missing)
    if damage != "big value":  # rebuilt and written again
        assert cachefile.decode_dense(path.read_bytes(), 5 ** SPEC[0]) is not None


def test_the_first_run_writes_the_dense_file_too(tmp_path, monkeypatch):
    """A process that builds a table also writes its dense form, so the next one only reads."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    built = store.load_table(SPEC)  # in memory now
    lazy = store.load_table_lazy(SPEC)
    assert lazy.dense_entries is None  # this process answers from the dict it built
    path = tmp_path / "mjrules" / f"table-{cachefile.spec_hash(('dense', SPEC))}.bin"
    dense = cachefile.decode_dense(path.read_bytes(), 5 ** SPEC[0])
    assert dense is not None
    missing = packing.NONE | packing.NONE << packing.VALUE_BITS
    for key in _every_key(SPEC[0], 4):
        assert forms.UNPACK[dense[forms.dense_index(key, SPEC[0], 5)]] == built.get(key, missing)


@pytest.mark.parametrize("kind", ["fifo", "device", "huge"])
def test_a_cache_file_that_is_no_regular_file_or_too_big_is_not_read(tmp_path, monkeypatch, kind):
    """The cache is untrusted: a FIFO (which would block an open), a device, or a file larger
    than any table is skipped before reading, and the table is rebuilt with the same answers."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LAZY_TABLES", {})
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    d = tmp_path / "mjrules"
    d.mkdir()
    path = d / f"table-{cachefile.spec_hash(('dense', SPEC))}.bin"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "device":
        path.symlink_to("/dev/zero")
    else:
        with open(path, "wb") as f:
            f.truncate(cachefile.HEADER.size + 5 ** SPEC[0] + 1)  # sparse: no disk used
    assert cachefile.read_bounded(path, cachefile.HEADER.size + 5 ** SPEC[0]) == b""
    built = build.build_table(*SPEC)
    store.load_table(SPEC)
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    lazy = store.load_table_lazy(SPEC)
    missing = packing.NONE | packing.NONE << packing.VALUE_BITS
    assert all(lazy[key] == built.get(key, missing) for key in _every_key(SPEC[0], 4))


def test_pairs_with_natural_honours_and_a_lone_jing_honour_won_from_a_discard(tmp_path):
    """A 精 honour taken from a discard is natural: alone, it breaks an `honours natural` pairs
    pattern (the 精钓 reading, with the 精 beside it, is the only one). Found by a review."""
    f = tmp_path / "zqd.rules"
    f.write_text('ruleset zqd "pairs, honours natural"\nextends nanchang\npattern 字七对 = pairs 7, honours natural\n',
                 encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    ev, t = scorer.hands, scorer.tiles
    hand = t.parse("112233445566m中白")
    jing = frozenset(t.parse("中白"))
    got = ev.readings(hand, [], jing, t.parse_one("中"), True)
    assert got == ev.recursive.readings(hand, [], jing, t.parse_one("中"), True)
    assert ("字七对", 1, True) in got and ("字七对", 1, False) not in got


def test_a_rotten_rooms_file_missing_an_entry_is_not_trusted(tmp_path, monkeypatch):
    """A well-hashed cache file of the 十三烂 rooms with an entry taken out: the rooms are
    computed again, never a KeyError."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("MJRULES_NO_CACHE", raising=False)
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    ranks, gap = tuple(range(1, 10)), 3
    store.cached_rotten_rooms.cache_clear()
    want = build.rotten_rooms(ranks, gap)
    assert store.cached_rotten_rooms(ranks, gap) == want  # writes the file
    [path] = (tmp_path / "mjrules").iterdir()
    stored = {k: v + 1 for k, v in want.items() if k}  # key 0 dropped
    path.write_bytes(cachefile.encode(stored))
    monkeypatch.setattr(store, "LOADED_TABLES", {})
    store.cached_rotten_rooms.cache_clear()
    assert store.cached_rotten_rooms(ranks, gap) == want
    store.cached_rotten_rooms.cache_clear()


def test_a_pair_of_four_keeps_its_jing_wait_reading(tmp_path):
    """With pairs of four tiles a 精钓 reading does not imply a plain one, so the shortcut that
    skips 精钓 for a pattern with no plain reading must not apply (found by a review)."""
    f = tmp_path / "pair4.rules"
    f.write_text('ruleset pair4 "pair of four"\nextends nanchang\noverride meld 将 pair = same 4\n'
                 "override table hand = 15\noverride table deal = 4 4 4 3\n"
                 "override pattern 小七对 = pairs 4, concealed, quads as pairs\n"
                 "remove pattern 十三烂\nremove pattern 七星十三烂\nremove fan 十三烂\nremove fan 七星十三烂\n",
                 encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    ev, t = scorer.hands, scorer.tiles
    hand = t.parse("34444m122256p")
    melds = [MeldTiles("kong", tuple(t.parse("6666s")))]
    jing = frozenset(t.parse("12p"))
    got = ev.readings(hand, melds, jing, t.parse_one("4m"), True)
    assert got == ev.recursive.readings(hand, melds, jing, t.parse_one("4m"), True) == [("平胡", 4, True)]
