"""Settlement: the win score, the 精 settlements and the 荒庄 payment, as a ledger of transfers.

Input is a :class:`Snapshot` of the table at the end of a hand (or right after the deal);
output is a :class:`Ledger`: one :class:`Transfer` per payer and payee, each naming the rule
path and the factors behind its amount, so every 子 can be explained. Every part is zero-sum
by construction (a transfer moves an amount from one seat to another).

Rules applied (all values from the ruleset; sections of RULES.md §2):
- win score: ``payment base`` × fan multipliers × payment weight × factors, then the fans'
  adders, then factors declared ``after adders``; ``fixed`` fans replace base, weight and the
  factors they do not name. The best reading for the winner is scored.
- 精 settlement per indicator: n = Σ 正/副 values over all tiles a seat holds (melds and the
  winning tile included); a formula (the n ≥ 5 bonus) and multipliers (the sole holder's) turn n into a score; kong
  points and the 精-kong bonus (杠精) when the indicator settles ``with kongs``; each seat
  collects its score from each other seat; liability for a claimed discarded 精 (RULES.md §2 Liability).
"""
from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, TypeVar

from engine.core.hands import MeldTiles, Reading
from engine.core.ledger import (
    CLAIM_KINDS,
    MAX_AMOUNT,
    TILE_MARK,
    WIN_BY,
    JingScore,
    KongItem,
    Ledger,
    Roles,
    SeatHand,
    Snapshot,
    Transfer,
    WinInfo,
    WinScore,
    WinSituation,
    indicator_of,
)
from engine.core.legality import Legality
from engine.errors import MjError
from engine.lang import flow as FLOW
from engine.lang.expr import Env
from engine.lang.ruleset import Fan, Payer, Payment, Ruleset

V = TypeVar("V")
PAYER_ORDER: tuple[Payer, ...] = ("discarder", "robbed", "dealer", "others", "each")  # the weight a payer takes: first match

__all__ = ["CLAIM_KINDS", "MAX_AMOUNT", "WIN_BY", "JingScore", "KongItem", "Ledger", "Roles", "Scorer", "SeatHand",
           "Snapshot", "Transfer", "WinInfo", "WinScore", "WinSituation", "indicator_of"]

def proportional(total: int, weights: Mapping[str, int]) -> dict[str, int]:
    """``total`` 子 shared in proportion to ``weights`` (each > 0, their sum at least ``total``),
    in whole 子: the floor of each exact share, then the 子 left one each to the largest
    remainders, the earlier key on a tie. No share is over its weight."""
    whole = sum(weights.values())
    shares = {k: total * w // whole for k, w in weights.items()}
    left = total - sum(shares.values())
    by_remainder = sorted(weights, key=lambda k: -(total * weights[k] % whole))  # stable: earlier key first
    for k in by_remainder[:left]:
        shares[k] += 1
    return {k: v for k, v in shares.items() if v}


def _matched(givers: list[tuple[str, int]], takers: list[tuple[str, int]]) -> list[tuple[str, str, int]]:
    """Pair two lists of (seat, 子) of one sum into (giver, taker, 子) transfers, in order."""
    out: list[tuple[str, str, int]] = []
    rest = [amount for _, amount in takers]
    j = 0
    for giver, amount in givers:
        while amount:
            take = min(amount, rest[j])
            out.append((giver, takers[j][0], take))
            amount -= take
            rest[j] -= take
            if not rest[j]:
                j += 1
    return out


class Scorer(Legality):
    """Scores snapshots under one ruleset. Built once; stateless per call.

    Each rule's arithmetic is one public method here, which every caller uses (the game, the
    value bot's model, the impact review): :meth:`win_transfers` (what each payer pays for a
    reading of a win), :meth:`jing_score` (a 精 count's score), :meth:`settled` (the settlement
    factors and caps of 精 and 荒庄 transfers), :meth:`kong_items` (a kong's points),
    :meth:`follow_first` (the 抄庄 payment). What it reads of the rules is
    :class:`~engine.core.reader.RuleReader`'s; what it checks first, :class:`~engine.core.legality.Legality`'s."""

    MEMO_LIMIT = 4096  # entries per memo of a pure function of the rules (cleared when full)

    def __init__(self, rs: Ruleset):
        super().__init__(rs)
        self._jing_scores: dict[tuple[int, bool, int], JingScore] = {}
        self._settled: dict[tuple[object, ...], tuple[int, tuple[str, ...]]] = {}

    def _payment(self, env: Env, reading: Reading) -> Payment:
        for p in self.rs.payments.values():
            if self.eval(p.when, env, reading):
                return p
        raise MjError(f"no payment of ruleset {self.rs.name} applies to this win "
                      f"(declared: {', '.join(self.rs.payments) or 'none'})",
                      hint="add a `payment NAME = … when …` whose condition covers it")

    def _weight(self, weights: Mapping[Payer, int], payer: str, roles: Roles) -> tuple[str, int] | None:
        for spec in PAYER_ORDER:
            if spec in weights and self.payer_matches(spec, payer, roles.discarder, roles.dealer, roles.robbed):
                return spec, weights[spec]
        return None

    def win_transfers(self, env: Env, reading: Reading, roles: Roles) -> tuple[list[Transfer], list[Fan], str]:
        """What each payer pays the winner for one reading of a win (RULES.md §2 Win score).

        ``env``: the win facts (:meth:`win_facts`; engine/lang/facts.py names them), ``roles``:
        who won, who dealt, who discarded. Per payer: ``payment base`` × the payment weight of
        its role (or a ``fixed`` fan's amount and the factors it keeps) × the fans' multipliers ×
        the win-score factors, then the fans' adders, then the factors declared ``after
        adders``, then the caps (``at most``), then the factors ``after caps``; a ``paid by discarder`` payment moves the others'
        shares onto the discarder. Returns (the transfers, in play order of the payers; the
        fans that fired, after ``instead of``; the payment's name). Raises :class:`MjError`
        when no payment applies, :class:`RuleError` for an amount past :data:`MAX_AMOUNT`."""
        fans = self.fired_fans(env, reading)
        payment = self._payment(env, reading)
        discarder, dealer, winner = roles.discarder, roles.dealer, roles.winner
        assert self.rs.base is not None, "a compiled ruleset has a payment base"
        base = self.rs.base.amount
        fixed = [(f, f.fixed) for f in fans if f.fixed is not None]
        out: list[Transfer] = []
        for payer in roles.seats:
            if payer == winner:
                continue
            tenv = dict(env, payer_is_dealer=payer == dealer, collector_is_dealer=winner == dealer)
            parts: list[str] = []
            if fixed:
                ff, fx = max(fixed, key=lambda pair: pair[1].amount)
                if fx.by_payment and self._weight(payment.weights, payer, roles) is None:
                    continue  # `fixed N by payment`: a seat the payment's weights do not cover pays nothing
                amount = fx.amount
                parts.append(f"fan.{ff.name} fixed {amount}")
                keep = set(fx.with_factors)
                factors = self.factors("win", tenv, after=False, only=keep, reading=reading)
            else:
                wt = self._weight(payment.weights, payer, roles)
                if wt is None:
                    continue
                amount = base * wt[1]
                parts.append(f"payment.base {base}")
                parts.append(f"payment.{payment.name} {wt[0]} x{wt[1]}")
                factors = self.factors("win", tenv, after=False, reading=reading)
            for f in fans:
                if f.multiplier != 1:
                    amount *= f.multiplier
                    parts.append(f"fan.{f.name} x{f.multiplier}")
            for name, v in factors:
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            for f in fans:
                for a in f.adders:
                    absent = (a.payer == "discarder" and not discarder) or (a.payer == "robbed" and not roles.robbed)
                    spec = a.fallback if absent else a.payer
                    if spec and self.payer_matches(spec, payer, discarder, dealer, roles.robbed):
                        amount += a.amount
                        parts.append(f"fan.{f.name} +{a.amount}")
            for name, v in self.factors("win", tenv, after=True, reading=reading):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            amount = self.cap("win", tenv, amount, parts, reading)
            for name, v in self.factors("win", tenv, after=True, reading=reading, after_caps=True):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            source = payer
            liable = discarder if payment.paid_by == "discarder" else roles.robbed if payment.paid_by == "robbed" else None
            if liable is not None and payer != liable:
                source = liable
                parts.append(f"payment.{payment.name} paid by {payment.paid_by} {liable} for {payer}")
            if amount:
                out.append(Transfer(source, winner, amount, "hand", "win", tuple(parts)))
        return out, fans, payment.name

    def _score_reading(self, snap: Snapshot, reading: Reading) -> tuple[Ledger, list[str]]:
        transfers, fans, payment = self.win_transfers(self.win_facts(snap, reading), reading, Roles.of(snap))
        fired = list(dict.fromkeys([reading.pattern] + [f.name for f in fans] + [payment]))
        return Ledger(transfers, fired), [f.name for f in fans]

    def score_win(self, snap: Snapshot) -> WinScore:
        """Score the win on the reading best for the winner (RULES.md §2 Win score).

        Raises :class:`IllegalAction` when the hand is not a winning hand, with the reason.
        """
        readings = self.check_win_hand(snap)
        assert snap.win is not None, "check_win_hand refuses a snapshot without a win"
        best: tuple[int, Reading, Ledger, list[str]] | None = None
        alts = []
        for r in readings:
            ledger, fans = self._score_reading(snap, r)
            gain = ledger.net(snap.seats)[snap.win.seat]
            alts.append((r, gain))
            if best is None or gain > best[0]:
                best = (gain, r, ledger, fans)
        assert best is not None, "check_win_hand returns a reading or raises"
        _, r, ledger, fans = best
        return WinScore(r, fans, ledger, alts)

    # ---- 荒庄 --------------------------------------------------------------------------------------------
    def settle_exhaustive(self, snap: Snapshot) -> Ledger:
        """The 荒庄 payment of a drawn hand (RULES.md §2: the dealer pays each other player).

        Raises :class:`IllegalAction` if a meld is one the game could not make."""
        self.check_melds(snap)
        ledger = Ledger()
        for ex in self.rs.exhaustive.values():
            ledger.fired.append(ex.name)
            for payee in snap.seats:
                for payer in snap.seats:
                    if payer == payee or not self.payer_matches(ex.payer, payer, None, snap.dealer):
                        continue
                    env = self.transfer_env(snap.floor, payer == snap.dealer, payee == snap.dealer, drawn=True)
                    amount, parts = self.settled("exhaustive", ex.amount, env, [f"exhaustive.{ex.name} {ex.amount}"])
                    ledger.transfers.append(Transfer(payer, payee, amount, "hand", f"exhaustive.{ex.name}",
                                                     tuple(parts)))
        return ledger

    # ---- 精 settlement ----------------------------------------------------------------------------------
    def jing_count(self, tiles: list[int], main: int, nxt: int | None) -> int:
        """n: 正精 and 副精 tiles by their values (RULES.md §2 精 settlement)."""
        v = self.jing_value
        if v is None:
            return 0
        return sum(v.main for t in tiles if t == main) + sum(v.next for t in tiles if t == nxt)

    def jing_score(self, n: int, sole: bool, floor: int) -> JingScore:
        """A seat's 精 score from each payer for a count ``n`` (RULES.md §2 精 settlement): the
        first formula whose condition holds (the n ≥ 5 bonus), then every multiplier (霸王
        when ``sole``), then every adder (a 霸王 bonus); 0 for n ≤ 0. ``floor`` is the 爬楼
        floor, a fact the conditions may test; the settlement factors are :meth:`settled`'s."""
        key = (n, sole, floor)
        return self._kept(self._jing_scores, key, self._jing_score, *key)

    def memo_sizes(self) -> dict[str, int]:
        """Entries each of the scorer's memos holds now (``jing_score``, ``settled``): each is
        bounded by :attr:`MEMO_LIMIT`."""
        return {"jing_score": len(self._jing_scores), "settled": len(self._settled)}

    def _kept(self, memo: dict[Any, V], key: Any, make: Callable[..., V], *args: Any) -> V:
        """``memo[key]``, made by ``make(*args)`` when missing (the memo emptied past ``MEMO_LIMIT``)."""
        got = memo.get(key)
        if got is None:
            if len(memo) >= self.MEMO_LIMIT:
                memo.clear()
            got = memo[key] = make(*args)
        return got

    def _jing_score(self, n: int, sole: bool, floor: int) -> JingScore:
        if n <= 0:
            return JingScore(0)
        env = {"n": n, "sole_holder": sole, "floor": floor, "keeps": floor - 1}
        score, parts, names = n, [f"n={n}"], []
        for formula in self.rs.jing_rules("formula"):
            if self.eval(formula.when, env):
                score = int(self.eval(formula.score, env))
                parts.append(f"jing.{formula.name} {score}")
                names.append(formula.name)
                break
        for mult in self.rs.jing_rules("multiplier"):
            if self.eval(mult.when, env):
                score *= mult.factor
                parts.append(f"jing.{mult.name} x{mult.factor}")
                names.append(mult.name)
        for adder in self.rs.jing_rules("adder"):
            if self.eval(adder.when, env):
                score += adder.amount
                parts.append(f"jing.{adder.name} +{adder.amount}")
                names.append(adder.name)
        return JingScore(score, tuple(parts), tuple(names))

    def liability_fires(self, rule_name: str, n: int, floor: int) -> bool:
        """Whether the formula a ``liability RULE`` names holds for a count ``n`` at ``floor``
        (RULES.md §2 Liability; not a sole holder: a liable claim is judged as if shared)."""
        r = self.rs.jing[rule_name]
        when = getattr(r, "when", None)  # a liability names a formula: a rule with a condition
        return n > 0 and when is not None and bool(self.eval(when, {"n": n, "sole_holder": False, "floor": floor,
                                                                    "keeps": floor - 1}))

    def liability_threshold(self, rule_name: str, floor: int, upto: int) -> int | None:
        """The least count ``n`` (1 ≤ n < ``upto``, a bound of the search) at which
        :meth:`liability_fires`; None when none does (or ``rule_name`` names no 精 rule)."""
        if rule_name not in self.rs.jing:
            return None
        return next((n for n in range(1, upto) if self.liability_fires(rule_name, n, floor)), None)

    def liable_paid(self, n: int, *, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 a liable discarder pays a holder of count ``n`` (``sole``: the only holder) in an end
        settlement: the holder's score for every other seat (RULES.md §2 Liability), then
        :meth:`settled` with the transfer's facts, as :meth:`settle_indicator` pays it."""
        score = self.jing_score(n, sole, floor).score * (len(self.rs.table["seats"].values) - 1)
        return self.transfer_paid("jing", score, floor=floor, payer_is_dealer=payer_is_dealer,
                                  collector_is_dealer=collector_is_dealer)

    def made_indicators(self, snap: Snapshot, name: str) -> dict[str, int]:
        """The indicators declaration ``name`` makes, ``NAME@TILE`` → kind, when it makes several
        (docs/language.md `indicator`): a ``family`` indicator one for each kind of its tile's
        family (:meth:`TileSet.family`; none without a tile), an ``each tile where`` one
        :meth:`tile_indicators`; any other none (it is settled under its own name)."""
        ind = self.rs.indicators[name]
        if ind.position.type == "each_tile":
            return self.tile_indicators(snap, name)
        if ind.family and name in snap.indicators:
            return {f"{name}{TILE_MARK}{self.tiles.code(k)}": k for k in self.tiles.family(snap.indicators[name])}
        return {}

    def tile_indicators(self, snap: Snapshot, name: str) -> dict[str, int]:
        """The indicators an ``each tile where COND`` declaration ``name`` makes of the snapshot's
        hands (docs/language.md `indicator`): ``NAME@TILE`` → kind, in kind order, for each tile
        kind where some seat's n — that kind counted as the 正精 and its successor as the 副精,
        over the tiles a settlement counts (concealed, melds and kongs; with ``count discarded``
        its unclaimed discards too) — meets COND (facts ``n``, ``sole_holder``, ``floor``). At the
        deal the snapshot holds the dealt hands; at the end, every tile held (照镜子 / 晒月亮)."""
        where = self.rs.indicators[name].position.where
        assert where is not None, "an each_tile indicator has its condition"
        held = {s: self.all_tiles(snap, s) for s in snap.seats}
        outside = {s: self.all_tiles(snap, s, with_kongs=False) for s in snap.seats}
        if self.rs.jing_rules("discarded"):
            for s in snap.seats:
                held[s] += self.discarded(snap, s)
                outside[s] += self.discarded(snap, s)
        out: dict[str, int] = {}
        for kind in range(len(self.tiles.kinds)):
            main, nxt = self.jing_kinds(kind)
            holders = {s for s in snap.seats if any(t in (main, nxt) for t in outside[s])}
            for s in snap.seats:
                n = self.jing_count(held[s], main, nxt)
                if n and self.eval(where, {"n": n, "sole_holder": holders == {s}, "floor": snap.floor}):
                    out[f"{name}{TILE_MARK}{self.tiles.code(kind)}"] = kind
                    break
        return out

    def settle_indicator(self, snap: Snapshot, name: str, tile: int | None = None) -> Ledger:
        """One 精 settlement with indicator ``name`` on the snapshot's hands (RULES.md §2);
        ``tile``: the indicator's tile, when the snapshot does not give it (an indicator
        ``NAME@TILE`` of :meth:`tile_indicators`).

        Each seat collects its score from each other seat. Liability (RULES.md §2 Liability,
        applied to *each* such player): when a seat reaches the liability rule's formula only by
        claiming a 精 someone discarded, that discarder pays the seat's real score once for
        every payer; every other transfer is made as if the liable claims had not happened
        (000's example). A ``liability over N`` rule: a seat whose score is over N and that
        claimed a 精 of this indicator from a discard is paid by that discarder alone (its score
        for every payer; the last such claim in meld order). Raises :class:`MjError` if the snapshot has no tile for the indicator,
        :class:`IllegalAction` if a meld is one the game could not make (:meth:`check_melds`).
        """
        self.check_melds(snap)
        return self._settle_indicator(snap, name, tile)

    def _settle_indicator(self, snap: Snapshot, name: str, tile: int | None) -> Ledger:
        """:meth:`settle_indicator` on a snapshot whose melds were checked (:meth:`check_melds`)."""
        ind = self.rs.indicators[indicator_of(name)]
        if tile is None and name not in snap.indicators:
            raise MjError(f"no tile for indicator {name}")
        main, nxt = self.jing_kinds(snap.indicators[name] if tile is None else tile)
        jing = {k for k in (main, nxt) if k is not None}
        seats = snap.seats
        ledger = Ledger()
        kongs_hold = bool(self.rs.jing_rules("kongs_hold"))

        def scores(all_tiles: dict[str, list[int]],
                   outside_kongs: dict[str, list[int]]) -> tuple[dict[str, JingScore], dict[str, int]]:
            counts = {s: self.jing_count(all_tiles[s], main, nxt) for s in seats}
            held = all_tiles if kongs_hold else outside_kongs  # kongs make 霸王 only with `count kongs`
            holders = {s for s in seats if any(t in jing for t in held[s])}
            return {s: self.jing_score(counts[s], holders == {s}, snap.floor) for s in seats}, counts

        def undo(claims: list[tuple[str, MeldTiles]]) -> tuple[dict[str, list[int]], dict[str, list[int]]]:
            """Tiles as if these claims had not happened: each claimed 精 back with its discarder."""
            t2 = {k: list(v) for k, v in tiles.items()}
            o2 = {k: list(v) for k, v in outside.items()}
            for s, m in claims:
                assert m.claimed is not None and m.from_seat is not None, "only claimed melds are undone"
                for d in (t2, o2) if m.meld_kind != "kong" else (t2,):
                    d[s].remove(m.claimed)
                    d[m.from_seat].append(m.claimed)
                if m.meld_kind == "kong":
                    o2[m.from_seat].append(m.claimed)
            return t2, o2

        tiles = {s: self.all_tiles(snap, s) for s in seats}
        outside = {s: self.all_tiles(snap, s, with_kongs=False) for s in seats}
        if self.rs.jing_rules("discarded"):  # discarded 精 still count (and make a holder)
            for s in seats:
                thrown = [t for t in self.discarded(snap, s) if t in jing]
                tiles[s] += thrown
                outside[s] += thrown
                if thrown:
                    ledger.fired += [r.name for r in self.rs.jing_rules("discarded")]
        actual, counts = scores(tiles, outside)
        if kongs_hold and any(m.meld_kind == "kong" and m.tiles[0] in jing
                              for s in seats for m in snap.hands.get(s, SeatHand()).melds):
            ledger.fired += [r.name for r in self.rs.jing_rules("kongs_hold")]  # a 精 kong made a holder
        liable: dict[str, tuple[str, MeldTiles]] = {}  # beneficiary → (discarder, the claim)
        for lia in self.rs.jing_rules("liability"):
            for s in seats:
                if s in liable or not self.liability_fires(lia.rule, counts[s], snap.floor):
                    continue
                for m in snap.hands.get(s, SeatHand()).melds:  # the last claim that made the difference
                    if m.claimed not in jing or m.from_seat not in seats or m.from_seat == s:
                        continue
                    _, asif_counts = scores(*undo([(s, m)]))
                    if not self.liability_fires(lia.rule, asif_counts[s], snap.floor):
                        liable[s] = (m.from_seat, m)
                if s in liable:
                    ledger.fired.append(lia.name)
        over_liable: dict[str, str] = {}  # beneficiary → the discarder who pays its whole score
        for over in self.rs.jing_rules("liability_over"):
            if over.indicator not in (None, name):
                continue
            for s in seats:
                if s in liable or s in over_liable or actual[s].score <= over.over:
                    continue
                fed = [m.from_seat for m in snap.hands.get(s, SeatHand()).melds
                       if m.claimed in jing and m.from_seat in seats and m.from_seat != s]
                if fed and fed[-1] is not None:
                    over_liable[s] = fed[-1]
                    ledger.fired.append(over.name)
        as_if = scores(*undo([(s, m) for s, (_, m) in liable.items()]))[0] if liable else actual
        for js in actual.values():
            ledger.fired += js.names
        payers = len(seats) - 1
        for payee in seats:
            for payer in seats:
                if payer == payee:
                    continue
                rule = name
                if payee in over_liable:
                    if over_liable[payee] != payer:
                        continue
                    amount = actual[payee].score * payers
                    parts = [*actual[payee].parts, f"liable over the threshold for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                elif not liable:
                    amount, parts = actual[payee].score, list(actual[payee].parts)
                elif payee in liable and liable[payee][0] == payer:
                    amount = actual[payee].score * payers
                    parts = [*actual[payee].parts, f"liable for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                else:
                    amount, parts = as_if[payee].score, [*as_if[payee].parts, "as if the 精 was not claimed"]
                self._jing_transfer(ledger, snap, payer, payee, amount, parts, name, rule)
        if ind.with_kongs:
            self._kong_points(snap, ledger, jing, name)
        elif any(b.each_indicator for b in self.rs.jing_rules("kong_bonus")):
            self._kong_points(snap, ledger, jing, name, with_kongs=False)
        ledger.fired = list(dict.fromkeys(ledger.fired))
        return ledger

    @staticmethod
    def transfer_env(floor: int, payer_is_dealer: bool, collector_is_dealer: bool,
                     drawn: bool = False) -> dict[str, int]:
        """The facts of one settlement transfer (the ``settle`` context of engine/lang/facts.py);
        ``drawn``: the hand is a 荒庄."""
        return {"floor": floor, "keeps": floor - 1, "payer_is_dealer": payer_is_dealer,
                "collector_is_dealer": collector_is_dealer, "drawn": drawn}

    def settled(self, scope: str | tuple[str, ...], amount: int, env: Env, parts: list[str]) -> tuple[int, list[str]]:
        """``amount`` 子 of one 精, kong, 荒庄 or 抄庄 transfer (``scope`` ``jing``, ``exhaustive``,
        ``follow``, or several: a kong's is ``("jing", "kongs")``) after the factors declared ``on``
        that scope (those before adders, then those after: 爬楼, a dealer factor), its caps (``at
        most``), then the factors ``after caps``, with the trail ``parts`` extended. Memoised:
        the result depends on the rules, the scope, the amount and the facts alone."""
        got = self._kept(self._settled, (scope, amount, *env.items()), self._settle, scope, amount, env)
        return got[0], [*parts, *got[1]]

    def _settle(self, scope: str | tuple[str, ...], amount: int, env: Env) -> tuple[int, tuple[str, ...]]:
        parts: list[str] = []
        for after in (False, True):
            for fname, v in self.factors(scope, env, after):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{fname} x{v}")
        amount = self.cap(scope, env, amount, parts)
        for fname, v in self.factors(scope, env, True, after_caps=True):
            if v != 1:
                amount *= v
                parts.append(f"factor.{fname} x{v}")
        return amount, tuple(parts)

    def jing_paid(self, n: int, *, sole: bool, floor: int, payer_is_dealer: bool, collector_is_dealer: bool) -> int:
        """子 one payer pays a seat whose count for an indicator is ``n`` (no liability in play):
        :meth:`jing_score`, then :meth:`settled` with the transfer's facts."""
        return self.transfer_paid("jing", self.jing_score(n, sole, floor).score, floor=floor,
                                  payer_is_dealer=payer_is_dealer, collector_is_dealer=collector_is_dealer)

    def transfer_paid(self, scope: str | tuple[str, ...], amount: int, *, floor: int, payer_is_dealer: bool,
                      collector_is_dealer: bool, drawn: bool = False) -> int:
        """子 one payer pays for one end-settlement transfer of ``amount`` on ``scope``: 0 for no
        amount (no transfer is made), else :meth:`settled` with the transfer's facts
        (:meth:`transfer_env`), as :meth:`settle_indicator` moves it."""
        if not amount:
            return 0
        return self.settled(scope, amount, self.transfer_env(floor, payer_is_dealer, collector_is_dealer, drawn), [])[0]

    def _jing_transfer(self, ledger: Ledger, snap: Snapshot, payer: str, payee: str, amount: int,
                       parts: list[str], part: str, rule: str, scope: tuple[str, ...] = ("jing",)) -> None:
        if not amount:
            return
        env = self.transfer_env(snap.floor, payer == snap.dealer, payee == snap.dealer, drawn=snap.win is None)
        amount, parts = self.settled(scope, amount, env, parts)
        if amount:
            ledger.transfers.append(Transfer(payer, payee, amount, part, rule, tuple(parts)))

    def kong_items(self, meld: MeldTiles, jing: set[int], any_jing: set[int] | None = None,
                   with_kongs: bool = True) -> list[KongItem]:
        """What one kong earns from each other seat in a settlement ``with kongs`` (RULES.md §2
        Kongs, 杠精): one :class:`KongItem` per item — the 精-kong bonus when its four tiles are
        one of the ``jing`` kinds (for a bonus ``of any indicator``, one of ``any_jing``: the
        kinds of every indicator of the hand; default ``jing``; a bonus ``of each indicator`` is
        listed for ``jing`` alone, the others' being booked in their own settlements:
        :meth:`kong_bonuses`), and the kong points (concealed, added or exposed) unless a bonus
        replaces them (one of another indicator too). A bonus ``exposed from discarder`` on a
        kong made on a discard is marked ``from_discarder``: that seat pays it for every payer.
        Not a kong: no items. ``with_kongs`` False: the settlement of an indicator that does not
        settle with kongs, where a kong earns only its bonuses ``of each indicator``."""
        if not with_kongs:
            return self.kong_bonuses(meld, jing)
        if meld.meld_kind != "kong":
            return []
        bonus_rules = self.rs.jing_rules("kong_bonus")
        four_of = meld.tiles[0] if len(set(meld.tiles)) == 1 else None
        exposed = not meld.concealed and not meld.added and meld.from_seat is not None
        items: list[KongItem] = []
        replaced = False
        for b in bonus_rules:
            kinds = (any_jing if any_jing is not None else jing) if b.any_indicator else jing
            if four_of is not None and four_of in kinds:
                items.append(KongItem(b.amount, f"jing.{b.name}", b.exposed_from_discarder and exposed))
                replaced = replaced or b.replaces_kong_points
            elif b.each_indicator and four_of is not None and any_jing is not None and four_of in any_jing:
                replaced = replaced or b.replaces_kong_points  # its bonus is another settlement's
        if not replaced:
            for k in self.rs.jing_rules("kong"):
                pts = k.concealed if meld.concealed else k.added if meld.added else k.exposed
                items.append(KongItem(pts, f"jing.{k.name}"))
        return items

    def kong_paid(self, meld: MeldTiles, jing: set[int], any_jing: set[int] | None, *, floor: int,
                  payer_is_dealer: bool, collector_is_dealer: bool, drawn: bool = False, with_kongs: bool = True) -> int:
        """子 one other seat pays the holder of ``meld`` in the settlement of an indicator whose
        kinds are ``jing``: one ``with kongs`` (``with_kongs``) pays each of its :meth:`kong_items`,
        another only the bonuses ``of each indicator`` (:meth:`kong_bonuses`); but those the
        discarder pays for all (``from_discarder``); each :meth:`settled` (scopes ``jing`` and
        ``kongs``) with the transfer's facts, as :meth:`settle_indicator` pays them (RULES.md §2
        Kongs)."""
        return sum(self.transfer_paid(("jing", "kongs"), item.amount, floor=floor, payer_is_dealer=payer_is_dealer,
                                      collector_is_dealer=collector_is_dealer, drawn=drawn)
                   for item in self.kong_items(meld, jing, any_jing, with_kongs) if not item.from_discarder)

    def hand_jing_kinds(self, indicators: Mapping[str, int]) -> set[int]:
        """The 正/副精 kinds of every indicator of this hand that ``indicators`` (name → tile)
        gives a tile for (not a ``previous`` one, which is the hand before's; for a ``family``
        one, every member's): what a kong bonus ``of any indicator`` tests."""
        out: set[int] = set()
        for name, ind in self.rs.indicators.items():
            if name in indicators and ind.position.type != "previous":
                tiles = self.tiles.family(indicators[name]) if ind.family else (indicators[name],)
                out |= {k for t in tiles for k in self.jing_kinds(t) if k is not None}
        return out

    def kong_bonuses(self, meld: MeldTiles, jing: set[int]) -> list[KongItem]:
        """The bonuses ``of each indicator`` a kong earns in the settlement of an indicator that
        does not settle ``with kongs``: one per such bonus when its four tiles are one of that
        indicator's ``jing`` kinds (the kong points stay in the settlement ``with kongs``)."""
        if meld.meld_kind != "kong" or len(set(meld.tiles)) != 1 or meld.tiles[0] not in jing:
            return []
        exposed = not meld.concealed and not meld.added and meld.from_seat is not None
        return [KongItem(b.amount, f"jing.{b.name}", b.exposed_from_discarder and exposed)
                for b in self.rs.jing_rules("kong_bonus") if b.each_indicator]

    def _kong_points(self, snap: Snapshot, ledger: Ledger, jing: set[int], part: str, with_kongs: bool = True) -> None:
        """Book the kongs' items of the settlement ``part`` (indicator kinds ``jing``): with
        kongs, :meth:`kong_items`; else only the bonuses ``of each indicator`` (:meth:`kong_bonuses`)."""
        bonus = {f"jing.{b.name}": b.name for b in self.rs.jing_rules("kong_bonus")}
        any_jing = self.hand_jing_kinds(snap.indicators)
        payers = len(snap.seats) - 1
        for s in snap.seats:
            for m in snap.hands.get(s, SeatHand()).melds:
                for item in self.kong_items(m, jing, any_jing, with_kongs):
                    if item.rule in bonus:
                        ledger.fired.append(bonus[item.rule])
                    trail = f"{item.rule} {self.tiles.format(list(m.tiles))} {item.amount}"
                    if item.from_discarder and m.from_seat in snap.seats and m.from_seat != s:
                        self._jing_transfer(ledger, snap, m.from_seat, s, item.amount * payers,
                                            [trail, f"exposed from discarder for all {payers} payers x{payers}"],
                                            part, item.rule, scope=("jing", "kongs"))
                        continue
                    for payer in snap.seats:
                        if payer != s:
                            self._jing_transfer(ledger, snap, payer, s, item.amount, [trail], part, item.rule,
                                                scope=("jing", "kongs"))

    def discard_bonus(self, snap: Snapshot, name: str) -> Ledger:
        """The winner's discarded 精 (rule ``jing NAME = 正 N, 副 M each per discarded``,
        docs/language.md): every 正精 and 副精 of the wild indicators the winner discarded —
        nobody claimed it (the snapshot's ``discards``) or another seat's meld took it ``from``
        the winner — earns N or M 子 from each other seat, × the ``jing`` factors; a ledger of
        part ``name``. Raises :class:`ValueError` on a snapshot without a win."""
        rule = next(r for r in self.rs.jing_rules("discard_bonus") if r.name == name)
        w = snap.win
        if w is None:
            raise ValueError("a discard bonus is settled on a won hand")
        mains = {snap.indicators[n] for n, i in self.rs.indicators.items() if i.wild and n in snap.indicators}
        nexts = self.wild_kinds(snap) - mains
        thrown = self.discarded(snap, w.seat) + [
            m.claimed for s in snap.seats if s != w.seat for m in snap.hands.get(s, SeatHand()).melds
            if m.from_seat == w.seat and m.claimed is not None]
        main_n, next_n = sum(t in mains for t in thrown), sum(t in nexts for t in thrown)
        amount = rule.main * main_n + rule.next * next_n
        ledger = Ledger(fired=[name] if amount else [])
        for payer in snap.seats:
            if payer != w.seat:
                self._jing_transfer(ledger, snap, payer, w.seat, amount,
                                    [f"jing.{name} 正 {main_n} x {rule.main} + 副 {next_n} x {rule.next}"], name,
                                    f"jing.{name}")
        return ledger

    # ---- 抄庄 -------------------------------------------------------------------------------------------
    def follow_first(self, first_discards: list[tuple[str, int]], seats: list[str], dealer: str,
                     floor: int = 1) -> Ledger | None:
        """The 抄庄 payment (RULES.md §1 Dealer, §2; the ``follow_first_discard`` flow policy).

        ``first_discards``: the hand's first discards (seat, tile kind) in order, up to a claim or
        kong (which ends the first go-around). When there are as many as seats and all are one
        tile, the dealer pays the policy's ``pays`` 子 to each other seat: a ledger of part
        ``follow_first``. None when the ruleset has no such policy or the discards do not make
        one (fewer than the seats, or not all the same). Each transfer is × the factors ``on
        follow`` (``floor``: the dealer's 爬楼 floor, for their conditions)."""
        p = FLOW.policy(self.rs, "follow_first_discard")
        if p is None or len(first_discards) < len(seats) or len({t for _, t in first_discards[:len(seats)]}) != 1:
            return None
        pays = int(p["pays"][0])
        lg = Ledger(fired=["follow_first_discard"])
        for other in seats:
            if other != dealer and pays:
                env = self.transfer_env(floor, True, False)
                amount, parts = self.settled("follow", pays, env, [f"pays {pays}"])
                if amount:
                    lg.transfers.append(Transfer(dealer, other, amount, "follow_first", "flow.follow_first_discard",
                                                 tuple(parts)))
        return lg

    def stop_penalty(self, stopper: str | None, winner: str | None, seats: list[str]) -> Ledger | None:
        """发电's penalty (the ``stop_penalty`` flow policy): the seat that stopped an indicator's
        flips pays the policy's ``pays`` 子 to each other seat when it does not win the hand (a
        drawn hand included) — a ledger of part ``stop_penalty``; None when the ruleset has no
        such policy, nobody stopped, or the stopper won."""
        p = FLOW.policy(self.rs, "stop_penalty")
        if p is None or stopper is None or stopper == winner:
            return None
        pays = int(p["pays"][0])
        lg = Ledger(fired=["stop_penalty"])
        for other in seats:
            if other != stopper and pays:
                lg.transfers.append(Transfer(stopper, other, pays, "stop_penalty", "flow.stop_penalty",
                                             (f"pays {pays}",)))
        return lg

    def flip_stoppers(self, snap: Snapshot, name: str, tile: int) -> list[str]:
        """The seats that may stop indicator ``name``'s flips at ``tile`` (docs/language.md
        `indicator … = flips from …`), in play order from the dealer: those whose n for ``tile``
        as the 正精 (its successor the 副精) on the snapshot's hands meets the stop condition
        (facts ``n``, ``sole_holder``, ``floor``)."""
        where = self.rs.indicators[name].position.where
        assert where is not None, "a flips indicator has its stop condition"
        main, nxt = self.jing_kinds(tile)
        seats = snap.seats[snap.seats.index(snap.dealer):] + snap.seats[:snap.seats.index(snap.dealer)]
        held = {s: self.all_tiles(snap, s) for s in seats}
        holders = {s for s in seats if any(t in (main, nxt) for t in self.all_tiles(snap, s, with_kongs=False))}
        out = []
        for s in seats:
            n = self.jing_count(held[s], main, nxt)
            if n and self.eval(where, {"n": n, "sole_holder": holders == {s}, "floor": snap.floor}):
                out.append(s)
        return out

    def follow_first_stands(self, won: bool) -> bool:
        """Whether a 抄庄 made during the hand is paid at its end: always, or with
        ``follow_first_discard(needs_win: yes)`` only when the hand is won (``won``)."""
        p = FLOW.policy(self.rs, "follow_first_discard")
        return p is None or p["needs_win"][0] != "yes" or won

    # ---- the net cap -----------------------------------------------------------------------------------
    NET_CAP_PART = "net_cap"  # the part of the transfers that bring each seat's net within ``at most N on net``

    def net_cap(self, seats: list[str], ledgers: Iterable[Ledger]) -> Ledger | None:
        """The transfers that bring every seat's net over a hand (the sum of ``ledgers``) within
        the least ``factor … = at most N on net`` (docs/language.md `factor`): first each seat
        over +N gives back its excess, shared among the seats that lost, in proportion to their
        losses; then each seat still under −N is given back its excess by the seats that gained,
        in proportion to their gains. A share is whole 子: each takes the floor of its exact share
        and the 子 left go one each to the largest remainders (the earlier seat on a tie). Zero
        sum; nobody changes side. None when the ruleset has no such cap or no seat is past it."""
        caps = [f for f in self.rs.factors.values() if f.cap is not None and "net" in f.scopes]
        if not caps:
            return None
        rule = min(caps, key=lambda f: f.cap or 0)
        assert rule.cap is not None
        cap = rule.cap
        net = Ledger.joined(ledgers).net(seats)
        out = Ledger(fired=[rule.name])
        for sign in (1, -1):  # gains over the cap, then losses past it
            over = {s: sign * net[s] - cap for s in seats if sign * net[s] > cap}
            if not over:
                continue
            weights = {s: -sign * net[s] for s in seats if -sign * net[s] > 0}
            shares = proportional(sum(over.values()), weights)
            givers = list(over.items()) if sign == 1 else list(shares.items())
            takers = list(shares.items()) if sign == 1 else list(over.items())
            for giver, taker, amount in _matched(givers, takers):
                out.transfers.append(Transfer(giver, taker, amount, self.NET_CAP_PART, f"factor.{rule.name}",
                                              (f"factor.{rule.name} at most {cap} on net",)))
                net[giver] -= amount
                net[taker] += amount
        return out if out.transfers else None

    # ---- whole hand -----------------------------------------------------------------------------------
    def settle_snapshot(self, snap: Snapshot, stopper: str | None = None
                        ) -> tuple[dict[str, Ledger], list[tuple[str, Ledger]], WinScore | None]:
        """A snapshot scored on its own (``mjrules score``, a scenario): every part by name —
        :meth:`settle_end_parts`, and the indicators settled after the deal settled on these
        same hands (those the snapshot gives a tile for, and those it makes:
        :meth:`made_indicators`) — with the end parts apart (their sum is the hand's total) and
        the win; with a cap ``on net``, its :meth:`net_cap` over all of them, as an end part.
        ``stopper``: as :meth:`settle_end_parts` takes it. Raises as :meth:`settle_end_parts` does."""
        end_parts, win = self.settle_end_parts(snap, stopper)
        parts = dict(end_parts)
        for part, _, lg in self.after_deal_parts(snap):
            parts[part] = lg
        for name in snap.indicators:  # an indicator that settles neither way (given for the record)
            if name not in parts and not self.rs.indicators[name].family and self.rs.indicators[name].settle is None:
                parts[name] = self.settle_indicator(snap, name)
        capped = self.net_cap(snap.seats, parts.values())
        if capped is not None:
            parts[self.NET_CAP_PART] = capped
            end_parts = [*end_parts, (self.NET_CAP_PART, capped)]
        return parts, end_parts, win

    def after_deal_parts(self, snap: Snapshot) -> list[tuple[str, int | None, Ledger]]:
        """Every indicator declared ``settle after deal``, settled on the dealt hands of ``snap``
        (RULES.md §2 精 settlement, When): ``(part, tile, ledger)``, in declaration order — an
        indicator the snapshot gives a tile for (``tile`` None: its own), or each one the hands
        make (``each tile where``, ``family``: ``NAME@TILE`` and its tile kind)."""
        out: list[tuple[str, int | None, Ledger]] = []
        checked = False
        for name, ind in self.rs.indicators.items():
            if ind.settle != "after_deal":
                continue
            if not checked:
                self.check_melds(snap)  # once for all the parts
                checked = True
            if ind.position.type == "each_tile" or ind.family:
                out += [(part, kind, self._settle_indicator(snap, part, kind))
                        for part, kind in self.made_indicators(snap, name).items()]
            elif name in snap.indicators:
                out.append((name, None, self._settle_indicator(snap, name, None)))
        return out

    def settle_end_parts(self, snap: Snapshot, stopper: str | None = None) -> tuple[list[tuple[str, Ledger]], WinScore | None]:
        """Everything settled at the end of the hand, part by part: ``hand`` (the win, or the
        荒庄 payment), on a win each ``… each per discarded`` rule (:meth:`discard_bonus`), then every indicator declared ``settle at end`` that the snapshot gives a
        tile for — each its own ledger, even when nobody pays — and, when ``stopper`` (the seat
        that stopped an indicator's flips) owes it, :meth:`stop_penalty` (part ``stop_penalty``)."""
        win = self.score_win(snap) if snap.win else None
        parts = [("hand", win.ledger if win else self.settle_exhaustive(snap))]
        if win:
            parts += [(r.name, self.discard_bonus(snap, r.name)) for r in self.rs.jing_rules("discard_bonus")]
        for name, ind in self.rs.indicators.items():
            if ind.settle == "at_end" and (ind.position.type == "each_tile" or ind.family):
                parts += [(tile_name, self._settle_indicator(snap, tile_name, kind))
                          for tile_name, kind in self.made_indicators(snap, name).items()]
            elif ind.settle == "at_end" and name in snap.indicators:  # (melds checked by the hand's part)
                parts.append((name, self._settle_indicator(snap, name, None)))
        penalty = self.stop_penalty(stopper, snap.win.seat if snap.win else None, snap.seats)
        if penalty:
            parts.append(("stop_penalty", penalty))
        return parts, win

