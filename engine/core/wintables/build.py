"""What a group's win table holds, built from the declared shapes alone (no cache, no state).

:func:`build_table`: every complete vector of at most ``limit`` tiles (unions of templates,
and the pair), then tiles are taken away one at a time (breadth first), each step costing one
wild. An entry is kept only when it can occur in a hand (every count within the kind's copies)
and can complete within ``limit`` tiles; a vector with no entry cannot complete with the wilds
a hand can hold. :func:`rotten_rooms` is the ``rotten gap G`` table of one suit (十三烂,
RULES.md §1). Encoding: engine/core/wintables/packing.py.
"""
from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

from engine.core.gaps import max_spread
from engine.core.wintables.packing import FIELD_BITS, FIELD_MASK, NONE, VALUE_BITS, over_copies_masks

SpecFields: TypeAlias = tuple[int, tuple[tuple[int, ...], ...], int, int, tuple[int, ...]]  # a TableSpec's, plain


class TableSpec(NamedTuple):
    """What a group's full table depends on (its cache name is a hash of these): ``kinds`` in
    the group, the set ``templates`` as positions within it, ``pair_size`` tiles in the pair
    (0: no pair), ``limit`` the most tiles a hand of the pattern holds, ``copies`` per kind.
    Equal to (and stored as) the plain tuple of its fields."""

    kinds: int
    templates: tuple[tuple[int, ...], ...]
    pair_size: int
    limit: int
    copies: tuple[int, ...]


def build_table(n: int, templates: tuple[tuple[int, ...], ...], pair_size: int, limit: int,
                copies: tuple[int, ...]) -> dict[int, int]:
    """The table of one group: packed count vector → ``a | b << VALUE_BITS``.

    ``n`` kinds, ``templates`` the set shapes as positions within the group, ``pair_size``
    tiles in the pair (0: no pair), ``limit`` the most tiles a hand of the pattern holds,
    ``copies`` per kind. Cost: about a second for a 9-rank suit with runs and pungs.
    """
    one = [1 << (FIELD_BITS * p) for p in range(n)]
    tkeys = sorted({(sum(one[p] for p in t), len(t)) for t in templates if t})
    complete: dict[int, int] = {0: 0}  # key → tile count
    stack = [(0, 0, 0)]
    while stack:
        key, size, start = stack.pop()
        for j in range(start, len(tkeys)):
            tk, ts = tkeys[j]
            if size + ts <= limit:
                nk = key + tk
                if nk not in complete:
                    complete[nk] = size + ts
                    stack.append((nk, size + ts, j))
    with_pair: dict[int, int] = {}
    if pair_size:
        for key, size in complete.items():
            if size + pair_size <= limit:
                for p in range(n):
                    with_pair.setdefault(key + pair_size * one[p], size + pair_size)
    a = _fewest_by_removal(complete, one)
    b = _fewest_by_removal(with_pair, one)
    cap_ok = _within_copies(copies)
    out: dict[int, int] = {}
    for key in set(a) | set(b):
        if cap_ok(key):
            out[key] = min(a.get(key, NONE), NONE) | min(b.get(key, NONE), NONE) << VALUE_BITS
    return out


def _fewest_by_removal(complete: dict[int, int], one: list[int]) -> dict[int, int]:
    """Breadth first from the complete vectors: each tile taken away costs one wild."""
    dist = dict.fromkeys(complete, 0)
    front = list(complete)
    d = 0
    while front:
        d += 1
        nxt = []
        for u in front:
            for o in one:
                if (u // o) & FIELD_MASK:
                    v = u - o
                    if v not in dist:
                        dist[v] = d
                        nxt.append(v)
        front = nxt
    return dist


def _within_copies(copies: tuple[int, ...]) -> Callable[[int], bool]:
    add, carry = over_copies_masks(copies)
    return lambda key: not ((key + add) & carry)



def rotten_rooms(ranks: tuple[int, ...], gap: int) -> dict[int, int]:
    """Suit ranks, counts ≤ 1: packed key → free ranks left by the gap rule, -1 if broken."""
    out = {}
    n = len(ranks)
    for held in itertools.product((0, 1), repeat=n):
        key = sum(1 << (FIELD_BITS * i) for i in range(n) if held[i])
        hr = tuple(ranks[i] for i in range(n) if held[i])
        most = max_spread(ranks, hr, gap)
        out[key] = -1 if most < 0 else most - len(hr)
    return out
