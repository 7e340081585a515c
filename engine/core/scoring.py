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
from engine.errors import IllegalAction, ImpossibleState, MjError, RuleError
from engine.lang import flow as FLOW
from engine.core.expr import ExprCache
from engine.core.hands import HandEvaluator, MeldTiles, Reading, check_hand_size
from engine.lang.ruleset import BinOp, BoolOp, Cmp, Fan, Neg, Not, Num, PatternIs, Ruleset, Var
from engine.core.tiles import TileSet

WIN_BY = ("discard", "self_draw", "kong_draw", "rob_kong")
CLAIM_KINDS = ("chow", "pung", "kong")  # the melds a seat declares (the pair is never declared)


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
    (indicator name → kind) and every seat's hand; ``win`` None for a 荒庄. ``discards``: seat →
    the tiles it discarded that nobody claimed (not the tile a discard win takes)."""

    seats: list[str]
    dealer: str
    floor: int
    indicators: dict[str, int]
    hands: dict[str, SeatHand]
    win: WinInfo | None = None
    discards: dict[str, list[int]] = field(default_factory=dict)


MAX_AMOUNT = 10**12  # 子 in one transfer: a bound on evaluation (no table's stakes come near it), not a rule


@dataclass(frozen=True)
class Transfer:
    """``amount`` 子 from ``payer`` to ``payee`` for ``part`` (``hand`` or an indicator name),
    by ``rule`` (a rule path), with the ``factors`` that made the amount.

    Raises :class:`RuleError` when ``amount`` is over :data:`MAX_AMOUNT`: a rule file whose
    multipliers, floors and formulas combine past it cannot be settled (nor averaged)."""

    payer: str
    payee: str
    amount: int
    part: str
    rule: str
    factors: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if abs(self.amount) > MAX_AMOUNT:
            size = f"about 10^{len(str(abs(self.amount))) - 1}"
            raise RuleError(f"a transfer of {size} 子 by {self.rule} ({' · '.join(self.factors)[:300]}) is over the "
                            f"bound of {MAX_AMOUNT:,} 子 a transfer", None,
                            hint="the rule file's multipliers, floors or formulas combine past any table's stakes: "
                                 "lower them")


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


class Scorer:
    """Scores snapshots under one ruleset. Built once; stateless per call."""

    def __init__(self, rs: Ruleset):
        self.rs = rs
        self.tiles = TileSet(rs)
        self.hands = HandEvaluator(rs, self.tiles, self.complete_hand)
        values = rs.jing_rules("value")
        self.jing_value = values[0] if values else None
        self._compiled = ExprCache()

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

    @staticmethod
    def discarded(snap: Snapshot, seat: str) -> list[int]:
        """The tiles ``seat`` discarded that nobody claimed (not the tile a discard win took)."""
        return list(snap.discards.get(seat, ()))

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
        """Evaluate a condition or formula: compiled once per node into a closure
        (:func:`engine.core.expr.compile_expr`, the same semantics as :meth:`walk`)."""
        return self._compiled(expr)(env, reading)

    def walk(self, expr, env: dict, reading: Reading | None = None):
        """Evaluate a condition or formula by walking the tree (bounded: no loops); the
        reference semantics of :meth:`eval`."""
        if isinstance(expr, Num):
            return expr.value
        if isinstance(expr, Var):
            return env.get(expr.name, 0)
        if isinstance(expr, PatternIs):
            return reading is not None and reading.pattern == expr.pattern
        if isinstance(expr, Not):
            return not self.walk(expr.arg, env, reading)
        if isinstance(expr, BoolOp):
            vals = (self.walk(a, env, reading) for a in expr.args)
            return all(vals) if expr.op == "and" else any(vals)
        if isinstance(expr, Neg):
            return -self.walk(expr.arg, env, reading)
        if isinstance(expr, (Cmp, BinOp)):
            a, b = self.walk(expr.left, env, reading), self.walk(expr.right, env, reading)
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
            if scope not in f.scopes or f.after_adders != after or f.cap is not None:
                continue
            if only is not None and f.name not in only:
                continue
            if f.when is not None and not self.eval(f.when, env, reading):
                continue
            out.append((f.name, int(self.eval(f.value, env, reading))))
        return out

    def _cap(self, scope: str, env: dict, amount: int, parts: list[str], reading: Reading | None = None) -> int:
        """``amount`` lowered to the least ``at most N`` factor of ``scope`` whose condition holds
        (each transfer of the scope is at most N 子); the trail notes a cap that bites."""
        for f in self.rs.factors.values():
            if f.cap is None or scope not in f.scopes:
                continue
            if f.when is not None and not self.eval(f.when, env, reading):
                continue
            if amount > f.cap:
                amount = f.cap
                parts.append(f"factor.{f.name} at most {f.cap}")
        return amount

    # ---- win score --------------------------------------------------------------------------------------
    def win_facts(self, snap: Snapshot, reading: Reading) -> dict:
        """The win facts of engine/facts.py for one reading of the snapshot's win."""
        w = snap.win
        assert w is not None
        wild = self.wild_kinds(snap)
        holds = any(k in wild for s in snap.seats for k in self._all_tiles(snap, s, with_kongs=False))
        hand = snap.hands.get(w.seat, SeatHand())
        mains = {snap.indicators[n] for n, i in self.rs.indicators.items() if i.wild and n in snap.indicators}
        nexts = wild - mains
        thrown = self.discarded(snap, w.seat) if snap.discards else []
        held = list(hand.concealed) + ([w.tile] if w.by in ("self_draw", "kong_draw") else [])
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
            "wilds_held": sum(1 for t in held if t in wild),
            "discarded_main": sum(1 for t in thrown if t in mains),
            "discarded_next": sum(1 for t in thrown if t in nexts),
        }

    def fired_fans(self, env: dict, reading: Reading) -> list[Fan]:
        """Fans whose condition holds, after ``instead of`` (RULES.md §2 multipliers).

        ``instead of all [except …]``: only those fans (and their exceptions) stay. Otherwise a
        fan is dropped when a fan that *stays* names it: a fan that is itself replaced replaces
        nothing (德中德 instead of 德国小七对, which is instead of 小七对: 德中德 × 小七对 stay).
        A cycle of ``instead of`` is broken deterministically (declaration order).
        """
        fired = [f for f in self.rs.fans.values() if self.eval(f.when, env, reading)]
        alls = [f for f in fired if f.instead_of_all]
        if alls:
            keep = {f.name for f in alls} | {n for f in alls for n in f.instead_except}
            return [f for f in fired if f.name in keep]
        droppers: dict[str, list[Fan]] = {}
        for f in fired:
            for n in f.instead_of:
                droppers.setdefault(n, []).append(f)
        stays: dict[str, bool] = {}
        for root in fired:  # a depth-first walk up the droppers, without recursion
            if root.name in stays:
                continue
            stack, deciding = [root], {root.name}
            while stack:
                f = stack[-1]
                result, deeper = True, None
                for g in droppers.get(f.name, ()):
                    if g.name in deciding or stays.get(g.name):  # a cycle counts its first fan as staying
                        result = False
                        break
                    if g.name not in stays:
                        deeper = g
                        break
                if deeper is not None:
                    deciding.add(deeper.name)
                    stack.append(deeper)
                    continue
                stays[f.name] = result
                deciding.discard(f.name)
                stack.pop()
        return [f for f in fired if stays[f.name]]

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
            amount = self._cap("win", tenv, amount, parts, reading)
            source = payer
            if payment.paid_by == "discarder" and discarder is not None and payer != discarder:
                source = discarder
                parts.append(f"payment.{payment.name} paid by discarder {discarder} for {payer}")
            if amount:
                ledger.transfers.append(Transfer(source, w.seat, amount, "hand", "win", tuple(parts)))
        return ledger, [f.name for f in fans]

    # ---- what the game could produce, and what it allows ------------------------------------------
    def _flow_text(self, policy_name: str) -> str:
        """``flow 精钓点炮 = jing_wait_discard(win: forbid)``: the declaration that chose a policy."""
        for f in self.rs.flow.values():
            if f.policy == policy_name:
                args = ", ".join(f"{k}: {'/'.join(str(v) for v in vs)}" for k, vs in f.params.items())
                return f"flow {f.name} = {policy_name}({args})"
        return f"no `flow … = {policy_name}(…)`"

    def check_melds(self, snap: Snapshot) -> None:
        """Every seat's melds are ones the game could make (RULES.md §1 Melds, Claims), and no
        seat holds more tiles than a hand can.

        A meld is a claim kind (``CLAIM_KINDS``) whose tiles are a ``meld`` the ruleset declares of
        that kind; a chow or pung, or a kong that is neither ``concealed`` nor ``added``, names the
        seat it was claimed from, which is another seat; a chow comes from the seat the ruleset's
        ``chow`` flow policy allows (``from: previous``: the 上家); a concealed kong is claimed
        from nobody; a claimed tile is one of the meld's. With a win, a seat other than the winner
        holds at most ``table hand`` tiles (melds counted as one set each), without one the dealer
        may hold ``hand + dealer_extra`` (right after the deal). Raises :class:`ImpossibleState`
        naming the seat, the meld and what is wrong.
        """
        extra = self.rs.table.get("hand"), self.rs.table.get("dealer_extra")
        for seat, hand in snap.hands.items():
            if seat not in snap.seats:
                raise ImpossibleState(f"a hand is given for {seat!r}, which is not a seat",
                                    hint="seats: " + " ".join(snap.seats))
            for m in hand.melds:
                self._check_meld(snap, seat, m)
            if all(p is not None and p.values and isinstance(p.values[0], int) for p in extra) and self.hands.set_size:
                limit = self.table_int("hand")
                if snap.win is None and seat == snap.dealer:
                    limit = self.complete_hand
                if snap.win is not None and seat == snap.win.seat:
                    continue  # the winner's hand is checked exactly (check_win_hand)
                n = len(hand.concealed) + self.hands.set_size * len(hand.melds)
                if n > limit:
                    raise ImpossibleState(f"seat {seat} holds {n} tiles counting each meld as {self.hands.set_size} "
                                        f"({self.tiles.format(hand.concealed)} + {len(hand.melds)} meld(s)); "
                                        f"it can hold at most {limit}")

    def _check_meld(self, snap: Snapshot, seat: str, m: MeldTiles) -> None:
        fmt = self.tiles.format
        what = f"seat {seat}'s {m.meld_kind} {fmt(list(m.tiles))}"
        if m.meld_kind not in CLAIM_KINDS:
            raise ImpossibleState(f"{what}: a declared meld is a {', '.join(CLAIM_KINDS)}")
        if self.hands.meld_name(m) is None:
            raise ImpossibleState(f"{what} is not a meld of ruleset {self.rs.name}", hint="melds: " + ", ".join(
                f"{x.name} ({x.meld_kind})" for x in self.rs.melds.values() if x.meld_kind in CLAIM_KINDS))
        if m.concealed and (m.meld_kind != "kong" or m.added or m.from_seat is not None):
            raise ImpossibleState(f"{what} is concealed, so it was claimed from nobody",
                                hint="a concealed kong (暗杠) has no `from` and is not `added`")
        claimed_kong = m.meld_kind == "kong" and not (m.concealed or m.added)
        if m.from_seat is None and (m.meld_kind in ("chow", "pung") or claimed_kong):
            raise ImpossibleState(f"{what} names no seat it was claimed from",
                                hint=f"a {m.meld_kind} is made from a discard: give `from SEAT`")
        if m.from_seat is not None:
            if m.from_seat not in snap.seats:
                raise ImpossibleState(f"{what} is claimed from {m.from_seat!r}, which is not a seat")
            if m.from_seat == seat:
                raise ImpossibleState(f"{what} is claimed from {seat} itself: a seat cannot claim its own discard")
        if m.claimed is not None and m.claimed not in m.tiles:
            raise ImpossibleState(f"{what}: the claimed tile {self.tiles.code(m.claimed)} is not in the meld")
        if m.meld_kind == "chow":
            chow = FLOW.policy(self.rs, "chow")
            if chow is None:
                raise ImpossibleState(f"{what}: this ruleset lets no one chow ({self._flow_text('chow')})")
            prev = snap.seats[(snap.seats.index(seat) - 1) % len(snap.seats)]
            if chow["from"][0] == "previous" and m.from_seat != prev:
                raise ImpossibleState(f"{what} is claimed from {m.from_seat}, but a chow takes only the discard of "
                                    f"the seat before, {prev} (上家) ({self._flow_text('chow')})")

    def check_win_state(self, snap: Snapshot) -> None:
        """The win is one the game could produce (SCENARIOS.md ``win``; RULES.md §2 天胡, 地胡).

        ``discard``/``rob_kong`` take a tile from another seat (``from``), ``self_draw``/
        ``kong_draw`` from nobody; a ``kong_draw`` winner holds a kong; the robbed seat shows
        the pung its kong was being added to; ``first_turn`` is the dealer's self-draw on the
        deal (天胡) or a win on the dealer's first discard (地胡), with no meld on the table (a
        claim or a kong ends the first go-around). Raises :class:`ImpossibleState` naming what
        is impossible.
        """
        w = snap.win
        if w is None:
            return
        if w.by not in WIN_BY:
            raise ImpossibleState(f"unknown win.by {w.by!r}", hint=f"one of: {', '.join(WIN_BY)}")
        if w.seat not in snap.seats:
            raise ImpossibleState(f"the winner {w.seat!r} is not a seat", hint="seats: " + " ".join(snap.seats))
        taken = w.by in ("discard", "rob_kong")
        if taken and w.from_seat not in snap.seats:
            raise ImpossibleState(f"a {w.by} win needs `from`: the seat whose tile was taken")
        if not taken and w.from_seat is not None:
            raise ImpossibleState(f"a {w.by} win takes no `from` ({w.from_seat}): the winning tile is the winner's own draw")
        if w.from_seat == w.seat:
            raise ImpossibleState(f"seat {w.seat} cannot win on its own discard" if w.by == "discard"
                                else f"seat {w.seat} cannot rob its own kong")
        tile = self.tiles.code(w.tile)
        hands = snap.hands
        if w.by == "kong_draw" and not any(m.meld_kind == "kong" for m in hands.get(w.seat, SeatHand()).melds):
            raise ImpossibleState(f"seat {w.seat} wins on a kong replacement (kong_draw) but has declared no kong")
        if w.by == "rob_kong" and not any(m.meld_kind == "pung" and w.tile in m.tiles
                                          for m in hands.get(w.from_seat, SeatHand()).melds):
            raise ImpossibleState(f"seat {w.seat} robs {w.from_seat}'s kong of {tile}, but {w.from_seat} shows no pung of "
                                f"{tile} to add it to", hint=f"give {w.from_seat} the pung: `pung … from SEAT`")
        if not w.first_turn:
            return
        first = "first_turn marks 天胡 (the dealer self-draws on the deal) or 地胡 (a win on the dealer's first discard)"
        if w.by in ("kong_draw", "rob_kong"):
            raise ImpossibleState(f"{first}, not a {w.by} win: a kong ends the first go-around")
        if w.by == "self_draw" and w.seat != snap.dealer:
            raise ImpossibleState(f"{first}: a first-turn self-draw is the dealer's, and {w.seat} is not the dealer "
                                f"({snap.dealer})")
        if w.by == "discard" and w.from_seat != snap.dealer:
            raise ImpossibleState(f"{first}: a first-turn discard is the dealer's, and {w.from_seat} is not the dealer "
                                f"({snap.dealer})")
        for s, h in hands.items():
            if h.melds:
                raise ImpossibleState(f"{first}: seat {s} has declared a {h.melds[0].meld_kind}, and a claim or a kong "
                                    "ends the first go-around")

    def check_win_allowed(self, snap: Snapshot, readings: list[Reading] | None = None) -> None:
        """The ruleset's ``flow`` policies that decide from the final state alone whether the win
        may be taken — the one check the game (offering a win) and the scorer (``score``,
        ``test``) share. The policies that depend on what happened before (弃先胡后, pass_lock)
        stay in the game.

        - ``jing_wait_discard(win: forbid)``: a seat whose hand reads as 精钓 may not win on a
          discard (RULES.md §1 精钓; 004);
        - ``rob_kong``: without it no kong can be robbed.

        ``readings``: the hand's readings when known (computed here only if a policy needs
        them). Raises :class:`IllegalAction` naming the policy.
        """
        w = snap.win
        if w is None:
            return
        if w.by == "discard":
            jw = FLOW.policy(self.rs, "jing_wait_discard")
            if jw is not None and jw["win"][0] == "forbid":
                if readings is None:
                    h = snap.hands.get(w.seat, SeatHand())
                    readings = self.hands.readings(h.concealed + [w.tile], h.melds, self.wild_kinds(snap), w.tile,
                                                   win_tile_natural=True)
                if any(r.jing_wait for r in readings):
                    raise IllegalAction(f"seat {w.seat}'s hand is in 精钓 (a lone 精 waits on any tile), and this "
                                        f"ruleset forbids a 精钓 hand to win on a discard "
                                        f"({self._flow_text('jing_wait_discard')})",
                                        hint="it may win on its own draw")
        if w.by == "rob_kong" and FLOW.policy(self.rs, "rob_kong") is None:
            raise IllegalAction(f"this ruleset lets no one rob a kong ({self._flow_text('rob_kong')})")
        if any(f.no_win for f in self.rs.fans.values()):
            if readings is None:
                h = snap.hands.get(w.seat, SeatHand())
                readings = self.hands.readings(h.concealed + [w.tile], h.melds, self.wild_kinds(snap), w.tile,
                                               win_tile_natural=w.by in ("discard", "rob_kong"))
            if readings and not self.allowed_readings(snap, readings):
                names = sorted({f.name for r in readings for f in self._no_win_fans(snap, r)})
                raise IllegalAction(f"seat {w.seat}'s hand may not win this way: every reading of it is refused by "
                                    + ", ".join(f"fan.{n} (no win)" for n in names),
                                    hint="a reading none of these `no win` fans fires on may win")

    def _no_win_fans(self, snap: Snapshot, reading: Reading) -> list[Fan]:
        env = self.win_facts(snap, reading)
        return [f for f in self.rs.fans.values() if f.no_win and self.eval(f.when, env, reading)]

    def allowed_readings(self, snap: Snapshot, readings: list[Reading]) -> list[Reading]:
        """The readings on which no ``no win`` fan fires (all of them when the ruleset has none)."""
        if not any(f.no_win for f in self.rs.fans.values()):
            return readings
        return [r for r in readings if not self._no_win_fans(snap, r)]

    def check_win_hand(self, snap: Snapshot) -> list[Reading]:
        """Readings of the winner's hand; raises :class:`IllegalAction` when it is not a win: a
        snapshot the game could not produce (:meth:`check_win_state`, :meth:`check_melds`), a
        hand of the wrong size or matching no pattern, or a win the ruleset forbids
        (:meth:`check_win_allowed`)."""
        w = snap.win
        if w is None:
            raise IllegalAction("no win to score")
        self.check_win_state(snap)
        self.check_melds(snap)
        hand = snap.hands.get(w.seat, SeatHand())
        concealed = hand.concealed + [w.tile]
        check_hand_size(self.tiles, concealed, hand.melds, self.complete_hand, self.hands.set_size,
                        f"winner {w.seat}")
        readings = self.hands.readings(concealed, hand.melds, self.wild_kinds(snap), w.tile,
                                       win_tile_natural=w.by in ("discard", "rob_kong"))
        if not readings:
            raise IllegalAction(f"seat {w.seat} has no winning hand: " + self.hands.why_not(concealed, hand.melds))
        self.check_win_allowed(snap, readings)
        return self.allowed_readings(snap, readings)

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
        """The 荒庄 payment of a drawn hand (RULES.md §2: the dealer pays each other player).

        Raises :class:`IllegalAction` if a meld is one the game could not make."""
        self.check_melds(snap)
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
                    amount = self._cap("exhaustive", env, amount, parts)
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
        for r in self.rs.jing_rules("adder"):
            if self.eval(r.when, env):
                score += r.amount
                parts.append(f"jing.{r.name} +{r.amount}")
                names.append(r.name)
        return score, parts, names

    def _formula_fires(self, rule_name: str, n: int, floor: int) -> bool:
        r = self.rs.jing[rule_name]
        return n > 0 and bool(self.eval(r.when, {"n": n, "sole_holder": False, "floor": floor}))

    def settle_indicator(self, snap: Snapshot, name: str) -> Ledger:
        """One 精 settlement with indicator ``name`` on the snapshot's hands (RULES.md §2).

        Each seat collects its score from each other seat. Liability (RULES.md §2 Liability,
        applied to *each* such player): when a seat reaches the liability rule's formula only by
        claiming a 精 someone discarded, that discarder pays the seat's real score once for
        every payer; every other transfer is made as if the liable claims had not happened
        (000's example). Raises :class:`MjError` if the snapshot has no tile for the indicator,
        :class:`IllegalAction` if a meld is one the game could not make (:meth:`check_melds`).
        """
        ind = self.rs.indicators[name]
        if name not in snap.indicators:
            raise MjError(f"no tile for indicator {name}")
        self.check_melds(snap)
        main, nxt = self.jing_kinds(snap.indicators[name])
        jing = {main, nxt} - {None}
        seats = snap.seats
        ledger = Ledger()

        def scores(all_tiles: dict[str, list[int]], outside_kongs: dict[str, list[int]]):
            counts = {s: self.jing_count(all_tiles[s], main, nxt) for s in seats}
            holders = {s for s in seats if any(t in jing for t in outside_kongs[s])}  # kongs never make 霸王
            return {s: self._jing_score(counts[s], holders == {s}, snap.floor) for s in seats}, counts

        def undo(claims: list[tuple[str, MeldTiles]]):
            """Tiles as if these claims had not happened: each claimed 精 back with its discarder."""
            t2 = {k: list(v) for k, v in tiles.items()}
            o2 = {k: list(v) for k, v in outside.items()}
            for s, m in claims:
                for d in (t2, o2) if m.meld_kind != "kong" else (t2,):
                    d[s].remove(m.claimed)
                    d[m.from_seat].append(m.claimed)
                if m.meld_kind == "kong":
                    o2[m.from_seat].append(m.claimed)
            return t2, o2

        tiles = {s: self._all_tiles(snap, s) for s in seats}
        outside = {s: self._all_tiles(snap, s, with_kongs=False) for s in seats}
        if self.rs.jing_rules("discarded"):  # discarded 精 still count (and make a holder)
            for s in seats:
                thrown = [t for t in self.discarded(snap, s) if t in jing]
                tiles[s] += thrown
                outside[s] += thrown
                if thrown:
                    ledger.fired += [r.name for r in self.rs.jing_rules("discarded")]
        actual, counts = scores(tiles, outside)
        liable: dict[str, tuple[str, MeldTiles]] = {}  # beneficiary → (discarder, the claim)
        for lia in self.rs.jing_rules("liability"):
            for s in seats:
                if s in liable or not self._formula_fires(lia.rule, counts[s], snap.floor):
                    continue
                for m in snap.hands.get(s, SeatHand()).melds:  # the last claim that made the difference
                    if m.claimed not in jing or m.from_seat not in seats or m.from_seat == s:
                        continue
                    _, asif_counts = scores(*undo([(s, m)]))
                    if not self._formula_fires(lia.rule, asif_counts[s], snap.floor):
                        liable[s] = (m.from_seat, m)
                if s in liable:
                    ledger.fired.append(lia.name)
        as_if = scores(*undo([(s, m) for s, (_, m) in liable.items()]))[0] if liable else actual
        for _, _, names in actual.values():
            ledger.fired += names
        payers = len(seats) - 1
        for payee in seats:
            for payer in seats:
                if payer == payee:
                    continue
                rule = name
                if not liable:
                    amount, parts, _ = actual[payee]
                elif payee in liable and liable[payee][0] == payer:
                    amount, parts, _ = actual[payee]
                    amount, parts = amount * payers, parts + [f"liable for all {payers} payers x{payers}"]
                    rule = f"{name}.liability"
                else:
                    amount, parts, _ = as_if[payee]
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
        amount = self._cap("jing", env, amount, parts)
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

