"""Exact statistics of whole numbers (子 per hand) kept as a histogram, in bounded memory.

A :class:`Dist` counts each value it is given (value → how many times), so its memory grows
with the number of *distinct* values, never with the number of hands: 子 per hand take a few
hundred values at most, so a million hands fit in a few kilobytes. Two histograms merge by
adding counts (blocks played in other processes merge in order), and every figure is exact:

- ``mean``: Σ value · count / n;
- ``sd``: the sample standard deviation (n − 1 in the denominator);
- ``ci95``: the 95 % confidence interval of the mean by the normal approximation,
  mean ± 1.96 · sd / √n. For paired differences (the same seeded hand under two rulesets) this
  is the paired interval; it treats the hands as independent, which hands of one match (the
  deal passing, floors climbing) are only nearly;
- ``quantile(p)``: the nearest-rank quantile, the smallest value with at least ⌈p · n⌉ values at
  or below it (p5, p95); ``min`` / ``max``: the worst and best hand.
"""
from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

Z95 = 1.96  # the normal distribution's two-sided 95 % point
LOW, HIGH = 0.05, 0.95  # the spread's quantiles: p5 and p95
DECIMALS = 3  # decimals of means and intervals in JSON


@dataclass
class Dist:
    """A histogram of whole numbers: value → count. Empty when nothing was added."""

    counts: Counter[int] = field(default_factory=Counter)

    def add(self, value: int, times: int = 1) -> None:
        """Count ``value`` (a whole number) ``times`` times."""
        self.counts[value] += times

    def merge(self, other: Dist) -> None:
        """Add another histogram's counts."""
        self.counts.update(other.counts)

    @property
    def n(self) -> int:
        """How many values were added."""
        return sum(self.counts.values())

    @property
    def total(self) -> int:
        """The sum of the values."""
        return sum(v * c for v, c in self.counts.items())

    @property
    def mean(self) -> float:
        """The mean (0.0 when empty)."""
        n = self.n
        return self.total / n if n else 0.0

    @property
    def sd(self) -> float:
        """The sample standard deviation (0.0 with fewer than two values)."""
        n = self.n
        if n < 2:
            return 0.0
        m = self.mean
        return math.sqrt(sum(c * (v - m) ** 2 for v, c in self.counts.items()) / (n - 1))

    def ci95(self) -> tuple[float, float]:
        """(low, high): mean ± 1.96 · sd / √n (the mean itself with fewer than two values)."""
        n, m = self.n, self.mean
        half = Z95 * self.sd / math.sqrt(n) if n >= 2 else 0.0
        return m - half, m + half

    def quantile(self, p: float) -> int:
        """The nearest-rank quantile ``p`` (0 < p ≤ 1); 0 when empty."""
        n = self.n
        if not n:
            return 0
        rank, seen = max(1, math.ceil(p * n)), 0
        for v in sorted(self.counts):
            seen += self.counts[v]
            if seen >= rank:
                return v
        return max(self.counts)

    @property
    def min(self) -> int:
        """The smallest value (0 when empty)."""
        return min(self.counts) if self.counts else 0

    @property
    def max(self) -> int:
        """The largest value (0 when empty)."""
        return max(self.counts) if self.counts else 0

    def to_json(self) -> dict[str, Any]:
        """n, mean, sd, ci95 [low, high] (null with fewer than two values: no interval), p5,
        p95, min, max (means rounded to 3 decimals)."""
        lo, hi = self.ci95()
        def r(x: float) -> float:
            return round(x, DECIMALS) + 0.0  # + 0.0: never "-0.0"

        return {"n": self.n, "mean": r(self.mean), "sd": r(self.sd), "ci95": [r(lo), r(hi)] if self.n >= 2 else None,
                "p5": self.quantile(LOW), "p95": self.quantile(HIGH), "min": self.min, "max": self.max}
