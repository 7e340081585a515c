"""One hand of play under a ruleset: wall, deal, 精 flip, turns, claims and settlements.

API::

    g = Game(ruleset, seed=7)
    while not g.over:
        seat = g.to_act()[0]
        g.apply(g.legal_actions(seat)[0])
    g.result.net()        # {seat: 子}

Every number and policy comes from the ruleset: the ``table`` parameters (seats, hand, deal,
stacks, dead wall, dice) and the ``flow`` policies of :mod:`engine.lang.flow` (RULES.md §1).

Phases: ``draw`` (the seat to play must draw: from the head, or from the tail after a kong),
``act`` (the seat holds a complete count: discard, declare a kong, or win), ``claim`` (after a
discard every seat that may claim answers: win, kong, pung, chow or pass; then the highest
claim, nearest the discarder, is taken), ``rob`` (after an added kong, seats that can win on it
answer), ``over``. An illegal action raises :class:`~engine.errors.IllegalAction` and changes
nothing. Randomness is only the wall's shuffle and the dice, both kept in the record.

:class:`Game` holds the hand's state and hands each applied action to the module that applies
its kind; each part of what a hand does is a module of its own, reading the game through a
typed protocol: the deal and the flips (deal.py, ``DealState``), what a seat may do now
(turn.py, ``TurnState``), may a seat win and on what (wins.py, ``HandInPlay``), what a seat's
own action does — draw, discard, kongs, a win on its draw, 抄庄 (moves.py, ``MoveState``),
claims and their priority once answered (claims.py, ``ClaimState``) and the end and its
settlements (ending.py, ``EndState``). The operations those modules change the game through
(:meth:`Game.add`, :meth:`Game.take`, :meth:`Game.log`, :meth:`Game.place_indicators`,
:meth:`Game.own_draw_win`, :meth:`Game.next_turn`, :meth:`Game.after_kong`,
:meth:`Game.end_hand`) are public; a caller outside the engine plays through :meth:`Game.apply`
alone.
"""
from __future__ import annotations

import random
from collections.abc import Callable
from typing import Unpack

from engine.core.scoring import Ledger, Scorer, SeatHand, Snapshot, WinInfo
from engine.lang import flow as FLOW
from engine.lang.playable import DIE_FACES, same_size
from engine.lang.ruleset import Ruleset
from engine.table import ending, moves
from engine.table.actions import (
    ACT,
    CLAIM,
    DRAW,
    FLIP,
    OVER,
    PICK,
    ROB,
    Action,
    Claim,
    Lock,
    check_shape,
    seat_actions,
    tile_actions,
)
from engine.table.actions import KINDS as KINDS  # re-exported: the game's public names
from engine.table.actions import HandResult as HandResult
from engine.table.claims import answer
from engine.table.deal import break_wall, deal_hands, pass_flip, pick, set_wilds, stop_flips
from engine.table.events import Event, EventFields
from engine.table.flips import Flips
from engine.table.picks import Picks
from engine.table.turn import Offer, own_turn, refusal, taken_at_once
from engine.table.wall import Wall
from engine.table.wins import Wins

__all__ = ["ACT", "CLAIM", "DRAW", "FLIP", "KINDS", "OVER", "PICK", "ROB", "Action", "Game", "HandResult", "Lock"]

class Game:
    """One hand. ``seed`` shuffles the wall and throws the dice; ``ring`` and ``dice`` (a record)
    or ``wall`` (a linear wall, head first, as scripted scenarios give) fix them instead.

    Raises :class:`~engine.errors.MjError` for a scripted or recorded wall that is not the
    ruleset's tiles; the table itself was proved playable when the ruleset was compiled.

    The state changes only through :meth:`apply`: the actions :meth:`legal_actions` offers are
    kept until the next applied action, and :meth:`apply` takes one of them without checking it
    again (any other action is checked in full, as ever).
    """

    def __init__(self, ruleset: Ruleset, seed: int | None = None, *, dealer: str | None = None, floor: int = 1,
                 ring: list[int] | None = None, wall: list[int] | None = None,
                 dice: list[tuple[int, ...]] | None = None, previous_indicators: dict[str, int] | None = None,
                 scorer: Scorer | None = None) -> None:
        self.rs = ruleset
        self.scorer = scorer or Scorer(ruleset)
        self.tiles = self.scorer.tiles
        s = self.scorer
        # the table's geometry (seats, deal, wall) was proved playable by the compiler
        # (engine.lang.playable), so it is read here without checking again
        self.seats: list[str] = [str(v) for v in self.rs.table["seats"].values]
        self.dealer = dealer or self.seats[0]
        self.floor = floor
        self.seed = seed
        self.rng = random.Random(seed)
        self.hand_size = s.rules.table_int("hand")
        self.dealer_extra = s.rules.table_int("dealer_extra")
        self.height = s.rules.table_int("stack_height")
        self.dead_tiles = s.rules.table_int("dead_wall") * self.height
        self.n_dice = s.rules.table_int("dice")
        deal = self.rs.table.get("deal")
        self.deal_chunks = [int(v) for v in deal.values] if deal else [self.hand_size]
        self.policies = {name: FLOW.policy(self.rs, name) for name in FLOW.POLICIES}
        self.meld_size = {kind: same_size(self.rs, kind) for kind in ("pung", "kong")}
        self.previous_indicators = dict(previous_indicators or {})
        self.dice_rolls: list[tuple[int, ...]] = list(dice or [])
        self.dice_thrown = 0  # how many of dice_rolls were used (deal.throw)
        self.ring: list[int] | None = None
        self.events: list[Event] = []  # what happened, in order (events.py)
        self.wall: Wall
        break_wall(self, ring, wall)  # the wall and the ring (deal.py)
        self.hands: dict[str, SeatHand] = {x: SeatHand() for x in self.seats}
        self.discards: dict[str, list[int]] = {x: [] for x in self.seats}  # still on the table
        self.discarded: dict[str, int] = dict.fromkeys(self.seats, 0)  # discards made, claimed ones too
        self.actions: list[Action] = []
        self.locks: dict[str, Lock] = {}
        self.phase = DRAW
        self.current = self.dealer
        self.last_drawn: int | None = None
        self.from_tail = False
        self.must_discard = False
        self.pending: dict[str, Claim] = {}
        self.last_discard: tuple[str, int] | None = None
        self.robbed: tuple[str, int] | None = None
        self.discard_count = 0
        self.interrupted = False  # a claim or kong has happened (no more 天胡/地胡/抄庄)
        self.first_discards: list[tuple[str, int]] = []  # (seat, tile) of the first go-around, until a claim
        self.follow_first = False
        self.result: HandResult | None = None
        self.parts: list[tuple[str, str, Ledger]] = []
        self.indicators: dict[str, int] = {}
        self.indicator_positions: dict[str, int] = {}
        self.picked = None if s.rules.picked is None else Picks(s.rules.picked, self.seats, len(self.tiles))
        flipped = next(((n, i.position) for n, i in self.rs.indicators.items() if i.position.type == "flips"), None)
        self.flips = None if flipped is None else Flips(flipped[0], int(flipped[1].count or 0), str(flipped[1].end),
                                                        tuple(range(self.n_dice, self.n_dice * DIE_FACES + 1)),
                                                        flipped[1].per_sum)
        # the loop's caches: count vectors kept with the hands, the actions last offered (trusted
        # by apply until the state changes) and each tile's chow partners
        self.counts: dict[str, list[int]] = {x: [0] * len(self.tiles) for x in self.seats}
        self._version = 0  # bumped by every applied action
        self._offered: Offer | None = None  # what legal_actions last offered the seat to act
        self._seat_index = {x: i for i, x in enumerate(self.seats)}
        # immutable actions built once and offered again and again (apply knows them by identity)
        self.plain_actions = {x: seat_actions(x) for x in self.seats}  # (shared by every game: actions.py)
        self.draw_actions = {x: self.plain_actions[x].draw for x in self.seats}  # (a dict read: the draw is asked every turn)
        self.discard_actions = {x: tile_actions(x, "discard", len(self.tiles)) for x in self.seats}
        self.after = {x: [self.seats[(i + k) % len(self.seats)] for k in range(len(self.seats))]
                       for i, x in enumerate(self.seats)}
        self._hand_version = dict.fromkeys(self.seats, 0)  # bumped when a seat's tiles change
        self.wins = Wins(self)  # may a seat win now, and on what (wins.py)
        self.wild: frozenset[int]  # the wild kinds every seat shares, and each seat's own (deal.set_wilds)
        self.wilds: dict[str, frozenset[int]]
        deal_hands(self)  # the deal, the indicators and the flips (deal.py)

    # ---- views ------------------------------------------------------------------------------------
    @property
    def over(self) -> bool:
        """Whether the hand has ended (a win or 荒庄)."""
        return self.phase == OVER

    @property
    def live_remaining(self) -> int:
        """Tiles that can still be drawn from the head before the hand is drawn (荒庄)."""
        dead = self.dead_tiles
        grow = self.policies["dead_wall"]
        if grow is not None and grow["per_kong"][0]:
            kongs = sum(1 for h in self.hands.values() for m in h.melds if m.meld_kind == "kong")
            dead += int(grow["per_kong"][0]) * kongs * self.height
        return max(self.wall.remaining - dead, 0)

    def to_act(self) -> list[str]:
        """Seats that have an action to take now (several during a claim)."""
        if self.phase in (CLAIM, ROB):
            return [s for s, c in self.pending.items() if c.answer is None]
        if self.phase == OVER:
            return []
        return [self.current]

    def next_seat(self, seat: str, k: int = 1) -> str:
        """The seat ``k`` places after ``seat`` in play order."""
        i = self._seat_index.get(seat)
        if i is None:
            i = self.seats.index(seat)  # ValueError for a seat not at this table, as before
        return self.seats[(i + k) % len(self.seats)]

    def score_snapshot(self, win: WinInfo | None = None, hands: dict[str, SeatHand] | None = None) -> Snapshot:
        """The table as the scorer reads it (:class:`~engine.core.hands.Snapshot`): seats, dealer,
        floor, the indicators as ``win`` sees them (a 随精 pick), ``hands`` (default: the
        game's), the discards without a discard win's tile."""
        discards = self.discards
        if win is not None and win.by == "discard":  # the tile won on is the winner's, not a discard
            assert win.from_seat is not None, "a discard win names the discarder"
            discards = dict(discards)
            discards[win.from_seat] = discards[win.from_seat][:-1]
        indicators = self.picked.indicators(self.indicators, win) if self.picked else dict(self.indicators)
        return Snapshot(self.seats, self.dealer, self.floor, indicators, hands or self.hands, win, discards,
                        self.picked.chosen if self.picked else {})

    def hand_version(self, seat: str) -> int:
        """A number that changes whenever ``seat``'s tiles do (the win checks' caches key on it)."""
        return self._hand_version[seat]

    def set_concealed(self, seat: str, tiles: list[int]) -> None:
        """Give ``seat`` the concealed ``tiles`` (a position set up by hand: a test, a puzzle);
        the actions offered before are stale."""
        self.hands[seat].concealed = list(tiles)
        self.counts[seat] = self.tiles.counts(tiles)
        self._hand_version[seat] += 1
        self._version += 1

    def set_indicators(self, indicators: dict[str, int]) -> None:
        """Set the indicators (a position set up by hand); the 精 follow, and the actions
        offered before are stale."""
        self.indicators = dict(indicators)
        set_wilds(self)
        self._version += 1

    # ---- the operations the hand's parts change it through (deal.py, claims.py, moves.py, ending.py) ----
    # Each is one step of an action being applied (or of the deal), on a seat, tile and position
    # that action was checked for; none checks them again. Called from outside an applied action,
    # it changes the state without marking the actions offered before as stale.
    def log(self, kind: str, **data: Unpack[EventFields]) -> None:
        """Append an event of kind ``kind`` with the fields ``data`` (their shapes by kind:
        :class:`~engine.table.events.EventFields`; tiles by code, nets in 子 by seat) to
        :attr:`events`, numbered by its place."""
        self.events.append(Event(n=len(self.events), event=kind, **data))

    def add(self, seat: str, tile: int) -> None:
        """Put ``tile`` (a tile kind's index, ``0 ≤ tile < len(tiles)``) in ``seat``'s concealed
        tiles (the count vector and the seat's :meth:`hand_version` follow). A seat not at the
        table raises ``KeyError``, a tile past the last kind ``IndexError`` after the tile was
        appended (the hand left inconsistent)."""
        self.hands[seat].concealed.append(tile)
        self.counts[seat][tile] += 1
        self._hand_version[seat] += 1

    def take(self, seat: str, tile: int, n: int = 1) -> None:
        """Take ``n`` copies of ``tile`` (a tile kind's index) from ``seat``'s concealed tiles (the
        count vector and the seat's :meth:`hand_version` follow). A seat holding fewer than ``n``
        raises ``ValueError`` part way (the copies found are gone, the hand left inconsistent)."""
        concealed = self.hands[seat].concealed
        for _ in range(n):
            concealed.remove(tile)
        self.counts[seat][tile] -= n
        self._hand_version[seat] += 1

    def place_indicators(self, positions: dict[str, int]) -> None:
        """Put indicators at these wall positions (indicator name → position, ``p = stack·height
        + level`` of the linear wall: wall.py; placing.py finds them): each takes the tile there
        (one ``picked by each seat`` only marks the place) and is logged unless ``hidden``
        (RULES.md §1 精, 下精). A name the ruleset does not declare raises ``KeyError``, a
        position past the wall ``IndexError``."""
        for name, p in positions.items():
            self.indicator_positions[name] = p
            if self.rs.indicators[name].picked:  # its place anchors others; its tile is never turned
                continue
            self.indicators[name] = self.wall.tiles[p]
            if not self.rs.indicators[name].hidden:
                self.log("indicator", name=name, tile=self.tiles.code(self.wall.tiles[p]), position=p)

    # ---- legal actions ---------------------------------------------------------------------------
    def legal_actions(self, seat: str) -> list[Action]:
        """Every action ``seat`` may take now ([] when it has none)."""
        if self.phase == OVER or not isinstance(seat, str) or seat not in self.seats:
            return []
        if self.phase in (CLAIM, ROB):
            c = self.pending.get(seat)
            return [] if c is None or c.answer is not None else list(c.legal)
        if seat != self.current:
            return []
        if self.phase == DRAW:
            return [self.draw_actions[seat]]
        if self.phase == FLIP:
            return [self.plain_actions[seat].stop, self.plain_actions[seat].pass_]
        if self.phase == PICK:
            return list(self.picked.offers[seat]) if self.picked else []
        offered = self._offered
        if offered is not None and offered.version == self._version and offered.seat == seat:
            return list(offered.actions)
        out, win = own_turn(self, seat)
        self._offered = tuple.__new__(Offer, (self._version, seat, out, win))  # NamedTuple.__new__ is slower
        return list(out)

    def actions_by_kind(self, seat: str) -> dict[str, list[Action]]:
        """:meth:`legal_actions` grouped by kind, in their order (what a bot chooses from)."""
        out: dict[str, list[Action]] = {}
        for a in self.legal_actions(seat):
            out.setdefault(a.kind, []).append(a)
        return out

    taken_at_once = staticmethod(taken_at_once)

    # ---- applying actions --------------------------------------------------------------------------
    def apply(self, action: Action | str) -> None:
        """Apply one legal action. Raises :class:`IllegalAction` (state unchanged) otherwise."""
        if isinstance(action, str):
            action = Action.parse(action, self.scorer)
        if not self._just_offered(action):  # an object legal_actions just gave, nothing changed since, is legal
            check_shape(action, self.seats, len(self.tiles))
            legal = self.legal_actions(action.seat)
            if action not in legal:
                raise refusal(self, action, legal)
        self.actions.append(action)
        try:
            APPLY[action.kind](self, action)
        finally:
            self._version += 1

    def _just_offered(self, action: object) -> bool:
        """Whether ``action`` is one of the very objects :meth:`legal_actions` offered and
        nothing has changed since (then it is legal without checking again)."""
        if self.phase in (CLAIM, ROB):
            c = self.pending.get(action.seat) if type(action) is Action and type(action.seat) is str else None
            legal = c.legal if c is not None and c.answer is None else ()
        elif self.phase == DRAW:
            return action is self.draw_actions.get(self.current)
        else:
            offered = self._offered
            legal = offered.actions if offered is not None and offered.version == self._version else ()
        for a in legal:  # noqa: SIM110 (a loop: no generator on the path of every action)
            if a is action:
                return True
        return False

    # ---- what the hand's parts ask of the game: the win a draw offers; the steps they share -------
    # (a turn passing, a kong's replacement, the end: deal.py, claims.py and moves.py take them,
    # moves.py and ending.py apply them)
    def own_draw_win(self, seat: str) -> WinInfo | None:
        """The win ``seat`` may take on its own draw now (phase ``act``): the one
        :meth:`legal_actions` offered it when nothing has changed since, else checked again
        (:meth:`~engine.table.wins.Wins.on_own_draw`); None when it may not win. Changes nothing
        of the hand."""
        offered = self._offered
        if offered is not None and offered.version == self._version and offered.seat == seat:
            return offered.win  # computed when the win was offered
        return self.wins.on_own_draw(seat)

    def next_turn(self, seat: str) -> None:
        """Give the turn to ``seat``: it draws from the head (phase ``draw``), or, when no live
        tile is left (:attr:`live_remaining`, the dead wall kept), the hand ends drawn (荒庄;
        RULES.md §1 荒庄). Applied through moves.next_turn."""
        moves.next_turn(self, seat)

    def after_kong(self) -> None:
        """A kong was made by :attr:`current`: it draws a replacement from the tail next (phase
        ``draw``), and a ``pass_lock`` policy that resets on ``kong`` lifts every lock (RULES.md
        §1 Wall, 弃先胡后). Applied through moves.after_kong."""
        moves.after_kong(self)

    def end_hand(self, win: WinInfo | None) -> None:
        """End the hand, won (``win``) or drawn (None: 荒庄): the indicators turned at the end are
        placed, every settlement is made (:attr:`result`, :attr:`parts`), the winning tile ends in
        the winner's hand and the phase is ``over`` (RULES.md §1 荒庄; §2 When). Applied through
        ending.end_hand; raises as :meth:`~engine.core.scoring.Scorer.settle_end_parts` does."""
        ending.end_hand(self, win)


# ---- what each kind of action does: a seat's own action (moves.py), an answer to a claim
# (claims.py), a pick or a flip's answer (deal.py) -------------------------------------------------
def _win(g: Game, a: Action) -> None:
    if g.phase in (CLAIM, ROB):
        answer(g, a)  # a win on a discard or a kong answers a claim
    else:
        moves.win(g, a)


def _pass(g: Game, a: Action) -> None:
    if g.phase == FLIP:  # a seat that could stop the flips passes: the next one asked, or the next flip
        pass_flip(g)
    else:
        answer(g, a)  # claims.py: kept, and resolved once all are in


APPLY: dict[str, Callable[[Game, Action], None]] = {
    "draw": moves.draw, "discard": moves.discard, "concealed_kong": moves.concealed_kong,
    "added_kong": moves.added_kong, "win": _win, "pass": _pass, "pung": answer, "kong": answer, "chow": answer,
    "pick": pick, "stop": stop_flips,
}  # every kind of actions.KINDS (tests/test_game.py)
