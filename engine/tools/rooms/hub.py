"""Who changes a room, and how every connection hears of it: one actor per room.

Every change to a :class:`~engine.tools.rooms.room.Room` (a seat's action, a bot's, a timer, a
join, a leave, the host's close or remove) is a job in the room's one ordered queue, run by the
room's :class:`RoomActor` (an asyncio task that owns the room, as lila's game actors own a
game). Nothing else touches the room, so it takes no lock. After a job the actor commits what
it applied (:class:`Committer`: every room's writes, gathered into one transaction a turn, in a
thread of its own) and only then says so: the ``ok`` to the seat that acted, then the new
table, published as an immutable :class:`~engine.tools.rooms.room.Published` from which every
frame and the public summary are built. Bot play that may take long (a bot or a stand-in to
move) runs in a worker thread while the actor waits for it, so other rooms play on; nothing on
the event loop waits on a thread lock.

Each connection (:class:`Conn`) has its own sender task: a slow socket delays itself only, and
a connection never gets an older table after a newer one (a newer frame replaces one not yet
sent).

The :class:`Hub` holds the rooms this process serves: it loads a room from the store on first
use (taking its lease), ticks the actors (timers, 托管), renews the leases and drops a room whose
lease another server took. It knows nothing of HTTP: the routes are
:mod:`engine.tools.server.rooms_api`.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import secrets
import time
from http import HTTPStatus
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from engine.errors import MjError
from engine.lang.ruleset import Ruleset
from engine.tools.rooms.caps import (
    ACT_RATE,
    CLOSE_ELSEWHERE,
    CLOSE_FORBIDDEN,
    GRACE_SECONDS,
    JOIN_RATE,
    LEASE_SECONDS,
    MAX_ID_CHARS,
    RATE_KEYS,
    TICK_SECONDS,
)
from engine.tools.rooms.room import HUMAN, Published, Room, token_hash
from engine.tools.rooms.store import RoomRow, Store, Write

T = TypeVar("T")


class Refusal(Exception):
    """A request about a room refused: ``status`` is the HTTP status it stands for (404: no such
    room, 409: another server serves it, 403: not the host's, 400: a bad value)."""

    def __init__(self, status: int, message: str, hint: str | None = None):
        super().__init__(message)
        self.status, self.message, self.hint = status, message, hint


class Rate:
    """At most ``n`` events per ``per`` seconds for each key (a sliding window)."""

    def __init__(self, n: int, per: float):
        self.n, self.per = n, per
        self.seen: dict[str, deque[float]] = defaultdict(deque)

    def allow(self, key: str, now: float) -> bool:
        q = self.seen[key]
        while q and now - q[0] > self.per:
            q.popleft()
        if len(q) >= self.n:
            return False
        q.append(now)
        if len(self.seen) > RATE_KEYS:  # bound the keys kept: forget the idle ones
            for k in [k for k, v in self.seen.items() if not v or now - v[-1] > self.per]:
                del self.seen[k]
        return True


class Socket(Protocol):
    """What a connection needs of a websocket (Starlette's has it)."""

    async def send_text(self, data: str) -> None: ...

    async def close(self, code: int = ..., reason: str | None = None) -> None: ...


def error_text(message: str, hint: str | None = None) -> str:
    """A refused message's answer: ``{"type": "error", "error", "hint"}`` as JSON."""
    return json.dumps({"type": "error", "error": message, "hint": hint}, ensure_ascii=False)


@dataclass(eq=False)
class Conn:
    """A websocket on a room: its seat (None: a spectator), its actions' rate and its outbox,
    sent in order by its own task (:meth:`start`). Messages are sent in the order pushed; of the
    tables (:meth:`push_state`) only the newest not yet sent is kept."""

    ws: Socket
    seat: str | None
    acts: Rate = field(default_factory=lambda: Rate(*ACT_RATE))
    out: deque[str] = field(default_factory=deque)
    state: str | None = None  # the newest table not yet sent
    closing: int | None = None  # a close code: sent after the outbox
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self.task = asyncio.get_running_loop().create_task(self._send())

    def push(self, text: str) -> None:
        self.out.append(text)
        self.wake.set()

    def push_state(self, text: str) -> None:
        self.state = text
        self.wake.set()

    def close(self, code: int, message: str | None = None) -> None:
        """Send ``message`` (an error) if any, then close with ``code``; nothing after."""
        if message is not None:
            self.push(error_text(message))
        self.closing = code
        self.wake.set()

    async def _send(self) -> None:
        try:
            while True:
                await self.wake.wait()
                self.wake.clear()
                while self.out or self.state is not None:
                    if self.out:
                        text = self.out.popleft()
                    else:
                        text, self.state = self.state or "", None
                    await self.ws.send_text(text)
                if self.closing is not None:
                    with contextlib.suppress(Exception):
                        await self.ws.close(code=self.closing)
                    return
        except Exception:  # a closed socket: its reader ends the connection
            return

    def stop(self) -> None:
        if self.task is not None:
            self.task.cancel()


class Committer:
    """Writes the rooms' applied actions to the store, committed before anyone is told: every
    room's writes waiting while a commit runs go into the next one (one transaction, one thread
    of its own). A room whose writes cannot be stored (another server wrote that place) gets
    the error; the others are stored all the same."""

    def __init__(self, store: Store):
        self.store = store
        self.pending: list[tuple[list[Write], asyncio.Future[None]]] = []
        self.busy = False
        self.pool = ThreadPoolExecutor(1, thread_name_prefix="mjrules-store")
        self.task: asyncio.Task[None] | None = None

    async def commit(self, writes: list[Write]) -> None:
        """Return once ``writes`` are committed. Raises what the store raised for them."""
        if not writes:
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        self.pending.append((writes, done))
        if not self.busy:
            self.busy = True
            self.task = loop.create_task(self._drain())
        await done

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call in the store's thread (in order with the commits)."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    async def _drain(self) -> None:
        try:
            while self.pending:
                batch, self.pending = self.pending, []
                results: list[BaseException | None]
                try:
                    await self.run(self.store.write, [w for ws, _ in batch for w in ws])
                    results = [None] * len(batch)
                except Exception:
                    results = []
                    for ws, _ in batch:  # one room's conflict: each room's writes alone
                        try:
                            await self.run(self.store.write, ws)
                            results.append(None)
                        except Exception as failed:
                            results.append(failed)
                for (_, done), exc in zip(batch, results, strict=True):
                    if done.done():
                        continue
                    if exc is None:
                        done.set_result(None)
                    else:
                        done.set_exception(exc)
        finally:
            self.busy = False

    def close(self) -> None:
        self.pool.shutdown(wait=True)


class RoomActor:
    """The one writer of a room (see the module docstring): jobs run one at a time, in order.

    ``published`` is the room as last committed and told; ``hashes`` the seats' token hashes
    and ``host`` the host's, kept here (they change only through this actor)."""

    def __init__(self, hub: Hub, room: Room, hashes: dict[str, str], host: str):
        self.hub, self.room, self.hashes, self.host = hub, room, hashes, host
        self.conns: list[Conn] = []
        self.inbox: asyncio.Queue[tuple[Callable[[], Awaitable[Any]], asyncio.Future[Any] | None]] = asyncio.Queue()
        self.published: Published = room.publish()
        self.hello = room.hello()
        self.stopped = False
        self.task = asyncio.get_running_loop().create_task(self._run())

    @property
    def id(self) -> str:
        return self.room.row.id

    # ---- the queue ---------------------------------------------------------------------------------
    async def call(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in this room's turn and return what it returns (raises what it raised)."""
        if self.stopped:
            raise Refusal(HTTPStatus.CONFLICT, "this room moved to another server", hint="open the link again")
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait((job, done))
        return await done

    def post(self, job: Callable[[], Awaitable[Any]]) -> None:
        """Queue ``job`` without waiting for it (its errors are dropped: a timer's tick)."""
        if not self.stopped:
            self.inbox.put_nowait((job, None))

    async def _run(self) -> None:
        while True:
            job, done = await self.inbox.get()
            try:
                out = await job()
            except Exception as exc:
                if done is not None and not done.done():
                    done.set_exception(exc)
                if isinstance(exc, Lost):
                    await self.hub.drop(self.id, CLOSE_ELSEWHERE, str(exc))
                    return
            else:
                if done is not None and not done.done():
                    done.set_result(out)

    # ---- after each change ---------------------------------------------------------------------------
    async def _commit(self) -> None:
        try:
            await self.hub.committer.commit(self.room.take_writes())
        except Exception as exc:  # the store refused: the room in memory is no longer the truth
            raise Lost(f"the room could not be stored ({type(exc).__name__}): reconnect") from exc

    def _publish(self) -> None:
        if self.published.version == self.room.version:
            return
        self.published = self.room.publish()
        for c in self.conns:
            c.push_state(self.published.frame(c.seat))

    async def _play(self) -> None:
        """Bots and stand-ins play until a person must choose (in a worker thread: it may be
        long), committed and told."""
        now = time.monotonic()
        if self.room.bots_to_play(now, self.hub.grace):
            await asyncio.get_running_loop().run_in_executor(None, self.room.step, now, self.hub.grace)
            await self._commit()
            self._publish()

    # ---- jobs ----------------------------------------------------------------------------------------
    async def act(self, conn: Conn, text: str) -> tuple[int, int]:
        """``conn``'s seat plays ``text``; answered ``ok`` (after the commit) or ``error``."""
        assert conn.seat is not None, "a spectator's action is refused before it is queued"
        room = self.room
        try:
            hand, seq = room.act(conn.seat, text, time.monotonic())
        except MjError as exc:
            conn.push(error_text(exc.message, exc.hint))
            raise
        room.step(time.monotonic(), self.hub.grace, bots=False)  # the lone draws that follow
        await self._commit()
        conn.push(json.dumps({"type": "ok", "action": text, "hand": hand + 1, "seq": seq}, ensure_ascii=False))
        self._publish()
        await self._play()
        return hand, seq

    async def join(self, conn: Conn) -> None:
        """``conn`` is here: it gets the hello and the table; its seat is no longer away."""
        self.conns.append(conn)
        conn.push(self.hello)
        if conn.seat is not None:
            self.room.away_since[conn.seat] = None
            self.room.turn_since = time.monotonic()
            self.room.version += 1
        self._publish()
        conn.push_state(self.published.frame(conn.seat))

    async def leave(self, conn: Conn) -> None:
        """``conn`` is gone; its seat is away once no other connection holds it."""
        with contextlib.suppress(ValueError):
            self.conns.remove(conn)
        conn.stop()
        seat = conn.seat
        if seat is not None and not any(c.seat == seat for c in self.conns):
            self.room.away_since[seat] = time.monotonic()
            self.room.version += 1
            self._publish()

    async def tick(self) -> None:
        """A timer: stand-ins play for seats away past the grace or out of time."""
        await self._play()

    async def start(self) -> None:
        """A new or reloaded room: bots before the first person."""
        await self._play()

    def check_host(self, token: object) -> None:
        """Raises :class:`Refusal` 403 unless ``token`` is the host's."""
        if not isinstance(token, str) or not secrets.compare_digest(token_hash(token), self.host):
            raise Refusal(HTTPStatus.FORBIDDEN, "only the room's host may do that", hint="send the `host` token")

    async def close(self) -> dict[str, Any]:
        """The host closes the room (the match ends where it is); returns the summary."""
        await self.hub.committer.run(self.hub.store.close, self.id)
        self.room.row = dataclasses.replace(self.room.row, closed=True)
        self.room.version += 1
        self._publish()
        return self.published.summary

    async def remove(self, seat: str, bot: str) -> dict[str, Any]:
        """The host gives a person's ``seat`` to ``bot``: its connections are closed, its link
        no longer opens it; returns the summary."""
        room = self.room
        if seat not in room.seats or room.player(seat) != HUMAN:
            raise Refusal(HTTPStatus.BAD_REQUEST, f"{seat[:MAX_ID_CHARS]!r} is not a person's seat here")
        await self.hub.committer.run(self.hub.store.set_player, self.id, seat, bot)
        room.row = dataclasses.replace(room.row, players={**room.row.players, seat: bot})
        self.hashes.pop(seat, None)
        for c in [c for c in self.conns if c.seat == seat]:
            self.conns.remove(c)
            c.close(CLOSE_FORBIDDEN, "the host gave your seat to a bot")
        room.away_since.pop(seat, None)
        room.version += 1
        self._publish()
        await self._play()
        return self.published.summary

    def stop(self, code: int, reason: str) -> None:
        """Stop serving: every connection is told ``reason`` and closed with ``code``."""
        self.stopped = True
        for c in self.conns:
            c.close(code, reason)
        self.conns = []
        if asyncio.current_task() is not self.task:
            self.task.cancel()


class Lost(Exception):
    """The room's state could not be committed: the actor stops and the room is dropped (the
    next connection loads it again from the store)."""


@dataclass
class Hub:
    """The rooms this process serves (see the module docstring). ``compile`` turns a stored
    room's ruleset reference and options into its ruleset."""

    store: Store
    compile: Callable[[str, dict[str, str]], Ruleset]
    owner: str = field(default_factory=lambda: secrets.token_hex(8))
    grace: float = GRACE_SECONDS
    lease: float = LEASE_SECONDS
    actors: dict[str, RoomActor] = field(default_factory=dict)
    joins: Rate = field(default_factory=lambda: Rate(*JOIN_RATE))
    loading: dict[str, asyncio.Future[RoomActor]] = field(default_factory=dict)
    committer: Committer = field(init=False)

    def __post_init__(self) -> None:
        self.committer = Committer(self.store)

    async def add(self, room: Room, hashes: dict[str, str], host: str) -> RoomActor:
        """Serve ``room`` (just made, its rows stored): bots play before the first person."""
        actor = RoomActor(self, room, hashes, host)
        self.actors[room.row.id] = actor
        await actor.call(actor.start)
        return actor

    async def get(self, room_id: str) -> RoomActor:
        """The room's actor, loading the room from the store when this process does not have it
        (taking its lease; one load per room). Raises :class:`Refusal` 404 (no such room) or
        409 (another server serves it), :class:`~engine.errors.MjError` when it cannot be rebuilt."""
        actor = self.actors.get(room_id)
        if actor is not None:
            return actor
        waiting = self.loading.get(room_id)
        if waiting is not None:
            return await asyncio.shield(waiting)
        loop = asyncio.get_running_loop()
        fut: asyncio.Future[RoomActor] = loop.create_future()
        self.loading[room_id] = fut
        try:
            room, hashes, host = await loop.run_in_executor(None, self._load, room_id)
            actor = RoomActor(self, room, hashes, host)
            self.actors[room_id] = actor
            actor.post(actor.start)
            fut.set_result(actor)
            return actor
        except BaseException as exc:
            fut.set_exception(exc)
            fut.exception()  # retrieved: a lone load's error is not "never retrieved"
            raise
        finally:
            self.loading.pop(room_id, None)

    def _load(self, room_id: str) -> tuple[Room, dict[str, str], str]:
        row: RoomRow | None = self.store.room(room_id) if len(room_id) <= MAX_ID_CHARS else None
        if row is None:
            raise Refusal(HTTPStatus.NOT_FOUND, f"no room {room_id[:MAX_ID_CHARS]!r}")
        if not self.store.acquire(room_id, self.owner, self.lease):
            raise Refusal(HTTPStatus.CONFLICT, "another server serves this room now",
                          hint="connect to that server, or wait until its lease runs out")
        room = Room.load(row, self.compile(row.ruleset, row.options), self.store, time.monotonic())
        return room, self.store.token_hashes(room_id), self.store.host_hash(room_id) or ""

    async def tick(self) -> None:
        """Forever: each room's timers (stand-ins for seats away or out of time), and the leases
        renewed every third of their length (a room whose lease is lost is dropped, its sockets
        closed)."""
        last_lease = time.monotonic()
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

    async def drop(self, room_id: str, code: int, reason: str) -> None:
        """Stop serving ``room_id`` here (its sockets told ``reason`` and closed with ``code``)."""
        actor = self.actors.pop(room_id, None)
        if actor is not None:
            actor.stop(code, reason)

    async def release_all(self) -> None:
        """Give up every lease (the server stops) and wait for the store's thread."""
        for room_id in list(self.actors):
            await self.committer.run(self.store.release, room_id, self.owner)
        self.committer.close()
