"""Shanten (向听): how many tiles a hand is from a win, with 精 wilds, for every declared pattern.

``-1`` is a complete hand, ``0`` is one tile away (听, tenpai). The count is the usual block
count generalised to the ruleset's meld shapes:

- ``sets k + pair``: per tile group, every way to split the tiles into complete sets
  (templates of the declared melds), partial sets (two tiles of a template, a pair) and a head
  pair; shanten = 2k − (2·sets + partials + head), partials counting only up to k − sets;
- ``pairs n``: n − 1 − pairs, singles needing a tile each;
- ``rotten gap G``: complete-hand size − 1 − the largest set of compatible singles.

Each 精 held is counted as a wild that supplies one missing tile, so it lowers the shanten by
one (a pair of wilds, one pair), never below 0 for a hand short of a complete count. This is an
estimate for play, not a scoring rule: the bot uses it; the scorer never does.
"""
from __future__ import annotations

import itertools
from functools import lru_cache

from engine.core.hands import HandEvaluator, _PatternPlan

_START = frozenset({(0, 0, 0)})
MEMO_LIMIT = 100_000  # hand states a Shanten remembers before it starts again (bounds memory)


class Shanten:
    """Shanten of concealed tiles under one ruleset's patterns."""

    def __init__(self, ev: HandEvaluator):
        self.ev = ev
        self._blocks: dict = {}
        self._memo: dict[tuple, int] = {}  # (natural counts, wilds held, melds) -> shanten
        self._rotten_memo: dict[tuple, int] = {}
        self._fold: dict[tuple, object] = {}

    def of(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int]) -> int:
        """Shanten of a seat's concealed tiles (any count) with ``n_melds`` declared melds."""
        counts = self.ev.tiles.counts(concealed)
        w = 0
        for k in wild_kinds:
            w += counts[k]
            counts[k] = 0
        return self._of(tuple(counts), w, n_melds)

    def of_each_discard(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                        discards: list[int]) -> list[int]:
        """``[self.of(concealed minus d, n_melds, wild_kinds) for d in discards]``, counting the
        hand once (each ``d`` must be held)."""
        counts = self.ev.tiles.counts(concealed)
        w = 0
        for k in wild_kinds:
            w += counts[k]
            counts[k] = 0
        out = []
        for d in discards:
            if d in wild_kinds:
                out.append(self._of(tuple(counts), w - 1, n_melds))
            else:
                counts[d] -= 1
                out.append(self._of(tuple(counts), w, n_melds))
                counts[d] += 1
        return out

    def _of(self, nat: tuple[int, ...], w: int, n_melds: int) -> int:
        """Shanten of natural counts ``nat`` and ``w`` wilds held, memoised per hand state."""
        key = (nat, w, n_melds)
        v = self._memo.get(key)
        if v is None:
            if len(self._memo) >= MEMO_LIMIT:
                self._memo.clear()
            v = self._memo[key] = self._compute(nat, w, n_melds)
        return v

    def _compute(self, nat: tuple[int, ...], w: int, n_melds: int) -> int:
        n_tiles = sum(nat) + w
        best = None
        for plan in self.ev.plans.values():
            v = self._plan(plan, nat, w, n_melds)
            if v is not None and (best is None or v < best):
                best = v
        if best is None:
            return n_tiles
        # a hand short of a complete count is at least one tile from a win, whatever its 精
        complete = n_tiles + self.ev.set_size * n_melds >= self.ev.hand_size
        return best if complete else max(best, 0)

    def _plan(self, plan: _PatternPlan, nat: tuple[int, ...], w: int, n_melds: int) -> int | None:
        if plan.rotten_gap:
            return None if n_melds else max(self._rotten(plan, nat) - w, -1)
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
        options = _START
        fold = self._fold
        if len(fold) >= MEMO_LIMIT:
            fold.clear()
        for lo, hi, tid, _ in self.ev._spans(plan):
            sub = nat[lo:hi]
            if not any(sub):
                continue
            group = self._group_blocks(tid, sub)
            key = (k, options, group)
            nxt = fold.get(key)
            if nxt is None:
                nxt = fold[key] = frozenset({(min(m + a, k), min(t + b, k), p + c) for m, t, p in options
                                             for a, b, c in group if p + c <= 1})
            options = nxt
        head = 1 if plan.pair_needed else 0
        key = (k, head, options)
        best = fold.get(key)
        if best is None:
            for m, t, p in options:
                m = min(m, k)
                value = 2 * m + min(t, k - m) + (p if head else 0)
                s = 2 * k + head - 1 - value
                best = s if best is None else min(best, s)
            fold[key] = best
        return max(best - w, -1)

    def _group_blocks(self, tid: int, counts: tuple[int, ...]) -> frozenset[tuple[int, int, int]]:
        key = (tid, counts)
        if key not in self._blocks:
            self._blocks[key] = _blocks(self.ev._templates_by_id[tid], counts, self.ev.pair_size)
        return self._blocks[key]

    def _rotten(self, plan: _PatternPlan, nat: tuple[int, ...]) -> int:
        usable = 0
        for gi, (g, lo, hi) in enumerate(self.ev.group_spans):
            sub = nat[lo:hi]
            key = (gi, plan.rotten_gap, sub)
            u = self._rotten_memo.get(key)
            if u is None:
                if len(self._rotten_memo) >= MEMO_LIMIT:
                    self._rotten_memo.clear()
                held = [self.ev.tiles.kinds[g.kinds[i]].rank or i for i, c in enumerate(sub) if c]
                u = self._rotten_memo[key] = (_largest_spread(tuple(held), plan.rotten_gap) if g.is_suit
                                              else len(held))
            usable += u
        return self.ev.hand_size - 1 - usable


@lru_cache(maxsize=100_000)
def _blocks(templates, counts: tuple[int, ...], pair: int) -> frozenset[tuple[int, int, int]]:
    """(sets, partial sets, head pair) options for one group's tiles, Pareto-pruned."""
    i = next((j for j, c in enumerate(counts) if c), None)
    if i is None:
        return frozenset({(0, 0, 0)})
    out: set[tuple[int, int, int]] = set()

    def rest(remove: tuple[int, ...]) -> tuple[int, ...] | None:
        c = list(counts)
        for m in remove:
            if c[m] == 0:
                return None
            c[m] -= 1
        return tuple(c)

    single = rest((i,))
    out |= set(_blocks(templates, single, pair))  # i left as a loose tile
    for t in templates:
        if i not in t:
            continue
        r = rest(t)
        if r is not None:
            out |= {(m + 1, p_, h) for m, p_, h in _blocks(templates, r, pair)}
        for sub in set(itertools.combinations(t, len(t) - 1)):
            if i in sub:
                r = rest(sub)
                if r is not None:
                    out |= {(m, p_ + 1, h) for m, p_, h in _blocks(templates, r, pair)}
    r = rest((i,) * pair)
    if r is not None:
        for m, p_, h in _blocks(templates, r, pair):
            out.add((m, p_ + 1, h))
            if h == 0:
                out.add((m, p_, 1))
    return frozenset(_prune(out))


def _prune(options: set[tuple[int, int, int]]) -> set[tuple[int, int, int]]:
    """Drop options another beats in every count."""
    return {o for o in options
            if not any(x != o and x[0] >= o[0] and x[1] >= o[1] and x[2] >= o[2] for x in options)}


@lru_cache(maxsize=4096)
def _largest_spread(ranks: tuple[int, ...], gap: int) -> int:
    for size in range(len(ranks), 0, -1):
        for pick in itertools.combinations(sorted(ranks), size):
            if all(b - a >= gap for a, b in zip(pick, pick[1:])):
                return size
    return 0
