"""What every shanten counter shares (the fast :class:`~engine.core.shanten.Shanten` and the
reference :class:`~engine.core.shanten_oracle.ShantenOracle`): a hand's natural counts and 精,
the bounded whole-hand memo, the rule that settles a plan's distance, a ``rotten gap`` plan's
usable singles; and the fast counter's memoised max-plus group tables
(:class:`GroupTableMemos`: a group's table, two combined, a table's best, a group grown by a draw).
"""
from __future__ import annotations

from collections.abc import Iterable, Sized
from typing import Any, TypeVar, overload

from engine.core.gaps import max_spread
from engine.core.hands import HandEvaluator
from engine.core.patterns import CompiledPatterns, PatternPlan
from engine.core.shanten_blocks import (
    MEMO_LIMIT,
    best_before_wilds,
    cell_bits,
    combine,
    fewer_sets,
    group_tables,
    pack,
    unpack,
)

HandState = tuple[tuple[int, ...], int, int]  # (natural counts, wilds held, declared melds)
# Memo sizes (they bound memory): past its limit a memo is cleared and starts again (no value
# changes). At 0.2-0.45 KB an entry, a value bot's model (one Shanten over every pattern) holds
# at most about 60 MB, however many hands.
# MEMO_LIMIT (engine/core/shanten_blocks.py) bounds the per-group memos.
STATE_LIMIT = 5_000  # whole-hand states per Shanten (``_memo``): reused within a turn, rarely hands later


V = TypeVar("V")


def remember(memo: dict[Any, V], key: Any, value: V) -> V:
    """Store ``value`` under ``key`` in a whole-hand memo bounded by :data:`STATE_LIMIT` entries
    (emptied when full) and return it."""
    if len(memo) >= STATE_LIMIT:
        memo.clear()
    memo[key] = value
    return value


class ShantenBase:
    """What both forms of shanten share (the reference :class:`~engine.core.shanten_oracle.ShantenOracle`
    and the fast :class:`Shanten`): a hand's natural counts, the whole-hand memo of :meth:`of`,
    :meth:`settle`, and a rotten plan's usable singles. A form gives :meth:`distances`."""

    def __init__(self, ev: HandEvaluator | CompiledPatterns):
        """``ev``: a ruleset's evaluator or its :class:`CompiledPatterns` (a view with fewer
        patterns: :meth:`CompiledPatterns.only`); ``self.ev`` is the compiled patterns."""
        self.ev: CompiledPatterns = ev.patterns if isinstance(ev, HandEvaluator) else ev
        self.state_memo: dict[HandState, int] = {}  # (natural counts, wilds held, melds) -> shanten
        self._rotten_memo: dict[tuple[int, int, tuple[int, ...]], int] = {}  # (group, gap, counts) -> usable

    def memos(self) -> dict[str, Sized]:
        """Every memo this counter fills, by name (what a test of their bounds reads): a hand
        state's (bounded by :data:`STATE_LIMIT`) and a group's (by ``MEMO_LIMIT``)."""
        return {"state_memo": self.state_memo, "rotten_memo": self._rotten_memo}

    def natural_counts(self, concealed: list[int], wild_kinds: frozenset[int]) -> tuple[list[int], int]:
        """(count per kind with the wild kinds at 0, the wilds held) of concealed tiles."""
        counts = self.ev.tiles.counts(concealed)
        w = 0
        for k in wild_kinds:
            w += counts[k]
            counts[k] = 0
        return counts, w

    def of(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int]) -> int:
        """Shanten of a seat's concealed tiles (any count) with ``n_melds`` declared melds."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        return self.of_counts(tuple(counts), w, n_melds)

    def of_each_discard(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                        discards: list[int]) -> list[int]:
        """``[self.of(concealed minus d, n_melds, wild_kinds) for d in discards]``, counting the
        hand once (each ``d`` must be held)."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        out = []
        for d in discards:
            if d in wild_kinds:
                out.append(self.of_counts(tuple(counts), w - 1, n_melds))
            else:
                counts[d] -= 1
                out.append(self.of_counts(tuple(counts), w, n_melds))
                counts[d] += 1
        return out

    def of_counts(self, nat: tuple[int, ...], w: int, n_melds: int) -> int:
        """Shanten of natural counts ``nat`` and ``w`` wilds held, memoised per hand state."""
        key = (nat, w, n_melds)
        v = self.state_memo.get(key)
        if v is None:
            best = None
            for d in self.distances(nat, w, n_melds):
                if d is not None and (best is None or d < best):
                    best = d
            v = remember(self.state_memo, key, self.settle(best, sum(nat) + w, n_melds))
        return v

    def distances(self, nat: tuple[int, ...], w: int, n_melds: int) -> Iterable[int | None]:
        """Every plan's distance for natural counts ``nat`` and ``w`` wilds (None: a plan of no
        value with ``n_melds`` melds), the form's own."""
        raise NotImplementedError

    def settle(self, distance: int | None, tiles: int, n_melds: int) -> int:
        """A hand of ``tiles`` concealed tiles (``n_melds`` declared) at a plan ``distance``
        (None: no plan has a value): a hand short of a complete count is at least one tile from a
        win, whatever its 精; with no plan, every tile is to go."""
        if distance is None:
            return tiles
        return distance if tiles + self.ev.set_size * n_melds >= self.ev.hand_size else max(distance, 0)

    def rotten_distance(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int) -> int | None:
        """A ``rotten gap`` plan's distance: complete-hand size − 1 − the usable singles − the
        wilds (None with melds: the plan needs a concealed hand)."""
        if n_melds:
            return None
        usable, gap = 0, plan.rotten_gap
        memo = self._rotten_memo  # read inline: a whole hand's groups are mostly known
        for gi, (_, lo, hi) in enumerate(self.ev.group_spans):
            sub = nat[lo:hi]
            u = memo.get((gi, gap, sub))
            usable += self.rotten_usable(gap, gi, sub) if u is None else u
        return max(self.ev.hand_size - 1 - usable - w, -1)

    def rotten_usable(self, gap: int, gi: int, sub: tuple[int, ...]) -> int:
        """Usable singles of group ``gi`` (its counts ``sub``) for a ``rotten gap`` plan: in a
        suit the largest set of held ranks ``gap`` apart, else every kind held. Memoised."""
        key = (gi, gap, sub)
        u = self._rotten_memo.get(key)
        if u is None:
            if len(self._rotten_memo) >= MEMO_LIMIT:
                self._rotten_memo.clear()
            g = self.ev.group_spans[gi][0]
            held = [self.ev.tiles.kinds[g.kinds[i]].rank or i for i, c in enumerate(sub) if c]
            u = self._rotten_memo[key] = (max_spread(tuple(held), (), gap) if g.is_suit else len(held))
        return u


class GroupTableMemos(ShantenBase):
    """The fast counter's per-group max-plus tables (:mod:`engine.core.shanten_blocks`), each
    memoised and bounded by :data:`MEMO_LIMIT`: :meth:`table` (a group's table), :meth:`combined`
    (two tables combined), :meth:`best_of` (a table's distance before wilds) and
    :meth:`grown_tables` (the tables one more tile grows a group to). A table here is
    :func:`~engine.core.shanten_blocks.pack` ed into one int that carries its ``k`` (the memos
    are keyed by ints: ``x << shift | y`` for two tables, ``x << 1 | head`` for a best);
    ``None`` is a group without tiles."""

    def __init__(self, ev: HandEvaluator | CompiledPatterns):
        super().__init__(ev)
        self.tables: dict[tuple[int, int, tuple[int, ...]], int] = {}  # (k, group id, counts) -> table
        self.steps: dict[int, int] = {}  # x << shift | y -> the two tables combined
        self.bests: dict[int, int] = {}  # table << 1 | head needed -> its distance before wilds
        # (k, group id, counts) -> (positions, the table after a draw at any of them) where a draw changes it
        self._grown: dict[tuple[int, int, tuple[int, ...]], tuple[tuple[tuple[int, ...], int], ...]] = {}
        self._most_sets = max((p.sets for p in self.ev.plans.values()), default=0)  # the cap of group tables
        self.bits = cell_bits(self._most_sets)  # a packed table's bits a cell
        self.shift = self.bits * (2 * self._most_sets + 3)  # bits of the largest packed table
        # per templates id: its GroupTables (shared by every Shanten of the same templates)
        self.group_tables = [group_tables(t, self.ev.pair_size, self._most_sets) for t in self.ev.templates_by_id]

    def memos(self) -> dict[str, Sized]:
        return {**super().memos(), "tables": self.tables, "steps": self.steps, "bests": self.bests,
                "grown": self._grown}

    def grown_tables(self, k: int, tid: int, sub: tuple[int, ...]) -> tuple[tuple[tuple[int, ...], int], ...]:
        """(positions, the group's table with one more tile at any of them) for each table a group
        grows to with one more tile (``k`` sets to make), positions that grow it alike together: a
        draw elsewhere in the group leaves its table, so every distance, as it was. Memoised per
        group state."""
        key = (k, tid, sub)
        out = self._grown.get(key)
        if out is None:
            if len(self._grown) >= MEMO_LIMIT:
                self._grown.clear()
            now = self.table(k, tid, sub) if any(sub) else None
            grown: dict[int, list[int]] = {}
            for pos in range(len(sub)):
                after = list(sub)
                after[pos] += 1
                table = self.table(k, tid, tuple(after))
                if table != now:
                    grown.setdefault(table, []).append(pos)
            out = self._grown[key] = tuple((tuple(where), table) for table, where in grown.items())
        return out

    @overload
    def combined(self, x: int, y: int | None) -> int: ...

    @overload
    def combined(self, x: int | None, y: int) -> int: ...

    @overload
    def combined(self, x: int | None, y: int | None) -> int | None: ...

    def combined(self, x: int | None, y: int | None) -> int | None:
        """Memoised :func:`~engine.core.shanten_blocks.combine` of two packed tables of one ``k``
        (``None``: a group without tiles)."""
        if x is None:
            return y
        if y is None:
            return x
        key = x << self.shift | y
        t = self.steps.get(key)
        if t is None:
            if len(self.steps) >= MEMO_LIMIT:
                self.steps.clear()
            cx, k = unpack(x, self.bits)
            t = self.steps[key] = pack(combine(cx, unpack(y, self.bits)[0], k), k, self.bits)
        return t

    def best_of(self, k: int, head: bool, table: int | None) -> int:
        """Memoised :func:`~engine.core.shanten_blocks.best_before_wilds` of a packed table (``k``
        for ``None``, a plan's groups all without tiles)."""
        if table is None:
            return best_before_wilds(None, k, head)
        key = table << 1 | head
        v = self.bests.get(key)
        if v is None:
            if len(self.bests) >= MEMO_LIMIT:
                self.bests.clear()
            v = self.bests[key] = best_before_wilds(unpack(table, self.bits)[0], k, head)
        return v

    def table(self, k: int, tid: int, sub: tuple[int, ...]) -> int:
        """Group ``tid``'s packed table for the counts ``sub`` with ``k`` sets to make
        (shanten_blocks.GroupTables, read once for the most sets any plan makes)."""
        key = (k, tid, sub)
        t = self.tables.get(key)
        if t is None:
            if len(self.tables) >= MEMO_LIMIT:
                self.tables.clear()
            full = self.group_tables[tid].table(sub)
            t = self.tables[key] = pack(full if k == self._most_sets else fewer_sets(full, k), k, self.bits)
        return t
