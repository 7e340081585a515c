"""How does a hand end, and what has it paid? At a win or a 荒庄 the indicators turned at the
end are placed, every settlement is closed, and the winning tile ends in the winner's hand.

:func:`end_hand` does that to an :class:`EndState` (what it needs of a
:class:`~engine.table.game.Game`): its fields, and its tiles, indicators and events through
its public operations (``take``, ``add``, ``place_indicators``, ``log``); the game calls it
for :meth:`~engine.table.game.Game.end_hand`, which deal.py, claims.py and moves.py end the
hand through. :func:`close_hand` is the settlements' arithmetic: the scorer's end parts (the
win or the 荒庄 payment, the 精 settled at the end), 发电's stop penalty, a 抄庄 voided when
only a won hand pays it, and a cap ``on net`` over everything the hand settled (RULES.md §1
荒庄; §2 When).
"""
from __future__ import annotations

from typing import Protocol, Unpack

from engine.core.scoring import Ledger, Scorer, SeatHand, Snapshot, WinInfo
from engine.core.tiles import TileSet
from engine.lang.ruleset import Ruleset
from engine.table.actions import OVER, HandResult
from engine.table.events import EventFields
from engine.table.flips import Flips
from engine.table.picks import Picks
from engine.table.placing import next_draw_positions
from engine.table.wall import Wall

Part = tuple[str, str, Ledger]  # (when: after_deal / during / end, part name, ledger)


class EndState(Protocol):
    """What the end reads and changes of a hand (a :class:`~engine.table.game.Game`)."""

    rs: Ruleset
    scorer: Scorer
    tiles: TileSet
    seats: list[str]  # in play order
    wall: Wall
    phase: str
    discards: dict[str, list[int]]  # seat → the tiles it discarded that nobody claimed
    indicators: dict[str, int]  # indicator name → its tile kind
    indicator_positions: dict[str, int]  # indicator name → its wall position
    picked: Picks | None
    flips: Flips | None
    follow_first: bool  # a 抄庄 was settled
    parts: list[Part]  # the settlements made so far
    result: HandResult | None

    def log(self, kind: str, **data: Unpack[EventFields]) -> None: ...

    def add(self, seat: str, tile: int) -> None: ...

    def take(self, seat: str, tile: int, n: int = 1) -> None: ...

    def place_indicators(self, positions: dict[str, int]) -> None: ...

    def score_snapshot(self, win: WinInfo | None = None, hands: dict[str, SeatHand] | None = None) -> Snapshot: ...


def end_hand(g: EndState, win: WinInfo | None) -> None:
    """End the hand, won (``win``) or drawn (None: 荒庄): the indicators turned at the end are
    placed, every settlement is made (:func:`close_hand`: ``result``, ``parts``), a 随精 pick
    becomes the winner's, the winning tile ends in the winner's hand, the phase is ``over`` and
    the end is logged."""
    g.place_indicators(next_draw_positions(g.rs, g.wall, set(g.indicator_positions.values())))
    snap = g.score_snapshot(win)
    if win is not None and win.by in ("self_draw", "kong_draw"):
        g.take(win.seat, win.tile)
    g.result = result = close_hand(g.scorer, snap, g.flips.stopper if g.flips else None, g.follow_first, g.parts)
    g.parts, g.follow_first = result.parts, result.follow_first
    if g.picked is not None and g.picked.name in snap.indicators:  # the winner's pick, from now on
        g.indicators[g.picked.name] = tile = snap.indicators[g.picked.name]
        g.log("indicator", name=g.picked.name, tile=g.tiles.code(tile))
    if win is not None:  # the winning tile ends in the winner's hand
        if win.by == "discard":
            assert win.from_seat is not None, "a discard win names the discarder"
            g.discards[win.from_seat].pop()
        g.add(win.seat, win.tile)
    g.phase = OVER
    g.log("end", winner=win.seat if win else None, by=win.by if win else "exhaustive",
          fans=result.fans, net=result.net(g.seats))


def close_hand(scorer: Scorer, snap: Snapshot, stopper: str | None, follow_first: bool,
               parts: list[Part]) -> HandResult:
    """The :class:`HandResult` of the hand ``snap`` ends (its ``win``, None for a 荒庄), given the
    parts settled before (``parts``, not changed), the seat that stopped the flips (None: none),
    and whether a 抄庄 was settled. Raises as :meth:`Scorer.settle_end_parts` does."""
    win = snap.win
    end, ws = scorer.settle_end_parts(snap, stopper)
    kept = list(parts)
    if follow_first and not scorer.flow.follow_first_stands(win is not None):
        follow_first = False  # a 抄庄 that only a won hand pays: void on a drawn hand
        kept = [p for p in kept if p[1] != "follow_first"]
    kept += [("end", name, lg) for name, lg in end]
    capped = scorer.caps.net_cap(snap.seats, [lg for _, _, lg in kept])
    if capped is not None:
        kept.append(("end", scorer.NET_CAP_PART, capped))
    return HandResult(win.seat if win else None, win, ws.reading.pattern if ws else None,
                      ws.fans if ws else [], kept, follow_first)
