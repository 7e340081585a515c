"""A room: one match of a ruleset played by people and bots, rebuilt from what the store kept.

A :class:`Room` holds the match (dealer, floor, the previous hand's indicators, running totals)
and the hand being played (a :class:`~engine.table.game.Game`). Every action goes through
:meth:`Game.apply` after it is stored (:meth:`Store.append_action`), so the database is never
behind what anyone has been told. :meth:`Room.load` deals each hand again from the room's
seed (:func:`~engine.table.match.hand_seed`, as ``mjrules simulate`` and ``play`` seed
theirs) and applies its stored actions: the same tiles, the same table.

A seat is played by its person, or by a bot: a bot seat always, a person's seat while it is
away past the grace period or its turn timer ran out (托管). A bot's choice depends only on the
table and on (room seed, hand, action number, seat), never on how long the server has been
up, so a restarted room plays on as it would have.

Views are built from :meth:`Game.observation` only: a seat sees its own tiles, a spectator
what every seat sees (no concealed hand, other seats' concealed kongs face down, hidden
indicators hidden until the hand ends).
"""
from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from dataclasses import dataclass, field
from typing import Any

from engine.core.scoring import Scorer
from engine.errors import IllegalAction, MjError
from engine.lang.ruleset import Ruleset
from engine.table.bots import BOTS
from engine.table.game import Action, Game
from engine.table.match import Match
from engine.table.records import game_record, to_yaml
from engine.tools.rooms.store import RoomRow, Store
from engine.tools.server.caps import MAX_ACTION_CHARS, MAX_STEPS
from engine.tools.server.table import jing_marks, result_json, tile_json

HUMAN = "human"
STAND_IN = "greedy"  # the bot that plays a person's seat while it is away (托管)
TOKEN_BYTES = 24  # random bytes of a seat's token (unguessable)
ID_BYTES = 9  # random bytes of a room id
NEVER = float("inf")  # away since: a seat nobody has opened yet waits for its person (the host may remove it)


def new_token() -> str:
    return secrets.token_urlsafe(TOKEN_BYTES)


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def bot_seed(seed: int, hand: int, seq: int, seat_index: int) -> int:
    """The seed of a bot's one decision: the same table and the same numbers, the same choice."""
    return (((seed * 1_000_003 + hand) * 1_009 + seq) * 8 + seat_index) % (2**31)


def public_view(game: Game) -> dict[str, Any]:
    """What every seat sees (a spectator's view): :meth:`Game.observation` without a hand, and
    every seat's concealed kongs face down until the hand is over."""
    first, second = game.seats[0], game.seats[1 % len(game.seats)]
    view = game.observation(first)
    view["melds"][first] = game.observation(second)["melds"][first]  # as any other seat sees them
    view.pop("hand", None)
    view["seat"] = None
    view["legal"] = []
    view["pick"] = None  # a seat's own 精 pick (随精) is its own
    return view


def tile_lists(game: Game, seat: str | None) -> dict[str, Any]:
    """The view's tiles as lists of codes, for a page to draw: ``hand_codes`` (``seat``'s own,
    sorted; none for a spectator) and ``meld_codes`` {seat: [{"kind", "tiles"}]}, another seat's
    concealed kong with ``tiles`` None until the hand is over (as :meth:`Game.observation`)."""
    code = game.tiles.code
    melds = {s: [{"kind": m.meld_kind, "tiles": None if (m.concealed and s != seat and not game.over)
                  else [code(t) for t in m.tiles]} for m in h.melds] for s, h in game.hands.items()}
    hand = [code(t) for t in sorted(game.hands[seat].concealed)] if seat is not None else []
    return {"hand_codes": hand, "meld_codes": melds}


def tile_set(game: Game) -> dict[str, dict[str, Any]]:
    """Every tile kind for the page, by code, as the table's page gets them (:func:`tile_json`:
    group, the group's label as the rule file declares it, suit, rank)."""
    return {k.code: tile_json(game, i, {}) for i, k in enumerate(game.tiles.kinds)}


def result_view(game: Game) -> dict[str, Any] | None:
    """How a finished hand ended (:func:`result_json`: winner, how, fans, its ledger, the net
    per seat) and every seat's last tiles (shown to all once the hand is over)."""
    out = result_json(game)
    if out is None:
        return None
    return {**out, "hands": {s: game.tiles.format(sorted(game.hands[s].concealed)) for s in game.seats}}


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
    last_result: dict[str, Any] | None = None  # the hand before this one, as result_view gives it
    away_since: dict[str, float | None] = field(default_factory=dict)  # seat -> when it left (None: here)
    turn_since: float = 0.0  # when the current wait for a person began
    version: int = 0  # bumped on every change (frames are sent when it moves)
    lock: threading.RLock = field(default_factory=threading.RLock)

    def __post_init__(self) -> None:
        self.scorer = Scorer(self.rs)
        self.match = Match(self.rs, self.row.seed, scorer=self.scorer)
        self.seats = list(self.match.seats)
        unknown = set(self.row.players) - set(self.seats)
        if unknown:
            raise MjError(f"no seat {sorted(unknown)[0]!r} at this table", hint=f"seats: {' '.join(self.seats)}")
        self.tiles: dict[str, dict[str, Any]] = {}  # filled at the first deal (tile_set)
        self.totals = self.totals or dict.fromkeys(self.seats, 0)
        self.away_since = {s: NEVER for s in self.seats if self.player(s) == HUMAN}  # nobody has joined yet

    # ---- building ---------------------------------------------------------------------------------
    @property
    def hand(self) -> int:
        """The hand being played (0-based); ``row.hands`` when the match is over."""
        return len(self.match.games)

    @property
    def finished(self) -> bool:
        return self.hand >= self.row.hands or self.row.closed

    def player(self, seat: str) -> str:
        return self.row.players.get(seat, HUMAN)

    def _deal(self) -> None:
        self.game = self.match.deal()
        self.tiles = self.tiles or tile_set(self.game)

    def start(self) -> None:
        """Deal the first hand (a new room)."""
        self._deal()

    @classmethod
    def load(cls, row: RoomRow, rs: Ruleset, store: Store, now: float) -> Room:
        """The room as its stored actions left it: every hand dealt again from the seed and its
        actions applied. Raises :class:`MjError` when a stored action no longer applies (the
        rule file changed under the room)."""
        room = cls(row, rs, store)
        room.away_since = dict.fromkeys(room.away_since, now)  # the grace runs from the restart
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
            room._end_hand(store_record=store.record(row.id, room.hand) is None)
        return room

    # ---- playing ----------------------------------------------------------------------------------
    def _apply(self, action: Action, by: str) -> None:
        """Store the action, then apply it (stored first: nobody hears of an action the
        database does not have)."""
        game = self.game
        assert game is not None and not game.over, "an action is for a hand in play"
        self.store.append_action(self.row.id, self.hand, len(game.actions), action.text(self.scorer), by)
        game.apply(action)
        self.version += 1
        if game.over:
            self._end_hand(store_record=True)

    def _end_hand(self, store_record: bool) -> None:
        game = self.game
        assert game is not None and game.result is not None, "a hand that ended has a result"
        net = game.result.net(self.seats)
        if store_record:
            self.store.finish_hand(self.row.id, self.hand, to_yaml(game_record(game)), net)
        for s, v in net.items():
            self.totals[s] += v
        self.last_result = {"hand": self.hand, **(result_view(game) or {})}
        self.match.finish(game)
        if not self.finished:
            self._deal()
        self.version += 1

    def act(self, seat: str, text: str, now: float) -> tuple[int, int]:
        """Apply ``seat``'s action ``text`` (one of its legal actions' texts); returns (hand,
        action number) where it was stored (both 0-based). Raises :class:`IllegalAction`
        (nothing changed) when it is not ``seat``'s to play now."""
        with self.lock:
            game = self.game
            if self.finished or game is None:
                raise IllegalAction("the match is over")
            offered = {a.text(self.scorer): a for a in game.legal_actions(seat)}
            action = offered.get(text)
            if action is None:
                said = " ".join(str(text).split())[:MAX_ACTION_CHARS]
                raise IllegalAction(f"{said!r} is not an action {seat} may take now",
                                    hint=("one of: " + ", ".join(offered)) if offered else "wait for your turn")
            where = (self.hand, len(game.actions))
            self._apply(action, "seat")
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

    def step(self, now: float, grace: float, limit: int = MAX_STEPS) -> bool:
        """Let bots (and stand-ins) play until a person must choose, the match ends or
        ``limit`` actions; a person's lone draw is taken for them. Returns whether anything
        changed."""
        changed = False
        with self.lock:
            for _ in range(limit):
                game = self.game
                if self.finished or game is None:
                    break
                acted = False
                for seat in game.to_act():
                    legal = game.legal_actions(seat)
                    by = ""
                    if len(legal) == 1 and legal[0].kind == "draw":
                        action, by = legal[0], "seat"
                    elif self.stand_in(seat, now, grace):
                        kind = self.player(seat)
                        bot = BOTS[kind if kind != HUMAN else STAND_IN](
                            bot_seed(self.row.seed, self.hand, len(game.actions), self.seats.index(seat)))
                        action, by = bot(game, seat), ("bot" if kind != HUMAN else "托管")
                    else:
                        continue
                    self._apply(action, by)
                    acted = changed = True
                    self.turn_since = now
                    break
                if not acted:
                    break
        return changed

    # ---- what seats see ---------------------------------------------------------------------------
    def view(self, seat: str | None) -> dict[str, Any]:
        """The frame for ``seat`` (None: a spectator): ``{"type": "state", "seat", "version", "hand",
        "hands", "totals", "view", "last", "finished", "players", "away"}``; ``view`` is
        :meth:`Game.observation` for the seat (with ``legal``, ``over``) or :func:`public_view`."""
        with self.lock:
            game = self.game
            view: dict[str, Any] | None = None
            if game is not None and not self.finished:
                view = game.observation(seat) if seat is not None else public_view(game)
                view["over"] = game.over
                marks = jing_marks(game, set(view["indicators"]), seat)
                view["jing"] = {game.tiles.code(k): mark for k, mark in marks.items()}
                view.update(tile_lists(game, seat))
            return {"type": "state", "seat": seat, "version": self.version,
                    "hand": self.hand + 1 if not self.finished else self.row.hands,
                    "hands": self.row.hands, "totals": dict(self.totals), "view": view, "last": self.last_result,
                    "finished": self.finished, "ruleset": self.row.ruleset, "options": dict(self.row.options),
                    "players": {s: self.player(s) for s in self.seats}, "seats": list(self.seats),
                    "label": self.rs.label or self.rs.name, "tiles": self.tiles,
                    "indicator_labels": {n: ind.label or n for n, ind in self.rs.indicators.items()},
                    "away": sorted(s for s, t in self.away_since.items() if t is not None)}

    def summary(self) -> dict[str, Any]:
        """The public summary (``GET /api/rooms/{room}``)."""
        with self.lock:
            return {"room": self.row.id, "ruleset": self.row.ruleset, "label": self.rs.label or self.rs.name,
                    "options": dict(self.row.options), "hands": self.row.hands,
                    "hand": min(self.hand + 1, self.row.hands), "totals": dict(self.totals),
                    "seats": {s: {"player": self.player(s),
                                  "taken": self.player(s) == HUMAN and self.away_since.get(s) is None}
                              for s in self.seats},
                    "finished": self.finished, "closed": self.row.closed}

    def seat_of(self, token: str, hashes: dict[str, str]) -> str | None:
        """The seat whose token ``token`` is (compared in constant time), or None."""
        h = token_hash(token)
        found = None
        for seat, stored in hashes.items():
            if hmac.compare_digest(h, stored):
                found = seat
        return found
