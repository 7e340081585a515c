"""What a hand is worth: every part of its settlement, as ledgers of transfers.

Input is a :class:`Snapshot` of the table at the end of a hand (or right after the deal);
output is a :class:`Ledger` per part: one :class:`Transfer` per payer and payee, each naming the
rule path and the factors behind its amount, so every 子 can be explained. Every part is
zero-sum by construction (a transfer moves an amount from one seat to another).

:class:`Scorer` composes the parts, each holding its own question (RULES.md §2): a win's payment
(:mod:`engine.core.payment`), a 精 count's score (:mod:`engine.core.jingscore`), liability
(:mod:`engine.core.liability`), kongs (:mod:`engine.core.kongs`), a 精 settlement
(:mod:`engine.core.jingsettle`), 抄庄 and 发电's penalty (:mod:`engine.core.flowpay`), the
settlement factors and caps (:mod:`engine.core.caps`); what the rules say of a table state is
:class:`~engine.core.reader.RuleReader`'s, what is checked first
:class:`~engine.core.legality.Legality`'s. The game, the value bot and the impact review call
the same parts.
"""
from __future__ import annotations

from engine.core.caps import Caps
from engine.core.flowpay import FlowPayments
from engine.core.jingscore import JingScores
from engine.core.jingsettle import JingSettlement
from engine.core.kongs import Kongs
from engine.core.ledger import (
    CLAIM_KINDS,
    MAX_AMOUNT,
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
from engine.core.liability import Liability
from engine.core.payment import WinPayment
from engine.core.reader import RuleReader
from engine.lang.ruleset import Ruleset

__all__ = ["CLAIM_KINDS", "MAX_AMOUNT", "WIN_BY", "JingScore", "KongItem", "Ledger", "Roles", "Scorer", "SeatHand",
           "Snapshot", "Transfer", "WinInfo", "WinScore", "WinSituation", "indicator_of"]


class Scorer:
    """Scores snapshots under one ruleset. Built once; stateless per call (but for bounded memos).

    Its parts, each public and used by every caller: ``rules`` (:class:`RuleReader`), ``legal``
    (:class:`Legality`), ``caps`` (:class:`Caps`), ``payment`` (:class:`WinPayment`), ``jing``
    (:class:`JingScores`), ``liability`` (:class:`Liability`), ``kongs`` (:class:`Kongs`),
    ``settlement`` (:class:`JingSettlement`), ``flow`` (:class:`FlowPayments`). ``rs``, ``tiles``
    and ``hands`` are the ruleset and the reader's tile set and hand evaluator. ``memo_limit``:
    the entries each memo of a pure function of the rules keeps before it is emptied."""

    MEMO_LIMIT = 4096  # entries per memo of a pure function of the rules (cleared when full)
    NET_CAP_PART = Caps.NET_CAP_PART

    def __init__(self, rs: Ruleset, memo_limit: int = MEMO_LIMIT):
        self.rs = rs
        self.rules = RuleReader(rs)
        self.tiles = self.rules.tiles
        self.hands = self.rules.hands
        self.legal = Legality(self.rules)
        self.caps = Caps(self.rules, memo_limit)
        self.payment = WinPayment(self.rules, self.legal, self.caps)
        self.jing = JingScores(self.rules, self.caps, memo_limit)
        self.liability = Liability(self.rules, self.jing, self.caps)
        self.kongs = Kongs(self.rules, self.caps)
        self.settlement = JingSettlement(self.rules, self.legal, self.jing, self.liability, self.kongs, self.caps)
        self.flow = FlowPayments(self.rules, self.caps)

    def memo_sizes(self) -> dict[str, int]:
        """Entries each of the scorer's memos holds now (``jing_score``, ``settled``): each is
        bounded by the ``memo_limit`` given (default :attr:`MEMO_LIMIT`)."""
        return {"jing_score": len(self.jing.memo), "settled": len(self.caps.memo)}

    def score_win(self, snap: Snapshot) -> WinScore:
        """The win scored on the reading best for the winner: :meth:`WinPayment.score`."""
        return self.payment.score(snap)

    def settle_exhaustive(self, snap: Snapshot) -> Ledger:
        """The 荒庄 payment of a drawn hand: :meth:`WinPayment.exhaustive`."""
        return self.payment.exhaustive(snap)

    def settle_indicator(self, snap: Snapshot, name: str, tile: int | None = None) -> Ledger:
        """One 精 settlement of indicator ``name``: :meth:`JingSettlement.settle`."""
        return self.settlement.settle(snap, name, tile)

    def settle_snapshot(self, snap: Snapshot, stopper: str | None = None
                        ) -> tuple[dict[str, Ledger], list[tuple[str, Ledger]], WinScore | None]:
        """A snapshot scored on its own (``mjrules score``, a scenario): every part by name —
        :meth:`settle_end_parts`, and the indicators settled after the deal settled on these
        same hands (those the snapshot gives a tile for, and those it makes:
        :meth:`JingSettlement.made_indicators`) — with the end parts apart (their sum is the hand's total) and
        the win; with a cap ``on net``, its :meth:`Caps.net_cap` over all of them, as an end part.
        ``stopper``: as :meth:`settle_end_parts` takes it. Raises as :meth:`settle_end_parts` does."""
        end_parts, win = self.settle_end_parts(snap, stopper)
        parts = dict(end_parts)
        for part, _, lg in self.after_deal_parts(snap):
            parts[part] = lg
        for name in snap.indicators:  # an indicator that settles neither way (given for the record)
            if name not in parts and not self.rs.indicators[name].family and self.rs.indicators[name].settle is None:
                parts[name] = self.settle_indicator(snap, name)
        capped = self.caps.net_cap(snap.seats, parts.values())
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
                self.legal.check_melds(snap)  # once for all the parts
                checked = True
            if ind.position.type == "each_tile" or ind.family:
                out += [(part, kind, self.settlement.settle_checked(snap, part, kind))
                        for part, kind in self.settlement.made_indicators(snap, name).items()]
            elif name in snap.indicators:
                out.append((name, None, self.settlement.settle_checked(snap, name, None)))
        return out

    def settle_end_parts(self, snap: Snapshot, stopper: str | None = None) -> tuple[list[tuple[str, Ledger]], WinScore | None]:
        """Everything settled at the end of the hand, part by part: ``hand`` (the win, or the
        荒庄 payment), on a win each ``… each per discarded`` rule (:meth:`JingSettlement.discard_bonus`), then every indicator declared ``settle at end`` that the snapshot gives a
        tile for — each its own ledger, even when nobody pays — and, when ``stopper`` (the seat
        that stopped an indicator's flips) owes it, :meth:`FlowPayments.stop_penalty` (part ``stop_penalty``)."""
        win = self.score_win(snap) if snap.win else None
        parts = [("hand", win.ledger if win else self.settle_exhaustive(snap))]
        if win:
            parts += [(r.name, self.settlement.discard_bonus(snap, r.name)) for r in self.rs.jing_rules("discard_bonus")]
        for name, ind in self.rs.indicators.items():
            if ind.settle == "at_end" and (ind.position.type == "each_tile" or ind.family):
                parts += [(tile_name, self.settlement.settle_checked(snap, tile_name, kind))
                          for tile_name, kind in self.settlement.made_indicators(snap, name).items()]
            elif ind.settle == "at_end" and name in snap.indicators:  # (melds checked by the hand's part)
                parts.append((name, self.settlement.settle_checked(snap, name, None)))
        penalty = self.flow.stop_penalty(stopper, snap.win.seat if snap.win else None, snap.seats)
        if penalty:
            parts.append(("stop_penalty", penalty))
        return parts, win

