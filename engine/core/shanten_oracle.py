"""The reference shanten: what :class:`engine.core.shanten.Shanten` must equal (tests compare the
two on random hands of every bundled ruleset: tests/test_shanten_tables.py).

Plain and slow on purpose: per tile group every Pareto set of (sets, partial sets, head)
options (:func:`~engine.core.shanten_blocks.block_options`), folded group by group; a pairs plan
counts its pairs and singles; a rotten plan its usable singles (the shared
:meth:`~engine.core.shanten_base.ShantenBase.rotten_distance`). Not used in play.
"""
from __future__ import annotations

from collections.abc import Iterable

from engine.core.hands import HandEvaluator
from engine.core.patterns import CompiledPatterns, PatternPlan
from engine.core.shanten_base import ShantenBase
from engine.core.shanten_blocks import MEMO_LIMIT, Blocks, block_options

_START: Blocks = frozenset({(0, 0, 0)})


class ShantenOracle(ShantenBase):
    """Shanten of concealed tiles under one ruleset's patterns: the reference implementation
    (sets of (sets, partials, head) options per group). :class:`~engine.core.shanten.Shanten`
    gives the same values faster."""

    def __init__(self, ev: HandEvaluator | CompiledPatterns):
        """``ev``: a ruleset's evaluator or its :class:`CompiledPatterns` (see :class:`ShantenBase`)."""
        super().__init__(ev)
        self._blocks: dict[tuple[int, tuple[int, ...]], Blocks] = {}  # (templates id, counts) -> options
        self._options: dict[tuple[int, Blocks, Blocks], Blocks] = {}  # (k, options so far, group's) -> options
        self._fold: dict[tuple[int, int, Blocks], int] = {}  # (k, head, options) -> shanten before wilds

    def distances(self, nat: tuple[int, ...], w: int, n_melds: int) -> Iterable[int | None]:
        """Every plan's :meth:`plan_distance`, in plan order."""
        return (self.plan_distance(plan, nat, w, n_melds) for plan in self.ev.plans.values())

    def plan_distance(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int) -> int | None:
        """Shanten of natural counts ``nat`` and ``w`` wilds for the one pattern ``plan``, or None
        when it has no value with ``n_melds`` melds (a pairs or rotten pattern with melds)."""
        if plan.rotten_gap:
            return self.rotten_distance(plan, nat, w, n_melds)
        if plan.pairs:
            if n_melds:
                return None
            ps = self.ev.pair_size
            held = [c for c in nat if c]  # a kind not held adds no pair and no single
            pairs = sum(c // ps for c in held) if plan.pattern.quads_as_pairs else sum(min(c, ps) // ps for c in held)
            singles = sum(1 for c in held if c % ps)
            need = plan.pairs - pairs
            from_wilds = min(w, singles) + max(w - singles, 0) // self.ev.pair_size
            return max(need - 1 - from_wilds, -1)
        k = plan.sets - n_melds
        if k < 0:
            return None
        # (sets, partial sets, head) summed over groups; counts beyond k cannot raise the value,
        # so capping them keeps at most (k+1)·(k+1)·2 states
        # the fold over groups is memoised per (k, options so far, group's options): hands that
        # differ in one group (the discard candidates of one hand) share the rest of the work
        options: Blocks = _START
        combined, fold = self._options, self._fold
        if len(combined) >= MEMO_LIMIT:
            combined.clear()
        if len(fold) >= MEMO_LIMIT:
            fold.clear()
        for span in plan.spans:
            sub = nat[span.lo:span.hi]
            if not any(sub):
                continue
            group = self._group_blocks(span.templates, sub)
            nxt = combined.get((k, options, group))
            if nxt is None:
                nxt = combined[(k, options, group)] = frozenset(
                    {(min(m + a, k), min(t + b, k), p + c) for m, t, p in options for a, b, c in group if p + c <= 1})
            options = nxt
        head = 1 if plan.pair_needed else 0
        best = fold.get((k, head, options))
        if best is None:
            least = 2 * k + head - 1  # no block at all
            for m, t, p in options:
                m = min(m, k)
                value = 2 * m + min(t, k - m) + (p if head else 0)
                least = min(least, 2 * k + head - 1 - value)
            best = fold[(k, head, options)] = least
        return max(best - w, -1)

    def _group_blocks(self, tid: int, counts: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
        key = (tid, counts)
        b = self._blocks.get(key)
        if b is None:
            if len(self._blocks) >= MEMO_LIMIT:
                self._blocks.clear()
            b = self._blocks[key] = block_options(self.ev.templates_by_id[tid], counts, self.ev.pair_size)
        return b
