"""May this seat win now, and on what? The win checks of a hand being played.

A :class:`Wins` answers for one :class:`~engine.table.game.Game` (read through
:class:`HandInPlay`, what the checks need of it): whether a tile completes a seat's hand, the
win a seat may take on its own draw or on another seat's discard or kong, why the ruleset
refuses a win the tiles make (the scorer's state-only policies: 精钓, 天胡 rules …), and what a
win would bring (for 弃先胡后's ``higher_score`` reset). It keeps two caches of the loop: whether
any claimed tile could complete a seat's hand (three seats look at every discard; a hand
changes once a turn), and the seat whose draw cannot win (no tile could complete its hand
before it drew).
"""
from __future__ import annotations

from typing import NamedTuple, Protocol

from engine.core.scoring import Scorer, SeatHand, Snapshot, WinInfo
from engine.errors import IllegalAction
from engine.table.actions import CLAIM, DRAW, ROB, Action, Lock


class HandInPlay(Protocol):
    """What the win checks read of a hand being played (a :class:`~engine.table.game.Game`)."""

    scorer: Scorer
    seats: list[str]
    dealer: str
    hands: dict[str, SeatHand]
    wilds: dict[str, frozenset[int]]
    interrupted: bool  # a claim or a kong has happened (no more 天胡/地胡)
    discard_count: int
    last_drawn: int | None
    from_tail: bool  # the seat to act drew from the tail (after a kong)
    phase: str
    robbed: tuple[str, int] | None
    last_discard: tuple[str, int] | None
    locks: dict[str, Lock]
    policies: dict[str, dict[str, tuple[str | int, ...]] | None]

    def score_snapshot(self, win: WinInfo | None = None, hands: dict[str, SeatHand] | None = None) -> Snapshot: ...

    def hand_version(self, seat: str) -> int: ...


class Claimable(NamedTuple):
    """Whether some claimed tile could complete a seat's hand, as of its hand version and 精."""

    version: int
    wild: frozenset[int]
    could: bool


class Wins:
    """The win checks of ``game`` (see the module docstring)."""

    def __init__(self, game: HandInPlay):
        self.game = game
        self.claimable: dict[str, Claimable] = {}  # seat → whether a claimed tile could complete its hand
        self.no_self_win: tuple[str, int] | None = None  # (seat, hand version) whose draw cannot win

    def info(self, seat: str, tile: int, by: str, from_seat: str | None = None) -> WinInfo:
        """The win of ``seat`` on ``tile`` by ``by`` (``self_draw``, ``kong_draw``, ``discard``,
        ``rob_kong``; ``from_seat`` the discarder), marked first (天胡/地胡, RULES.md §2) when
        nothing interrupted the first go-round."""
        g = self.game
        first = False
        if not g.interrupted:
            if by == "self_draw" and seat == g.dealer and g.discard_count == 0:
                first = True  # 天胡
            if by == "discard" and from_seat == g.dealer and g.discard_count == 1 and seat != g.dealer:
                first = True  # 地胡
        return WinInfo(seat, tile, by, from_seat, first)

    def completes(self, seat: str, tile: int, natural: bool, hand: SeatHand | None = None) -> bool:
        """Whether ``seat``'s hand (or ``hand``) with ``tile`` is a complete hand (any reading,
        before the policies that may refuse it); ``natural``: ``tile`` counts as itself, not a 精."""
        g = self.game
        h = hand or g.hands[seat]
        return g.scorer.hands.is_win(h.concealed + [tile], h.melds, g.wilds[seat], tile, natural)

    def could_win_on_claim(self, seat: str) -> bool:
        """Whether some claimed tile could complete ``seat``'s hand (the tables'
        ``could_win_on_claim``), kept until the seat's tiles or the 精 change."""
        g = self.game
        got = self.claimable.get(seat)
        version, wild = g.hand_version(seat), g.wilds[seat]
        if got is None or got.version != version or got.wild is not wild:
            h = g.hands[seat]
            got = self.claimable[seat] = Claimable(version, wild, g.scorer.hands.tables.could_win_on_claim(
                h.concealed, h.melds, wild))
        return got.could

    def hopeless(self, seat: str) -> bool:
        """Whether no tile could complete ``seat``'s hand as it is now (known from the last
        :meth:`could_win_on_claim`, nothing measured): its next draw cannot win."""
        got = self.claimable.get(seat)
        return got is not None and not got.could and got.version == self.game.hand_version(seat) \
            and got.wild is self.game.wilds[seat]

    def drew(self, seat: str, hopeless: bool) -> None:
        """``seat`` has drawn; ``hopeless``: :meth:`hopeless` said so before the draw."""
        self.no_self_win = (seat, self.game.hand_version(seat)) if hopeless else None

    def on_own_draw(self, seat: str) -> WinInfo | None:
        """The self-drawn win ``seat`` has now, if any (the last drawn tile wins)."""
        g = self.game
        if g.last_drawn is None or self.no_self_win == (seat, g.hand_version(seat)):
            return None  # (no tile could complete the hand before this draw: could_win_on_claim)
        hand = g.hands[seat]
        rest = list(hand.concealed)
        rest.remove(g.last_drawn)
        if not self.completes(seat, g.last_drawn, False, SeatHand(rest, hand.melds)):
            return None
        info = self.info(seat, g.last_drawn, "kong_draw" if g.from_tail else "self_draw")
        return info if self.refusal(info, SeatHand(rest, hand.melds)) is None else None

    def refusal(self, info: WinInfo, hand: SeatHand | None = None) -> IllegalAction | None:
        """Why the ruleset forbids this win judged on the state alone (the scorer's
        :meth:`~engine.core.legality.Legality.check_win_allowed`, shared with ``score`` and ``test``),
        or None. ``hand``: the winner's hand without the winning tile (default: as held)."""
        g = self.game
        hands = dict(g.hands)
        if hand is not None:
            hands[info.seat] = hand
        try:
            g.scorer.legal.check_win_allowed(g.score_snapshot(info, hands))
        except IllegalAction as exc:
            return exc
        return None

    def refused(self, action: Action) -> IllegalAction | None:
        """For an illegal ``win`` on a tile that completes the hand: the state-only policy that
        forbids it (the reason an error message gives), else None."""
        g = self.game
        if action.kind != "win":
            return None
        if g.phase == ROB:
            assert g.robbed is not None, "a kong is being robbed"
            (frm, tile), by = g.robbed, "rob_kong"
        elif g.last_discard is not None and (g.phase == CLAIM or (g.phase == DRAW and not g.from_tail)):
            (frm, tile), by = g.last_discard, "discard"  # the discard nobody has taken yet
        else:
            return None
        if action.seat not in g.seats or frm == action.seat or not self.completes(action.seat, tile, True):
            return None
        return self.refusal(self.info(action.seat, tile, by, frm))

    def on_discard(self, seat: str, tile: int, by: str, from_seat: str) -> WinInfo | None:
        """The win ``seat`` may take on another's tile (``by``: ``discard`` or ``rob_kong``),
        after the state-only policies (:meth:`refusal`: 精钓) and 弃先胡后 (pass_lock)."""
        g = self.game
        if not self.could_win_on_claim(seat) or not self.completes(seat, tile, True):
            return None
        info = self.info(seat, tile, by, from_seat)
        if self.refusal(info) is not None:
            return None
        lock = g.locks.get(seat)
        pl = g.policies["pass_lock"]
        if by == "discard" and lock is not None and pl is not None:
            same_only = pl["scope"][0] == "same_tile"
            if (not same_only or lock.tile == tile) and not (
                    "higher_score" in pl["resets"] and self.value(info) > lock.value):
                return None
        return info

    def value(self, info: WinInfo) -> int:
        """What the win would bring its seat, in 子 (for the pass lock's higher_score reset)."""
        g = self.game
        try:
            return g.scorer.score_win(g.score_snapshot(info)).ledger.net(g.seats)[info.seat]
        except IllegalAction:
            return 0
