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

from dataclasses import dataclass, field
from typing import NamedTuple

from engine.errors import IllegalAction, MjError, RuleError
from engine.core.hands import HandEvaluator, MeldTiles, Reading, check_hand_size
from engine.lang.ruleset import BinOp, BoolOp, Cmp, Fan, Neg, Not, Num, PatternIs, Ruleset, Var
from engine.core.tiles import TileSet

WIN_BY = ("discard", "self_draw", "kong_draw", "rob_kong")


@dataclass
class SeatHand:
    """A seat's tiles: concealed kinds (the winner's exclude the winning tile) and melds."""

    concealed: list[int] = field(default_factory=list)
    melds: list[MeldTiles] = field(default_factory=list)


@dataclass
class WinInfo:
    """Who won, on which tile, how (``discard``, ``self_draw``, ``kong_draw``, ``rob_kong``),
    from whom, and whether it is a first-turn win (天胡 / 地胡)."""

    seat: str
    tile: int
    by: str
    from_seat: str | None = None
    first_turn: bool = False


@dataclass
class Snapshot:
    """The table at one moment: seats in play order, dealer, 爬楼 floor, the indicator tiles
    (indicator name → kind) and every seat's hand; ``win`` None for a 荒庄."""

    seats: list[str]
    dealer: str
    floor: int
    indicators: dict[str, int]
    hands: dict[str, SeatHand]
    win: WinInfo | None = None


@dataclass(frozen=True)
class Transfer:
    """``amount`` 子 from ``payer`` to ``payee`` for ``part`` (``hand`` or an indicator name),
    by ``rule`` (a rule path), with the ``factors`` that made the amount."""

    payer: str
    payee: str
    amount: int
    part: str
    rule: str
    factors: tuple[str, ...] = ()


@dataclass
class Ledger:
    """Transfers of one settlement (or several), plus the rules that fired."""

    transfers: list[Transfer] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)

    def net(self, seats: list[str], part: str | None = None) -> dict[str, int]:
        """Net 子 per seat (positive = receives), over one part or all."""
        out = {s: 0 for s in seats}
        for t in self.transfers:
            if part is None or t.part == part:
                out[t.payer] -= t.amount
                out[t.payee] += t.amount
        return out

    @staticmethod
    def joined(ledgers) -> "Ledger":
        """One ledger holding the transfers and fired rules of several, in order."""
        out = Ledger()
        for lg in ledgers:
            out.extend(lg)
        return out

    def extend(self, other: "Ledger") -> None:
        """Add another ledger's transfers and fired rules to this one."""
        self.transfers += other.transfers
        self.fired += [f for f in other.fired if f not in self.fired]


@dataclass
class WinScore:
    """The scored win: the chosen reading, the fans that fired, and the ledger."""

    reading: Reading
    fans: list[str]
    ledger: Ledger
    alternatives: list[tuple[Reading, int]]  # every reading with the winner's gain


class _Liability(NamedTuple):
    beneficiary: str  # reached the formula by claiming a discarded 精
    discarder: str  # pays the beneficiary's real score for every payer
    as_if: dict  # every seat's score as if the claim had not happened


class Scorer:
    """Scores snapshots under one ruleset. Built once; stateless per call."""

    def __init__(self, rs: Ruleset):
        self.rs = rs
        self.tiles = TileSet(rs)
        self.hands = HandEvaluator(rs, self.tiles, self.complete_hand)
        values = rs.jing_rules("value")
        self.jing_value = values[0] if values else None

    # ---- shared helpers ---------------------------------------------------------------------------
    def table_int(self, name: str) -> int:
        """A numeric ``table`` parameter; :class:`RuleError` if the ruleset lacks it."""
        p = self.rs.table.get(name)
        if p is None or not p.values or not isinstance(p.values[0], int):
            raise RuleError(f"this ruleset needs `table {name} = N`", None)
        return p.values[0]

    @property
    def complete_hand(self) -> int:
        """Tiles in a complete (winning) hand, melds counted as 3: hand + dealer_extra."""
        return self.table_int("hand") + self.table_int("dealer_extra")

    def jing_kinds(self, indicator_tile: int) -> tuple[int, int | None]:
        """(正精 kind, 副精 kind) for an indicator tile (RULES.md §1 精)."""
        return indicator_tile, self.tiles.successor(indicator_tile)

    def wild_kinds(self, snap: Snapshot) -> frozenset[int]:
        """The 正/副精 kinds of every wild indicator the snapshot gives a tile for."""
        out: set[int] = set()
        for name, ind in self.rs.indicators.items():
            if ind.wild and name in snap.indicators:
                out |= {k for k in self.jing_kinds(snap.indicators[name]) if k is not None}
        return frozenset(out)

    def _all_tiles(self, snap: Snapshot, seat: str, with_kongs: bool = True) -> list[int]:
        h = snap.hands.get(seat, SeatHand())
        tiles = list(h.concealed)
        for m in h.melds:
            if with_kongs or m.meld_kind != "kong":
                tiles += m.tiles
        if snap.win and snap.win.seat == seat:
            tiles.append(snap.win.tile)
        return tiles

    # ---- expressions --------------------------------------------------------------------------------
    def eval(self, expr, env: dict, reading: Reading | None = None):
        """Evaluate a condition or formula (bounded: a tree walk, no loops)."""
        if isinstance(expr, Num):
            return expr.value
        if isinstance(expr, Var):
            return env.get(expr.name, 0)
        if isinstance(expr, PatternIs):
            return reading is not None and reading.pattern == expr.pattern
        if isinstance(expr, Not):
            return not self.eval(expr.arg, env, reading)
        if isinstance(expr, BoolOp):
            vals = (self.eval(a, env, reading) for a in expr.args)
            return all(vals) if expr.op == "and" else any(vals)
        if isinstance(expr, Neg):
            return -self.eval(expr.arg, env, reading)
        if isinstance(expr, (Cmp, BinOp)):
            a, b = self.eval(expr.left, env, reading), self.eval(expr.right, env, reading)
            op = expr.op
            if op == "+":
                return a + b
            if op == "-":
                return a - b
            if op == "*":
                return a * b
            if op == "/":
                return a // b if b else 0
            return {">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, "<": a < b}[op]
        raise TypeError(f"unknown expression node {expr!r}")

    def _factors(self, scope: str, env: dict, after: bool, only: set[str] | None = None,
                 reading: Reading | None = None) -> list[tuple[str, int]]:
        """(name, value) of the factors of ``scope`` whose condition holds, in declaration order."""
        out = []
        for f in self.rs.factors.values():
            if scope not in f.scopes or f.after_adders != after:
                continue
            if only is not None and f.name not in only:
                continue
            if f.when is not None and not self.eval(f.when, env, reading):
                continue
            out.append((f.name, int(self.eval(f.value, env, reading))))
        return out

    # ---- win score --------------------------------------------------------------------------------------
    def win_facts(self, snap: Snapshot, reading: Reading) -> dict:
        """The win facts of engine/facts.py for one reading of the snapshot's win."""
        w = snap.win
        assert w is not None
        wild = self.wild_kinds(snap)
        holds = any(k in wild for s in snap.seats for k in self._all_tiles(snap, s, with_kongs=False))
        hand = snap.hands.get(w.seat, SeatHand())
        return {
            "self_drawn": w.by in ("self_draw", "kong_draw"),
            "discard": w.by == "discard",
            "robbed_kong": w.by == "rob_kong",
            "after_kong": w.by == "kong_draw",
            "first_turn": w.first_turn,
            "dealer_wins": w.seat == snap.dealer,
            "discarder_is_dealer": w.by == "discard" and w.from_seat == snap.dealer,
            "wilds_used": reading.wilds > 0,
            "wilds": reading.wilds,
            "anyone_holds_wild": holds,
            "jing_wait": reading.jing_wait,
            "concealed_hand": all(m.meld_kind == "kong" and m.concealed for m in hand.melds),
            "floor": snap.floor,
        }

    def fired_fans(self, env: dict, reading: Reading) -> list[Fan]:
        """Fans whose condition holds, after ``instead of`` (RULES.md §2 multipliers)."""
        fired = [f for f in self.rs.fans.values() if self.eval(f.when, env, reading)]
        alls = [f for f in fired if f.instead_of_all]
        if alls:
            keep = {f.name for f in alls} | {n for f in alls for n in f.instead_except}
            return [f for f in fired if f.name in keep]
        dropped = {n for f in fired for n in f.instead_of}
        return [f for f in fired if f.name not in dropped]

    def _payment(self, env: dict, reading: Reading):
        for p in self.rs.payments.values():
            if self.eval(p.when, env, reading):
                return p
        raise MjError(f"no payment of ruleset {self.rs.name} applies to this win "
                      f"(declared: {', '.join(self.rs.payments) or 'none'})",
                      hint="add a `payment NAME = … when …` whose condition covers it")

    @staticmethod
    def _payer_matches(spec: str, payer: str, discarder: str | None, dealer: str) -> bool:
        if spec == "each":
            return True
        if spec == "discarder":
            return payer == discarder
        if spec == "others":
            return payer != discarder
        return payer == dealer  # "dealer"

    def _weight(self, weights: dict, payer: str, discarder: str | None, dealer: str) -> tuple[str, int] | None:
        for spec in ("discarder", "dealer", "others", "each"):
            if spec in weights and self._payer_matches(spec, payer, discarder, dealer):
                return spec, weights[spec]
        return None

    def _score_reading(self, snap: Snapshot, reading: Reading) -> tuple[Ledger, list[str]]:
        w = snap.win
        env = self.win_facts(snap, reading)
        fans = self.fired_fans(env, reading)
        payment = self._payment(env, reading)
        discarder = w.from_seat if w.by == "discard" else None
        base = self.rs.base.amount
        mult = 1
        for f in fans:
            mult *= f.multiplier
        fixed = [f for f in fans if f.fixed]
        ledger = Ledger(fired=list(dict.fromkeys([reading.pattern] + [f.name for f in fans] + [payment.name])))
        for payer in snap.seats:
            if payer == w.seat:
                continue
            tenv = dict(env, payer_is_dealer=payer == snap.dealer, collector_is_dealer=w.seat == snap.dealer)
            parts: list[str] = []
            if fixed:
                ff = max(fixed, key=lambda f: f.fixed.amount)
                amount = ff.fixed.amount
                parts.append(f"fan.{ff.name} fixed {amount}")
                keep = set(ff.fixed.with_factors)
                factors = self._factors("win", tenv, after=False, only=keep, reading=reading)
            else:
                wt = self._weight(payment.weights, payer, discarder, snap.dealer)
                if wt is None:
                    continue
                amount = base * wt[1]
                parts.append(f"payment.base {base}")
                parts.append(f"payment.{payment.name} {wt[0]} x{wt[1]}")
                factors = self._factors("win", tenv, after=False, reading=reading)
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
                    spec = a.payer if (a.payer != "discarder" or discarder) else a.fallback
                    if spec and self._payer_matches(spec, payer, discarder, snap.dealer):
                        amount += a.amount
                        parts.append(f"fan.{f.name} +{a.amount}")
            for name, v in self._factors("win", tenv, after=True, reading=reading):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{name} x{v}")
            if amount:
                ledger.transfers.append(Transfer(payer, w.seat, amount, "hand", "win", tuple(parts)))
        return ledger, [f.name for f in fans]

    def check_win_hand(self, snap: Snapshot) -> list[Reading]:
        """Readings of the winner's hand; raises :class:`IllegalAction` when it is not a win."""
        w = snap.win
        if w is None:
            raise IllegalAction("no win to score")
        if w.by not in WIN_BY:
            raise IllegalAction(f"unknown win.by {w.by!r}", hint=f"one of: {', '.join(WIN_BY)}")
        if w.by in ("discard", "rob_kong") and w.from_seat not in snap.seats:
            raise IllegalAction(f"a {w.by} win needs `from`: the seat whose tile was taken")
        if w.from_seat == w.seat:
            raise IllegalAction(f"seat {w.seat} cannot win on its own discard")
        hand = snap.hands.get(w.seat, SeatHand())
        for m in hand.melds:
            if self.hands.meld_name(m) is None:
                raise IllegalAction(f"{m.meld_kind} {self.tiles.format(list(m.tiles))} is not a meld of ruleset "
                                    f"{self.rs.name}", hint="melds: " + ", ".join(
                                        f"{x.name} ({x.meld_kind})" for x in self.rs.melds.values()))
        concealed = hand.concealed + [w.tile]
        check_hand_size(self.tiles, concealed, hand.melds, self.complete_hand, self.hands.set_size,
                        f"winner {w.seat}")
        readings = self.hands.readings(concealed, hand.melds, self.wild_kinds(snap), w.tile,
                                       win_tile_natural=w.by in ("discard", "rob_kong"))
        if not readings:
            raise IllegalAction(f"seat {w.seat} has no winning hand: " + self.hands.why_not(concealed, hand.melds))
        return readings

    def score_win(self, snap: Snapshot) -> WinScore:
        """Score the win on the reading best for the winner (RULES.md §2 Win score).

        Raises :class:`IllegalAction` when the hand is not a winning hand, with the reason.
        """
        readings = self.check_win_hand(snap)
        best = None
        alts = []
        for r in readings:
            ledger, fans = self._score_reading(snap, r)
            gain = ledger.net(snap.seats)[snap.win.seat]
            alts.append((r, gain))
            if best is None or gain > best[0]:
                best = (gain, r, ledger, fans)
        _, r, ledger, fans = best
        return WinScore(r, fans, ledger, alts)

    # ---- 荒庄 --------------------------------------------------------------------------------------------
    def settle_exhaustive(self, snap: Snapshot) -> Ledger:
        """The 荒庄 payment of a drawn hand (RULES.md §2: the dealer pays each other player)."""
        ledger = Ledger()
        for ex in self.rs.exhaustive.values():
            ledger.fired.append(ex.name)
            for payee in snap.seats:
                for payer in snap.seats:
                    if payer == payee or not self._payer_matches(ex.payer, payer, None, snap.dealer):
                        continue
                    env = self._transfer_env(snap, payer, payee)
                    amount = ex.amount
                    parts = [f"exhaustive.{ex.name} {ex.amount}"]
                    for after in (False, True):
                        for name, v in self._factors("exhaustive", env, after):
                            if v != 1:
                                amount *= v
                                parts.append(f"factor.{name} x{v}")
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

    def _jing_score(self, n: int, sole: bool, floor: int) -> tuple[int, list[str], list[str]]:
        """A seat's 精 score from n: the formula (the n ≥ 5 bonus) then the multipliers.

        Returns (score in 子, the factor trail, the names of the rules that applied)."""
        if n <= 0:
            return 0, [], []
        env = {"n": n, "sole_holder": sole, "floor": floor}
        score, parts, names = n, [f"n={n}"], []
        for r in self.rs.jing_rules("formula"):
            if self.eval(r.when, env):
                score = int(self.eval(r.score, env))
                parts.append(f"jing.{r.name} {score}")
                names.append(r.name)
                break
        for r in self.rs.jing_rules("multiplier"):
            if self.eval(r.when, env):
                score *= r.factor
                parts.append(f"jing.{r.name} x{r.factor}")
                names.append(r.name)
        return score, parts, names

    def _formula_fires(self, rule_name: str, n: int, floor: int) -> bool:
        r = self.rs.jing[rule_name]
        return n > 0 and bool(self.eval(r.when, {"n": n, "sole_holder": False, "floor": floor}))

    def settle_indicator(self, snap: Snapshot, name: str) -> Ledger:
        """One 精 settlement with indicator ``name`` on the snapshot's hands (RULES.md §2).

        Each seat collects its score from each other seat. Liability: when a seat
        reaches the liability rule's formula only by claiming a 精 someone discarded, every
        transfer is made as if the claim had not happened, except that the discarder pays that
        seat's real score once for every payer (000's example). Raises :class:`MjError` if the
        snapshot has no tile for the indicator.
        """
        ind = self.rs.indicators[name]
        if name not in snap.indicators:
            raise MjError(f"no tile for indicator {name}")
        main, nxt = self.jing_kinds(snap.indicators[name])
        jing = {main, nxt} - {None}
        seats = snap.seats
        ledger = Ledger()

        def scores(all_tiles: dict[str, list[int]], outside_kongs: dict[str, list[int]]):
            counts = {s: self.jing_count(all_tiles[s], main, nxt) for s in seats}
            holders = {s for s in seats if any(t in jing for t in outside_kongs[s])}  # kongs never make 霸王
            return {s: self._jing_score(counts[s], holders == {s}, snap.floor) for s in seats}, counts

        tiles = {s: self._all_tiles(snap, s) for s in seats}
        outside = {s: self._all_tiles(snap, s, with_kongs=False) for s in seats}
        actual, counts = scores(tiles, outside)
        liability: _Liability | None = None
        for lia in self.rs.jing_rules("liability"):
            for s in seats:
                for m in snap.hands.get(s, SeatHand()).melds:
                    if liability or m.claimed not in jing or m.from_seat not in seats or m.from_seat == s:
                        continue
                    t2 = {k: list(v) for k, v in tiles.items()}
                    o2 = {k: list(v) for k, v in outside.items()}
                    for d in (t2, o2) if m.meld_kind != "kong" else (t2,):
                        d[s].remove(m.claimed)
                        d[m.from_seat].append(m.claimed)
                    if m.meld_kind == "kong":
                        o2[m.from_seat].append(m.claimed)
                    asif, asif_counts = scores(t2, o2)
                    if self._formula_fires(lia.rule, counts[s], snap.floor) and not self._formula_fires(
                            lia.rule, asif_counts[s], snap.floor):
                        liability = _Liability(s, m.from_seat, asif)
                        ledger.fired.append(lia.name)
        for _, _, names in actual.values():
            ledger.fired += names
        payers = len(seats) - 1
        for payee in seats:
            for payer in seats:
                if payer == payee:
                    continue
                rule = name
                if liability is None:
                    amount, parts, _ = actual[payee]
                elif (liability.beneficiary, liability.discarder) == (payee, payer):
                    amount, parts, _ = actual[payee]
                    amount, parts = amount * payers, parts + [f"liable for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                else:
                    amount, parts, _ = liability.as_if[payee]
                    parts = parts + ["as if the 精 was not claimed"]
                self._jing_transfer(ledger, payer, payee, amount, parts, name, rule, self._transfer_env(snap, payer, payee))
        if ind.with_kongs:
            self._kong_points(snap, ledger, jing, name)
        ledger.fired = list(dict.fromkeys(ledger.fired))
        return ledger

    @staticmethod
    def _transfer_env(snap: Snapshot, payer: str, payee: str) -> dict:
        return {"floor": snap.floor, "payer_is_dealer": payer == snap.dealer, "collector_is_dealer": payee == snap.dealer}

    def _jing_transfer(self, ledger, payer, payee, amount, parts, part, rule, env):
        if not amount:
            return
        parts = list(parts)
        for after in (False, True):
            for fname, v in self._factors("jing", env, after):
                if v != 1:
                    amount *= v
                    parts.append(f"factor.{fname} x{v}")
        ledger.transfers.append(Transfer(payer, payee, amount, part, rule, tuple(parts)))

    def _kong_points(self, snap: Snapshot, ledger: Ledger, jing: set, part: str) -> None:
        kong_rules = self.rs.jing_rules("kong")
        bonus_rules = self.rs.jing_rules("kong_bonus")
        for s in snap.seats:
            for m in snap.hands.get(s, SeatHand()).melds:
                if m.meld_kind != "kong":
                    continue
                is_jing_kong = len(set(m.tiles)) == 1 and m.tiles[0] in jing
                items: list[tuple[int, str]] = []
                if is_jing_kong:
                    for b in bonus_rules:
                        items.append((b.amount, f"jing.{b.name}"))
                        ledger.fired.append(b.name)
                if not (is_jing_kong and any(b.replaces_kong_points for b in bonus_rules)):
                    for k in kong_rules:
                        pts = k.concealed if m.concealed else k.added if m.added else k.exposed
                        items.append((pts, f"jing.{k.name}"))
                for amount, rule in items:
                    for payer in snap.seats:
                        if payer != s:
                            self._jing_transfer(ledger, payer, s, amount,
                                                [f"{rule} {self.tiles.format(list(m.tiles))} {amount}"],
                                                part, rule, self._transfer_env(snap, payer, s))

    # ---- whole hand -----------------------------------------------------------------------------------
    def settle_end_parts(self, snap: Snapshot) -> tuple[list[tuple[str, Ledger]], WinScore | None]:
        """Everything settled at the end of the hand, part by part: ``hand`` (the win, or the
        荒庄 payment), then every indicator declared ``settle at end`` that the snapshot gives a
        tile for — each its own ledger, even when nobody pays."""
        win = self.score_win(snap) if snap.win else None
        parts = [("hand", win.ledger if win else self.settle_exhaustive(snap))]
        for name, ind in self.rs.indicators.items():
            if ind.settle == "at_end" and name in snap.indicators:
                parts.append((name, self.settle_indicator(snap, name)))
        return parts, win

