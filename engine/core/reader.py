"""What the rules say about a table state, before any money moves: the ruleset's parameters,
the 精 kinds of an indicator, the facts of a win (engine/lang/facts.py), the fans that fire and
the factors in force. Every part of :class:`~engine.core.scoring.Scorer` (and
:class:`~engine.core.legality.Legality`) holds one and reads the rules through it."""
from __future__ import annotations

from engine.core.hands import HandEvaluator, Reading
from engine.core.ledger import Roles, SeatHand, Snapshot, WinSituation
from engine.core.tiles import TileSet
from engine.errors import RuleError
from engine.lang.expr import Env, ExprCache
from engine.lang.facts import BY_FACTS
from engine.lang.ruleset import Expr, Fan, Ruleset


class RuleReader:
    """One ruleset read for table states: built once; stateless per call."""

    def __init__(self, rs: Ruleset):
        self.rs = rs
        self.tiles = TileSet(rs)
        self.hands = HandEvaluator(rs, self.tiles, self.complete_hand)
        values = rs.jing_rules("value")
        self.jing_value = values[0] if values else None
        self._compiled = ExprCache()
        # the indicator each seat picks its own kind of (`picked by each seat`; at most one)
        self.picked = next((n for n, i in rs.indicators.items() if i.picked), None)

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

    def wild_kinds(self, snap: Snapshot, seat: str | None = None) -> frozenset[int]:
        """The 正/副精 kinds of every wild indicator the snapshot gives a tile for. With ``seat``,
        that seat's own wilds: a ``picked by each seat`` indicator counts the seat's pick
        (``snap.picks``) instead of its tile in ``snap.indicators`` (the winner's pick)."""
        out: set[int] = set()
        own = snap.picks.get(seat) if seat is not None and self.picked is not None else None
        for name, ind in self.rs.indicators.items():
            tile = own if own is not None and name == self.picked else snap.indicators.get(name)
            if ind.wild and tile is not None:
                out |= {k for k in self.jing_kinds(tile) if k is not None}
        return frozenset(out)

    @staticmethod
    def discarded(snap: Snapshot, seat: str) -> list[int]:
        """The tiles ``seat`` discarded that nobody claimed (not the tile a discard win took)."""
        return list(snap.discards.get(seat, ()))

    def all_tiles(self, snap: Snapshot, seat: str, with_kongs: bool = True) -> list[int]:
        """Every tile ``seat`` holds: concealed, in melds (kongs unless ``with_kongs`` is false)
        and the winning tile when it is the winner."""
        h = snap.hands.get(seat, SeatHand())
        tiles = list(h.concealed)
        for m in h.melds:
            if with_kongs or m.meld_kind != "kong":
                tiles += m.tiles
        if snap.win and snap.win.seat == seat:
            tiles.append(snap.win.tile)
        return tiles

    # ---- expressions --------------------------------------------------------------------------------
    def eval(self, expr: Expr, env: Env, reading: Reading | None = None) -> int:
        """The value of a condition or formula (a number or a bool) for the facts ``env`` and,
        where one is in question, ``reading``'s pattern: :mod:`engine.lang.expr`, compiled once
        per node."""
        return self._compiled(expr)(env, reading.pattern if reading is not None else None)

    def factors(self, scope: str | tuple[str, ...], env: Env, after: bool, only: set[str] | None = None,
                 reading: Reading | None = None, after_caps: bool = False) -> list[tuple[str, int]]:
        """(name, value) of the factors on ``scope`` (a scope, or several: a factor on any of them
        counts once) whose condition holds, in declaration order: those before the adders
        (``after`` false), those ``after adders``, or — with ``after_caps`` — those ``after caps``."""
        scopes = {scope} if isinstance(scope, str) else set(scope)
        out = []
        for f in self.rs.factors.values():
            if not scopes & set(f.scopes) or f.cap is not None or f.after_caps != after_caps:
                continue
            if not after_caps and f.after_adders != after:
                continue
            if only is not None and f.name not in only:
                continue
            if f.when is not None and not self.eval(f.when, env, reading):
                continue
            out.append((f.name, int(self.eval(f.value, env, reading))))
        return out

    def cap(self, scope: str | tuple[str, ...], env: Env, amount: int, parts: list[str],
            reading: Reading | None = None) -> int:
        """``amount`` lowered to the least ``at most N`` factor on ``scope`` (one or several) whose
        condition holds (each transfer of the scope is at most N 子); the trail notes a cap that bites."""
        scopes = {scope} if isinstance(scope, str) else set(scope)
        for f in self.rs.factors.values():
            if f.cap is None or not scopes & set(f.scopes):
                continue
            if f.when is not None and not self.eval(f.when, env, reading):
                continue
            if amount > f.cap:
                amount = f.cap
                parts.append(f"factor.{f.name} at most {f.cap}")
        return amount

    # ---- win score --------------------------------------------------------------------------------------
    def win_facts(self, snap: Snapshot, reading: Reading) -> dict[str, int]:
        """The win facts of engine/lang/facts.py for one reading of the snapshot's win:
        :meth:`facts_of` of its roles, floor and :meth:`situation`."""
        return self.facts_of(reading, Roles.of(snap), snap.floor, self.situation(snap))

    def situation(self, snap: Snapshot) -> WinSituation:
        """What the snapshot's win was beyond its reading, seating and floor (RULES.md §2
        conditions): read off the tiles and the win."""
        w = snap.win
        assert w is not None
        wild = self.wild_kinds(snap)
        hand = snap.hands.get(w.seat, SeatHand())
        mains = {snap.indicators[n] for n, i in self.rs.indicators.items() if i.wild and n in snap.indicators}
        nexts = wild - mains
        thrown = self.discarded(snap, w.seat) if snap.discards else []
        held = list(hand.concealed) + ([w.tile] if w.by in ("self_draw", "kong_draw") else [])
        others = [s for s in snap.seats if s != w.seat]
        return WinSituation(
            by=w.by, first_turn=w.first_turn,
            anyone_holds_wild=any(k in wild for s in snap.seats for k in self.all_tiles(snap, s, with_kongs=False)),
            others_wilds_concealed=sum(1 for s in others for t in snap.hands.get(s, SeatHand()).concealed if t in wild),
            others_wilds=sum(1 for s in others for t in self.all_tiles(snap, s) if t in wild),
            concealed_hand=all(m.meld_kind == "kong" and m.concealed for m in hand.melds),
            wilds_held=sum(1 for t in held if t in wild),
            discarded_main=sum(1 for t in thrown if t in mains),
            discarded_next=sum(1 for t in thrown if t in nexts))

    @staticmethod
    def facts_of(reading: Reading, roles: Roles, floor: int, sit: WinSituation) -> dict[str, int]:
        """The win facts (engine/lang/facts.py: each name to 0/1 or a count) of a win with
        ``reading``, seated as ``roles`` says, at ``floor``, in the situation ``sit``.

        This is the one place a win's facts are made. The scorer calls it for a snapshot
        (:meth:`win_facts`), the value bot for a hand it may reach (with a typical ``sit``).
        The fact ``keeps`` (the dealer's keeps before this hand) is ``floor - 1``."""
        return {
            **BY_FACTS[sit.by],  # self_drawn, discard, robbed_kong, after_kong
            "first_turn": sit.first_turn,
            "dealer_wins": roles.winner == roles.dealer,
            "discarder_is_dealer": sit.by == "discard" and roles.discarder == roles.dealer,
            "wilds_used": reading.wilds > 0,
            "wilds": reading.wilds,
            "anyone_holds_wild": sit.anyone_holds_wild,
            "others_wilds_concealed": sit.others_wilds_concealed,
            "others_wilds": sit.others_wilds,
            "jing_wait": reading.jing_wait,
            "concealed_hand": sit.concealed_hand,
            "floor": floor,
            "keeps": floor - 1,
            "wilds_held": sit.wilds_held,
            "discarded_main": sit.discarded_main,
            "discarded_next": sit.discarded_next,
        }

    def fired_fans(self, env: Env, reading: Reading) -> list[Fan]:
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

    @staticmethod
    def payer_matches(spec: str, payer: str, discarder: str | None, dealer: str, robbed: str | None = None) -> bool:
        """Whether ``payer`` is a seat the payer role ``spec`` names (RULES.md §2 Win score):
        ``each`` every payer, ``discarder`` the seat whose discard is won, ``robbed`` the seat
        whose kong is robbed (抢杠), ``others`` every payer but the discarder, ``dealer``."""
        if spec == "each":
            return True
        if spec == "discarder":
            return payer == discarder
        if spec == "robbed":
            return payer == robbed
        if spec == "others":
            return payer != discarder
        return payer == dealer  # "dealer"
