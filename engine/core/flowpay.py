"""What a ``flow`` policy makes a seat pay during a hand: the dealer's 抄庄 (every seat's first
discard the same tile: ``follow_first_discard``, RULES.md §1 Dealer, §2) and 发电's penalty for
stopping an indicator's flips without winning (``stop_penalty``)."""
from __future__ import annotations

from engine.core.caps import Caps
from engine.core.ledger import Ledger, Transfer
from engine.core.reader import RuleReader
from engine.lang import flow as FLOW


class FlowPayments:
    """The payments of one ruleset's ``follow_first_discard`` and ``stop_penalty`` policies."""

    def __init__(self, rules: RuleReader, caps: Caps):
        self.rs = rules.rs
        self.caps = caps

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
                env = self.caps.env(floor, True, False)
                amount, parts = self.caps.settled("follow", pays, env, [f"pays {pays}"])
                if amount:
                    lg.transfers.append(Transfer(dealer, other, amount, "follow_first", "flow.follow_first_discard",
                                                 tuple(parts)))
        return lg

    def follow_first_stands(self, won: bool) -> bool:
        """Whether a 抄庄 made during the hand is paid at its end: always, or with
        ``follow_first_discard(needs_win: yes)`` only when the hand is won (``won``)."""
        p = FLOW.policy(self.rs, "follow_first_discard")
        return p is None or p["needs_win"][0] != "yes" or won

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
