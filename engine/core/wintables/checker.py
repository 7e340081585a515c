"""The table-driven win check: :meth:`HandEvaluator.is_win` and ``readings`` answered from the
win tables, with the same results as the recursive evaluator (RULES.md §1 Winning hands, 精,
德国, 精钓), which stays as the fallback and the test oracle (tests/test_tables.py compares them).

Each pattern is a :class:`~.plans.Plan` (engine/core/wintables/plans.py). A hand is packed
(engine/core/wintables/packing.py); a hand holding no 精 and no melds takes
the wild-free path (engine/core/wintables/wildfree.py); the others split the held 精 and read
each group's full table (engine/core/wintables/store.py) through the generated per-ruleset
loops (engine/core/wintables/codegen.py).
"""
from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from engine.core.handparts import MeldTiles, Reading
from engine.core.patterns import CompiledPatterns
from engine.core.wintables.codegen import Held, sets_fewest, sets_fit
from engine.core.wintables.packing import (
    FIELD_BITS,
    FIELD_MASK,
    MAX_PACKED_TILES,
    NONE,
    VALUE_BITS,
    over_copies_masks,
)
from engine.core.wintables.plans import PARITY_PAIR, GroupTable, Plan, make_plan, rotten_groups
from engine.core.wintables.store import load_table_lazy, natural_table
from engine.core.wintables.wildfree import WildFree, wild_free_tables

MAX_FIT_MEMO = 4096  # meld combinations whose fitting patterns a checker remembers


class Fallback(Protocol):
    """What the checker hands a hand it cannot pack to (the recursive evaluator,
    :class:`~engine.core.recursive.RecursiveEvaluator`)."""

    def is_win(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
               win_tile: int, win_tile_natural: bool = False) -> bool: ...

    def readings(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                 win_tile: int, win_tile_natural: bool = False) -> list[Reading]: ...


class PairsParity:
    """What the held 精 add to a pairs check, per split (``rows``: odd natural 精 counts, of
    them honours, whether a count ≥ 3 is left), the answers :meth:`TableChecker._pairs_answers`
    derives from them (None until first needed) and the 精 kinds' field ``mask``."""

    __slots__ = ("rows", "answers", "mask")

    def __init__(self, rows: list[tuple[int, int, bool]], mask: int):
        self.rows = rows
        self.answers: dict[tuple[bool, bool], list[int | None]] | None = None
        self.mask = mask


@dataclass(frozen=True, slots=True)
class HeldJing:
    """What the held 精 allow (:meth:`TableChecker._held_jing`): the split ``deltas`` ((wilds,
    key to subtract), fewest wilds first); ``groups``: group index → ((field bit in the group,
    count), …); ``odd``: the pairs check's :class:`PairsParity`; ``waits``: the 精钓 variants by
    winning tile (filled as met); ``bits``: the bits of the groups holding 精."""

    deltas: list[tuple[int, int]]
    groups: dict[int, Held]
    odd: PairsParity
    waits: dict[int, list[JingWait]]
    bits: int


@dataclass(frozen=True, slots=True)
class JingWait:
    """One 精钓 variant of a hand: ``as_wild`` 0 if the 精 is the winning tile's kind else 1,
    ``take`` what to take from the key (the winning tile and the 精), ``held`` the rest's
    :class:`HeldJing`."""

    as_wild: int
    take: int
    held: HeldJing


class TableChecker:
    """Table-driven ``is_win`` / ``readings`` for one ruleset's :class:`CompiledPatterns`.

    Same answers as the recursive evaluator ``fallback`` (tests/test_tables.py compares them);
    a hand it cannot pack (more than :data:`MAX_PACKED_TILES` concealed tiles, or a count over
    the copies) goes to ``fallback`` (any object with ``is_win`` and ``readings``).
    ``wild_free``: the wild-free path's state (:class:`~.wildfree.WildFree`), None when off.
    """

    def __init__(self, patterns: CompiledPatterns, fallback: Fallback):
        self.patterns = patterns
        self.fallback = fallback
        tiles = patterns.tiles
        nk = len(tiles)
        self.one = [1 << (FIELD_BITS * k) for k in range(nk)]
        self.add, self.carry = over_copies_masks([k.copies for k in tiles.kinds])
        low = sum(self.one)
        self.low = low
        self.high = low * (FIELD_MASK - 1)  # mask: bits of a count ≥ 2
        self.nonzero_add = low * FIELD_MASK  # (key + this) carries out of every nonzero count
        self.honour_carry = sum(self.one[k] for k in patterns.honour_kinds) << (FIELD_BITS - 1)
        self.honour_low = sum(self.one[k] for k in patterns.honour_kinds)
        self.pair_size = patterns.pair_size
        self.hand_size = patterns.hand_size
        self._full = False  # the full tables are loaded on the first hand holding 精 or melds
        # melds (kind, tiles) → the plans they fit
        self._fit_memo: dict[tuple[tuple[str, tuple[int, ...]], ...], tuple[Plan, ...]] = {}
        # kind → (group index, its field's bit within the group's key)
        self._kind_group: dict[int, tuple[int, int]] = {}
        for gi, (_, lo, hi) in enumerate(patterns.group_spans):
            for k in range(lo, hi):
                self._kind_group[k] = (gi, 1 << (FIELD_BITS * (k - lo)))
        # (table, group key, 精 in it) → (without pair, with it)
        self._profiles: dict[tuple[int, int, Held], tuple[list[int], list[int]]] = {}
        # (精 counts, locked, 精) → _held_jing
        self._split_memo: dict[tuple[int, int | None, frozenset[int]], HeldJing] = {}
        self._jing_masks: dict[frozenset[int], int] = {}  # 精 kinds → the mask of their count fields
        self.plans: list[Plan] = [make_plan(name, plan, patterns) for name, plan in patterns.plans.items()]
        tables = wild_free_tables(patterns, self.plans, self.one, self.nonzero_add, self.carry)
        self.wild_free = None if tables is None else WildFree(self.one.__getitem__, self.carry, {}, tables)

    # ---- one pattern on a packed natural hand with w wilds --------------------------------
    def _fits(self, plan: Plan, key: int, w: int, total: int, n_melds: int, pair_removed: bool) -> bool:
        """``total``: natural tiles + wilds. Mirrors the recursive evaluator's check."""
        if plan.mode == "splits":  # group limits or counted honours
            pats = self.patterns
            p = plan.pattern
            if (p.one_of or p.only) and not pats.groups_fit(
                    p, {pats.tiles.kinds[k].group for k in range(len(self.one)) if (key >> (FIELD_BITS * k)) & FIELD_MASK}):
                return False
            if plan.min_honours and ((key + self.nonzero_add) & self.honour_carry).bit_count() < plan.min_honours:
                return False
        if plan.kind == "sets":
            pair = plan.pair and not pair_removed
            k = plan.sets - n_melds
            if k < 0 or total != plan.set_size * k + (self.pair_size if pair else 0):
                return False
            # _load_full gave every sets plan its fit (a None check here would cost every hand)
            return plan.fit(key, w, pair)  # type: ignore[misc]
        if plan.kind == "pairs":
            return self._pairs(plan, key, w, total, plan.pairs - (1 if pair_removed else 0))
        return self._rotten(plan, key, w, total)

    def _pairs(self, plan: Plan, key: int, w: int, total: int, n: int) -> bool:
        size = self.pair_size
        if total != size * n:
            return False
        if size == PARITY_PAIR:  # bit tricks: a count's lowest bit is its parity
            odd = key & self.low
            if not plan.quads and ((key >> 1) & key & self.low | (key >> 2) & self.low | (key >> 3) & self.low):
                return False  # some count above the pair size
            if plan.honours_natural and odd & self.honour_low:
                return False
            return odd.bit_count() <= w
        singles = 0
        for k in range(len(self.one)):
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c > size and not plan.quads:
                return False
            if c % size:
                if plan.honours_natural and k in self.patterns.honour_kinds:
                    return False
                singles += size - c % size
                if singles > w:
                    return False
        return True

    def _rotten(self, plan: Plan, key: int, w: int, total: int) -> bool:
        if total != self.hand_size or key & self.high:
            return False
        room = 0
        for group in plan.rotten_groups:
            sub = (key >> group.shift) & group.mask
            rooms = group.rooms
            if rooms is not None:  # a suit: the gap rule's free ranks
                r = rooms[sub]
                if r < 0:
                    return False
                room += r
            else:  # honours: every kind not held is free
                room += group.kinds - sub.bit_count()
        return w <= room

    # ---- public entry points ---------------------------------------------------------------
    def pack(self, concealed: list[int]) -> int | None:
        """The packed count vector of ``concealed``, or None when it cannot be packed."""
        if len(concealed) > MAX_PACKED_TILES:
            return None
        key = sum(map(self.one.__getitem__, concealed))
        if (key + self.add) & self.carry:
            return None
        return key

    def _held_jing(self, key: int, wild_kinds: frozenset[int], locked: int | None) -> HeldJing:
        """What the held 精 allow, memoised by the 精 counts: (split deltas: (wilds, key to
        subtract) fewest wilds first; group index → ((field bit in the group, count), …); per
        split, what the 精 kinds' natural counts (a natural winning tile included) add to a pairs
        check: (odd counts, odd honour counts, whether a count ≥ 3 is left), a slot for
        :meth:`_pairs_answers` and the 精 kinds' field mask; the 精钓 variants
        by winning tile (:meth:`_jing_waits`); the bits of the groups holding 精)."""
        mask = self._jing_masks.get(wild_kinds)
        if mask is None:
            if len(self._jing_masks) >= MAX_FIT_MEMO:
                self._jing_masks.clear()
            mask = self._jing_masks[wild_kinds] = sum(FIELD_MASK << (FIELD_BITS * k) for k in set(wild_kinds))
        mkey = (key & mask, locked, wild_kinds)
        got = self._split_memo.get(mkey)
        if got is None:
            rows = [(0, 0, 0, 0, False)]  # (wilds, delta, odd natural 精, of them honours, a count ≥ 3)
            groups: dict[int, Held] = {}
            honours = self.patterns.honour_kinds
            for k in sorted(wild_kinds):
                held = (key >> (FIELD_BITS * k)) & FIELD_MASK
                c = held - (1 if k == locked else 0)  # the winning tile taken from a discard stays natural
                honour = k in honours
                if c > 0:
                    bit = self.one[k]
                    rows = [(wilds + x, delta + x * bit, odd + (held - x) % 2, odd_honours + (held - x) % 2 * honour,
                             big or held - x > 2)
                            for wilds, delta, odd, odd_honours, big in rows for x in range(c + 1)]
                    gi, go = self._kind_group[k]
                    groups[gi] = groups.get(gi, ()) + ((go, c),)
                elif held:  # only the natural winning tile: natural in every split
                    rows = [(wilds, delta, odd + held % 2, odd_honours + held % 2 * honour, big or held > 2)
                            for wilds, delta, odd, odd_honours, big in rows]
            rows.sort(key=_first)
            if len(self._split_memo) >= MAX_FIT_MEMO:
                self._split_memo.clear()
            got = self._split_memo[mkey] = HeldJing([r[:2] for r in rows], groups,
                                                    PairsParity([r[2:] for r in rows], mask), {},
                                                    sum(1 << gi for gi in groups))
        return got

    def _jing_waits(self, key: int, wild_kinds: frozenset[int], win_tile: int) -> list[JingWait]:
        """The 精钓 variants of a hand: per 精 ``j`` held besides the winning tile, (0 if ``j``
        is the winning tile's kind else 1, what to take from the key — the winning tile and
        ``j`` —, :meth:`_held_jing` of the rest). They depend on the 精 counts alone: memoised
        with them (under :meth:`_held_jing`'s entry, by winning tile)."""
        rest = key - self.one[win_tile]
        out: list[JingWait] = []
        for j in sorted(wild_kinds):
            if (rest >> (FIELD_BITS * j)) & FIELD_MASK:
                take = self.one[win_tile] + self.one[j]
                out.append(JingWait(0 if j == win_tile else 1, take, self._held_jing(key - take, wild_kinds, None)))
        return out

    def _splits(self, key: int, wild_kinds: frozenset[int], locked: int | None) -> list[tuple[int, int]]:
        """(wilds, natural key) per split of the held 精, fewest wilds first (as _splits)."""
        return [(wilds, key - d) for wilds, d in self._held_jing(key, wild_kinds, locked).deltas]

    def is_win(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int], win_tile: int,
               win_tile_natural: bool = False) -> bool:
        """As :meth:`engine.core.hands.HandEvaluator.is_win`. A hand holding no 精 and no melds takes the wild-free
        path: one lookup per group and a sum."""
        wild_free = self.wild_free
        n = len(concealed)
        if wild_free is not None and not melds and n <= MAX_PACKED_TILES:
            key = sum(map(wild_free.kind_bit, concealed))
            try:
                add = wild_free.adds.get(wild_kinds)
            except TypeError:
                add = None
            if add is None:
                add = self._wild_add(wild_free, wild_kinds)
            if not (key + add) & wild_free.carry:  # no count over its copies, no 精 held
                tables = wild_free.tables
                return (tables.loaded or tables.load())(key, n)
            if not (key + self.add) & self.carry:  # 精 held, counts within the copies
                return self._is_win_general(concealed, melds, wild_kinds, win_tile, win_tile_natural, key)
        return self._is_win_general(concealed, melds, wild_kinds, win_tile, win_tile_natural)

    def _wild_add(self, wild_free: WildFree, wild_kinds: frozenset[int]) -> int:
        """The copies check's addend, also carrying out of any held 精's count (kept in
        ``wild_free.adds``)."""
        add = self.add
        for k in set(wild_kinds):
            add = (add & ~(FIELD_MASK << (FIELD_BITS * k))) | (FIELD_MASK << (FIELD_BITS * k))
        wild_free.adds[frozenset(wild_kinds)] = add
        return add

    def _load_full(self) -> None:
        """The full tables read (lazily): each sets plan replaced by one with its groups'
        tables and its generated ``fit`` and ``fewest``, each rotten plan by one with its
        groups' rooms."""
        loaded: list[Plan] = []
        for plan in self.plans:
            if plan.kind == "sets":
                groups = tuple(GroupTable(FIELD_BITS * span.lo, (1 << (FIELD_BITS * (span.hi - span.lo))) - 1,
                                          natural_table(spec) if natural else load_table_lazy(spec), natural)
                               for span, spec, natural in zip(plan.pattern_plan.spans, plan.specs, plan.natural))
                plan = dataclasses.replace(
                    plan, groups=groups, fit=sets_fit(groups, self.pair_size),
                    fewest=sets_fewest(groups, self.pair_size, plan.pair, plan.sets, plan.set_size,
                                       plan.wait_implies_reading, self._profile))
            elif plan.kind == "rotten":
                plan = dataclasses.replace(plan, rotten_groups=rotten_groups(plan, self.patterns))
            loaded.append(plan)
        self.plans = loaded
        self._fit_memo.clear()  # it held the plans before
        self._full = True

    def _is_win_general(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                        win_tile: int, win_tile_natural: bool = False, key: int | None = None) -> bool:
        """``key``: the packed hand when the caller has it (already checked by :meth:`pack`)."""
        if not self._full:
            self._load_full()
        if key is None:
            key = self.pack(concealed)
        if key is None:
            return self.fallback.is_win(concealed, melds, wild_kinds, win_tile, win_tile_natural)
        total = len(concealed)
        n_melds = len(melds)
        w = 0
        nat = key
        for k in wild_kinds:
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c:
                if win_tile_natural and k == win_tile:
                    c -= 1
                w += c
                nat -= c * self.one[k]
        splits: list[tuple[int, int]] | None = None
        kinds: int | None = None
        for plan in self._fitting(melds) if melds else self.plans:
            if plan.kind == "rotten" and nat & self.high:
                continue  # a count ≥ 2 that no split of the 精 lowers
            if plan.one_kind:
                if kinds is None:
                    kinds = ((nat + self.nonzero_add) & self.carry).bit_count()
                if kinds > plan.sets - n_melds + (1 if plan.pair else 0):
                    continue  # natural tiles of more kinds than one-kind sets and the pair hold
            if plan.needs_splits and w:
                if splits is None:
                    splits = self._splits(key, wild_kinds, win_tile if win_tile_natural else None)
                if any(self._fits(plan, nk, wilds, total, n_melds, False) for wilds, nk in splits):
                    return True
            elif self._fits(plan, nat, w, total, n_melds, False):
                return True
        return False

    def _fitting(self, melds: list[MeldTiles]) -> tuple[Plan, ...]:
        """The plans whose pattern the declared ``melds`` fit (CompiledPatterns.melds_fit), memoised
        by the melds' kinds and tiles (bounded: cleared past :data:`MAX_FIT_MEMO` entries)."""
        key = tuple([(m.meld_kind, m.tiles) for m in melds])
        got = self._fit_memo.get(key)
        if got is None:
            if len(self._fit_memo) >= MAX_FIT_MEMO:
                self._fit_memo.clear()
            got = self._fit_memo[key] = tuple(plan for plan in self.plans if self.patterns.melds_fit(plan.pattern_plan, melds))
        return got

    def could_win_on_claim(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int]) -> bool:
        """False only when no tile ``t`` makes ``concealed + [t]`` a win with ``t`` natural (a
        claimed discard or robbed kong): the claim check can then skip :meth:`is_win`. True
        may still be no win (a necessary condition, not a sufficient one). No self-drawn tile
        completes it either: a drawn tile that is no 精 counts as a natural one, and a drawn 精
        is one more wild, which is what this check tries.

        Why it holds: a hand that completes with a natural ``t`` and ``w`` wilds completes with
        ``t`` taken out and ``w + 1`` wilds, the extra wild standing where ``t`` stood — for
        set and pair patterns whose groups all take wilds. Patterns where a wild may not stand
        everywhere (natural honours, counted honours, a natural-only group) and gapped
        patterns answer True unless a count ≥ 2 rules them out.
        """
        if not self._full:
            self._load_full()
        key = self.pack(concealed)
        if key is None:
            return True
        total = len(concealed) + 1
        w = 0
        nat = key
        for k in wild_kinds:
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c:
                w += c
                nat -= c * self.one[k]
        for plan in self._fitting(melds) if melds else self.plans:
            if plan.kind == "rotten":
                if not nat & self.high and total == self.hand_size:
                    return True
            elif not plan.free:
                return True
            elif self._fits(plan, nat, w + 1, total, len(melds), False):
                return True
        return False

    def _profile(self, table: dict[int, int], sub: int, held: Held) -> tuple[list[int], list[int]]:
        """For a group holding 精: ``(without_pair, with_pair)`` where ``without_pair[wilds]`` /
        ``with_pair[wilds]`` is the fewest wilds the group's natural tiles need without / with
        the pair, over the splits that make ``wilds`` of its 精 wild (the table values of :meth:`_fits`). Memoised, bounded."""
        mkey = (id(table), sub, held)
        got = self._profiles.get(mkey)
        if got is not None:
            return got
        top = sum(c for _, c in held)
        without_pair = [NONE + NONE] * (top + 1)
        with_pair = [NONE + NONE] * (top + 1)
        deltas = [(0, 0)]
        for o, c in held:
            deltas = [(wilds + x, d + x * o) for wilds, d in deltas for x in range(c + 1)]
        for wilds, d in deltas:
            nk = sub - d
            if nk:
                v = table[nk]
                a, b = v & NONE, v >> VALUE_BITS
            else:
                a, b = 0, NONE  # no tiles left here: the pair goes elsewhere (or is all wilds)
            if a < without_pair[wilds]:
                without_pair[wilds] = a
            if b < with_pair[wilds]:
                with_pair[wilds] = b
        if len(self._profiles) >= MAX_FIT_MEMO:
            self._profiles.clear()
        got = self._profiles[mkey] = (without_pair, with_pair)
        return got

    def _sets_jing_wait(self, plan: Plan, k2: int, wait_held: dict[int, Held], total: int, n_melds: int, top: int,
                        rest: int, win_group: int, jing_group: int) -> int | None:
        """``plan.fewest`` (:func:`~.codegen.sets_fewest`) of a 精钓 variant ``k2`` (the hand less the winning tile
        and one 精, the pair removed) when the hand's 精 all sit in group ``jing_group``: only the
        winning tile's group ``win_group`` and ``jing_group`` differ from the hand, ``rest`` (from the hand's
        own call) covers the others."""
        k = plan.sets - n_melds
        if k < 0 or total != plan.set_size * k:
            return None
        base = rest
        if win_group != jing_group:
            group = plan.groups[win_group]
            table = group.table
            sub = (k2 >> group.shift) & group.mask
            if sub:
                a = table[sub] & NONE
                if a == NONE:
                    return None
                base += a
        if base > top:
            return None
        group = plan.groups[jing_group]
        table = group.table
        sub = (k2 >> group.shift) & group.mask
        held = wait_held.get(jing_group)
        if held is None:  # no 精 left in it
            if sub:
                a = table[sub] & NONE
                if a == NONE:
                    return None
                base += a
            return 0 if base <= 0 else None
        without_pair = self._profile(table, sub, held)[0]
        for wilds in range(base, len(without_pair)):
            if base + without_pair[wilds] <= wilds:
                return wilds
        return None

    def _fewest(self, plan: Plan, key: int, deltas: list[tuple[int, int]], total: int, n_melds: int,
                pair_removed: bool) -> int | None:
        """Fewest wilds with which ``key`` less one of the split ``deltas`` (:meth:`_held_jing`)
        fits a pattern that is neither a plain ``sets`` one (``plan.fewest`` (:func:`~.codegen.sets_fewest`)) nor
        a plain pairs one (:meth:`_pairs_fewest`)."""
        if plan.kind == "rotten" and (key - deltas[-1][1]) & self.high:
            return None  # a count ≥ 2 even with every 精 wild
        if not plan.needs_splits:
            wilds, d = deltas[-1]  # every held 精 wild: if that fails, every split fails
            if not self._fits(plan, key - d, wilds, total, n_melds, pair_removed):
                return None
        fits = self._fits
        for wilds, d in deltas:
            if fits(plan, key - d, wilds, total, n_melds, pair_removed):
                return wilds
        return None

    def _pairs_fewest(self, plan: Plan, nat: int, deltas: list[tuple[int, int]], odd: PairsParity, total: int,
                      pair_removed: bool) -> int | None:
        """:meth:`_fewest` of a pairs pattern of two-tile pairs with no group or honour-count
        rule, without a check per split: ``nat`` is the hand with every 精 taken out; a split
        needs one wild per odd count — the natural tiles' and its natural 精's — and fails on a
        count ≥ 3 (unless quads count as two pairs) or an odd honour (``honours natural``)."""
        if total != PARITY_PAIR * (plan.pairs - (1 if pair_removed else 0)):
            return None
        nat &= ~odd.mask  # the 精 kinds' counts (a natural winning tile among them) are in the splits'
        low = self.low
        quads = plan.quads
        if not quads and ((nat >> 1) & nat & low | (nat >> 2) & low | (nat >> 3) & low):
            return None
        singles = nat & low
        hn = plan.honours_natural
        if hn and singles & self.honour_low:
            return None
        singles = singles.bit_count()
        answers = odd.answers
        if answers is None:  # first needed for these 精 counts
            answers = odd.answers = self._pairs_answers(deltas, odd.rows)
        ans = answers[quads, hn]
        return ans[singles] if singles < len(ans) else None

    def _pairs_answers(self, deltas: list[tuple[int, int]],
                       rows: list[tuple[int, int, bool]]) -> dict[tuple[bool, bool], list[int | None]]:
        """For :meth:`_pairs_fewest`: per (quads allowed, honours natural), the fewest wilds by
        the natural tiles' odd counts (a list; past its end, none). Kept in the split memo."""
        out: dict[tuple[bool, bool], list[int | None]] = {}
        for quads in (False, True):
            for hn in (False, True):
                ans: list[int | None] = []
                for s in range(deltas[-1][0] + 1):
                    best: int | None = None
                    for (wilds, _), (p, q, big) in zip(deltas, rows):
                        if s + p <= wilds and (quads or not big) and not (hn and q):
                            best = wilds
                            break
                    ans.append(best)
                out[quads, hn] = ans
        return out

    def readings(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int], win_tile: int,
                 win_tile_natural: bool = False) -> list[Reading]:
        """As :meth:`engine.core.hands.HandEvaluator.readings`."""
        if not self._full:
            self._load_full()
        key = self.pack(concealed)
        if key is None or not (key >> (FIELD_BITS * win_tile)) & FIELD_MASK:
            return self.fallback.readings(concealed, melds, wild_kinds, win_tile, win_tile_natural)
        total = len(concealed)
        n_melds = len(melds)
        held = self._held_jing(key, wild_kinds, win_tile if win_tile_natural else None)
        deltas, jing, odd, waits, jbits = held.deltas, held.groups, held.odd, held.waits, held.bits
        top, every = deltas[-1]
        nat = key - every  # every held 精 taken out
        win_group = self._kind_group[win_tile][0]
        jing_group = next(iter(jing)) if len(jing) == 1 else None  # the one group holding 精 (else: no shortcut)
        variants: list[JingWait] | None = None  # 精钓: the hand's JingWait variants
        out: list[Reading] = []
        kinds: int | None = None  # natural kinds held (every 精 wild), for the one-kind-sets filter
        for plan in self._fitting(melds) if melds else self.plans:
            mode = plan.mode
            if plan.one_kind and plan.wait_implies_reading:
                if kinds is None:
                    kinds = ((nat + self.nonzero_add) & self.carry).bit_count()
                if kinds > plan.sets - n_melds + (1 if plan.pair else 0):
                    continue  # no reading (the pattern is free: no 精钓 one either)
            if mode == "profiled":
                # a "profiled" plan is a sets one: _load_full gave it its fewest (no check here)
                w, rest_need, broken = plan.fewest(key, jing, jbits, top, win_group, False, total,  # type: ignore[misc]
                                                   n_melds)
            elif mode == "pairs":
                w = self._pairs_fewest(plan, nat, deltas, odd, total, False)
            elif plan.kind == "rotten" and nat & self.high:
                continue  # a count ≥ 2 even with every 精 wild (and no pair: no 精钓)
            else:
                w = self._fewest(plan, key, deltas, total, n_melds, False)
            if w is not None:
                out.append(_new_reading(Reading, (plan.name, w, False)))
            if not plan.paired or (w is None and plan.wait_implies_reading):
                continue  # no reading with the 精 free to stand anywhere: none with one beside the winning tile
            if variants is None:
                variants = waits.get(win_tile)
                if variants is None:
                    variants = waits[win_tile] = self._jing_waits(key, wild_kinds, win_tile)
            best = None
            for wait in variants:  # less the winning tile and the 精
                k2 = key - wait.take
                rest = wait.held
                if mode == "profiled":
                    if jing_group is None:
                        jw = plan.fewest(k2, rest.groups, rest.bits, rest.deltas[-1][0], -1, True,  # type: ignore[misc]
                                         total - 2, n_melds)[0]  # as above
                    elif broken:
                        jw = None
                    else:
                        jw = self._sets_jing_wait(plan, k2, rest.groups, total - 2, n_melds, rest.deltas[-1][0],
                                                  rest_need, win_group, jing_group)
                elif mode == "pairs":
                    rest_deltas = rest.deltas
                    jw = self._pairs_fewest(plan, k2 - rest_deltas[-1][1], rest_deltas, rest.odd, total - 2, True)
                else:
                    jw = self._fewest(plan, k2, rest.deltas, total - 2, n_melds, True)
                if jw is not None and (best is None or jw + wait.as_wild < best):
                    best = jw + wait.as_wild
            if best is not None:
                out.append(_new_reading(Reading, (plan.name, best, True)))
        return out




_new_reading = tuple.__new__  # Reading(*fields) without the named tuple's keyword handling


def _first(pair: Sequence[int]) -> int:
    return pair[0]
