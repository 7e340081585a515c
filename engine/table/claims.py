"""Who takes a discard, and does an added kong stand? Claims and their priority, once the seats
offered one have answered.

After a discard, each seat turn.py offered a claim answers (win, kong, pung, chow or pass);
when all have, a seat that passed a win is locked (弃先胡后), the claim ``claim_priority`` and
the seat nearest after the discarder put first is taken (截胡; turn.taken_claim): a win ends the
hand, a meld is made (the seats it skipped lose their turn, and may lose their lock) and the
claimer discards or, after a kong, draws from the tail; when nobody claims, the next seat draws.
After an added kong, a seat that robs it wins (抢杠), else the kong is completed.

The functions change a :class:`ClaimState` (what they need of a
:class:`~engine.table.game.Game`, beyond the :class:`~engine.table.turn.TurnState` the offers
read): its fields, and its tiles, events, turns and end through its public operations
(``take``, ``log``, ``next_turn``, ``after_kong``, ``end_hand``). The game calls :func:`answer`
for each claim's answer and :func:`complete_added_kong` for an added kong nobody may rob
(RULES.md §1 Claims, One winner (截胡), 弃先胡后, Melds; §2 Win score: 抢杠).
"""
from __future__ import annotations

from typing import Protocol, Unpack

from engine.core.hands import MeldTiles
from engine.core.scoring import WinInfo
from engine.core.tiles import TileSet
from engine.table.actions import ACT, CLAIM, Action, Claim, Lock
from engine.table.events import EventFields
from engine.table.turn import TurnState, claimed_meld, taken_claim


class ClaimState(TurnState, Protocol):
    """What claims and their priority read and change of a hand (a :class:`~engine.table.game.Game`):
    a :class:`~engine.table.turn.TurnState` and the claims pending."""

    tiles: TileSet
    current: str  # the seat to act
    pending: dict[str, Claim]  # seat → its claim on the discard (or on the added kong), in play order
    robbed: tuple[str, int] | None  # (seat, tile) of an added kong that may be robbed
    interrupted: bool  # a claim or a kong has happened (no more 天胡/地胡/抄庄)

    def log(self, kind: str, **data: Unpack[EventFields]) -> None: ...

    def take(self, seat: str, tile: int, n: int = 1) -> None: ...

    def next_turn(self, seat: str) -> None: ...

    def after_kong(self) -> None: ...

    def end_hand(self, win: WinInfo | None) -> None: ...

    def next_seat(self, seat: str, k: int = 1) -> str: ...


def answer(g: ClaimState, a: Action) -> None:
    """Keep ``a.seat``'s answer to its claim; once every claimant has answered, resolve the
    claims on the discard (phase ``claim``) or the robbing of the kong (phase ``rob``)."""
    g.pending[a.seat].answer = a
    if all(c.answer is not None for c in g.pending.values()):
        if g.phase == CLAIM:
            resolve_claims(g)
        else:
            resolve_rob(g)


def resolve_claims(g: ClaimState) -> None:
    """Every claimant has answered the last discard: lock the seats that passed a win (a
    ``pass_lock`` policy), then make the claim taken (:func:`~engine.table.turn.taken_claim`), or
    give the turn to the seat after the discarder when all passed."""
    assert g.last_discard is not None, "claims are on the last discard"
    discarder, tile = g.last_discard
    for seat, c in g.pending.items():  # 弃先胡后: a seat that could win and did not
        passed = c.answer is not None and c.answer.kind != "win"
        if passed and g.policies["pass_lock"] and any(o.kind == "win" for o in c.options):
            info = g.wins.info(seat, tile, "discard", discarder)
            g.locks[seat] = Lock(tile, g.wins.value(info))
            g.log("pass_lock", seat=seat, tile=g.tiles.code(tile))
    taken = taken_claim(g, g.pending)
    g.pending = {}
    if taken is None:
        g.next_turn(g.next_seat(discarder))
        return
    seat = taken.seat
    if taken.kind == "win":
        g.end_hand(g.wins.info(seat, tile, "discard", discarder))
        return
    g.discards[discarder].pop()
    unlock_skipped(g, discarder, seat)
    g.interrupted = True
    g.locks.pop(seat, None)  # its own claim lifts its lock
    meld, used = claimed_meld(g, taken, tile, discarder)
    for t in used:
        g.take(seat, t)
    g.hands[seat].melds.append(meld)
    g.log(taken.kind, seat=seat, tile=g.tiles.code(tile), source=discarder)
    g.current = seat
    if taken.kind == "kong":
        g.after_kong()
    else:
        g.phase, g.must_discard = ACT, True


def unlock_skipped(g: ClaimState, discarder: str, claimer: str) -> None:
    """Seats between the discarder and the claimer lose their turn, and with it their lock when
    the ``pass_lock`` policy resets on ``skipped_turn``."""
    pl = g.policies["pass_lock"]
    if pl and "skipped_turn" in pl["resets"]:
        for seat in g.after[discarder][1:g.after[discarder].index(claimer)]:
            g.locks.pop(seat, None)


def resolve_rob(g: ClaimState) -> None:
    """Every seat that could rob the added kong has answered: the first that won takes the tile
    from the declarer and wins (抢杠), else the kong is completed."""
    assert g.robbed is not None, "a kong is being robbed"
    seat, tile = g.robbed
    winners = [s for s, c in g.pending.items() if c.answer is not None and c.answer.kind == "win"]
    g.pending = {}
    if winners:
        g.take(seat, tile)
        g.end_hand(g.wins.info(winners[0], tile, "rob_kong", seat))
    else:
        complete_added_kong(g)


def complete_added_kong(g: ClaimState) -> None:
    """The added kong stands: the declarer's pung of the tile becomes a kong (from the same
    discarder), and the declarer draws from the tail."""
    assert g.robbed is not None, "an added kong is pending"
    seat, tile = g.robbed
    hand = g.hands[seat]
    g.take(seat, tile)
    i = next(i for i, m in enumerate(hand.melds) if m.meld_kind == "pung" and m.tiles[0] == tile)
    old = hand.melds[i]
    hand.melds[i] = MeldTiles("kong", old.tiles + (tile,), added=True, from_seat=old.from_seat, claimed=old.claimed)
    g.robbed = None
    g.interrupted = True
    g.current = seat
    g.after_kong()
