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

The actor sends each connection its frame itself, in order (:class:`Conn`): a connection never
gets an older table after a newer one.

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
import queue
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from http import HTTPStatus
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
BATCH = 64  # jobs of one room run before their changes are committed and told together


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
    """A websocket on a room: its seat (None: a spectator) and its actions' rate. Its messages
    are sent by whoever holds the turn (the room's actor, or the connection's own reader for
    a refused message) straight to the socket: uvicorn's websocket protocol buffers a send in
    the transport and never waits on it, so a slow socket delays nobody (and a dead one is
    closed by uvicorn's pings); a send that fails marks the connection gone."""

    ws: Socket
    seat: str | None
    acts: Rate = field(default_factory=lambda: Rate(*ACT_RATE))
    gone: bool = False
    seen: int = -1  # the version of the last table it was sent

    async def send(self, text: str) -> None:
        if self.gone:
            return
        try:
            await self.ws.send_text(text)
        except Exception:  # a closed socket: its reader ends the connection
            self.gone = True

    async def close(self, code: int, message: str | None = None) -> None:
        """Send ``message`` (an error) if any, then close with ``code``; nothing after."""
        if message is not None:
            await self.send(error_text(message))
        self.gone = True
        with contextlib.suppress(Exception):
            await self.ws.close(code=code)


class Committer:
    """Writes the rooms' applied actions to the store, committed before anyone is told: one
    thread of its own takes every room's writes waiting while it committed the last ones into
    one transaction. A room whose writes cannot be stored (another server wrote that place)
    gets the error; the others are stored all the same. Other store calls go to a small pool
    (:meth:`run`)."""

    def __init__(self, store: Store):
        self.store = store
        self.queue: queue.SimpleQueue[list[tuple[list[Write], asyncio.AbstractEventLoop, asyncio.Future[None]]] | None] = \
            queue.SimpleQueue()
        self.gathered: list[tuple[list[Write], asyncio.AbstractEventLoop, asyncio.Future[None]]] = []
        self.thread = threading.Thread(target=self._write, name="mjrules-store", daemon=True)
        self.thread.start()
        self.pool = ThreadPoolExecutor(2, thread_name_prefix="mjrules-store-calls")

    async def commit(self, writes: list[Write]) -> None:
        """Return once ``writes`` are committed. Raises what the store raised for them."""
        if not writes:
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self.gathered:  # the rooms that commit in this turn of the loop go to the thread together
            loop.call_soon(self._hand_over)
        self.gathered.append((writes, loop, done))
        await done

    def _hand_over(self) -> None:
        batch, self.gathered = self.gathered, []
        self.queue.put(batch)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call (not a commit of actions) in a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def _write(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            batch = list(item)
            while True:  # every room's writes that came meanwhile: one transaction
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self.queue.put(None)
                    break
                batch.extend(more)
            results: list[BaseException | None]
            try:
                self.store.write([w for ws, _, _ in batch for w in ws])
                results = [None] * len(batch)
            except Exception:
                results = []
                for ws, _, _ in batch:  # one room's conflict: each room's writes alone
                    try:
                        self.store.write(ws)
                        results.append(None)
                    except Exception as failed:
                        results.append(failed)
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
            for (_, loop, done), exc in zip(batch, results, strict=True):
                by_loop.setdefault(loop, []).append((done, exc))
            for loop, told in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a loop that closed meanwhile
                    loop.call_soon_threadsafe(_tell, told)

    def close(self) -> None:
        self.queue.put(None)
        self.thread.join(timeout=30)
        self.pool.shutdown(wait=True)


def _tell(told: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for done, exc in told:
        if done.done():
            continue
        if exc is None:
            done.set_result(None)
        else:
            done.set_exception(exc)


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
        self.after: list[tuple[Conn, str]] = []  # messages a job leaves to be sent once its changes are committed
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
            batch = [await self.inbox.get()]
            while not self.inbox.empty() and len(batch) < BATCH:  # jobs that came meanwhile: told together
                batch.append(self.inbox.get_nowait())
            finished: list[tuple[asyncio.Future[Any], Any]] = []
            for job, done in batch:
                try:
                    out = await job()
                except Exception as exc:
                    if done is not None and not done.done():
                        done.set_exception(exc)
                else:
                    if done is not None:
                        finished.append((done, out))
            try:
                await self._settle()
            except Lost as exc:
                for done, _ in finished:
                    if not done.done():
                        done.set_exception(exc)
                await self.hub.drop(self.id, CLOSE_ELSEWHERE, str(exc))
                return
            for done, out in finished:
                if not done.done():
                    done.set_result(out)

    # ---- after the jobs ------------------------------------------------------------------------------
    async def _settle(self) -> None:
        """What the jobs applied: committed, then told (each ``ok``, then the table), then the
        bots' and stand-ins' turns (in a worker thread: they may be long), committed and told."""
        await self._commit()
        told, self.after = self.after, []
        for conn, text in told:
            await conn.send(text)
        await self._publish()
        now = time.monotonic()
        if self.room.bots_to_play(now, self.hub.grace):
            await asyncio.get_running_loop().run_in_executor(None, self.room.step, now, self.hub.grace)
            await self._commit()
            await self._publish()

    async def _commit(self) -> None:
        try:
            await self.hub.committer.commit(self.room.take_writes())
        except Exception as exc:  # the store refused: the room in memory is no longer the truth
            raise Lost(f"the room could not be stored ({type(exc).__name__}): reconnect") from exc

    async def _publish(self) -> None:
        """Every connection gets the table as it is now (once a version)."""
        if self.published.version != self.room.version:
            self.published = self.room.publish()
        version = self.published.version
        for c in self.conns:
            if c.seen != version:
                c.seen = version
                await c.send(self.published.frame(c.seat))

    # ---- jobs ----------------------------------------------------------------------------------------
    async def act(self, conn: Conn, text: str) -> tuple[int, int]:
        """``conn``'s seat plays ``text``; answered ``ok`` (after the commit, before the table
        that shows it) or ``error`` (at once: nothing changed)."""
        assert conn.seat is not None, "a spectator's action is refused before it is queued"
        room = self.room
        try:
            hand, seq = room.act(conn.seat, text, time.monotonic())
        except MjError as exc:
            await conn.send(error_text(exc.message, exc.hint))
            raise
        room.step(time.monotonic(), self.hub.grace, bots=False)  # the lone draws that follow
        self.after.append((conn, json.dumps({"type": "ok", "action": text, "hand": hand + 1, "seq": seq},
                                            ensure_ascii=False)))
        return hand, seq

    async def join(self, conn: Conn) -> None:
        """``conn`` is here: it gets the hello and the table; its seat is no longer away."""
        self.conns.append(conn)
        await conn.send(self.hello)
        if conn.seat is not None:  # its seat is back: everyone's table says so
            self.room.away_since[conn.seat] = None
            self.room.turn_since = time.monotonic()
            self.room.version += 1

    async def leave(self, conn: Conn) -> None:
        """``conn`` is gone; its seat is away once no other connection holds it."""
        with contextlib.suppress(ValueError):
            self.conns.remove(conn)
        conn.gone = True
        seat = conn.seat
        if seat is not None and not any(c.seat == seat for c in self.conns):
            self.room.away_since[seat] = time.monotonic()
            self.room.version += 1

    async def tick(self) -> None:
        """A timer: stand-ins play for seats away past the grace or out of time (when the
        jobs settle)."""

    async def start(self) -> None:
        """A new or reloaded room: bots before the first person (when the jobs settle)."""

    def check_host(self, token: object) -> None:
        """Raises :class:`Refusal` 403 unless ``token`` is the host's."""
        if not isinstance(token, str) or not secrets.compare_digest(token_hash(token), self.host):
            raise Refusal(HTTPStatus.FORBIDDEN, "only the room's host may do that", hint="send the `host` token")

    async def close(self) -> None:
        """The host closes the room (the match ends where it is)."""
        await self.hub.committer.run(self.hub.store.close, self.id)
        self.room.row = dataclasses.replace(self.room.row, closed=True)
        self.room.version += 1

    async def remove(self, seat: str, bot: str) -> None:
        """The host gives a person's ``seat`` to ``bot``: its connections are closed, its link
        no longer opens it."""
        room = self.room
        if seat not in room.seats or room.player(seat) != HUMAN:
            raise Refusal(HTTPStatus.BAD_REQUEST, f"{seat[:MAX_ID_CHARS]!r} is not a person's seat here")
        await self.hub.committer.run(self.hub.store.set_player, self.id, seat, bot)
        room.row = dataclasses.replace(room.row, players={**room.row.players, seat: bot})
        self.hashes.pop(seat, None)
        for c in [c for c in self.conns if c.seat == seat]:
            self.conns.remove(c)
            await c.close(CLOSE_FORBIDDEN, "the host gave your seat to a bot")
        room.away_since.pop(seat, None)
        room.version += 1

    async def stop(self, code: int, reason: str) -> None:
        """Stop serving: every connection is told ``reason`` and closed with ``code``."""
        self.stopped = True
        conns, self.conns = self.conns, []
        for c in conns:
            await c.close(code, reason)
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
            await actor.stop(code, reason)

    async def release_all(self) -> None:
        """Give up every lease (the server stops) and wait for the store's thread."""
        for room_id in list(self.actors):
            await self.committer.run(self.store.release, room_id, self.owner)
        self.committer.close()
