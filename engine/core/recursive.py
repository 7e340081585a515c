"""The recursive win search: the readings of a hand found by trying every split of its 精,
group by group (the reference the win tables must equal, and their fallback).

Question answered: as :meth:`engine.core.hands.HandEvaluator.readings` and ``is_win``, by
search rather than tables. A 精 may count as its own face or as a wild, so every split of the
held 精 into natural/wild is tried; for each split the pattern is checked on the natural count
vector with ``w`` wilds. ``sets N + pair`` is checked group by group (shapes never cross
groups) with a memoised search for the fewest wilds that complete a group's tiles into sets
(and the pair); wilds left over form sets on their own. ``pairs N`` and ``rotten gap G`` are
counted directly (RULES.md §1 Winning hands, 精, 德国, 精钓).
"""
from __future__ import annotations

import itertools

from engine.core.gaps import max_spread
from engine.core.handparts import MeldTiles, Reading
from engine.core.patterns import INF, CompiledPatterns, PatternPlan

GROUP_MEMO_LIMIT = 50_000  # group results the recursive evaluator remembers (bounds memory)


class RecursiveEvaluator:
    """Readings of winning hands under one ruleset's :class:`CompiledPatterns`, by search."""

    def __init__(self, patterns: CompiledPatterns):
        self.patterns = patterns
        # (template set id, group counts, pair size, wild cap) → fewest wilds (INF: none)
        self._group_memo: dict[tuple[int, tuple[int, ...], int, int], int] = {}

    def readings(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                 win_tile: int, win_tile_natural: bool = False) -> list[Reading]:
        """All readings of a complete hand, one per (pattern, 精钓) with the fewest wilds (as
        :meth:`engine.core.hands.HandEvaluator.readings`)."""
        pats = self.patterns
        counts = pats.tiles.counts(concealed)
        locked = {win_tile: 1} if win_tile_natural else {}
        out: list[Reading] = []
        for name, plan in pats.plans.items():
            if not pats.melds_fit(plan, melds):
                continue
            w = self.fewest_wilds(plan, counts, wild_kinds, len(melds), pair_removed=False, locked=locked)
            if w is not None:
                out.append(Reading(name, w, False))
            jw = self._jing_wait(plan, counts, melds, wild_kinds, win_tile)
            if jw is not None:
                out.append(Reading(name, jw, True))
        return out

    def is_win(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
               win_tile: int, win_tile_natural: bool = False) -> bool:
        """Whether the hand has any reading.

        A 精 standing as a wild can be anything its face could be, so the split with every
        held 精 wild is enough — except for patterns that count natural honours, which try
        every split.
        """
        pats = self.patterns
        counts = pats.tiles.counts(concealed)
        locked = {win_tile: 1} if win_tile_natural else {}
        splits = self._splits(counts, wild_kinds, locked)
        for plan in pats.plans.values():
            if not pats.melds_fit(plan, melds):
                continue
            tries = splits if (plan.pattern.honours_natural or plan.pattern.min_honours) else splits[-1:]
            if any(self._fits(plan, nat, w, len(melds), False) for w, nat in tries):
                return True
        return False

    def _splits(self, counts: list[int], wild_kinds: frozenset[int],
                locked: dict[int, int]) -> list[tuple[int, tuple[int, ...]]]:
        """(natural counts, wilds) for every split of the held 精, fewest wilds first;
        ``locked`` tiles (kind → count) stay natural."""
        held = [(k, counts[k] - locked.get(k, 0)) for k in sorted(wild_kinds) if counts[k] - locked.get(k, 0) > 0]
        options: list[tuple[int, tuple[int, ...]]] = []
        for used in itertools.product(*[range(c + 1) for _, c in held]):
            nat = list(counts)
            for (k, _), u in zip(held, used):
                nat[k] -= u
            options.append((sum(used), tuple(nat)))
        options.sort(key=lambda o: o[0])
        return options

    def fewest_wilds(self, plan: PatternPlan, counts: list[int], wild_kinds: frozenset[int],
                    n_melds: int, pair_removed: bool, locked: dict[int, int] | None = None) -> int | None:
        """The fewest held 精 standing as wilds with which the counts ``counts`` (the whole
        hand's, 精 included) and ``n_melds`` melds fit ``plan``; ``pair_removed``: the pair is
        already taken out (精钓); ``locked`` tiles (kind → count) stay natural. None: no fit."""
        for w, nat in self._splits(counts, wild_kinds, locked or {}):
            if self._fits(plan, nat, w, n_melds, pair_removed):
                return w
        return None

    def _jing_wait(self, plan: PatternPlan, counts: list[int], melds: list[MeldTiles],
                   wild_kinds: frozenset[int], win_tile: int) -> int | None:
        """Fewest wilds of a reading whose pair is the winning tile plus a held 精 (精钓)."""
        if not (plan.pair_needed or plan.pairs):
            return None
        best: int | None = None
        rest = list(counts)
        rest[win_tile] -= 1
        for j in sorted(wild_kinds):
            if rest[j] < 1:
                continue
            rest2 = list(rest)
            rest2[j] -= 1
            as_wild = 0 if j == win_tile else 1
            w = self.fewest_wilds(plan, rest2, wild_kinds, len(melds), pair_removed=True)
            if w is not None and (best is None or w + as_wild < best):
                best = w + as_wild
        return best

    def _fits(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int, pair_removed: bool) -> bool:
        p = plan.pattern
        pats = self.patterns
        if (p.one_of or p.only) and not pats.groups_fit(p, {pats.tiles.kinds[k].group for k, c in enumerate(nat) if c}):
            return False
        if p.min_honours and sum(1 for k in pats.honour_kinds if nat[k]) < p.min_honours:
            return False
        if plan.rotten_gap:
            return self._rotten(plan, nat, w)
        if plan.pairs:
            return self._pairs(plan, nat, w, plan.pairs - (1 if pair_removed else 0))
        return self._sets(plan, nat, w, plan.sets - n_melds, plan.pair_needed and not pair_removed)

    # sets N + pair ---------------------------------------------------------------------------------
    def _sets(self, plan: PatternPlan, nat: tuple[int, ...], w: int, k: int, pair: bool) -> bool:
        total = sum(nat) + w
        pair_size = self.patterns.pair_size
        if k < 0 or total != self.patterns.set_size * k + (pair_size if pair else 0):
            return False
        memo = self._group_memo
        per_group: list[tuple[int, int]] = []  # fewest wilds per group: (without the pair, with it)
        b: int | None  # a group's fewest with the pair (a memo lookup first)
        for span in plan.spans:
            tid, cap = span.templates, span.cap
            sub = nat[span.lo:span.hi]
            if not any(sub):
                continue
            a = memo.get((tid, sub, 0, cap))
            if a is None:
                a = self._group_min(tid, sub, 0, cap)
            if a >= INF and not pair:
                return False
            b = INF
            if pair:
                b = memo.get((tid, sub, pair_size, cap))
                if b is None:
                    b = self._group_min(tid, sub, pair_size, cap)
            if a >= INF and b >= INF:
                return False
            per_group.append((a, b))
        base = sum(a for a, _ in per_group)  # ≥ INF when some group needs the pair
        if not pair:
            return base <= w
        best = base + pair_size  # the pair made of wilds only
        for a, b in per_group:
            best = min(best, base - a + b)
        return best <= w

    def _group_min(self, tid: int, counts: tuple[int, ...], pair: int, cap: int) -> int:
        """Fewest wilds completing ``counts`` into sets of template set ``tid`` (and one pair of
        ``pair`` tiles if ``pair`` > 0); INF if none. Memoised per ruleset."""
        key = (tid, counts, pair, cap)
        got = self._group_memo.get(key)
        if got is None:
            if len(self._group_memo) >= GROUP_MEMO_LIMIT:
                self._group_memo.clear()
            got = self._group_memo[key] = self._group_search(self.patterns.templates_by_id[tid], tid, counts, pair, cap)
        return got

    def _group_search(self, templates: tuple[tuple[int, ...], ...], tid: int, counts: tuple[int, ...], pair: int,
                      cap: int) -> int:
        i = next((j for j, c in enumerate(counts) if c), None)
        if i is None:
            return (pair if cap >= pair else INF) if pair else 0
        best = INF
        options = [t for t in templates if i in t]
        pair_t = (i,) * pair if pair else None
        if pair_t:
            options.append(pair_t)
        for t in options:
            c = list(counts)
            wild = 0
            for m in t:
                if c[m] > 0:
                    c[m] -= 1
                else:
                    wild += 1
            if wild > cap:
                continue
            is_pair = t is pair_t
            rest = self._group_min(tid, tuple(c), 0 if is_pair else pair, cap - wild if cap < INF else cap)
            if rest < INF:
                best = min(best, wild + rest)
        return best

    # pairs N ------------------------------------------------------------------------------------------
    def _pairs(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n: int) -> bool:
        size = self.patterns.pair_size
        if sum(nat) + w != size * n:
            return False
        singles = 0
        for k, c in enumerate(nat):
            if c > size and not plan.pattern.quads_as_pairs:
                return False
            if c % size:
                if plan.pattern.honours_natural and k in self.patterns.honour_kinds:
                    return False
                singles += size - c % size
        return singles <= w

    # rotten gap G ---------------------------------------------------------------------------------------
    def _rotten(self, plan: PatternPlan, nat: tuple[int, ...], w: int) -> bool:
        pats = self.patterns
        if sum(nat) + w != pats.hand_size or any(c > 1 for c in nat):
            return False
        gap = plan.rotten_gap
        room = 0
        for g in pats.tiles.groups.values():
            held = tuple(i for i, k in enumerate(g.kinds) if nat[k])
            if g.is_suit:
                ranks = tuple(g.ranks[i] for i in held)
                most = max_spread(g.ranks, ranks, gap)
                if most < 0:
                    return False
                room += most - len(ranks)
            elif not plan.pattern.honours_natural:
                room += len(g.kinds) - len(held)
        return w <= room
