"""What is a hand worth to the value bot under a ruleset? The model of one ruleset's money.

A :class:`ValueModel` reads, once per :class:`~engine.core.scoring.Scorer`, what the value bot
(:mod:`engine.table.valuebot`) weighs: each declared pattern's distance tables, what a win with
it pays (the scorer's part ``payment.transfers``, :class:`~engine.core.payment.WinPayment`, on
typical facts, with 精 used and kept natural, for a seat that deals and one that does not), the
chance per draw of coming a step nearer, what a count of 精 held at the end is worth
(``jing.paid``, :class:`~engine.core.jingscore.JingScores`), the liability a discarded 精 may
feed (``liability.paid``, :class:`~engine.core.liability.Liability`), the cost of dealing in, and
each kind's neighbours.
:func:`reach` is the chance of ``d + 1`` useful tiles in ``T`` draws. Nothing here names a
pattern or a fan: every value is the scorer's.
"""
from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from functools import lru_cache
from types import MappingProxyType

from engine.core.handparts import MeldTiles, Reading
from engine.core.scoring import Roles, Scorer, Transfer, WinSituation
from engine.core.shanten import Shanten
from engine.core.tiles import TileSet
from engine.errors import MjError
from engine.lang.expr import Env

# ---- model heuristics (not rules: how the bot estimates, tuned against the greedy bot) ---------
DRAW_CHANCE_SETS = 0.3  # chance a draw (or a claim) brings a sets-and-pair hand one step closer
DRAW_CHANCE_PAIRS = 0.2  # … a pairs hand (only the held singles' kinds help)
DRAW_CHANCE_ROTTEN = 0.3  # … a rotten hand
SHARE_DISCARD = 0.7  # share of wins taken on a discard (the rest self-drawn), for a win's value
SOLE_HOLDER_CHANCE = 0.5  # chance the seat is the only holder of a 精 at the end
NEIGHBOURS = 2  # ranks either side that make a tile connected; a held copy is worth as much
MAX_JING_COUNT = 64  # largest 精 count searched for a formula's threshold (an evaluation bound)
CACHE = 4096  # entries kept by each memo (bounds memory)


class ValueModel:
    """What the value bot knows of one ruleset, built once per :class:`Scorer` and shared.

    ``patterns``: the declared patterns in order; ``value[p]``: (子 of a win with 精 used as
    wilds, 子 without) for pattern ``p`` won by a seat that is not the dealer,
    ``value_as_dealer[p]`` the same for the dealer; ``chance[p]``: the per-draw chance of its
    kind. Every 子 is the scorer's (:meth:`pays`, :meth:`jing_score`): the model restates no rule."""

    def __init__(self, scorer: Scorer):
        self.scorer = scorer
        rs = scorer.rs
        ev = scorer.hands
        self.ev = ev
        self.seats = [str(v) for v in rs.table["seats"].values]
        self.patterns = list(ev.plans)
        self.any_shanten = Shanten(ev)  # the distance to the nearest pattern
        # one copy of the per-group memos for all of them (they do not depend on the patterns)
        self.value = {p: (self._win_value(p, wilds_used=True), self._win_value(p, wilds_used=False))
                      for p in self.patterns}
        self.value_as_dealer = {p: (self._win_value(p, wilds_used=True, winner_is_dealer=True),
                                    self._win_value(p, wilds_used=False, winner_is_dealer=True))
                                for p in self.patterns}
        self.deal_in = self._deal_in()
        self.chance: dict[str, float] = {}
        for p, plan in ev.plans.items():
            self.chance[p] = (DRAW_CHANCE_PAIRS if plan.pairs else DRAW_CHANCE_ROTTEN if plan.rotten_gap
                              else DRAW_CHANCE_SETS)
        self.fit_memo: dict[tuple[MeldTiles, ...], tuple[str, ...]] = {}
        self.worth_memo: dict[int, float] = {}
        self.jing_memo: dict[tuple[int | None, ...], Mapping[int, int]] = {}
        self.rows_memo: dict[tuple[str, int, bool, int], tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]] = {}
        self.honours = frozenset(ev.honour_kinds)
        self.most_honours = max((plan.pattern.min_honours for plan in ev.plans.values()), default=0)
        self.copies = tuple(k.copies for k in scorer.tiles.kinds)  # per kind: the copies in the set
        self.neighbours = _neighbour_kinds(scorer.tiles)  # per kind: the kinds that make it connected
        # 精: the indicators settled at the end (with kongs or not), liability
        # (an `each tile where …` indicator is made of the final hands: the model does not value it)
        self.end_indicators = [n for n, ind in rs.indicators.items() if ind.settle == "at_end" and not ind.hidden
                               and ind.position.type != "each_tile"]
        self.kong_indicators = [n for n, ind in rs.indicators.items() if ind.settle == "at_end" and ind.with_kongs
                                and not ind.hidden]
        # the other shown indicators settled at the end: a kong bonus `of each indicator` is booked there
        self.other_indicators = [n for n, ind in rs.indicators.items() if ind.settle == "at_end" and not ind.with_kongs
                                 and not ind.hidden] if any(b.each_indicator for b in rs.jing_rules("kong_bonus")) else []
        self.liability = 0.0
        formulas = [lia.rule for lia in rs.jing_rules("liability")] + \
            [o.rule for o in rs.jing_rules("liability_over") if o.rule is not None]
        for rule in formulas:  # what a liable claim costs at the formula's threshold
            n = scorer.liability.threshold(rule, 1, MAX_JING_COUNT)
            if n is not None:
                self.liability = max(self.liability, scorer.liability.paid(
                    n, sole=False, floor=1, payer_is_dealer=False, collector_is_dealer=False))

    # ---- a win's value: the scorer's arithmetic on typical facts -------------------------------------
    def roles(self, discarder: int | None, *, winner_is_dealer: bool) -> Roles:
        """A seating for the model's estimates: the first seat deals; the winner is the dealer or
        the next seat; ``discarder`` (an index among the other seats) or None for a self-draw."""
        seats = tuple(self.seats)
        winner = seats[0] if winner_is_dealer else seats[1]
        others = [s for s in seats if s != winner]
        return Roles(seats, seats[0], winner, None if discarder is None else others[discarder])

    @staticmethod
    def typical(reading: Reading, roles: Roles) -> WinSituation:
        """What the model assumes of a win it cannot see ahead (estimates, not rules): no
        first-turn win, no 杠开 or 抢杠, some seat holding a 精 and one more held by the others
        (concealed), claimed melds, the 精 the reading uses held, no 精 discarded."""
        return WinSituation(by="self_draw" if roles.discarder is None else "discard", first_turn=False,
                            anyone_holds_wild=True, others_wilds_concealed=1, others_wilds=1,
                            concealed_hand=False, wilds_held=reading.wilds, discarded_main=0, discarded_next=0)

    def facts(self, reading: Reading, roles: Roles, floor: int = 1, sit: WinSituation | None = None) -> dict[str, int]:
        """The win facts of a win with ``reading``: ``scorer.rules.facts_of`` (the scorer's own,
        :class:`~engine.core.reader.RuleReader`) in the situation ``sit``, by default :meth:`typical`."""
        return self.scorer.rules.facts_of(reading, roles, floor, sit if sit is not None else self.typical(reading, roles))

    def pays(self, env: Env, reading: Reading, roles: Roles) -> int:
        """子 the winner collects for ``reading`` with the win facts ``env``: what
        ``scorer.payment.transfers`` pays (0 for a reading a ``no win`` fan refuses, or one no
        payment covers)."""
        return sum(t.amount for t in self._transfers(env, reading, roles) or ())

    def _transfers(self, env: Env, reading: Reading, roles: Roles) -> list[Transfer] | None:
        """``scorer.payment.transfers`` of the reading; None where a ``no win`` fan refuses it or
        no payment covers it."""
        if self.scorer.legal.refusals(env, reading):
            return None
        try:
            return self.scorer.payment.transfers(env, reading, roles)[0]
        except MjError:
            return None

    def _win_value(self, pattern: str, *, wilds_used: bool, winner_is_dealer: bool = False) -> float:
        """Expected 子 a win with ``pattern`` brings its seat (floor 1): a discard win
        (``SHARE_DISCARD``, each other seat discarding alike) or a self-draw."""
        reading = Reading(pattern, 1 if wilds_used else 0, False)
        others = len(self.seats) - 1
        total = 0.0
        for d in range(others):
            roles = self.roles(d, winner_is_dealer=winner_is_dealer)
            total += SHARE_DISCARD / others * self.pays(self.facts(reading, roles), reading, roles)
        roles = self.roles(None, winner_is_dealer=winner_is_dealer)
        return total + (1 - SHARE_DISCARD) * self.pays(self.facts(reading, roles), reading, roles)

    def _deal_in(self) -> float:
        """子 the discarder pays for a win on its discard (its own share, and the others' where
        the discarder pays for all): the mean over patterns, a win with 精 used and one without,
        the winner the dealer or not, the discarder not the dealer (a bound of what a dangerous
        discard risks)."""
        out = []
        for p in self.patterns:
            for used in (True, False):
                reading = Reading(p, int(used), False)
                for winner_is_dealer in (False, True):
                    # a 闲 discards: the first other seat of a dealer's win, else the second (the
                    # first is the dealer) — or the only other seat at a table of two
                    others = len(self.seats) - 1
                    discarder = 0 if winner_is_dealer else min(1, others - 1)
                    roles = self.roles(discarder, winner_is_dealer=winner_is_dealer)
                    transfers = self._transfers(self.facts(reading, roles), reading, roles)
                    if transfers is not None:
                        out.append(sum(t.amount for t in transfers if t.payer == roles.discarder))
        return sum(out) / len(out) if out else 0.0

    # ---- 精 ------------------------------------------------------------------------------------------
    def jing_pays(self, n: int, *, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 one payer pays a holder of count ``n`` in an end settlement: ``scorer.jing.paid``."""
        return self.scorer.jing.paid(n, sole=sole, floor=floor, payer_is_dealer=payer_is_dealer,
                                     collector_is_dealer=collector_is_dealer)

    def jing_score(self, n: int, *, sole: bool) -> float:
        """A holder's 精 score from one payer for a count ``n`` (floor 1, neither side the dealer)."""
        return self.jing_pays(n, sole=sole, floor=1, payer_is_dealer=False, collector_is_dealer=False)

    def jing_worth(self, n: int) -> float:
        """Expected 子 of holding a 精 count ``n`` at the end (from every other seat), memoised."""
        v = self.worth_memo.get(n)
        if v is None:
            if len(self.worth_memo) >= CACHE:
                self.worth_memo.clear()
            v = self.worth_memo[n] = (len(self.seats) - 1) * (SOLE_HOLDER_CHANCE * self.jing_score(n, sole=True)
                                                               + (1 - SOLE_HOLDER_CHANCE) * self.jing_score(n, sole=False))
        return v

    def worth_rows(self, pattern: str, draws: int, most: int, *,
                   as_dealer: bool) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]:
        """What ``pattern`` adds to a discard's worth by its distances, for ``draws`` draws left
        and distances up to ``most``, memoised: ``(wild, both)``, ``wild[d + 1]`` =
        ``P(d)·V_wild`` and ``both[d + 1][d_n + 1]`` = ``P(d_n)·V_natural + (P(d) − P(d_n))⁺·V_wild``
        for ``-1 ≤ d, d_n ≤ most`` (a distance past ``draws`` is out of reach: P = 0)."""
        key = (pattern, draws, as_dealer, most)
        rows = self.rows_memo.get(key)
        if rows is None:
            if len(self.rows_memo) >= CACHE:
                self.rows_memo.clear()
            vw, vn = (self.value_as_dealer if as_dealer else self.value)[pattern]
            chances = reach_table(draws, self.chance[pattern])  # chances[d + 1]: reach(d, draws, chance)
            chances += (chances[-1],) * (most + 2 - len(chances))  # farther: as out of reach
            rows = self.rows_memo[key] = (tuple(pw * vw for pw in chances),
                                          tuple(tuple(pn * vn + max(pw - pn, 0.0) * vw for pn in chances)
                                                for pw in chances))
        return rows

    def jing_of(self, indicators: Mapping[str, int]) -> Mapping[int, int]:
        """Tile kind -> what one tile of it adds to n in the end settlements (kinds adding 0 left
        out), for the revealed ``indicators`` (name -> indicator tile): ``scorer.jing.count``
        of each 正/副精, memoised."""
        key = tuple(indicators.get(name) for name in self.end_indicators)
        out = self.jing_memo.get(key)
        if out is None:
            if len(self.jing_memo) >= CACHE:
                self.jing_memo.clear()
            counts: dict[int, int] = {}
            for name in self.end_indicators:
                if name in indicators:
                    main, nxt = self.scorer.rules.jing_kinds(indicators[name])
                    for k in {t for t in (main, nxt) if t is not None}:
                        counts[k] = counts.get(k, 0) + self.scorer.jing.count([k], main, nxt)
            out = self.jing_memo[key] = MappingProxyType({k: v for k, v in counts.items() if v})
        return out

    # ---- distances -----------------------------------------------------------------------------------
    def fitting(self, melds: list[MeldTiles]) -> tuple[str, ...]:
        """The patterns the declared ``melds`` still fit."""
        key = tuple(melds)
        out = self.fit_memo.get(key)
        if out is None:
            if len(self.fit_memo) >= CACHE:
                self.fit_memo.clear()
            out = self.fit_memo[key] = tuple(p for p in self.patterns if self.ev.patterns.melds_fit(self.ev.plans[p], melds))
        return out


def _neighbour_kinds(tiles: TileSet) -> tuple[tuple[int, ...], ...]:
    """For each tile kind: the kinds of its suit at most ``NEIGHBOURS`` ranks away (none for an honour)."""
    out = []
    for k in tiles.kinds:
        near: list[int] = []
        if k.is_suit:
            g = tiles.groups[k.group].kinds
            near = [g[k.position + d] for d in range(-NEIGHBOURS, NEIGHBOURS + 1)
                    if d and 0 <= k.position + d < len(g)]
        out.append(tuple(near))
    return tuple(out)


@lru_cache(maxsize=CACHE)
def reach(d: int, draws: int, chance: float) -> float:
    """P(at least ``d + 1`` successes in ``draws`` tries of ``chance`` each); 1 for a complete hand."""
    need = d + 1
    if need <= 0:
        return 1.0
    if need > draws:
        return 0.0
    miss = 1 - chance
    return 1.0 - sum(math.comb(draws, i) * chance ** i * miss ** (draws - i) for i in range(need))


@lru_cache(maxsize=CACHE)
def reach_table(draws: int, chance: float) -> tuple[float, ...]:
    """``reach(d, draws, chance)`` for d = -1 … draws, then 0.0 (every farther d is out of reach)."""
    return tuple(reach(d, draws, chance) for d in range(-1, draws + 1)) + (0.0,)


_MODELS: weakref.WeakKeyDictionary[Scorer, ValueModel] = weakref.WeakKeyDictionary()


def model_of(scorer: Scorer) -> ValueModel:
    """The :class:`ValueModel` of a scorer, built on first use and shared by every value bot."""
    m = _MODELS.get(scorer)
    if m is None:
        m = _MODELS[scorer] = ValueModel(scorer)
    return m
