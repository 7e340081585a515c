"""What a seat's 精 count n is and what it scores from each payer (RULES.md §2 精 settlement):
the 正/副 values of the tiles it holds, the first formula that holds (the n ≥ 5 bonus), the
multipliers (霸王, the sole holder's) and the adders, then the settlement's factors and caps."""
from __future__ import annotations

from engine.core.caps import Caps, Memo
from engine.core.ledger import JingScore
from engine.core.reader import RuleReader


class JingScores:
    """A 精 count's score under one ruleset; memoised (a pure function of the rules)."""

    def __init__(self, rules: RuleReader, caps: Caps, memo_limit: int):
        self.rules = rules
        self.rs = rules.rs
        self.caps = caps
        self.memo: Memo[JingScore] = Memo(memo_limit)

    def count(self, tiles: list[int], main: int, nxt: int | None) -> int:
        """n: 正精 and 副精 tiles by their values (RULES.md §2 精 settlement); 0 without a
        ``jing … = 正 N, 副 M`` value rule."""
        v = self.rules.jing_value
        if v is None:
            return 0
        return sum(v.main for t in tiles if t == main) + sum(v.next for t in tiles if t == nxt)

    def score(self, n: int, sole: bool, floor: int) -> JingScore:
        """A seat's 精 score from each payer for a count ``n`` (RULES.md §2 精 settlement): the
        first formula whose condition holds (the n ≥ 5 bonus), then every multiplier (霸王
        when ``sole``), then every adder (a 霸王 bonus); 0 for n ≤ 0. ``floor`` is the 爬楼
        floor, a fact the conditions may test; the settlement factors are :meth:`Caps.settled`'s."""
        return self.memo.get((n, sole, floor), self._score, n, sole, floor)

    def _score(self, n: int, sole: bool, floor: int) -> JingScore:
        if n <= 0:
            return JingScore(0)
        env = {"n": n, "sole_holder": sole, "floor": floor, "keeps": floor - 1}
        ev = self.rules.eval
        score, parts, names = n, [f"n={n}"], []
        for formula in self.rs.jing_rules("formula"):
            if ev(formula.when, env):
                score = int(ev(formula.score, env))
                parts.append(f"jing.{formula.name} {score}")
                names.append(formula.name)
                break
        for mult in self.rs.jing_rules("multiplier"):
            if ev(mult.when, env):
                score *= mult.factor
                parts.append(f"jing.{mult.name} x{mult.factor}")
                names.append(mult.name)
        for adder in self.rs.jing_rules("adder"):
            if ev(adder.when, env):
                score += adder.amount
                parts.append(f"jing.{adder.name} +{adder.amount}")
                names.append(adder.name)
        return JingScore(score, tuple(parts), tuple(names))

    def paid(self, n: int, *, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 one payer pays a seat whose count for an indicator is ``n`` (no liability in play):
        :meth:`score`, then :meth:`Caps.paid` with the transfer's facts."""
        return self.caps.paid("jing", self.score(n, sole, floor).score, floor=floor,
                              payer_is_dealer=payer_is_dealer, collector_is_dealer=collector_is_dealer)
