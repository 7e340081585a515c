"""What a kong earns in a 精 settlement (RULES.md §2 Kongs, 杠精): its kong points (concealed,
added or exposed), the 精-kong bonus when its four tiles are 精, and who pays them."""
from __future__ import annotations

from collections.abc import Mapping

from engine.core.caps import Caps
from engine.core.hands import MeldTiles
from engine.core.ledger import KongItem, Ledger, SeatHand, Snapshot
from engine.core.reader import RuleReader


class Kongs:
    """The kong rules of one ruleset (``jing … = kong …`` points and ``… kong bonus`` rules)."""

    def __init__(self, rules: RuleReader, caps: Caps):
        self.rules = rules
        self.rs = rules.rs
        self.caps = caps

    def items(self, meld: MeldTiles, jing: set[int], any_jing: set[int] | None = None,
              with_kongs: bool = True) -> list[KongItem]:
        """What one kong earns from each other seat in a settlement ``with kongs``: one
        :class:`KongItem` per item — the 精-kong bonus when its four tiles are one of the ``jing``
        kinds (for a bonus ``of any indicator``, one of ``any_jing``: the kinds of every indicator
        of the hand; default ``jing``; a bonus ``of each indicator`` is listed for ``jing`` alone,
        the others' being booked in their own settlements: :meth:`bonuses`), and the kong points
        (concealed, added or exposed) unless a bonus replaces them (one of another indicator too).
        A bonus ``exposed from discarder`` on a kong made on a discard is marked
        ``from_discarder``: that seat pays it for every payer. Not a kong: no items.
        ``with_kongs`` False: the settlement of an indicator that does not settle with kongs,
        where a kong earns only its bonuses ``of each indicator``."""
        if not with_kongs:
            return self.bonuses(meld, jing)
        if meld.meld_kind != "kong":
            return []
        four_of = meld.tiles[0] if len(set(meld.tiles)) == 1 else None
        exposed = not meld.concealed and not meld.added and meld.from_seat is not None
        out: list[KongItem] = []
        replaced = False
        for b in self.rs.jing_rules("kong_bonus"):
            kinds = (any_jing if any_jing is not None else jing) if b.any_indicator else jing
            if four_of is not None and four_of in kinds:
                out.append(KongItem(b.amount, f"jing.{b.name}", b.exposed_from_discarder and exposed))
                replaced = replaced or b.replaces_kong_points
            elif b.each_indicator and four_of is not None and any_jing is not None and four_of in any_jing:
                replaced = replaced or b.replaces_kong_points  # its bonus is another settlement's
        if not replaced:
            for k in self.rs.jing_rules("kong"):
                pts = k.concealed if meld.concealed else k.added if meld.added else k.exposed
                out.append(KongItem(pts, f"jing.{k.name}"))
        return out

    def bonuses(self, meld: MeldTiles, jing: set[int]) -> list[KongItem]:
        """The bonuses ``of each indicator`` a kong earns in the settlement of an indicator that
        does not settle ``with kongs``: one per such bonus when its four tiles are one of that
        indicator's ``jing`` kinds (the kong points stay in the settlement ``with kongs``)."""
        if meld.meld_kind != "kong" or len(set(meld.tiles)) != 1 or meld.tiles[0] not in jing:
            return []
        exposed = not meld.concealed and not meld.added and meld.from_seat is not None
        return [KongItem(b.amount, f"jing.{b.name}", b.exposed_from_discarder and exposed)
                for b in self.rs.jing_rules("kong_bonus") if b.each_indicator]

    def paid(self, meld: MeldTiles, jing: set[int], any_jing: set[int] | None, *, floor: int,
             payer_is_dealer: bool, collector_is_dealer: bool, drawn: bool = False, with_kongs: bool = True) -> int:
        """子 one other seat pays the holder of ``meld`` in the settlement of an indicator whose
        kinds are ``jing``: one ``with kongs`` (``with_kongs``) pays each of its :meth:`items`,
        another only the bonuses ``of each indicator`` (:meth:`bonuses`); but those the
        discarder pays for all (``from_discarder``); each :meth:`Caps.paid` (scopes ``jing`` and
        ``kongs``) with the transfer's facts, as :meth:`book` pays them."""
        return sum(self.caps.paid(("jing", "kongs"), item.amount, floor=floor, payer_is_dealer=payer_is_dealer,
                                  collector_is_dealer=collector_is_dealer, drawn=drawn)
                   for item in self.items(meld, jing, any_jing, with_kongs) if not item.from_discarder)

    def hand_kinds(self, indicators: Mapping[str, int]) -> set[int]:
        """The 正/副精 kinds of every indicator of this hand that ``indicators`` (name → tile)
        gives a tile for (not a ``previous`` one, which is the hand before's; for a ``family``
        one, every member's): what a kong bonus ``of any indicator`` tests."""
        out: set[int] = set()
        for name, ind in self.rs.indicators.items():
            if name in indicators and ind.position.type != "previous":
                tiles = self.rules.tiles.family(indicators[name]) if ind.family else (indicators[name],)
                out |= {k for t in tiles for k in self.rules.jing_kinds(t) if k is not None}
        return out

    def book(self, snap: Snapshot, ledger: Ledger, jing: set[int], part: str, with_kongs: bool = True) -> None:
        """Book the kongs' items of the settlement ``part`` (indicator kinds ``jing``) in
        ``ledger``: with kongs, :meth:`items`; else only the bonuses ``of each indicator``
        (:meth:`bonuses`). An item ``from_discarder`` is paid by that seat for every payer."""
        bonus = {f"jing.{b.name}": b.name for b in self.rs.jing_rules("kong_bonus")}
        any_jing = self.hand_kinds(snap.indicators)
        payers = len(snap.seats) - 1
        for s in snap.seats:
            for m in snap.hands.get(s, SeatHand()).melds:
                for item in self.items(m, jing, any_jing, with_kongs):
                    if item.rule in bonus:
                        ledger.fired.append(bonus[item.rule])
                    trail = f"{item.rule} {self.rules.tiles.format(list(m.tiles))} {item.amount}"
                    if item.from_discarder and m.from_seat in snap.seats and m.from_seat != s:
                        self.caps.book(ledger, snap, m.from_seat, s, item.amount * payers,
                                       [trail, f"exposed from discarder for all {payers} payers x{payers}"],
                                       part, item.rule, scope=("jing", "kongs"))
                        continue
                    for payer in snap.seats:
                        if payer != s:
                            self.caps.book(ledger, snap, payer, s, item.amount, [trail], part, item.rule,
                                           scope=("jing", "kongs"))
