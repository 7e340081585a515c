"""What may a seat do now? The actions a hand being played offers: on its own turn (win, kongs,
discards), on another seat's discard (win, kong, pung, chow), and why an action is refused.

The functions read a :class:`TurnState` (what they need of a :class:`~engine.table.game.Game`)
and change nothing; the game applies what is chosen (RULES.md §1 Turns, Claims)."""
from __future__ import annotations

from typing import NamedTuple, Protocol

from engine.core.hands import MeldTiles
from engine.core.scoring import Scorer, SeatHand, WinInfo
from engine.errors import IllegalAction
from engine.table.actions import OVER, Action, Claim, Lock, SeatActions, chow_action, tile_actions
from engine.table.wall import Wall
from engine.table.wins import Wins

Policies = dict[str, dict[str, tuple[str | int, ...]] | None]
DEFAULT_PRIORITY = ("win", "kong", "pung", "chow")  # a ruleset without `claim_priority` (RULES.md §1 Claims)


class Offer(NamedTuple):
    """The actions :meth:`Game.legal_actions` offered ``seat`` at state ``version``, and the
    self-drawn win among them (None: no win)."""

    version: int
    seat: str
    actions: list[Action]
    win: WinInfo | None


class TurnState(Protocol):
    """What the action offers read of a hand being played."""

    scorer: Scorer
    seats: list[str]
    dealer: str
    phase: str
    hands: dict[str, SeatHand]
    discards: dict[str, list[int]]  # each seat's discards still on the table
    discarded: dict[str, int]  # each seat's discards made in the hand, claimed ones too
    counts: dict[str, list[int]]  # each seat's concealed tiles as a count per kind
    must_discard: bool  # the seat to act claimed: it discards, nothing else
    wall: Wall
    meld_size: dict[str, int | None]
    policies: Policies
    plain_actions: dict[str, SeatActions]
    discard_actions: dict[str, tuple[Action, ...]]
    after: dict[str, list[str]]  # seat → the seats in play order from it
    locks: dict[str, Lock]
    last_discard: tuple[str, int] | None
    wins: Wins

    @property
    def live_remaining(self) -> int: ...

    def to_act(self) -> list[str]: ...


def own_turn(g: TurnState, seat: str) -> tuple[list[Action], WinInfo | None]:
    """The actions of ``seat`` holding a complete count (phase ``act``): the win on its own draw
    (none after a claim), its concealed and added kongs (while the wall has tiles), a discard of
    each kind it holds; and the win's facts (None: no win)."""
    out: list[Action] = []
    win = None if g.must_discard else g.wins.on_own_draw(seat)
    if win is not None:
        out.append(g.plain_actions[seat].win)
    counts = g.counts[seat]
    held = [k for k, n in enumerate(counts) if n]
    if not g.must_discard and g.wall.remaining > 0:
        kong = g.meld_size["kong"]
        if kong:
            for k in held:
                if counts[k] >= kong and concealed_kong_allowed(g, seat):
                    out.append(tile_actions(seat, "concealed_kong", len(counts))[k])
        for m in g.hands[seat].melds:
            if m.meld_kind == "pung" and counts[m.tiles[0]]:
                out.append(tile_actions(seat, "added_kong", len(counts))[m.tiles[0]])
    discards = g.discard_actions[seat]
    out += [discards[k] for k in held]
    return out, win


def taken_at_once(by_kind: dict[str, list[Action]]) -> Action | None:
    """What every bot takes without weighing anything: a win when one is offered, else the
    draw when it is the seat's turn to draw, else a stop of the flips (发电); None when there is
    a choice to make."""
    for kind in ("win", "draw", "stop"):
        if kind in by_kind:
            return by_kind[kind][0]
    return None


def concealed_kong_allowed(g: TurnState, seat: str) -> bool:
    """Whether ``seat`` may declare a concealed kong now (``no_concealed_kong``: not before its
    first discard, for anyone or the dealer alone; a discard another seat claimed counts, the
    starting hand being gone)."""
    p = g.policies["no_concealed_kong"]
    if p is None or g.discarded[seat]:
        return True
    return not (p["who"][0] == "anyone" or seat == g.dealer)


def claim_options(g: TurnState, seat: str, tile: int, discarder: str) -> list[Action]:
    """What ``seat`` may claim of ``discarder``'s discard ``tile``: a win, then (unless it is the
    last tile and ``last_discard(claims: win)``) a kong while the wall has tiles, a pung, and the
    chows the ``chow`` policy allows (from the seat before, or anyone)."""
    out: list[Action] = []
    plain = g.plain_actions[seat]
    if g.wins.on_discard(seat, tile, "discard", discarder):
        out.append(plain.win)
    last = g.policies["last_discard"]
    if last is not None and last["claims"][0] == "win" and g.live_remaining == 0:
        return out  # the last tile: it may be won, not claimed
    have = g.counts[seat]
    n = have[tile]
    kong, pung = g.meld_size["kong"], g.meld_size["pung"]
    if kong and n >= kong - 1 and g.wall.remaining > 0:
        out.append(plain.kong)
    if pung and n >= pung - 1:
        out.append(plain.pung)
    chow = g.policies["chow"]
    if chow and (chow["from"][0] == "any" or seat == g.after[discarder][1]):
        for need, rest in g.scorer.hands.chow_partners(tile):
            for k, c in need:
                if have[k] < c:
                    break
            else:
                out.append(chow_action(seat, rest))
    return out


def claims_on(g: TurnState, discarder: str, tile: int) -> dict[str, Claim]:
    """The seats that may claim ``discarder``'s discard ``tile``, in play order after it, each
    with its :func:`claim_options`."""
    out: dict[str, Claim] = {}
    for seat in g.after[discarder][1:]:
        opts = claim_options(g, seat, tile, discarder)
        if opts:
            out[seat] = Claim(opts)
    return out


def robbers(g: TurnState, seat: str, tile: int) -> dict[str, Claim]:
    """The seats that may rob ``seat``'s added kong of ``tile`` (抢杠; a ``rob_kong`` policy), in
    play order after it, each offered the win alone."""
    if g.policies["rob_kong"] is None:
        return {}
    return {s: Claim([g.plain_actions[s].win]) for s in g.after[seat][1:]
            if g.wins.on_discard(s, tile, "rob_kong", seat)}


def claimed_meld(g: TurnState, taken: Action, tile: int, discarder: str) -> tuple[MeldTiles, list[int]]:
    """The meld a taken chow, pung or kong of ``discarder``'s ``tile`` makes, and the tiles it
    takes from the claimer's concealed ones."""
    if taken.kind == "chow":
        return MeldTiles("chow", tuple(sorted(taken.tiles + (tile,))), from_seat=discarder, claimed=tile), \
            list(taken.tiles)
    size = g.meld_size[taken.kind]
    assert size is not None, "a pung or kong is offered only when the ruleset sizes it"
    return MeldTiles(taken.kind, (tile,) * size, from_seat=discarder, claimed=tile), [tile] * (size - 1)


def taken_claim(g: TurnState, pending: dict[str, Claim]) -> Action | None:
    """The answer that takes the discard once every claimant answered: the first kind in the
    ``claim_priority`` order (default win, kong, pung, chow) that someone chose, by the seat
    nearest after the discarder (截胡; ``pending`` is in that order); None when all passed."""
    order = (g.policies["claim_priority"] or {"order": DEFAULT_PRIORITY})["order"]
    answers = [c.answer for c in pending.values() if c.answer is not None]
    for kind in order:
        for ans in answers:
            if ans.kind == kind:
                return ans
    return None


def refusal(g: TurnState, action: Action, legal: list[Action]) -> IllegalAction:
    """Why ``action`` (not among ``legal``, the seat's actions now) is refused, saying what to do
    instead: the hand is over, 弃先胡后's lock, a win policy, nothing to do, or what is legal."""
    text = action.text(g.scorer)
    if g.phase == OVER:
        return IllegalAction(f"illegal action {text!r}: the hand is over")
    lock = g.locks.get(action.seat)
    if (action.kind == "win" and lock is not None and g.last_discard is not None
            and g.last_discard[0] != action.seat
            and g.wins.completes(action.seat, g.last_discard[1], True)):
        return IllegalAction(
            f"illegal action {text!r}: {action.seat} passed a win on {g.scorer.tiles.code(lock.tile)} and may not "
            "win on a discard until its own draw or claim (pass_lock)")
    refused = g.wins.refused(action)
    if refused is not None:
        return IllegalAction(f"illegal action {text!r}: {refused.message}", hint=refused.hint)
    if not legal:
        return IllegalAction(f"illegal action {text!r}: {action.seat} has nothing to do now; "
                             f"waiting for {', '.join(g.to_act())} ({g.phase})")
    return IllegalAction(f"illegal action {text!r} in phase {g.phase}",
                         hint="legal now: " + ", ".join(a.text(g.scorer) for a in legal[:12])
                         + (" …" if len(legal) > 12 else ""))
