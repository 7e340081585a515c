"""The ``value`` bot: plays the ruleset it is given, by the expected 子 of the hands it can reach.

Everything it values is read from the compiled ruleset (never a pattern's or a fan's name):

- **patterns**: for each declared ``pattern`` a distance (shanten restricted to that pattern:
  :meth:`~engine.core.shanten.Shanten.plans_of` and ``plans_each_discard``, every pattern's
  distance from one count of the hand; a pattern the seat's declared melds no longer fit is out
  of reach);
- **what a win with it pays**: what the scorer pays for it (:meth:`Scorer.win_transfers`, the
  one function of the win score: payment weights per role, fans, factors, adders, caps, ``paid by
  discarder``; 0 where a ``no win`` fan refuses it), on the facts the scorer makes
  (:meth:`Scorer.facts_of`) of a typical situation (:meth:`ValueModel.typical`),
  averaged over a discard from each other seat and a self-draw, once with 精 used as wilds and
  once without (the fans conditioned on ``not wilds_used``, 德国 in the bundled files), for a
  seat that deals and one that does not. A rule file that makes a pattern's fan ×4 makes the
  bot chase it more;
- **how likely it is reached**: ``P(d, T)``, the chance of ``d + 1`` useful tiles in ``T`` own
  draws (a binomial tail), ``T`` being the seat's share of the live wall, shortened because
  another seat usually wins first; per pattern kind a different chance per draw (sets are helped
  by claims, pairs and rotten hands only by draws);
- **精 held at the end**: each 正/副精 of a revealed indicator settled at the end adds its count
  to n, and n is worth what :meth:`Scorer.jing_paid` pays (formulas, multipliers, adders, the
  settlement factors), collected from each other seat;
- **feeding a liability rule**: discarding a 精 that another seat could claim costs the
  ruleset's liability (``jing … = liability RULE``): what :meth:`Scorer.liable_paid` has the
  liable discarder pay at RULE's threshold (:meth:`Scorer.liability_threshold`), times a small
  chance of the claim;
- **danger**: a discard may complete another seat's hand; a seat with exposed melds and many
  discards is taken to be nearer a win, a kind it discarded itself less likely its wait, and the
  cost is what the ruleset makes a discarder pay.

A discard's worth is ``Σ_patterns [P(d_natural)·V_natural + (P(d_wild) − P(d_natural))⁺·V_wild]``
plus the 精 terms, minus ``STEP`` per step of distance to the nearest pattern, plus, for the
best ``UKEIRE_TOP`` discards that leave the hand at its nearest distance, ``LIVE_ZI`` per **live useful tile**
(ukeire: the unseen copies — not in its hand, any discard or an exposed meld — of each kind
whose draw brings the rest a step nearer; a 精 always does; :meth:`Shanten.helping_kinds`
folds the per-group tables once per candidate). Ties fall to the least connected, least live
tile, then the bot's own random generator (so a seed makes it deterministic). A pung or chow is
claimed only when it brings some pattern a step nearer and at least as near as the nearest one
(``CLAIM_STEP``), and then only when its worth is higher; kongs compare the same worth before and
after (adding the ruleset's kong points). When the chance of reaching a win with its remaining
draws falls below ``FOLD_REACH`` it folds: it discards the tile least likely to complete another
seat's hand. It always takes a win.

How well it plays (its paired edge over greedy bots) is measured by
``benchmarks/value_vs_greedy.py``, how fast by ``benchmarks/loop.py``; docs/game.md has the
figures. A change meant only to make it faster leaves every choice as it was: the same actions
on seeded matches of every bundled file.
"""
from __future__ import annotations

import math
import random
import weakref
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import Any, NamedTuple

from engine.core.handparts import MeldTiles, Reading
from engine.core.scoring import Roles, Scorer, SeatHand, Transfer, WinInfo, WinSituation
from engine.core.shanten import Shanten
from engine.core.tiles import TileSet
from engine.errors import MjError
from engine.table.game import Action, Game
from engine.table.picks import likely_pick

# ---- play heuristics (not rules: how the bot estimates, tuned against the greedy bot) ----------
DRAW_CHANCE_SETS = 0.3  # chance a draw (or a claim) brings a sets-and-pair hand one step closer
DRAW_CHANCE_PAIRS = 0.2  # … a pairs hand (only the held singles' kinds help)
DRAW_CHANCE_ROTTEN = 0.3  # … a rotten hand
RACE = 0.3  # share of the seat's remaining draws it can count on before another seat wins
SHARE_DISCARD = 0.7  # share of wins taken on a discard (the rest self-drawn), for a win's value
SOLE_HOLDER_CHANCE = 0.5  # chance the seat is the only holder of a 精 at the end
FEED_CHANCE = 0.1  # chance a discarded 精 is claimed into another seat's liability formula
THREAT_MELD = 0.2  # chance per exposed meld that a seat is one tile from a win
THREAT_TURN = 0.03  # … per discard it has made
HIT = 0.08  # chance a given tile is what a seat one tile from a win waits on
OWN_DISCARD = 0.3  # … scaled by this when the seat itself discarded that kind
TIE = 1e-3  # weight of the connectivity tie-break against 子
NEIGHBOURS = 2  # ranks either side that make a tile connected; a held copy is worth as much
STEP = 4.0  # 子 a step of distance to the nearest pattern costs (keeps the bot about as fast as greedy)
MAX_JING_COUNT = 64  # largest 精 count searched for a formula's threshold (an evaluation bound)
CACHE = 4096  # entries kept by each memo (bounds memory)
DEFEND = 1  # 1: weigh each discard's danger (0: ignore it; for experiments)
FOLD_REACH = 0.01  # fold (discard the safest tile) when the chance of reaching a win is below this
CLAIM_STEP = 1  # 1: claim a pung/chow only when it brings the hand a step nearer (as greedy does)
LIVE_ZI = 0.3  # 子 per live useful tile (ukeire) of a discard at the nearest distance
NEGLIGIBLE = 0.05  # 子: a win without 精 used whose chance is worth less than this is not weighed apart
UKEIRE_TOP = 3  # … counted for the few best-worth discards at that distance only (the rest rarely win on it)


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
        self.value = {p: (self._win_value(p, True), self._win_value(p, False)) for p in self.patterns}
        self.value_as_dealer = {p: (self._win_value(p, True, True), self._win_value(p, False, True))
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
        self.kong_indicators = [n for n, ind in rs.indicators.items() if ind.settle == "at_end" and ind.with_kongs]
        self.liability = 0.0
        for lia in rs.jing_rules("liability"):  # what a liable claim costs at the formula's threshold
            n = scorer.liability_threshold(lia.rule, 1, MAX_JING_COUNT)
            if n is not None:
                self.liability = max(self.liability, scorer.liable_paid(
                    n, sole=False, floor=1, payer_is_dealer=False, collector_is_dealer=False))

    # ---- a win's value: the scorer's arithmetic on typical facts -------------------------------------
    def roles(self, winner_is_dealer: bool, discarder: int | None) -> Roles:
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

    def facts(self, reading: Reading, roles: Roles, floor: int = 1, sit: WinSituation | None = None) -> dict[str, Any]:
        """The win facts of a win with ``reading``: :meth:`Scorer.facts_of` (the scorer's own,
        engine/core/reader.py) in the situation ``sit``, by default :meth:`typical`."""
        return self.scorer.facts_of(reading, roles, floor, sit if sit is not None else self.typical(reading, roles))

    def pays(self, env: dict[str, Any], reading: Reading, roles: Roles) -> int:
        """子 the winner collects for ``reading`` with the win facts ``env``: what
        :meth:`Scorer.win_transfers` pays (0 for a reading a ``no win`` fan refuses, or one no
        payment covers)."""
        return sum(t.amount for t in self._transfers(env, reading, roles) or ())

    def _transfers(self, env: dict[str, Any], reading: Reading, roles: Roles) -> list[Transfer] | None:
        """:meth:`Scorer.win_transfers` of the reading; None where a ``no win`` fan refuses it or
        no payment covers it."""
        if self.scorer.refusals(env, reading):
            return None
        try:
            return self.scorer.win_transfers(env, reading, roles)[0]
        except MjError:
            return None

    def _win_value(self, pattern: str, wilds_used: bool, winner_is_dealer: bool = False) -> float:
        """Expected 子 a win with ``pattern`` brings its seat (floor 1): a discard win
        (``SHARE_DISCARD``, each other seat discarding alike) or a self-draw."""
        reading = Reading(pattern, 1 if wilds_used else 0, False)
        others = len(self.seats) - 1
        total = 0.0
        for d in range(others):
            roles = self.roles(winner_is_dealer, d)
            total += SHARE_DISCARD / others * self.pays(self.facts(reading, roles), reading, roles)
        roles = self.roles(winner_is_dealer, None)
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
                    roles = self.roles(winner_is_dealer, 0 if winner_is_dealer else min(1, others - 1))
                    transfers = self._transfers(self.facts(reading, roles), reading, roles)
                    if transfers is not None:
                        out.append(sum(t.amount for t in transfers if t.payer == roles.discarder))
        return sum(out) / len(out) if out else 0.0

    # ---- 精 ------------------------------------------------------------------------------------------
    def jing_pays(self, n: int, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 one payer pays a holder of count ``n`` in an end settlement: :meth:`Scorer.jing_paid`."""
        return self.scorer.jing_paid(n, sole=sole, floor=floor, payer_is_dealer=payer_is_dealer,
                                     collector_is_dealer=collector_is_dealer)

    def jing_score(self, n: int, sole: bool) -> float:
        """A holder's 精 score from one payer for a count ``n`` (floor 1, neither side the dealer)."""
        return self.jing_pays(n, sole, 1, False, False)

    def jing_worth(self, n: int) -> float:
        """Expected 子 of holding a 精 count ``n`` at the end (from every other seat), memoised."""
        v = self.worth_memo.get(n)
        if v is None:
            if len(self.worth_memo) >= CACHE:
                self.worth_memo.clear()
            v = self.worth_memo[n] = (len(self.seats) - 1) * (SOLE_HOLDER_CHANCE * self.jing_score(n, True)
                                                               + (1 - SOLE_HOLDER_CHANCE) * self.jing_score(n, False))
        return v

    def worth_rows(self, pattern: str, draws: int, as_dealer: bool,
                   most: int) -> tuple[tuple[float, ...], tuple[tuple[float, ...], ...]]:
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
        out), for the revealed ``indicators`` (name -> indicator tile): :meth:`Scorer.jing_count`
        of each 正/副精, memoised."""
        key = tuple(indicators.get(name) for name in self.end_indicators)
        out = self.jing_memo.get(key)
        if out is None:
            if len(self.jing_memo) >= CACHE:
                self.jing_memo.clear()
            counts: dict[int, int] = {}
            for name in self.end_indicators:
                if name in indicators:
                    main, nxt = self.scorer.jing_kinds(indicators[name])
                    for k in {t for t in (main, nxt) if t is not None}:
                        counts[k] = counts.get(k, 0) + self.scorer.jing_count([k], main, nxt)
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


def _tile_of(action: Action) -> int:
    """The tile of a discard or a kong declaration (actions that always name one)."""
    assert action.tile is not None, f"a {action.kind} names its tile"
    return action.tile


def _size(game: Game, kind: str) -> int:
    """Tiles in a pung or kong (a claim or kong is offered only when the ruleset sizes it)."""
    size = game.meld_size[kind]
    assert size is not None, f"the ruleset sizes a {kind}"
    return size


def _minus(tiles: list[int], remove: list[int]) -> list[int]:
    out = list(tiles)
    for t in remove:
        out.remove(t)
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


def _connectivity(m: ValueModel, counts: Counter[int], tile: int, unseen: list[int]) -> int:
    """How much a tile is worth keeping: copies held, neighbours in its suit, and whether
    copies of it are still live (not all seen)."""
    score = (counts[tile] - 1) * NEIGHBOURS + (unseen[tile] > 0)
    for j in m.neighbours[tile]:
        if counts.get(j):
            score += 1
    return score


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


@dataclass(slots=True)
class Turn:
    """What the value bot knows at one decision of its seat (:meth:`ValueBot.turn`): the model
    of the ruleset, the copies of each kind the seat has not seen (its hand, every discard and
    exposed meld taken off), the 精 count each kind adds (its own pick's indicators), its own
    draws left (its share of the live wall, shortened by ``RACE``), the copies another seat needs
    to claim a discard, each pattern's worth (with 精 used, with 精 kept natural: the dealer's
    when it deals), whether it deals, its 精 kinds; ``distances_now`` its hand's distance to each
    pattern, measured once a claim needs it."""

    model: ValueModel
    unseen: list[int]
    jing_of: Mapping[int, int]
    draws: int
    claim_need: int
    values: Mapping[str, tuple[float, float]]
    dealer: bool
    wild: frozenset[int]
    distances_now: dict[str, int] | None = None


class Worths(NamedTuple):
    """:meth:`ValueBot.worth_each`: each candidate's worth (子) and its distance to its nearest pattern."""

    worth: list[float]
    nearest: list[int]


class ValueBot:
    """Plays for the expected 子 of the hands it can still reach under the game's ruleset (the
    module docstring says how); wins whenever it can. ``seed`` seeds its tie-breaks."""

    name = "value"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    # ---- the evaluation ----------------------------------------------------------------------------
    def turn(self, game: Game, seat: str) -> Turn:
        """What ``seat`` knows of ``game`` now (:class:`Turn`)."""
        m = model_of(game.scorer)
        unseen = list(m.copies)
        for t in game.hands[seat].concealed:
            unseen[t] -= 1
        for s in game.seats:
            for t in game.discards[s]:
                unseen[t] -= 1
            for meld in game.hands[s].melds:
                if s == seat or not meld.concealed:
                    for t in meld.tiles:
                        unseen[t] -= 1
        # a picked indicator's: the seat's own pick (what its win would settle)
        own = game.picked.indicators(game.indicators, WinInfo(seat, 0, "self_draw")) if game.picked else game.indicators
        jing_of = m.jing_of(own)
        draws = max(round(game.live_remaining / len(game.seats) * RACE), 1)
        claim_need = (game.meld_size.get("pung") or len(game.seats)) - 1  # copies another seat needs to claim
        value = m.value_as_dealer if seat == game.dealer else m.value
        return Turn(model=m, unseen=unseen, jing_of=jing_of, draws=draws, claim_need=claim_need, values=value,
                    dealer=seat == game.dealer, wild=game.wilds[seat])

    def worth_each(self, turn: Turn, concealed: list[int], melds: list[MeldTiles],
                   candidates: Sequence[int | None]) -> Worths:
        """The worth of the hand (``concealed`` and ``melds``) after discarding each candidate
        (``None``: discarding nothing), and each one's distance to its nearest pattern."""
        m = turn.model
        wild = turn.wild
        nm = len(melds)
        real = [c for c in candidates if c is not None]
        fits: Sequence[str] = m.fitting(melds)
        honours_held = {t for t in concealed if t in m.honours}
        draws = turn.draws
        holds_wild = any(t in wild for t in concealed)
        if real and len(real) == len(candidates):
            fits = self._in_reach(m, concealed, nm, wild, fits, draws, len(honours_held))
        out = [0.0] * len(candidates)
        nearest = [len(concealed)] * len(candidates)
        values = turn.values
        each_wild = m.any_shanten.plans_each_discard(concealed, nm, wild, real, list(fits)) if real else {}
        hopeless: dict[str, bool] = {}  # a win without 精 used too unlikely to weigh (its chance taken as 0)
        natural = []
        weighed = [p for p in fits if holds_wild and values[p][1] > values[p][0]]  # where 精 kept natural pays
        now_natural = m.any_shanten.plans_of(concealed, nm, frozenset(), weighed) if weighed else {}
        now_wild = m.any_shanten.plans_of(concealed, nm, wild, list(fits)) if len(real) < len(candidates) else {}
        for p in weighed:
            worth_wild, worth_natural = values[p]
            # no discard brings the hand nearer: the hand's own natural distance bounds them all
            hopeless[p] = bool(real) and reach(now_natural[p], draws, m.chance[p]) * (worth_natural - worth_wild) < NEGLIGIBLE
            if not hopeless[p]:
                natural.append(p)
        each_natural = m.any_shanten.plans_each_discard(concealed, nm, frozenset(), real, natural) if natural else {}
        dealer = turn.dealer
        most = len(concealed) + m.most_honours  # no distance is larger (a pattern of no value: every tile to go)
        every = len(real) == len(candidates)
        for p in fits:
            worth_wild, worth_natural = values[p]
            wild_row, both = m.worth_rows(p, draws, dealer, most)
            # distances to p, 精 used (wild) or kept natural: after each real discard, and now
            wild_after = each_wild.get(p, [])
            wild_now = now_wild.get(p)
            if holds_wild and worth_natural > worth_wild:
                natural_after = each_natural.get(p, wild_after)
                natural_now = now_natural[p] if wild_now is not None else None
            else:
                natural_after, natural_now = wild_after, wild_now
            hopeless_p = hopeless.get(p, False)
            least = m.ev.plans[p].pattern.min_honours
            if every and not least:  # the common case, read straight from the rows
                if worth_natural <= worth_wild or hopeless_p:  # the chance without 精 used taken as 0
                    for i, a in enumerate(wild_after):
                        if a < nearest[i]:
                            nearest[i] = a
                        out[i] += wild_row[a + 1]
                else:
                    for i, a in enumerate(wild_after):
                        if a < nearest[i]:
                            nearest[i] = a
                        out[i] += both[a + 1][natural_after[i] + 1]
                continue
            j = 0
            for i, c in enumerate(candidates):
                if c is None:
                    assert wild_now is not None and natural_now is not None, "measured when a candidate discards nothing"
                    a, b = wild_now, natural_now
                else:
                    a, b = wild_after[j], natural_after[j]
                    j += 1
                if least:
                    held = len(honours_held) - (c in honours_held)  # honour kinds kept
                    a = max(a, least - held - 1)
                    b = max(b, least - held - 1)
                if a < nearest[i]:
                    nearest[i] = a
                if worth_natural <= worth_wild or (hopeless_p and c is not None):  # the chance without 精 used taken as 0
                    out[i] += wild_row[a + 1]
                else:
                    out[i] += both[a + 1][b + 1]
        if STEP:
            for i in range(len(candidates)):
                out[i] -= STEP * nearest[i]
        jing_of = turn.jing_of
        if jing_of:
            n = sum(jing_of.get(t, 0) for t in concealed) + sum(jing_of.get(t, 0) for mt in melds for t in mt.tiles)
            base = m.jing_worth(n)
            for i, c in enumerate(candidates):
                out[i] += base
                if c is not None and c in jing_of:
                    out[i] += m.jing_worth(n - jing_of[c]) - base
                    if m.liability and turn.unseen[c] >= turn.claim_need:
                        out[i] -= FEED_CHANCE * m.liability
        return Worths(out, nearest)

    @staticmethod
    def _in_reach(m: ValueModel, concealed: list[int], n_melds: int, wild: frozenset[int],
                  fits: Sequence[str], draws: int, honour_kinds: int) -> list[str]:
        """The patterns of ``fits`` that can change a discard's worth (every candidate a discard):
        a pattern at least ``draws`` away after any discard with 精 used (its chance exactly 0,
        and so with 精 kept natural: a 精 counted as a wild brings a hand at least as near as
        the tile itself, one tile lowering a distance by at most one), and no nearer than
        another pattern can be after it (so never the nearest) adds nothing and is left out.
        ``honour_kinds``: the honour kinds held."""
        if not fits:
            return []
        bounds = m.any_shanten.discard_bounds(concealed, n_melds, wild, list(fits))
        plans = m.ev.plans
        # the farthest any discard can leave each pattern (a discard keeps all honour kinds but one)
        farthest = {p: max(most, plans[p].pattern.min_honours - honour_kinds) for p, (_, most) in bounds.items()}
        anchor = min(fits, key=farthest.__getitem__)  # kept: no pattern left out is nearer
        return [p for p in fits if p == anchor or bounds[p][0] < draws or bounds[p][0] < farthest[anchor]]

    # ---- choosing ----------------------------------------------------------------------------------------
    def __call__(self, game: Game, seat: str) -> Action:
        by_kind = game.actions_by_kind(seat)
        now = game.taken_at_once(by_kind)
        if now is not None:
            return now
        if "pick" in by_kind:  # each seat's own 精 (picks.py): the kind the hand counts most
            pick = likely_pick(game.scorer, model_of(game.scorer).any_shanten, game.hands[seat].concealed, game.wild)
            return by_kind["pick"][pick]
        turn = self.turn(game, seat)
        hand = game.hands[seat]
        if "discard" in by_kind:
            best, best_worth = self._best_discard(turn, game, hand.concealed, hand.melds, by_kind["discard"])
            for kind in ("concealed_kong", "added_kong"):
                for a in by_kind.get(kind, []):
                    worth = self._kong_worth(turn, game, seat, a)
                    if worth > best_worth:
                        best, best_worth = a, worth
            return best
        return self._claim(turn, game, seat, by_kind)

    def _best_discard(self, turn: Turn, game: Game, concealed: list[int], melds: list[MeldTiles],
                      options: list[Action]) -> tuple[Action, float]:
        tiles = [_tile_of(a) for a in options]
        worth, near = self.worth_each(turn, concealed, melds, tiles)
        danger = self._danger(game, turn, tiles) if DEFEND else [0.0] * len(tiles)
        bonus = [0.0] * len(tiles)  # LIVE_ZI per live useful tile, for the discards at the nearest distance
        if LIVE_ZI:
            low = min(near)  # the nearest distance a discard leaves
            at = [i for i, d in enumerate(near) if d == low]
            if len(at) > UKEIRE_TOP:
                at = sorted(at, key=lambda i: worth[i] - danger[i], reverse=True)[:UKEIRE_TOP]
            for i, n in zip(at, self._ukeire(turn, concealed, len(melds), [tiles[i] for i in at])):
                bonus[i] = LIVE_ZI * n
        counts = Counter(concealed)
        unseen = turn.unseen
        best: tuple[tuple[float, float, float], Action, float] | None = None
        fold = self._folding(turn, concealed, melds)
        m = turn.model
        for w, dg, bn, a, tile in zip(worth, danger, bonus, options, tiles):
            w -= dg  # the worth a kong is compared with (the live-tile bonus only ranks discards)
            tie = _connectivity(m, counts, tile, unseen)
            key = (-dg if fold else 0.0, w + bn - TIE * tie, self.rng.random())
            if best is None or key > best[0]:
                best = (key, a, w)
        assert best is not None, "a seat that must discard has a discard"
        _, action, worth_of = best
        return action, worth_of

    def _folding(self, turn: Turn, concealed: list[int], melds: list[MeldTiles]) -> bool:
        """Whether the seat gives up its hand and discards its safest tiles: when the chance of
        reaching its nearest pattern with its remaining draws is below FOLD_REACH."""
        if not FOLD_REACH:
            return False
        d = turn.model.any_shanten.of(concealed, len(melds), turn.wild)
        return reach(d, turn.draws, DRAW_CHANCE_SETS) < FOLD_REACH

    def _ukeire(self, turn: Turn, concealed: list[int], n_melds: int, tiles: list[int]) -> list[int]:
        """For each candidate discard, the unseen copies of the kinds whose draw would bring the
        rest one step nearer its nearest pattern (ukeire: live useful tiles; a 精 always helps)."""
        sh: Shanten = turn.model.any_shanten
        wild = turn.wild
        unseen = turn.unseen
        wild_left = sum(unseen[k] for k in wild if unseen[k] > 0)
        return [wild_left + sum(unseen[k] for k in helping if unseen[k] > 0 and k not in wild)
                for helping in sh.helping_after_discards(concealed, n_melds, wild, tiles)]

    def _danger(self, game: Game, turn: Turn, tiles: list[int]) -> list[float]:
        """Expected 子 lost by dealing each tile into another seat's win (a seat with exposed melds
        and many discards is more likely one tile away; a kind it threw itself is less likely its wait)."""
        m = turn.model
        seat = game.current
        out = [0.0] * len(tiles)
        unseen = turn.unseen
        for s in game.seats:
            if s == seat:
                continue
            threat = min(THREAT_MELD * len(game.hands[s].melds) + THREAT_TURN * len(game.discards[s]), 1.0)
            if not threat:
                continue
            own = set(game.discards[s])
            for i, t in enumerate(tiles):
                hit = HIT * (OWN_DISCARD if t in own else 1.0) * (1.0 if unseen[t] else OWN_DISCARD)
                out[i] += threat * hit * m.deal_in
        return out

    def _kong_points(self, turn: Turn, game: Game, tile: int, how: str) -> float:
        """子 a kong of ``tile`` made ``how`` (``concealed``, ``added``, ``exposed``) earns in the
        end settlements with kongs: :meth:`Scorer.kong_items`, settled per payer (floor 1)."""
        m = turn.model
        if not m.kong_indicators:
            return 0.0
        sc = game.scorer
        jing: set[int] = set()
        for name in m.kong_indicators:
            if name in game.indicators:
                jing |= {t for t in sc.jing_kinds(game.indicators[name]) if t is not None}
        meld = MeldTiles("kong", (tile,) * _size(game, "kong"), concealed=how == "concealed", added=how == "added")
        return sc.kong_paid(meld, jing, sc.hand_jing_kinds(game.indicators), floor=1, payer_is_dealer=False,
                            collector_is_dealer=False) * (len(game.seats) - 1)

    def _kong_worth(self, turn: Turn, game: Game, seat: str, a: Action) -> float:
        hand = game.hands[seat]
        tile = _tile_of(a)
        if a.kind == "concealed_kong":
            size = _size(game, "kong")
            rest = _minus(hand.concealed, [tile] * size)
            melds = hand.melds + [MeldTiles("kong", (tile,) * size, concealed=True)]
            how = "concealed"
        else:
            rest = _minus(hand.concealed, [tile])
            melds = [MeldTiles("kong", mt.tiles + (tile,), added=True, from_seat=mt.from_seat, claimed=mt.claimed)
                     if mt.meld_kind == "pung" and mt.tiles[0] == tile else mt for mt in hand.melds]
            how = "added"
        return self.worth_each(turn, rest, melds, [None]).worth[0] + self._kong_points(turn, game, tile, how)

    def _claim_steps(self, turn: Turn, hand: SeatHand, rest: list[int], melds: list[MeldTiles],
                     kinds: list[int]) -> bool:
        """Whether a claim (leaving ``rest`` and ``melds``, then a discard among ``kinds``) brings
        some pattern a step nearer and at least as near as the hand's nearest pattern now."""
        m = turn.model
        wild = turn.wild
        now = turn.distances_now
        if now is None:
            now = turn.distances_now = m.any_shanten.plans_of(hand.concealed, len(hand.melds), wild,
                                                              list(m.fitting(hand.melds)))
        nearest = min(now.values(), default=len(hand.concealed))

        def nearer(p: str, after: int) -> bool:  # true of every distance below one it is true of
            return after < now.get(p, after + 1) and after <= nearest

        fits = list(m.fitting(melds))
        # the nearest any discard leaves each pattern lies within these bounds: most claims are
        # settled by them, without measuring each discard
        bounds = m.any_shanten.discard_bounds(rest, len(melds), wild, fits) if kinds else {}
        for p in fits:
            if kinds:
                least, most = bounds[p]
                if nearer(p, most):
                    return True
                if not nearer(p, least):
                    continue
            after = min(m.any_shanten.plans_each_discard(rest, len(melds), wild, kinds, [p])[p], default=nearest)
            if nearer(p, after):
                return True
        return False

    def _claim(self, turn: Turn, game: Game, seat: str, by_kind: dict[str, list[Action]]) -> Action:
        hand = game.hands[seat]
        assert game.last_discard is not None, "a claim is on the last discard"
        discarder, tile = game.last_discard
        best = by_kind["pass"][0]
        best_worth: float | None = None  # passing's worth, measured once a claim is worth weighing
        for kind in ("kong", "pung", "chow"):
            for a in by_kind.get(kind, []):
                if kind == "chow":
                    used = list(a.tiles)
                    meld = MeldTiles("chow", tuple(sorted(a.tiles + (tile,))), from_seat=discarder, claimed=tile)
                else:
                    size = _size(game, kind)
                    used = [tile] * (size - 1)
                    meld = MeldTiles(kind, (tile,) * size, from_seat=discarder, claimed=tile)
                rest = _minus(hand.concealed, used)
                melds = hand.melds + [meld]
                if kind == "kong":
                    worth = self.worth_each(turn, rest, melds, [None]).worth[0] + \
                        self._kong_points(turn, game, tile, "exposed")
                else:
                    kinds = sorted(set(rest))
                    if CLAIM_STEP and not self._claim_steps(turn, hand, rest, melds, kinds):
                        continue
                    worth = max(self.worth_each(turn, rest, melds, kinds).worth, default=0.0)
                if best_worth is None:
                    best_worth = self.worth_each(turn, hand.concealed, hand.melds, [None]).worth[0]
                if worth > best_worth:
                    best, best_worth = a, worth
        return best
