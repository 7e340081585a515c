"""The wild-free fast path: whether a hand holding no 精 and no melds wins, by one lookup per
group and a sum.

Per group, a table from the group's packed key to the sum of one field per pattern (0:
complete, 1: complete holding the pair, ``big``: not complete) and a count of honour kinds
held; a hand wins when some pattern's field sums to what it needs. Off (None) when a pattern
constrains groups (``one of``/``only``), when a group could be complete both with and without
the pair, or when the fields of every pattern do not fit in :data:`~.packing.ZERO_VALUE_BITS`
(too many patterns): every hand then takes the general path (RULES.md §1 Winning hands).
"""
from __future__ import annotations

import functools
import itertools
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from engine.core.patterns import CompiledPatterns
from engine.core.tiles import Group
from engine.core.wintables.codegen import WildFreeCheck, wild_free_check
from engine.core.wintables.packing import (
    FIELD_BITS,
    FIELD_MASK,
    NONE,
    VALUE_BITS,
    ZERO_VALUE_BITS,
    over_copies_masks,
    vectors,
)
from engine.core.wintables.plans import Plan
from engine.core.wintables.store import cached_rotten_rooms, cached_table, keep, load_table


class HonourCheck(NamedTuple):
    """A pattern that also counts honour kinds: its field's ``shift``, the ``need`` of the
    field, the ``least`` honour kinds."""

    shift: int
    need: int
    least: int


class CountCheck(NamedTuple):
    """The patterns of one tile count: ``select`` masks the fields of those without an honour
    count, ``need`` their needs, ``ones`` the low bits of the other fields; ``counted`` the
    patterns with an honour count, one by one."""

    select: int
    need: int
    ones: int
    counted: tuple[HonourCheck, ...]


class GroupSpec(NamedTuple):
    """One group's wild-free table: where its key sits in the hand's (``shift``, ``mask``), the
    table's cache ``name``, its ``kinds``, the ``most`` entries it may have, and ``build()``."""

    shift: int
    mask: int
    name: str
    kinds: int
    most: int
    build: Callable[[], dict[int, int]]


class WildFreeTables:
    """The wild-free check of one ruleset shape, its tables read (or built) on the first
    wild-free hand: a process that only meets hands holding 精 or melds never loads them.
    ``loaded`` is the check function once :meth:`load` has run (None before)."""

    __slots__ = ("groups", "counts", "low", "high", "fmask", "hshift", "allbig", "loaded")

    def __init__(self, groups: list[GroupSpec], counts: dict[int, CountCheck], low: int, high: int,
                 fmask: int, hshift: int, allbig: int):
        self.groups = groups
        self.counts = counts
        self.low, self.high, self.fmask, self.hshift, self.allbig = low, high, fmask, hshift, allbig
        self.loaded: WildFreeCheck | None = None

    def load(self) -> WildFreeCheck:
        """``check(key, n) -> bool``: whether the packed wild-free hand ``key`` of ``n`` tiles
        completes some pattern (:func:`~.codegen.wild_free_check`)."""
        if self.loaded is None:
            groups = [(g.shift, g.mask, cached_table(g.name, g.build, g.kinds, ZERO_VALUE_BITS, g.most).get)
                      for g in self.groups]
            self.loaded = wild_free_check(groups, self.counts, self.low, self.high, self.fmask, self.hshift,
                                          self.allbig)
        return self.loaded


@dataclass(frozen=True, slots=True)
class WildFree:
    """What the checker's wild-free path reads per hand: ``kind_bit`` (kind → its packed 1),
    the copies ``carry`` mask, the addends by 精 kinds (``adds``, filled as they are met) and
    the ``tables``."""

    kind_bit: Callable[[int], int]
    carry: int
    adds: dict[frozenset[int], int]
    tables: WildFreeTables


# wild-free checks already in this process, by what they depend on
_ZERO: dict[tuple[object, ...], WildFreeTables | None] = {}


def wild_free_tables(patterns: CompiledPatterns, plans: list[Plan], one: list[int], nonzero_add: int,
                     carry: int) -> WildFreeTables | None:
    """The wild-free check of ``patterns`` (:class:`~engine.core.patterns.CompiledPatterns`)
    for the checker's ``plans`` (:class:`~.checker.Plan`), or None when it is off (see the
    module docstring); shared by every checker of the same shape in this process. ``one``,
    ``nonzero_add`` and ``carry`` are the checker's packing masks."""
    if any(plan.pattern.one_of or plan.pattern.only for plan in plans):
        return None
    if patterns.set_size and patterns.pair_size % patterns.set_size == 0:
        return None
    memo_key = (patterns.pair_size, patterns.set_size, patterns.hand_size,
                tuple((g.is_suit, lo, hi, tuple(patterns.tiles.kinds[k].copies for k in g.kinds),
                       tuple(patterns.tiles.kinds[k].rank for k in g.kinds)) for g, lo, hi in patterns.group_spans),
                tuple((plan.kind, plan.sets, plan.pair, plan.pairs, plan.quads, plan.min_honours,
                       plan.rotten_gap, plan.honours_natural, tuple(plan.specs)) for plan in plans))
    if memo_key not in _ZERO:
        keep(_ZERO, memo_key, _tables(patterns, plans, one, nonzero_add, carry))
    return _ZERO[memo_key]


def _tables(patterns: CompiledPatterns, plans: list[Plan], one: list[int], nonzero_add: int,
            carry: int) -> WildFreeTables | None:
    spans = patterns.group_spans
    n_groups = len(spans)
    big = n_groups + 1
    fb = (big * n_groups).bit_length()
    fmask = (1 << fb) - 1
    hshift = fb * len(plans)
    if hshift + max(hi - lo for _, lo, hi in spans).bit_length() > ZERO_VALUE_BITS:
        return None  # too many patterns for one value: every hand takes the general path
    allbig = sum(big << (fb * i) for i in range(len(plans)))
    ps, set_size, hand_size = patterns.pair_size, patterns.set_size, patterns.hand_size
    groups: list[GroupSpec] = []
    for gi, (g, lo, hi) in enumerate(spans):
        n = hi - lo
        copies = [patterns.tiles.kinds[k].copies for k in g.kinds]
        ranks = tuple(patterns.tiles.kinds[k].rank for k in g.kinds)  # None for honours: as in the cache name
        name = ("zero", ps, set_size, hand_size, g.is_suit, n, copies, ranks, big, fb, hshift,
                [(plan.kind, plan.sets, plan.pair, plan.pairs, plan.quads, plan.rotten_gap, plan.honours_natural,
                  plan.specs[gi] if plan.specs else None) for plan in plans])
        build = functools.partial(_group_table, plans, ps, one, gi, g, lo, n, copies, big, fb, hshift,
                                  nonzero_add, carry)
        groups.append(GroupSpec(FIELD_BITS * lo, (1 << (FIELD_BITS * n)) - 1, json.dumps(name), n, vectors(copies),
                                build))
    checks: dict[int, list[HonourCheck]] = {}
    for i, plan in enumerate(plans):
        if plan.kind == "sets":
            total, want = set_size * plan.sets + (ps if plan.pair else 0), (1 if plan.pair else 0)
        elif plan.kind == "pairs":
            total, want = ps * plan.pairs, 0
        else:
            total, want = hand_size, 0
        checks.setdefault(total, []).append(HonourCheck(fb * i, want, plan.min_honours))
    low = sum(1 << (fb * i) for i in range(len(plans)))
    high = low << (fb - 1)
    # per tile count: the patterns without an honour count, checked at once ("a field equal
    # to its need" is "a zero field" of the sum xor the needs), then the others one by one
    counts: dict[int, CountCheck] = {}
    for total, wants in checks.items():
        select = need = 0
        for check in wants:
            if not check.least:
                select |= fmask << check.shift
                need |= check.need << check.shift
        counts[total] = CountCheck(select, need, low & ~select, tuple(c for c in wants if c.least))
    return WildFreeTables(groups, counts, low, high, fmask, hshift, allbig)


def _group_table(plans: list[Plan], ps: int, one: list[int], gi: int, g: Group, lo: int, n: int, copies: list[int],
                 big: int, fb: int, hshift: int, nonzero_add: int, carry: int) -> dict[int, int]:
    fields = [_fields(plan, ps, one, gi, n, copies, g.is_suit, g.ranks) for plan in plans]
    add, over = over_copies_masks(copies)
    keys = {0}.union(*fields)
    table: dict[int, int] = {}
    for key in keys:
        if (key + add) & over:
            continue
        val = 0
        for i, f in enumerate(fields):
            val |= f.get(key, big) << (fb * i)
        if not g.is_suit:
            val |= ((key + nonzero_add) & (carry >> (FIELD_BITS * lo))).bit_count() << hshift
        table[key] = val
    return table


def _fields(plan: Plan, ps: int, one: list[int], gi: int, n: int, copies: list[int], is_suit: bool,
            ranks: tuple[int, ...]) -> dict[int, int]:
    """One pattern's wild-free field per group key: 0 complete, 1 complete with the pair;
    keys not listed are ``big`` (not complete). ``ranks``: a suit's (:attr:`~engine.core.tiles.Group.ranks`)."""
    out: dict[int, int] = {}
    if plan.kind == "sets":
        for key, v in load_table(plan.specs[gi], "complete").items():
            if not v & NONE:
                out[key] = 0
            elif plan.pair and not v >> VALUE_BITS:
                out[key] = 1
        return out
    if plan.kind == "pairs":
        if not ps:
            return {0: 0}
        keys = [0]
        for i, c in enumerate(copies):
            steps = range(ps, (c if plan.quads else min(c, ps)) + 1, ps)
            keys += [k + m * one[i] for k in keys for m in steps
                     if sum((k >> (FIELD_BITS * j)) & FIELD_MASK for j in range(i)) + m <= ps * plan.pairs]
        return dict.fromkeys(keys, 0)
    rooms = cached_rotten_rooms(ranks, plan.rotten_gap) if is_suit else None
    for bits in itertools.product((0, 1), repeat=n):
        key = sum(one[i] for i in range(n) if bits[i])
        if rooms is None or rooms[key] >= 0:
            out[key] = 0
    return out
