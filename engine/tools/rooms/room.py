"""A room: one match of a ruleset played by people and bots, rebuilt from what the store kept.

A :class:`Room` holds the match (dealer, floor, the previous hand's indicators, running totals)
and the hand being played (a :class:`~engine.table.game.Game`). It has one writer, the room's
actor (:mod:`engine.tools.rooms.hub`), which calls it from one task (or one worker thread at a
time) and nobody else; it takes no lock. Every action it applies is kept as a
:class:`~engine.tools.rooms.store.Write` (:meth:`Room.take_writes`), which the actor commits
before it publishes the new table (:meth:`Room.publish`), so nobody hears of an action the
database does not have. :meth:`Room.load` deals each hand again from the room's seed
(:func:`~engine.table.match.hand_seed`, as ``mjrules simulate`` and ``play`` seed theirs) and
applies its stored actions: the same tiles, the same table.

A seat is played by its person, or by a bot: a bot seat always, a person's seat while it is
away past the grace period or its turn timer ran out (托管). A bot's choice depends only on the
table and on (room seed, hand, action number, seat), never on how long the server has been
up, so a restarted room plays on as it would have.

Views are built by :func:`engine.table.view.seat_view` only, from the snapshot a
:class:`Published` holds: a seat sees its own tiles, a spectator what every seat sees (no
concealed hand, other seats' concealed kongs face down, hidden indicators hidden until the
hand ends, nobody's 随精 pick).
"""
from __future__ import annotations

import hashlib
import hmac
import json
import secrets
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from engine.core.scoring import Scorer
from engine.errors import IllegalAction, MjError
from engine.lang.ruleset import Ruleset
from engine.lang.seeds import SEED_SPACE
from engine.table.bots import LIVE_BOTS
from engine.table.game import Action, Game
from engine.table.match import Bot, Match, play_until_person
from engine.table.records import game_record
from engine.table.view import ActionView, ViewText, snapshot, tile_set
from engine.tools.play import result_json
from engine.tools.rooms.caps import MAX_ACTION_CHARS, MAX_STEPS
from engine.tools.rooms.store import RoomRow, Store, Write

HUMAN = "human"
STAND_IN = "greedy"  # the bot that plays a person's seat while it is away (托管)
TOKEN_BYTES = 24  # random bytes of a seat's token (unguessable)
ID_BYTES = 9  # random bytes of a room id
NEVER = float("inf")  # away since: a seat nobody has opened yet waits for its person (the host may remove it)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def click_version(value: object) -> int | None:
    """The version of the table a click was made on, as a message gives it (:meth:`Room.act`):
    a whole number, or None for anything else (no version, a string, ``true``)."""
    return value if type(value) is int else None


def bot_seed(seed: int, hand: int, seq: int, seat_index: int) -> int:
    """The seed of a bot's one decision: the same table and the same numbers, the same choice."""
    return (((seed * 1_000_003 + hand) * 1_009 + seq) * 8 + seat_index) % SEED_SPACE


def dumps(data: object) -> str:
    """JSON text of a frame's part (orjson: the rooms' frames are most of a server's work)."""
    return orjson.dumps(data).decode()


def _nobody(seat: str) -> Bot | None:
    return None


@dataclass(frozen=True)
class Published:
    """A room as it was at ``version``, immutable: what every reader (a frame, a summary) is
    built from while the room's actor goes on. ``table`` is the table's snapshot, with its views
    as JSON (:class:`~engine.table.view.ViewText`), None once the match is over;
    ``frame`` gives each viewer's frame as JSON text (built once a viewer, then kept)."""

    version: int
    table: ViewText | None
    head: str  # the frame's fields every viewer shares (version, hand, totals, last, players, away …), JSON
    summary: dict[str, Any]
    frames: dict[str | None, str] = field(default_factory=dict, compare=False)

    def frame(self, seat: str | None) -> str:
        """``{"type": "state", "seat", "version", …, "view"}`` as JSON for ``seat`` (None: a
        spectator): :func:`seat_view` of the snapshot. Built once per viewer; the shared fields
        are encoded once for all."""
        out = self.frames.get(seat)
        if out is None:
            view = self.table.text(seat) if self.table is not None else "null"
            out = f'{{"type":"state","seat":{dumps(seat)},{self.head[1:-1]},"view":{view}}}'
            self.frames[seat] = out
        return out


@dataclass
class Room:
    """A match being played (see the module docstring). ``row`` is the stored room; the
    ruleset is compiled from ``row.ruleset`` and ``row.options`` by the caller."""

    row: RoomRow
    rs: Ruleset
    store: Store
    scorer: Scorer = field(init=False)
    seats: list[str] = field(init=False)
    match: Match = field(init=False)  # the deal passing, floors, the previous hand's indicators
    totals: dict[str, int] = field(default_factory=dict)
    game: Game | None = None
    last_result: dict[str, Any] | None = None  # the hand before this one, as result_json gives it
    last_json: str | None = None  # last_result as JSON (None: not encoded yet)
    away_since: dict[str, float | None] = field(default_factory=dict)  # seat -> when it left (None: here)
    turn_since: float = 0.0  # when the current wait for a person began
    version: int = 0  # bumped on every change (frames are sent when it moves)
    writes: list[Write] = field(default_factory=list)  # applied, not yet committed (take_writes)
    action_json: dict[ActionView, str] = field(default_factory=dict)  # legal actions' JSON (ViewText)
    asked: dict[str, int] = field(default_factory=dict)  # seat -> the version at which it was last asked to act
    asking: frozenset[str] = frozenset()  # the seats to act now (as _note_asked last saw them)

    def __post_init__(self) -> None:
        self.scorer = Scorer(self.rs)
        self.match = Match(self.rs, self.row.seed, scorer=self.scorer, keep=False)  # a finished hand lives on in its record
        self.seats = list(self.match.seats)
        unknown = set(self.row.players) - set(self.seats)
        if unknown:
            raise MjError(f"no seat {sorted(unknown)[0]!r} at this table", hint=f"seats: {' '.join(self.seats)}")
        self.tiles: dict[str, dict[str, object]] = {}  # filled at the first deal (tile_set)
        self.totals = self.totals or dict.fromkeys(self.seats, 0)
        self.away_since = {s: NEVER for s in self.seats if self.player(s) == HUMAN}  # nobody has joined yet

    # ---- building ---------------------------------------------------------------------------------
    @property
    def hand(self) -> int:
        """The hand being played (0-based); ``row.hands`` when the match is over."""
        return self.match.played

    @property
    def finished(self) -> bool:
        return self.hand >= self.row.hands or self.row.closed

    def player(self, seat: str) -> str:
        return self.row.players.get(seat, HUMAN)

    def _deal(self) -> None:
        self.game = self.match.deal()
        self.tiles = self.tiles or tile_set(self.game)

    def start(self, now: float) -> None:
        """Deal the first hand (a new room); the first turn's timer runs from ``now``."""
        self._deal()
        self.turn_since = now
        self._note_asked()

    @classmethod
    def load(cls, row: RoomRow, rs: Ruleset, store: Store, now: float, repair: bool = True) -> Room:
        """The room as its stored actions left it: every hand dealt again from the seed and its
        actions applied; ``repair`` keeps a finished hand's record a crash lost in ``writes``,
        which the owner's actor commits (a follower's replica stores nothing). Raises :class:`MjError` when a stored action
        no longer applies (the rule file changed under the room)."""
        room = cls(row, rs, store)
        # the grace runs from the restart for a seat whose person has played (or was stood in
        # for); one that never has (a lone draw taken for it aside) still waits for its person
        played = {a.seat for a in (Action.parse(text, room.scorer) for text in store.at_people_seats(row.id))
                  if a.kind != "draw"}
        room.away_since = {s: now if s in played else NEVER for s in room.away_since}
        room.turn_since = now
        stored = store.actions(row.id)
        room._deal()
        while not room.finished:
            game = room.game
            assert game is not None, "a hand is dealt while the match goes on"
            for text in stored.get(room.hand, []):
                try:
                    game.apply(Action.parse(text, room.scorer))
                except IllegalAction as exc:
                    raise MjError(f"room {row.id}: hand {room.hand + 1}: stored action {text!r} no longer applies: {exc}",
                                  hint="the room's rule file changed since it was made; close the room") from exc
            if not game.over:
                break
            room._end_hand(store_record=not store.has_record(row.id, room.hand))
        room._note_asked()
        if not repair:
            room.take_writes()  # a follower's replica stores nothing
        # else the records a crash lost wait in ``writes``: the owner's actor commits them with its
        # first commit, on the event loop (Store.write is for the committer's thread alone; a load
        # runs in a worker thread)
        return room

    # ---- playing ----------------------------------------------------------------------------------
    def applied(self, game: Game, action: Action, by: str) -> None:
        """Keep the action just applied to ``game`` for the store (``by``: who chose it); end the
        hand when it is over (a follower's replica calls it too, and drops the writes)."""
        self.writes.append(Write.action(self.row.id, self.hand, len(game.actions) - 1, action.text(self.scorer), by))
        self.version += 1
        if game.over:
            self._end_hand(store_record=True)
        self._note_asked()

    def _note_asked(self) -> None:
        """Keep the version at which each seat to act began to be asked: :meth:`act` refuses a
        click made on a table before it (a late duplicate must not play a later turn)."""
        game = self.game
        now = frozenset(game.to_act()) if game is not None and not game.over and not self.finished else frozenset()
        for s in now - self.asking:
            self.asked[s] = self.version
        self.asking = now

    def _end_hand(self, store_record: bool) -> None:
        game = self.game
        assert game is not None and game.result is not None, "a hand that ended has a result"
        net = game.result.net(self.seats)
        if store_record:
            self.writes.append(Write.hand(self.row.id, self.hand, json.dumps(game_record(game), ensure_ascii=False), net))
        for s, v in net.items():
            self.totals[s] += v
        self.last_result = {"hand": self.hand, **(result_json(game) or {})}
        self.last_json = None
        self.match.finish(game)
        if not self.finished:
            self._deal()
        self.version += 1

    def take_writes(self) -> list[Write]:
        """What was applied since the last call, for the store (in order); the list is emptied."""
        out, self.writes = self.writes, []
        return out

    def act(self, seat: str, text: str, now: float, version: int | None = None) -> tuple[int, int]:
        """Apply ``seat``'s action ``text`` (one of its legal actions' texts); returns (hand,
        action number) where it is stored (both 0-based). ``version``: the version of the table
        the click was made on, when the page says it. Raises :class:`IllegalAction` (nothing
        changed) when it is not ``seat``'s to play now, or the click was made on a table from
        before the seat was last asked (a late duplicate of an earlier turn's click)."""
        game = self.game
        if self.finished or game is None:
            raise IllegalAction("the match is over")
        if version is not None and version < self.asked.get(seat, 0):
            raise IllegalAction("that click was made on an earlier table: nothing was played",
                                hint="look at the table as it is now and choose again")
        offered = {a.text(self.scorer): a for a in game.legal_actions(seat)}
        action = offered.get(text)
        if action is None:
            said = " ".join(str(text).split())[:MAX_ACTION_CHARS]
            raise IllegalAction(f"{said!r} is not an action {seat} may take now",
                                hint=("one of: " + ", ".join(offered)) if offered else "wait for your turn")
        where = (self.hand, len(game.actions))
        game.apply(action)
        self.applied(game, action, "seat")
        self.turn_since = now
        return where

    def stand_in(self, seat: str, now: float, grace: float) -> bool:
        """Whether a bot plays ``seat`` now: a bot seat, or a person away past ``grace``
        seconds, or whose turn timer ran out."""
        if self.player(seat) != HUMAN:
            return True
        since = self.away_since.get(seat)
        if since is not None and since != NEVER and now - since >= grace:
            return True
        return self.row.timer is not None and now - self.turn_since >= self.row.timer

    def bots_to_play(self, now: float, grace: float) -> bool:
        """Whether a bot (or a stand-in) has a choice to make now: :meth:`step` with bots may
        take long (the actor runs it off the event loop)."""
        game = self.game
        return game is not None and not self.finished and any(self.stand_in(s, now, grace) for s in game.to_act())

    def step(self, now: float, grace: float, limit: int = MAX_STEPS, bots: bool = True) -> bool:
        """Let bots (and stand-ins) play until a person must choose, the match ends or
        ``limit`` actions (:func:`~engine.table.match.play_until_person`); a person's lone draw
        is taken for them. ``bots`` False: only the lone draws. Returns whether anything changed."""
        changed = False
        while limit > 0 and not self.finished and self.game is not None:
            game = self.game
            bot_for = self._bot_for(game, now, grace) if bots else _nobody
            start = len(game.actions)
            done = play_until_person(game, bot_for, limit)
            for i, (action, by_bot) in enumerate(done):
                by = ("bot" if self.player(action.seat) != HUMAN else "托管") if by_bot else "seat"
                self.writes.append(Write.action(self.row.id, self.hand, start + i, action.text(self.scorer), by))
            if done:
                self.version += 1
                self.turn_since = now
                changed = True
            limit -= len(done)
            if not game.over:
                break
            self._end_hand(store_record=True)
        self._note_asked()
        return changed

    def _bot_for(self, game: Game, now: float, grace: float) -> Callable[[str], Bot | None]:
        """Who plays a seat of ``game`` now: its bot, a stand-in (托管) or None (its person). A
        bot's seed is :func:`bot_seed` of this very decision."""
        def bot_for(seat: str) -> Bot | None:
            if not self.stand_in(seat, now, grace):
                return None
            kind = self.player(seat)
            return LIVE_BOTS[kind if kind != HUMAN else STAND_IN](
                bot_seed(self.row.seed, self.hand, len(game.actions), self.seats.index(seat)))
        return bot_for

    # ---- what seats see ---------------------------------------------------------------------------
    def publish(self) -> Published:
        """The room now, frozen (:class:`Published`): the table's snapshot, the fields every
        frame shares and the public summary. The frame of a seat is ``{"type": "state", "seat",
        "version", "hand", "hands", "totals", "last", "finished", "players", "away", "view"}``;
        ``view`` is :func:`seat_view` (None once the match is over)."""
        game = self.game
        table = ViewText(snapshot(game), dumps, self.action_json) if game is not None and not self.finished else None
        players = {s: self.player(s) for s in self.seats}
        head = {"version": self.version, "hand": self.hand + 1 if not self.finished else self.row.hands,
                "hands": self.row.hands, "totals": dict(self.totals),
                "finished": self.finished, "players": players,
                "away": sorted(s for s, t in self.away_since.items() if t is not None)}
        if self.last_json is None:  # the hand before: encoded once a hand, not once a frame
            self.last_json = dumps(self.last_result)
        summary = {"room": self.row.id, "ruleset": self.row.ruleset, "label": self.rs.label or self.rs.name,
                   "options": dict(self.row.options), "hands": self.row.hands,
                   "hand": min(self.hand + 1, self.row.hands), "totals": dict(self.totals),
                   "seats": {s: {"player": players[s], "taken": players[s] == HUMAN and self.away_since.get(s) is None}
                             for s in self.seats},
                   "finished": self.finished, "closed": self.row.closed}
        return Published(self.version, table, f'{dumps(head)[:-1]},"last":{self.last_json}}}', summary)

    def hello(self, server: str) -> str:
        """The first message a connection gets, JSON: what does not change in a match
        (``{"type": "hello", "room", "server", "ruleset", "label", "options", "seats", "hands",
        "tiles", "indicator_labels"}``; ``tiles`` is :func:`tile_set`, ``server`` the id of the
        server process the socket reached)."""
        return json.dumps({"type": "hello", "room": self.row.id, "server": server, "ruleset": self.row.ruleset,
                           "label": self.rs.label or self.rs.name, "options": dict(self.row.options),
                           "seats": list(self.seats), "hands": self.row.hands, "tiles": self.tiles,
                           "indicator_labels": {n: ind.label or n for n, ind in self.rs.indicators.items()}},
                          ensure_ascii=False)

    @staticmethod
    def seat_of(token: str, hashes: dict[str, str]) -> str | None:
        """The seat whose token ``token`` is (compared in constant time), or None."""
        h = token_hash(token)
        found = None
        for seat, stored in hashes.items():
            if hmac.compare_digest(h, stored):
                found = seat
        return found
