"""What does a seat's own action do to the hand? A turn's actions applied, once checked: the
draw (from the head, or from the tail after a kong), the discard (then the other seats may
claim it, or the turn passes), a concealed kong and an added kong (then the seats that may rob
it answer, or it stands), the win on the seat's own draw, and the 抄庄 that the first
go-around's discards may make.

turn.py says which of these a seat may take now; claims.py resolves what the other seats answer
to a discard or an added kong. The functions change a :class:`MoveState` (what they need of a
:class:`~engine.table.game.Game`, beyond the :class:`~engine.table.claims.ClaimState` that
claims change): its fields, and its tiles, events and end through its public operations
(``add``, ``take``, ``log``, ``end_hand``); none checks the action again. The game calls
:func:`draw`, :func:`discard`, :func:`concealed_kong`, :func:`added_kong` and :func:`win` when
such an action is applied, and :func:`next_turn` and :func:`after_kong` for
:meth:`~engine.table.game.Game.next_turn` and :meth:`~engine.table.game.Game.after_kong`
(RULES.md §1 Wall, Melds, Claims, 弃先胡后, 荒庄; §2 Win score: 抄庄).
"""
from __future__ import annotations

from typing import Protocol

from engine.core.hands import MeldTiles
from engine.core.scoring import WinInfo
from engine.table.actions import ACT, CLAIM, DRAW, ROB, Action
from engine.table.claims import ClaimState, complete_added_kong
from engine.table.ending import Part
from engine.table.turn import claims_on, robbers


class MoveState(ClaimState, Protocol):
    """What a seat's own actions read and change of a hand (a :class:`~engine.table.game.Game`):
    a :class:`~engine.table.claims.ClaimState` (a discard and an added kong make claims) and
    the state of the draws and of the first go-around."""

    floor: int  # the dealer's 爬楼 floor (a 抄庄 is paid by it)
    from_tail: bool  # the seat to act draws, or drew, from the tail (after a kong)
    last_drawn: int | None  # the tile the seat to act drew (None once it discards)
    discard_count: int  # discards made in the hand
    first_discards: list[tuple[str, int]]  # (seat, tile) of the first go-around, until a claim or kong
    follow_first: bool  # a 抄庄 was settled
    parts: list[Part]  # the settlements made so far
    wilds: dict[str, frozenset[int]]  # each seat's wild kinds

    def add(self, seat: str, tile: int) -> None: ...

    def own_draw_win(self, seat: str) -> WinInfo | None: ...


def draw(g: MoveState, a: Action) -> None:
    """``a.seat`` draws the wall's next tile, from the tail after a kong, else from the head; its
    弃先胡后 lock lifts and it acts (phase ``act``). The win checks learn whether the draw could
    have won (wins.py)."""
    if g.from_tail:
        tile, pos = g.wall.draw_tail()
    else:
        tile, pos = g.wall.draw_head()
    hopeless = g.wins.hopeless(a.seat)  # no tile could complete the hand before the draw?
    g.add(a.seat, tile)
    g.wins.drew(a.seat, hopeless)
    g.last_drawn = tile
    g.locks.pop(a.seat, None)  # 弃先胡后 lifts on the seat's own draw
    g.log("draw", seat=a.seat, tile=g.tiles.code(tile), tail=g.from_tail, position=pos)
    g.phase = ACT


def discard(g: MoveState, a: Action) -> None:
    """``a.seat`` discards ``a.tile``: it may make a 抄庄 (:func:`track_follow_first`), a 精
    discarded lifts every lock when the ``pass_lock`` policy resets on ``jing_discard``; then
    the seats that may claim it answer (phase ``claim``: turn.claims_on), or the next seat's
    turn comes (:func:`next_turn`)."""
    assert a.tile is not None, "a discard names its tile (checked before)"
    g.take(a.seat, a.tile)
    g.discards[a.seat].append(a.tile)
    g.discarded[a.seat] += 1
    g.discard_count += 1
    g.must_discard = g.from_tail = False
    g.last_drawn = None
    g.log("discard", seat=a.seat, tile=g.tiles.code(a.tile))
    track_follow_first(g, a.seat, a.tile)
    pl = g.policies["pass_lock"]
    if pl and "jing_discard" in pl["resets"] and a.tile in g.wilds[a.seat]:
        g.locks.clear()
    g.last_discard = (a.seat, a.tile)
    g.pending = claims_on(g, a.seat, a.tile)
    if g.pending:
        g.phase = CLAIM
    else:
        next_turn(g, g.next_seat(a.seat))


def concealed_kong(g: MoveState, a: Action) -> None:
    """``a.seat`` declares a concealed kong of ``a.tile`` (暗杠): the copies leave its concealed
    tiles for a concealed meld, and it draws a replacement (:func:`after_kong`)."""
    hand = g.hands[a.seat]
    size = g.meld_size["kong"]
    assert a.tile is not None and size is not None, "a kong names its tile; offered only when sized"
    g.take(a.seat, a.tile, size)
    hand.melds.append(MeldTiles("kong", (a.tile,) * size, concealed=True))
    g.interrupted = True
    g.log("concealed_kong", seat=a.seat, tile=g.tiles.code(a.tile))
    after_kong(g)


def added_kong(g: MoveState, a: Action) -> None:
    """``a.seat`` adds ``a.tile`` to its pung (加杠): the seats that may rob it answer (抢杠,
    phase ``rob``: turn.robbers), else the kong stands (claims.complete_added_kong)."""
    assert a.tile is not None, "an added kong names its tile (checked before)"
    g.pending = robbers(g, a.seat, a.tile)
    g.robbed = (a.seat, a.tile)
    g.log("added_kong", seat=a.seat, tile=g.tiles.code(a.tile))
    if g.pending:
        g.phase = ROB
    else:
        complete_added_kong(g)


def win(g: MoveState, a: Action) -> None:
    """``a.seat`` wins on its own draw (phase ``act``; a win on a discard or a kong answers a
    claim: claims.py): the hand ends with the win offered (``own_draw_win``)."""
    g.end_hand(g.own_draw_win(a.seat))


def next_turn(g: MoveState, seat: str) -> None:
    """``seat``'s turn: it draws from the head (phase ``draw``), or the hand ends drawn when no
    live tile is left (``live_remaining``: the dead wall kept; 荒庄)."""
    g.current = seat
    g.from_tail = False
    if g.live_remaining <= 0:
        g.end_hand(None)
        return
    g.phase = DRAW


def after_kong(g: MoveState) -> None:
    """The seat to act made a kong: it draws a replacement from the tail next (phase ``draw``),
    and a ``pass_lock`` policy that resets on ``kong`` lifts every lock."""
    pl = g.policies["pass_lock"]
    if pl and "kong" in pl["resets"]:
        g.locks.clear()
    g.from_tail = True
    g.must_discard = False
    g.phase = DRAW


def track_follow_first(g: MoveState, seat: str, tile: int) -> None:
    """Note ``seat``'s discard ``tile`` while the first go-around lasts (no claim or kong yet);
    once every seat has discarded, the scorer says whether the discards make a 抄庄, settled
    ``during`` the hand and logged (RULES.md §2 抄庄)."""
    if g.interrupted or g.discard_count > len(g.seats):
        return
    g.first_discards.append((seat, tile))
    if len(g.first_discards) == len(g.seats):
        lg = g.scorer.flow.follow_first(g.first_discards, g.seats, g.dealer, g.floor)
        if lg is not None:
            g.follow_first = True
            g.parts.append(("during", "follow_first", lg))
            g.log("follow_first", tile=g.tiles.code(tile), net=lg.net(g.seats))
