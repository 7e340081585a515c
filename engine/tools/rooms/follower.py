"""A room another server owns, as this server's sockets see it (servers sharing PostgreSQL).

A :class:`Follower` passes on what the owner sends: the owner builds the frames of this
server's sockets' seats (and spectators) as it builds its own, and ships them in the very
commit that stores the version they show (:func:`~engine.tools.rooms.bus.frame_note`); the
follower sends each text on as it came, so it neither replays the hand nor builds a table. It
never writes the room: its sockets' actions, joins and leaves, and the host's close or remove,
go to the owner as requests (:mod:`engine.tools.rooms.bus`), and the owner's ``reply`` comes
back with the commit that stored them, before that commit's frames, so a seat hears ``ok``
before the table that shows it.

It keeps a replica of the room, loaded from the store
(:meth:`~engine.tools.rooms.room.Room.load`) when it first served it, and brings it up to date
from the store only when it needs it: a frame too large for a note, or the public summary.
When the owner's lease runs out (it died), the hub makes this server the owner from the same
sockets (:meth:`Hub.promote`): they keep playing without a reload.
"""
from __future__ import annotations

import asyncio
import dataclasses
import itertools
import time
from http import HTTPStatus
from typing import Any

from engine.errors import IllegalAction, MjError
from engine.table.game import Action
from engine.tools.rooms.actor import Host, Turns
from engine.tools.rooms.bus import frame_text
from engine.tools.rooms.caps import (
    CLIP_NOTE,
    CLOSE_ELSEWHERE,
    CLOSE_FORBIDDEN,
    MAX_ID_CHARS,
    MAX_TOKEN_CHARS,
    REQUEST_SECONDS,
    SYNC_TRIES,
)
from engine.tools.rooms.conn import Conn, Lost, Refusal, error_text
from engine.tools.rooms.room import HUMAN, Room

_REQUESTS = itertools.count(1)


class Follower(Turns):
    """A room whose owner is ``owner`` (a server id), followed here (see the module docstring)."""

    def __init__(self, hub: Host, room: Room, hashes: dict[str, str], host: str, owner: str):
        super().__init__(hub, room, hashes, host)
        self.owner = owner
        self.epoch: str | None = None  # the owner's numbering of versions (a reload starts another)
        self.note: dict[str, Any] | None = None  # the newest moved note not yet read
        self.closed = room.row.closed  # as the newest note says; the replica takes it once caught up
        self.frames: dict[str | None, dict[str, Any]] = {}  # viewer -> the newest frame note not yet sent
        self.framing = False  # a job to send :attr:`frames` is queued
        self.noting = False  # a job to read :attr:`note` is queued
        self.read_epoch: object = None  # the epoch of the last note read
        self.syncing: asyncio.Task[None] | None = None  # the sync under way
        self.sync_wanted = False  # a sync to send (again) once the one under way is answered
        self.sync_again = False  # and it asks for the note and frames again
        self.sync_tries = 0  # unanswered syncs since the last reason to sync

    # ---- requests to the owner -----------------------------------------------------------------------
    async def ask(self, op: str, **fields: object) -> dict[str, Any]:
        """Send the owner request ``op`` and wait for its reply (at most REQUEST_SECONDS).
        Raises :class:`Refusal` when the owner refused it or did not answer."""
        req = next(_REQUESTS)
        answer: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.hub.replies[req] = answer
        try:
            await self.hub.send({"k": "request", "op": op, "room": self.id, "to": self.owner,
                                 "from": self.hub.owner, "req": req, **fields})
            got = await asyncio.wait_for(answer, REQUEST_SECONDS)
        except TimeoutError as exc:
            raise Refusal(HTTPStatus.SERVICE_UNAVAILABLE, "the server that plays this room did not answer",
                          hint="another server takes the room over within seconds: try again") from exc
        finally:
            self.hub.replies.pop(req, None)
        if got.get("moved") is True:  # not the owner any more: ask the store who is
            self.hub.spawn(self._owner_again())
        if "error" in got:
            raise Refusal(int(got.get("status") or HTTPStatus.CONFLICT), str(got["error"])[:CLIP_NOTE],
                          None if got.get("hint") is None else str(got["hint"])[:CLIP_NOTE])
        return got

    def tell(self, op: str, **fields: object) -> None:
        """Ask the owner ``op`` in the background; when it does not answer (the request or its
        reply was lost), :meth:`sync` tells it again who is here."""
        async def asked() -> None:
            try:
                await self.ask(op, **fields)
            except Refusal:
                if not self.stopped:
                    self.sync()

        self.hub.spawn(asked())

    def viewers(self) -> list[str | None]:
        """The seats (None: spectators) this server's sockets on the room hold."""
        return sorted({c.seat for c in self.conns}, key=lambda v: v or "")

    def sync(self, again: bool = True) -> None:
        """Tell the owner who is here (:meth:`viewers`, replacing what it knew of this server)
        and, when ``again``, have it send the note and the frames again; asked again,
        SYNC_TRIES times at most, until it answers. Without ``again`` it is the hub's regular
        word that this server lives (the owner forgets a server that goes quiet). One sync at a
        time: one wanted while another is under way is sent when that one is answered (the
        owner may have changed meanwhile)."""
        self.sync_wanted = True
        self.sync_again = self.sync_again or again
        self.sync_tries = 0  # a new reason: SYNC_TRIES more
        if self.syncing is None or self.syncing.done():
            self.syncing = asyncio.get_running_loop().create_task(self._sync())

    async def _sync(self) -> None:
        while self.sync_wanted and not self.stopped and self.sync_tries < SYNC_TRIES:
            self.sync_wanted = False
            again, self.sync_again = self.sync_again, False
            try:
                await self.ask("sync", viewers=self.viewers(), again=again)
            except Refusal:
                self.sync_wanted = True
                self.sync_again = self.sync_again or again
                self.sync_tries += 1
                await asyncio.sleep(REQUEST_SECONDS * self.sync_tries / SYNC_TRIES)

    async def _owner_again(self) -> None:
        """The server asked said the room moved: the store's lease says who owns it now (a
        late note of the old owner's may have pointed here at it again)."""
        owner = await self.hub.committer.run(self.hub.store.owner, self.id)
        if owner is not None and owner != self.owner and owner != self.hub.owner and not self.stopped:
            self.owner = owner
            self.sync()

    # ---- jobs ----------------------------------------------------------------------------------------
    async def act(self, conn: Conn, text: str, version: int | None = None) -> None:
        """``conn``'s seat plays ``text``: the owner applies it; ``ok`` or ``error`` as there."""
        assert conn.seat is not None, "a spectator's action is refused before it is queued"
        try:
            got = await self.ask("act", seat=conn.seat, text=text, version=version)
        except Refusal as exc:
            await conn.send(error_text(exc.message, exc.hint))
            raise IllegalAction(exc.message, hint=exc.hint) from exc
        if isinstance(got.get("ok"), str):
            await conn.send(str(got["ok"]))  # the table that shows it comes after, shipped with the same commit

    async def join(self, conn: Conn) -> None:
        """``conn`` is here: the hello and the table; the owner hears its seat is back."""
        self.conns.append(conn)
        await conn.send(self.hello)
        self.tell("join", seat=conn.seat)  # the owner ships its frames here from now on

    async def leave(self, conn: Conn) -> None:
        """``conn`` is gone: the owner hears it once no socket here holds its seat."""
        if conn in self.conns:
            self.conns.remove(conn)
        conn.gone = True
        if not any(c.seat == conn.seat for c in self.conns):
            self.tell("leave", seat=conn.seat)

    async def host_close(self, host: object) -> None:
        """The host's close, done by the owner. Raises :class:`Refusal` 403 on a token no
        host's could be (not sent on)."""
        await self.ask("close", host=_token(host))

    async def host_remove(self, seat: str, bot: str, host: object) -> None:
        """The host's remove, done by the owner. Raises :class:`Refusal` 400 on a seat not the
        room's, 403 on a token no host's could be (neither sent on)."""
        if seat not in self.room.seats:
            raise Refusal(HTTPStatus.BAD_REQUEST, f"{seat[:MAX_ID_CHARS]!r} is not a person's seat here")
        await self.ask("remove", seat=seat, bot=bot[:MAX_ID_CHARS], host=_token(host))

    def moved(self, note: dict[str, Any]) -> None:
        """The owner's note of a new version: its presence and players taken in this room's
        turn. A note from another owner, or from the same owner's room loaded again (another
        ``epoch``), starts the numbering afresh: frames of another epoch are dropped, every
        socket here gets the next table of this one (:meth:`_send_frames`), and the owner
        hears again who is here."""
        owner, epoch, version = str(note.get("owner")), str(note.get("epoch")), int(note.get("version", -1))
        if owner != self.owner or (self.epoch is not None and epoch != self.epoch):
            self.owner, self.epoch, self.note = owner, epoch, note
            self.frames.clear()  # the old numbering's
            self.sync()
        elif self.note is None or version >= int(self.note.get("version", -1)):
            self.epoch, self.note = epoch, note
        if not self.noting:
            self.noting = True
            self.post(self._noted)

    def framed(self, msg: dict[str, Any]) -> None:
        """A frame the owner shipped for this server's sockets (a ``frame`` note), sent on in
        this room's turn (after the ``ok`` its commit answered): only the newest of each viewer
        is kept till then. Raises :class:`ValueError` on a malformed note (it is dropped)."""
        version, seat = msg["version"], msg.get("seat")
        if not isinstance(version, int) or (seat is not None and seat not in self.room.seats):
            raise ValueError("a frame note's version is a number and its seat one of the room's or null")
        if msg.get("epoch") != self.epoch:
            return  # another numbering's (its moved note came first, in the same commit)
        kept = self.frames.get(seat)
        if kept is None or kept["version"] < version:
            self.frames[seat] = msg
        if not self.framing:
            self.framing = True
            self.post(self._send_frames)

    async def _send_frames(self) -> None:
        self.framing = False
        frames, self.frames = self.frames, {}
        for seat, msg in frames.items():
            version, epoch = int(msg["version"]), str(msg["epoch"])
            if epoch != self.epoch:
                continue  # the numbering changed while it waited
            try:
                text = frame_text(msg)
            except ValueError:
                continue  # a malformed body: dropped
            if text is None:  # too large for a note: built here, from the replica brought up to date
                await self.catch_up()
                text = self.published.frame(seat)
            for c in self.conns:  # a socket's last table is (epoch, version): another epoch's is older
                if c.seat == seat and (c.epoch != epoch or c.seen < version):
                    c.epoch, c.seen = epoch, version
                    await c.send(text)

    async def settle(self) -> None:
        """Nothing to tell after the jobs: the owner's shipped frames are sent as they come."""

    async def summary_now(self) -> dict[str, Any]:
        """The public summary of the replica brought up to date from the store."""
        await self.catch_up()
        return self.published.summary

    # ---- the replica ---------------------------------------------------------------------------------
    def _apply(self, actions: list[tuple[int, int, str]]) -> bool:
        """Apply stored ``actions`` (hand, seq, text) to the replica while each is the next one;
        whether all were. Raises :class:`Lost` when a stored action does not apply."""
        room = self.room
        try:
            for h, s, text in actions:
                game = room.game
                if room.finished or game is None or h != room.hand or s != len(game.actions):
                    return False
                action = Action.parse(text, room.scorer)
                game.apply(action)
                room.applied(game, action, "")
        except MjError as exc:
            raise Lost(f"room {self.id}: a stored action does not apply here: {exc}") from exc
        finally:
            room.take_writes()  # a replica never writes: the owner stored all this
        return True

    async def catch_up(self) -> None:
        """Bring the replica up to the store (the actions stored since its last) and publish it,
        at the owner's version; a close the owner noted is taken after the actions (a closed
        room takes none). Raises :class:`Lost` when the store's actions do not follow."""
        room = self.room
        version = room.version
        game = room.game
        hand, seq = room.hand, (len(game.actions) - 1 if game is not None else -1)
        try:
            if not self._apply(await self.hub.committer.run(self.hub.store.actions_since, self.id, hand, seq)):
                raise Lost(f"room {self.id}: the store's actions do not follow the replica's")
        except Lost as exc:  # the replica is no good: followed afresh from the next request
            self.hub.spawn(self.hub.drop(self.id, CLOSE_ELSEWHERE, str(exc)))
            raise
        room.row = dataclasses.replace(room.row, closed=self.closed)
        room.version = version
        self.published = room.publish()

    async def _noted(self) -> None:
        """Take the owner's presence and players from its newest note."""
        self.noting = False
        note, self.note = self.note, None
        if note is None:
            return
        room = self.room
        version = int(note.get("version", 0))
        fresh = note.get("epoch") != self.read_epoch
        self.read_epoch = note.get("epoch")
        room.version = version if fresh else max(room.version, version)  # the owner's numbering
        now = time.monotonic()
        away = set(note.get("away") or ())
        room.away_since = {s: (now if s in away else None) for s in room.away_since}
        self.closed = self.closed or bool(note.get("closed"))
        players = note.get("players")
        if isinstance(players, dict):
            room.row = dataclasses.replace(room.row, players={str(k): str(v) for k, v in players.items()})
            for seat, kind in room.row.players.items():
                if kind != HUMAN and seat in self.hashes:  # the host gave the seat to a bot
                    self.hashes.pop(seat)
                    room.away_since.pop(seat, None)
                    for c in [c for c in self.conns if c.seat == seat]:
                        self.conns.remove(c)
                        await c.close(CLOSE_FORBIDDEN, "the host gave your seat to a bot")


def _token(host: object) -> str:
    """``host`` as a token to send on. Raises :class:`Refusal` 403 when no token could be it."""
    if not isinstance(host, str) or len(host) > MAX_TOKEN_CHARS:
        raise Refusal(HTTPStatus.FORBIDDEN, "only the room's host may do that", hint="send the `host` token")
    return host
