"""The arithmetic under :mod:`engine.core.shanten`: one group's (sets, partial sets, head)
options (what the reference ShantenOracle folds) and its table (what Shanten folds, found by the
same splits), the largest spread of a rotten hand's singles, the max-plus step that folds two
groups' tables and a table's distance before wilds. Pure functions, memoised (bounded)."""
from __future__ import annotations

import itertools
from functools import lru_cache

Blocks = frozenset[tuple[int, int, int]]  # (sets, partial sets, head pair) options of tiles
MEMO_LIMIT = 50_000  # per-group results (group tables, steps, blocks, rotten singles): reused across hands


def combine(x: tuple[int, ...], y: tuple[int, ...], k: int) -> tuple[int, ...]:
    """Max-plus step: the table of two groups' tables (cells ``2·sets + head``)."""
    out = [-1] * len(x)
    for i, tx in enumerate(x):
        if tx < 0:
            continue
        mx, px = i >> 1, i & 1
        for j, ty in enumerate(y):
            if ty < 0:
                continue
            p = px + (j & 1)
            if p > 1:
                continue
            c = 2 * min(mx + (j >> 1), k) + p
            t = tx + ty
            if t > k:
                t = k
            if t > out[c]:
                out[c] = t
    return tuple(out)


def cell_bits(cap: int) -> int:
    """Bits a packed table's cell takes when sets are counted up to ``cap``: a cell's value + 1
    (0 to ``cap + 1``), and the table's k (0 to ``cap``) in the lowest such bits."""
    return (cap + 1).bit_length()


def pack(cells: tuple[int, ...], k: int, bits: int) -> int:
    """A table as one int (what the fast counter's memos key by: an int hashes in a few
    nanoseconds, a tuple of ten cells in about a hundred and fifty): ``k`` in the low ``bits``
    bits (:func:`cell_bits`), then each cell's value + 1, the first cell lowest. Positive: cell 0
    is never -1 (loose tiles make no sets and no partials). :func:`unpack` reverses it."""
    x = 0
    for c in reversed(cells):
        x = (x << bits) | (c + 1)
    return (x << bits) | k


def unpack(x: int, bits: int) -> tuple[tuple[int, ...], int]:
    """(the cells, k) of a table :func:`pack` ed with ``bits`` bits a cell: ``2·k + 2`` cells."""
    mask = (1 << bits) - 1
    k = x & mask
    return tuple(((x >> (bits * (i + 1))) & mask) - 1 for i in range(2 * k + 2)), k


def best_before_wilds(table: tuple[int, ...] | None, k: int, head_needed: bool) -> int:
    """Shanten before wilds of a combined table (``None``: no tiles in the plan's groups)."""
    head = 1 if head_needed else 0
    if table is None:
        return 2 * k + head - 1
    best = 2 * k + head - 1  # no block at all; every cell's value is at least 0
    for i, t in enumerate(table):
        if t < 0:
            continue
        m, p = i >> 1, i & 1
        s = 2 * k + head - 1 - (2 * m + min(t, k - m) + (p if head else 0))
        if s < best:
            best = s
    return best


LOOSE, IN_SET, IN_PARTIAL, IN_PAIR = range(4)  # what a split does with the group's first tile


Holding = tuple[tuple[tuple[int, ...], tuple[tuple[int, ...], ...]], ...]  # (template, its partials) per template


def splits(templates: tuple[tuple[int, ...], ...], counts: tuple[int, ...], pair: int,
           holding: Holding | None = None) -> list[tuple[int, tuple[int, ...]]]:
    """Every way the first tile held (``counts`` holds one) can go, with the counts it leaves:
    ``(LOOSE, …)``, then ``(IN_SET, …)`` and ``(IN_PARTIAL, …)`` for each set template and
    partial set holding it that the counts can make, then ``(IN_PAIR, …)`` when it has a pair.
    ``holding``: the templates holding that first tile's position when the caller has them
    (:func:`templates_holding`). :func:`block_options` and :class:`GroupTables` both read a
    group by these splits."""
    i = next(j for j, c in enumerate(counts) if c)
    loose = _without(counts, (i,))
    assert loose is not None, "the first tile held can always be left loose"
    out = [(LOOSE, loose)]
    for t, partials in templates_holding(templates, i) if holding is None else holding:
        r = _without(counts, t)
        if r is not None:
            out.append((IN_SET, r))
        for sub in partials:
            r = _without(counts, sub)
            if r is not None:
                out.append((IN_PARTIAL, r))
    r = _without(counts, (i,) * pair)
    if r is not None:
        out.append((IN_PAIR, r))
    return out


def _without(counts: tuple[int, ...], remove: tuple[int, ...]) -> tuple[int, ...] | None:
    """``counts`` less one tile at each position of ``remove`` (None: a count would go below 0)."""
    c = list(counts)
    for m in remove:
        if c[m] == 0:
            return None
        c[m] -= 1
    return tuple(c)


@lru_cache(maxsize=MEMO_LIMIT)
def block_options(templates: tuple[tuple[int, ...], ...], counts: tuple[int, ...], pair: int) -> Blocks:
    """(sets, partial sets, head pair) options for one group's tiles, Pareto-pruned."""
    if not any(counts):
        return frozenset({(0, 0, 0)})
    out: set[tuple[int, int, int]] = set()
    for how, r in splits(templates, counts, pair):
        options = block_options(templates, r, pair)
        if how == LOOSE:
            out |= options
        elif how == IN_SET:
            out |= {(m + 1, p_, h) for m, p_, h in options}
        elif how == IN_PARTIAL:
            out |= {(m, p_ + 1, h) for m, p_, h in options}
        else:  # a pair: a partial set, or the head when there is none yet
            out |= {(m, p_ + 1, h) for m, p_, h in options} | {(m, p_, 1) for m, p_, h in options if h == 0}
    return frozenset(prune_options(out))


class GroupTables:
    """The tables of one group's counts under fixed set templates, pair size and cap, memoised by
    the counts alone (at most :data:`MEMO_LIMIT` entries, emptied when full): a table (the
    counts as a tuple -> a tuple of ``2·cap + 2`` cells) is read from the tables of what each
    split leaves, so a group seen once makes its neighbours cheap. Keying by the counts, not the
    templates, spares hashing the templates at every step."""

    __slots__ = ("templates", "pair", "cap", "memo", "_holding")

    def __init__(self, templates: tuple[tuple[int, ...], ...], pair: int, cap: int):
        self.templates, self.pair, self.cap = templates, pair, cap
        self.memo: dict[tuple[int, ...], tuple[int, ...]] = {}
        self._holding: dict[int, Holding] = {}

    def table(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        """The group's table with at most ``cap`` sets: cell ``2·sets + head`` (sets counted up
        to ``cap``) holds the most partial sets (up to ``cap``) of a split with that many sets
        and head, -1 where no split has them. What :func:`block_options` gives, cell by cell,
        from the same :func:`splits` without listing every option: each split's table is the
        table of what it leaves, shifted."""
        t = self.memo.get(counts)
        if t is None:
            t = self._build(counts)
            if len(self.memo) >= MEMO_LIMIT:
                self.memo.clear()
            self.memo[counts] = t
        return t

    def _build(self, counts: tuple[int, ...]) -> tuple[int, ...]:
        cap = self.cap
        if not any(counts):
            return (0,) + (-1,) * (2 * cap + 1)
        top = 2 * cap  # the first cell of `cap` sets: one set more stays there
        i = next(j for j, c in enumerate(counts) if c)
        holding = self._holding.get(i)
        if holding is None:
            holding = self._holding[i] = templates_holding(self.templates, i)
        parts = splits(self.templates, counts, self.pair, holding)
        table_of = self.table
        out = list(table_of(parts[0][1]))  # the first tile loose
        for how, r in parts[1:]:
            table = table_of(r)
            if how == IN_SET:  # one set more
                for cell, b in enumerate(table):
                    if b >= 0:
                        j = cell + 2 if cell < top else cell
                        if b > out[j]:
                            out[j] = b
                continue
            for cell, b in enumerate(table):  # one partial set more (a pair too) …
                if b >= 0:
                    v = b + 1 if b < cap else cap
                    if v > out[cell]:
                        out[cell] = v
                    if how == IN_PAIR and not cell & 1 and b > out[cell + 1]:
                        out[cell + 1] = b  # … or the pair as the head
        return tuple(out)


@lru_cache(maxsize=64)
def group_tables(templates: tuple[tuple[int, ...], ...], pair: int, cap: int) -> GroupTables:
    """The :class:`GroupTables` of one combination, shared by the callers that ask for it."""
    return GroupTables(templates, pair, cap)


def fewer_sets(table: tuple[int, ...], k: int) -> tuple[int, ...]:
    """A :meth:`GroupTables.table` read with at most ``k`` sets (``k`` ≤ its cap): sets and partial
    sets counted up to ``k``."""
    cells = [-1] * (2 * (k + 1))
    for cell, b in enumerate(table):
        if b >= 0:
            j = 2 * min(cell >> 1, k) + (cell & 1)
            if min(b, k) > cells[j]:
                cells[j] = min(b, k)
    return tuple(cells)


@lru_cache(maxsize=4096)
def templates_holding(templates: tuple[tuple[int, ...], ...], i: int) -> Holding:
    """(template, its partial sets holding ``i``) for each set template holding position ``i``."""
    return tuple((t, tuple(sorted(s for s in set(itertools.combinations(t, len(t) - 1)) if i in s)))
                 for t in templates if i in t)


def prune_options(options: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    """Drop options another beats in every count. One that beats another has a larger sum, so
    the options are read by falling sum and each is compared with those kept before it only
    (what beats a dropped option beats what it beat)."""
    kept: list[tuple[int, int, int]] = []
    for o in sorted(options, key=sum, reverse=True):
        a, b, c = o
        for x in kept:
            if x[0] >= a and x[1] >= b and x[2] >= c:
                break
        else:
            kept.append(o)
    return set(kept)
