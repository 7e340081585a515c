"""The rooms this server serves: which it owns, which it follows, and the timers.

A room is played by one server at a time, its owner (a lease row, :meth:`Store.acquire`,
renewed every third of its length): there its :class:`~engine.tools.rooms.actor.RoomActor` is
the room's one writer. On SQLite one server serves its rooms alone. Servers sharing one
PostgreSQL database (``mjrules serve --workers N``, or N servers started by hand on one
``--db``) serve one set of rooms: a seat's socket may arrive at any of them, and a server that
does not own the room follows it (:class:`~engine.tools.rooms.follower.Follower`), its
requests going to the owner and the owner's notes coming back (:mod:`engine.tools.rooms.bus`).
When the owner dies its lease runs out, and a follower takes the room over
(:meth:`Hub.promote`) with the sockets it has: they keep playing without a reload. The hub
knows nothing of HTTP: the routes are :mod:`engine.tools.server.rooms_api`.
"""
from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from functools import partial
from http import HTTPStatus
from typing import Any

from engine.lang.ruleset import Ruleset
from engine.tools.rooms.actor import RoomActor, Turns
from engine.tools.rooms.bus import Bus
from engine.tools.rooms.caps import CLOSE_ELSEWHERE, GRACE_SECONDS, JOIN_RATE, LEASE_SECONDS, MAX_ID_CHARS, TICK_SECONDS
from engine.tools.rooms.commit import Committer
from engine.tools.rooms.conn import Rate, Refusal
from engine.tools.rooms.follower import Follower
from engine.tools.rooms.room import Room, dumps
from engine.tools.rooms.store import RoomRow, Store

Loaded = tuple[Room, dict[str, str], str, str | None]  # the room, its token hashes, the host's, its owner (None: us)


@dataclass
class Hub:
    """The rooms this process serves (see the module docstring). ``compile`` turns a stored
    room's ruleset reference and options into its ruleset; ``owner`` is this server's id."""

    store: Store
    compile: Callable[[str, dict[str, str]], Ruleset]
    owner: str = field(default_factory=lambda: secrets.token_hex(8))
    grace: float = GRACE_SECONDS
    lease: float = LEASE_SECONDS
    actors: dict[str, RoomActor] = field(default_factory=dict)
    followers: dict[str, Follower] = field(default_factory=dict)
    joins: Rate = field(default_factory=lambda: Rate(*JOIN_RATE))
    loading: dict[str, asyncio.Future[Turns]] = field(default_factory=dict)
    replies: dict[int, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)  # a follower's request -> its answer
    committer: Committer = field(init=False)
    bus: Bus | None = field(init=False, default=None)
    background: set[asyncio.Task[None]] = field(default_factory=set)  # messages being sent: kept till done

    def __post_init__(self) -> None:
        self.committer = Committer(self.store)
        if self.store.shared:
            self.bus = Bus(self.store.url, self.heard, self.owner, self.resync)

    # ---- rooms ---------------------------------------------------------------------------------------
    def serving(self, room_id: str) -> Turns | None:
        """The room's actor (owned here) or follower, if this server has it now."""
        return self.actors.get(room_id) or self.followers.get(room_id)

    async def add(self, room: Room, hashes: dict[str, str], host: str) -> RoomActor:
        """Serve ``room`` (just made, its rows stored): bots play before the first person."""
        actor = RoomActor(self, room, hashes, host)
        self.actors[room.row.id] = actor
        await actor.call(actor.start)
        return actor

    async def get(self, room_id: str) -> Turns:
        """The room as this server serves it, loading it from the store the first time: owned
        (its lease taken) or, when another server owns it and they share PostgreSQL, followed.
        One load per room. Raises :class:`Refusal` 404 (no such room) or 409 (another server
        serves it, on SQLite), :class:`~engine.errors.MjError` when it cannot be rebuilt."""
        got = self.serving(room_id)
        if got is not None:
            return got
        waiting = self.loading.get(room_id)
        if waiting is not None:
            return await asyncio.shield(waiting)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[Turns] = loop.create_future()
        self.loading[room_id] = fut
        try:
            room, hashes, host, owner = await loop.run_in_executor(None, self._load, room_id)
            side: Turns
            if owner is None:
                side = self.actors[room_id] = RoomActor(self, room, hashes, host)
                side.post(side.start)
            else:
                side = self.followers[room_id] = Follower(self, room, hashes, host, owner)
                side.sync()
            fut.set_result(side)
            return side
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: a lone load's error is not "never retrieved"
            raise
        finally:
            self.loading.pop(room_id, None)

    def _load(self, room_id: str) -> Loaded:
        row: RoomRow | None = self.store.room(room_id) if len(room_id) <= MAX_ID_CHARS else None
        if row is None:
            raise Refusal(HTTPStatus.NOT_FOUND, f"no room {room_id[:MAX_ID_CHARS]!r}")
        owner: str | None = None
        if not self.store.acquire(room_id, self.owner, self.lease):
            owner = self.store.owner(room_id) if self.store.shared else None
            if owner is None:
                raise Refusal(HTTPStatus.CONFLICT, "another server serves this room now",
                              hint="connect to that server, or wait until its lease runs out")
        rs = self.compile(row.ruleset, row.options)
        room = Room.load(row, rs, self.store, time.monotonic(), repair=owner is None)
        return room, self.store.token_hashes(room_id), self.store.host_hash(room_id) or "", owner

    async def promote(self, follower: Follower) -> None:
        """Own ``follower``'s room (its owner's lease ran out and this server took it): a fresh
        load from the store, its sockets kept, its version going on from the follower's."""
        room_id = follower.id
        try:
            loaded = await asyncio.get_running_loop().run_in_executor(None, self._reload, room_id)
        except Exception:
            return  # tried again at the next renewal
        room, hashes = loaded
        noted = follower.note.get("version") if follower.note is not None else None  # a note not read yet
        room.version = max(follower.room.version, noted if isinstance(noted, int) else -1) + 1
        follower.halt()
        self.followers.pop(room_id, None)
        actor = self.actors[room_id] = RoomActor(self, room, hashes, follower.host)
        actor.conns = follower.conns
        for c in actor.conns:
            c.seen = -1  # each gets the table of its new owner
            if c.seat is not None:
                room.away_since[c.seat] = None
        actor.post(actor.start)

    def _reload(self, room_id: str) -> tuple[Room, dict[str, str]]:
        row = self.store.room(room_id)
        if row is None:
            raise Refusal(HTTPStatus.NOT_FOUND, f"no room {room_id[:MAX_ID_CHARS]!r}")
        room = Room.load(row, self.compile(row.ruleset, row.options), self.store, time.monotonic())
        return room, self.store.token_hashes(room_id)

    # ---- the other servers -----------------------------------------------------------------------------
    def spawn(self, job: Coroutine[Any, Any, None]) -> None:
        """Run ``job`` in the background, kept (a task nobody holds may be collected) till done."""
        task = asyncio.get_running_loop().create_task(job)
        self.background.add(task)
        task.add_done_callback(self.background.discard)

    async def send(self, msg: dict[str, Any]) -> None:
        """Tell server ``msg["to"]`` ``msg`` (:mod:`engine.tools.rooms.bus`; nothing on SQLite).
        Raises :class:`Refusal` 503 when the database cannot be reached, 400 when ``msg`` is
        too large for a note."""
        if self.bus is None:
            return
        try:
            await self.bus.send(dumps(msg), str(msg["to"]))
        except ConnectionError as exc:
            raise Refusal(HTTPStatus.SERVICE_UNAVAILABLE, str(exc), hint="try again") from exc
        except ValueError as exc:  # longer than a note may be: nothing was sent
            raise Refusal(HTTPStatus.BAD_REQUEST, "the request is too large to forward",
                          hint="send shorter values") from exc

    def resync(self) -> None:
        """The bus listens (again): every followed room asks its owner for its state and frames
        again (notes sent while it did not listen are lost)."""
        for follower in self.followers.values():
            follower.sync()

    def heard(self, msg: dict[str, Any]) -> None:
        """A message from the bus (untrusted: the wrong shape is dropped)."""
        kind, room_id = msg.get("k"), str(msg.get("room"))
        if kind == "reply" and msg.get("to") == self.owner:
            answer = self.replies.get(int(msg["req"])) if isinstance(msg.get("req"), int) else None
            if answer is not None and not answer.done():
                answer.set_result(msg)
        elif kind == "request" and msg.get("to") == self.owner:
            actor = self.actors.get(room_id)
            if actor is not None:
                actor.post(partial(actor.request, msg))
            elif isinstance(msg.get("req"), int):
                self.spawn(self.send(
                    {"k": "reply", "to": msg.get("from"), "req": msg["req"], "status": int(HTTPStatus.CONFLICT),
                     "moved": True, "error": "this room moved to another server", "hint": "try again"}))
        elif kind == "frame" and msg.get("to") == self.owner:
            follower = self.followers.get(room_id)
            if follower is not None:
                follower.framed(msg)
        elif kind == "moved":
            follower = self.followers.get(room_id)
            if follower is not None:
                follower.moved(msg)
            elif room_id in self.actors and msg.get("owner") != self.owner:  # it took the room: ours is stale
                self.spawn(self.drop(room_id, CLOSE_ELSEWHERE, "another server serves this room now"))

    # ---- timers -----------------------------------------------------------------------------------------
    async def tick(self) -> None:
        """Forever: each room's timers (stand-ins for seats away or out of time), and every
        third of a lease the leases renewed (a room whose lease is lost is dropped, its sockets
        closed), a followed room whose owner's lease ran out taken over, and the owner of every
        other followed room told who is here (it forgets a server that goes quiet)."""
        listening = asyncio.get_running_loop().create_task(self.bus.run()) if self.bus is not None else None
        last_lease = time.monotonic()
        try:
            while True:
                await asyncio.sleep(TICK_SECONDS)
                now = time.monotonic()
                for actor in list(self.actors.values()):
                    actor.post(actor.tick)
                if now - last_lease > self.lease / 3:
                    last_lease = now
                    for room_id in list(self.actors):
                        if not await self.committer.run(self.store.acquire, room_id, self.owner, self.lease):
                            await self.drop(room_id, CLOSE_ELSEWHERE, "another server serves this room now")
                    for room_id, follower in list(self.followers.items()):
                        if not follower.conns:
                            self.followers.pop(room_id, None)
                            follower.halt()
                        elif await self.committer.run(self.store.acquire, room_id, self.owner, self.lease):
                            await self.promote(follower)
                        else:
                            follower.sync(again=False)  # this server lives, with these sockets
        finally:
            if listening is not None:
                listening.cancel()
            if self.bus is not None:
                await self.bus.close()

    async def drop(self, room_id: str, code: int, reason: str) -> None:
        """Stop serving ``room_id`` here (its sockets told ``reason`` and closed with ``code``)."""
        side = self.actors.pop(room_id, None) or self.followers.pop(room_id, None)
        if side is not None:
            await side.stop(code, reason)

    async def release_all(self) -> None:
        """Give up every lease (the server stops) and wait for the store's thread."""
        for room_id in list(self.actors):
            await self.committer.run(self.store.release, room_id, self.owner)
        self.committer.close()
