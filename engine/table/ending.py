"""How a hand's settlements close when it ends (:meth:`engine.table.game.Game` at a win or a
荒庄): the scorer's end parts (the win or the 荒庄 payment, the 精 settled at the end), 发电's
stop penalty, a 抄庄 voided when only a won hand pays it, and a cap ``on net`` over everything
the hand settled (RULES.md §2 When)."""
from __future__ import annotations

from engine.core.scoring import Ledger, Scorer, Snapshot
from engine.table.actions import HandResult

Part = tuple[str, str, Ledger]  # (when: after_deal / during / end, part name, ledger)


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
