"""How many ranks a suit can hold under a ``rotten gap G`` pattern (十三烂, RULES.md §1).

Shared by the recursive evaluator (engine/core/recursive.py) and the rotten-rooms tables
(engine/core/wintables/build.py).
"""
from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=4096)
def max_spread(all_ranks: tuple[int, ...], held: tuple[int, ...], gap: int) -> int:
    """Largest set of ranks containing ``held`` with every two at least ``gap`` apart; -1 if
    ``held`` itself breaks the gap (十三烂, RULES.md §1).

    Greedy, lowest rank first: a free rank is taken when it keeps the gap to the last rank
    taken and to the next held one (linear, whatever the number of ranks)."""
    hs = sorted(held)
    if any(b - a < gap for a, b in zip(hs, hs[1:])):
        return -1
    count, last, i = len(hs), None, 0
    for r in sorted(all_ranks):
        while i < len(hs) and hs[i] < r:
            last, i = hs[i], i + 1
        if i < len(hs) and hs[i] == r:
            last = r
            continue
        nxt = hs[i] if i < len(hs) else None
        if (last is None or r - last >= gap) and (nxt is None or nxt - r >= gap):
            count, last = count + 1, r
    return count
