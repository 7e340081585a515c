"""The ``value`` bot: plays the ruleset it is given, by the expected 子 of the hands it can reach.

Everything it values is read from the compiled ruleset (never a pattern's or a fan's name):

- **patterns**: for each declared ``pattern`` a distance (shanten restricted to that pattern:
  :meth:`~engine.core.shanten.Shanten.plans_of` and ``plans_each_discard``, every pattern's
  distance from one count of the hand; a pattern the seat's declared melds no longer fit is out
  of reach);
- **what a win with it pays**: what the scorer pays for it (``scorer.payment.transfers``,
  :class:`~engine.core.payment.WinPayment`, the one function of the win score: payment weights
  per role, fans, factors, adders, caps, ``paid by discarder``; 0 where a ``no win`` fan refuses
  it), on the facts the scorer makes (``scorer.rules.facts_of``,
  :class:`~engine.core.reader.RuleReader`) of a typical situation (:meth:`ValueModel.typical`),
  averaged over a discard from each other seat and a self-draw, once with 精 used as wilds and
  once without (the fans conditioned on ``not wilds_used``, 德国 in the bundled files), for a
  seat that deals and one that does not. A rule file that makes a pattern's fan ×4 makes the
  bot chase it more;
- **how likely it is reached**: ``P(d, T)``, the chance of ``d + 1`` useful tiles in ``T`` own
  draws (a binomial tail), ``T`` being the seat's share of the live wall, shortened because
  another seat usually wins first; per pattern kind a different chance per draw (sets are helped
  by claims, pairs and rotten hands only by draws);
- **精 held at the end**: each 正/副精 of a revealed indicator settled at the end adds its count
  to n, and n is worth what ``scorer.jing.paid`` (:class:`~engine.core.jingscore.JingScores`)
  pays (formulas, multipliers, adders, the settlement factors), collected from each other seat;
- **feeding a liability rule**: discarding a 精 that another seat could claim costs the
  ruleset's liability (``jing … = liability RULE`` or ``liability over RULE …``): what
  ``scorer.liability.paid`` (:class:`~engine.core.liability.Liability`) has the liable
  discarder pay at RULE's threshold (``scorer.liability.threshold``), times a small chance of
  the claim;
- **danger**: a discard may complete another seat's hand; a seat with exposed melds and many
  discards is taken to be nearer a win, a kind it discarded itself less likely its wait, and the
  cost is what the ruleset makes a discarder pay.

A discard's worth is ``Σ_patterns [P(d_natural)·V_natural + (P(d_wild) − P(d_natural))⁺·V_wild]``
plus the 精 terms, minus ``STEP`` per step of distance to the nearest pattern, plus, for the
best ``UKEIRE_TOP`` discards that leave the hand at its nearest distance, ``LIVE_ZI`` per **live useful tile**
(ukeire: the unseen copies — not in its hand, any discard, an exposed meld or face up on the
wall: :func:`~engine.table.view.unseen_counts` — of each kind whose draw brings the rest a step
nearer; a 精 always does; :meth:`Shanten.helping_kinds` folds the per-group tables once per
candidate). Ties fall to the least connected, least live
tile, then the bot's own random generator (so a seed makes it deterministic). A pung or chow is
claimed only when it brings some pattern a step nearer and at least as near as the nearest one
(``CLAIM_STEP``), and then only when its worth is higher; kongs compare the same worth before and
after (adding the ruleset's kong points). When the chance of reaching a win with its remaining
draws falls below ``FOLD_REACH`` it folds: it discards the tile least likely to complete another
seat's hand. It always takes a win.

How well it plays (its paired edge over greedy bots) is measured by
``benchmarks/paired_bots.py``, how fast by ``benchmarks/loop.py``; docs/game.md has the
figures. A change meant only to make it faster leaves every choice as it was: the same actions
on seeded matches of every bundled file.
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from engine.core.handparts import MeldTiles
from engine.core.scoring import SeatHand, WinInfo
from engine.core.shanten import Shanten
from engine.table.game import Action, Game
from engine.table.picks import likely_pick
from engine.table.valuemodel import DRAW_CHANCE_SETS, NEIGHBOURS, ValueModel, model_of, reach
from engine.table.view import shown_indicators, unseen_counts

# ---- play heuristics (not rules: how the bot estimates, tuned against the greedy bot) ----------
RACE = 0.3  # share of the seat's remaining draws it can count on before another seat wins
FEED_CHANCE = 0.1  # chance a discarded 精 is claimed into another seat's liability formula
THREAT_MELD = 0.2  # chance per exposed meld that a seat is one tile from a win
THREAT_TURN = 0.03  # … per discard it has made
HIT = 0.08  # chance a given tile is what a seat one tile from a win waits on
OWN_DISCARD = 0.3  # … scaled by this when the seat itself discarded that kind
TIE = 1e-3  # weight of the connectivity tie-break against 子
STEP = 4.0  # 子 a step of distance to the nearest pattern costs (keeps the bot about as fast as greedy)
DEFEND = 1  # 1: weigh each discard's danger (0: ignore it; for experiments)
FOLD_REACH = 0.01  # fold (discard the safest tile) when the chance of reaching a win is below this
CLAIM_STEP = 1  # 1: claim a pung/chow only when it brings the hand a step nearer (as greedy does)
LIVE_ZI = 0.3  # 子 per live useful tile (ukeire) of a discard at the nearest distance
NEGLIGIBLE = 0.05  # 子: a win without 精 used whose chance is worth less than this is not weighed apart
UKEIRE_TOP = 3  # … counted for the few best-worth discards at that distance only (the rest rarely win on it)


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


def _connectivity(m: ValueModel, counts: Counter[int], tile: int, unseen: list[int]) -> int:
    """How much a tile is worth keeping: copies held, neighbours in its suit, and whether
    copies of it are still live (not all seen)."""
    score = (counts[tile] - 1) * NEIGHBOURS + (unseen[tile] > 0)
    for j in m.neighbours[tile]:
        if counts.get(j):
            score += 1
    return score


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
        unseen = unseen_counts(game, seat)
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
        honours_held = m.honours.intersection(concealed)
        draws = turn.draws
        holds_wild = not wild.isdisjoint(concealed)
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
        kept: list[int] | None = None
        for p in fits:
            worth_wild, worth_natural = values[p]
            wild_row, both = m.worth_rows(p, draws, most, as_dealer=dealer)
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
            if least and kept is None:  # honour kinds each candidate keeps (measured once for every pattern)
                kept = [len(honours_held) - (c in honours_held) for c in candidates]
            j = 0
            for i, c in enumerate(candidates):
                if c is None:
                    assert wild_now is not None and natural_now is not None, "measured when a candidate discards nothing"
                    a, b = wild_now, natural_now
                else:
                    a, b = wild_after[j], natural_after[j]
                    j += 1
                if kept is not None and least:
                    floor = least - kept[i] - 1
                    if a < floor:
                        a = floor
                    if b < floor:
                        b = floor
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

    def discard_order(self, game: Game, seat: str) -> list[Action]:
        """``seat``'s legal discards, best first by the key a choice of this bot ranks them by
        (the safest first when it folds; kongs are not among them). [] when ``seat`` has no
        discard to make now. Draws the tie-breaks from the bot's generator, as a choice does."""
        options = game.actions_by_kind(seat).get("discard", [])
        if not options:
            return []
        hand = game.hands[seat]
        keyed = self._discard_keys(self.turn(game, seat), game, hand.concealed, hand.melds, options)
        order = sorted(range(len(options)), key=lambda i: keyed[i][0], reverse=True)
        return [options[i] for i in order]

    def _best_discard(self, turn: Turn, game: Game, concealed: list[int], melds: list[MeldTiles],
                      options: list[Action]) -> tuple[Action, float]:
        best: tuple[tuple[float, float, float], Action, float] | None = None
        for (key, w), a in zip(self._discard_keys(turn, game, concealed, melds, options), options):
            if best is None or key > best[0]:
                best = (key, a, w)
        assert best is not None, "a seat that must discard has a discard"
        _, action, worth_of = best
        return action, worth_of

    def _discard_keys(self, turn: Turn, game: Game, concealed: list[int], melds: list[MeldTiles],
                      options: list[Action]) -> list[tuple[tuple[float, float, float], float]]:
        """For each discard of ``options``: (the key the best is chosen by, the worth a kong is
        compared with)."""
        tiles = [_tile_of(a) for a in options]
        worth, near = self.worth_each(turn, concealed, melds, tiles)
        danger = self._danger(game, turn, tiles) if DEFEND else [0.0] * len(tiles)
        counts = Counter(concealed)
        unseen = turn.unseen
        fold = self._folding(turn, concealed, melds)
        m = turn.model
        ties = [TIE * _connectivity(m, counts, tile, unseen) for tile in tiles]
        bonus = [0.0] * len(tiles)  # LIVE_ZI per live useful tile, for the discards at the nearest distance
        if LIVE_ZI:
            low = min(near)  # the nearest distance a discard leaves
            at = [i for i, d in enumerate(near) if d == low]
            if len(at) > UKEIRE_TOP:
                at = sorted(at, key=lambda i: worth[i] - danger[i], reverse=True)[:UKEIRE_TOP]
            if len(at) > 1 or not self._first_anyway(at[0], worth, danger, ties, fold=fold):
                for i, n in zip(at, self._ukeire(turn, concealed, len(melds), [tiles[i] for i in at])):
                    bonus[i] = LIVE_ZI * n
        out: list[tuple[tuple[float, float, float], float]] = []
        for w, dg, bn, tie in zip(worth, danger, bonus, ties):
            w -= dg  # the worth a kong is compared with (the live-tile bonus only ranks discards)
            out.append(((-dg if fold else 0.0, w + bn - tie, self.rng.random()), w))
        return out

    @staticmethod
    def _first_anyway(i: int, worth: list[float], danger: list[float], ties: list[float], *, fold: bool) -> bool:
        """Whether discard ``i`` ranks strictly first without its live-tile bonus: a bonus is never
        negative, so it would rank first with it too, whatever the bonus and the random tie-break
        (its ukeire then need not be counted; the choice is the same)."""
        def rank(j: int) -> tuple[float, float]:
            w = worth[j] - danger[j]
            return (-danger[j] if fold else 0.0, w + 0.0 - ties[j])
        mine = rank(i)
        return all(mine > rank(j) for j in range(len(worth)) if j != i)

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

    def kong_points(self, turn: Turn, game: Game, tile: int, how: str) -> float:
        """子 a kong of ``tile`` made ``how`` (``concealed``, ``added``, ``exposed``) earns in the
        end settlements: ``scorer.kongs.paid`` (:class:`~engine.core.kongs.Kongs`) in those with
        kongs, and in each other shown indicator's (its bonuses ``of each indicator``), per payer
        (floor 1)."""
        m = turn.model
        if not m.kong_indicators:
            return 0.0
        sc = game.scorer
        shown = shown_indicators(game)  # what the seat sees
        jing: set[int] = set()
        for name in m.kong_indicators:
            if name in shown:
                jing |= {t for t in sc.rules.jing_kinds(shown[name]) if t is not None}
        meld = MeldTiles("kong", (tile,) * _size(game, "kong"), concealed=how == "concealed", added=how == "added")
        any_jing = sc.kongs.hand_kinds(shown)
        paid = sc.kongs.paid(meld, jing, any_jing, floor=1, payer_is_dealer=False, collector_is_dealer=False)
        for name in m.other_indicators:
            if name in shown:
                own = {t for t in sc.rules.jing_kinds(shown[name]) if t is not None}
                paid += sc.kongs.paid(meld, own, any_jing, floor=1, payer_is_dealer=False, collector_is_dealer=False,
                                     with_kongs=False)
        return paid * (len(game.seats) - 1)

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
        return self.worth_each(turn, rest, melds, [None]).worth[0] + self.kong_points(turn, game, tile, how)

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
                        self.kong_points(turn, game, tile, "exposed")
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
