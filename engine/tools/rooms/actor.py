"""Who changes a room: one actor per room, the room's one writer.

Every change to a :class:`~engine.tools.rooms.room.Room` (a seat's action, a bot's, a timer, a
join, a leave, the host's close or remove, from this server's sockets or forwarded by another
server's) is a job in the room's one ordered queue (:class:`Turns`), run by the room's
:class:`RoomActor` (an asyncio task that owns the room, as lila's game actors own a game).
Nothing else touches the room, so it takes no lock. The jobs that queued up run one after
another; then the actor commits what they applied (:class:`~engine.tools.rooms.commit.Committer`)
and only then says so: each ``ok``, then the new table, published as an immutable
:class:`~engine.tools.rooms.room.Published` from which every frame and the public summary are
built. Bot play that may take long (a bot or a stand-in to move) runs in a worker thread while
the actor waits for it, so other rooms play on; nothing on the event loop waits on a lock.

When servers share the rooms (PostgreSQL), every new version goes out as a ``moved`` note in
the very transaction that stores it (:mod:`engine.tools.rooms.bus`), and a forwarded request's
answer too: the other servers' sockets hear of nothing that is not stored.
"""
from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine
from http import HTTPStatus
from typing import Any, Protocol, TypeVar

from engine.errors import MjError
from engine.tools.rooms.bus import frame_note
from engine.tools.rooms.caps import CLOSE_ELSEWHERE, CLOSE_FORBIDDEN, EPOCH_BYTES, MAX_ID_CHARS, QUIET_LEASES
from engine.tools.rooms.commit import Committer
from engine.tools.rooms.conn import Conn, Lost, Refusal, error_text
from engine.tools.rooms.room import HUMAN, Published, Room, click_version, dumps, token_hash
from engine.tools.rooms.store import Store, Write

T = TypeVar("T")
BATCH = 64  # jobs of one room run before their changes are committed and told together
Job = Callable[[], Awaitable[Any]]


class Host(Protocol):
    """What a room's actor or follower needs of the server that holds it
    (:class:`engine.tools.rooms.hub.Hub`)."""

    store: Store
    committer: Committer
    owner: str  # this server's id
    grace: float  # seconds a seat may be away before a stand-in plays for it
    lease: float  # seconds a server's hold on a room lasts (a follower says who is here every third of it)
    replies: dict[int, asyncio.Future[dict[str, Any]]]  # a follower's request -> its answer

    async def send(self, msg: dict[str, Any]) -> None: ...

    def spawn(self, job: Coroutine[Any, Any, None]) -> None: ...

    async def drop(self, room_id: str, code: int, reason: str) -> None: ...


class Turns:
    """One ordered queue of jobs and the task that runs them: the jobs that queued up run one
    after another, then :meth:`settle` (the owner commits and tells; a follower tells)."""

    def __init__(self, hub: Host, room: Room, hashes: dict[str, str], host: str):
        self.hub, self.room, self.hashes, self.host = hub, room, hashes, host
        self.conns: list[Conn] = []
        self.inbox: asyncio.Queue[tuple[Job, asyncio.Future[Any] | None]] = asyncio.Queue()
        self.published: Published = room.publish()
        self.hello = room.hello(hub.owner)
        self.after: list[tuple[Conn, str]] = []  # messages a job leaves to be sent once its changes are committed
        self.stopped = False
        self.running: list[tuple[Job, asyncio.Future[Any] | None]] = []  # the batch under way
        self.task = asyncio.get_running_loop().create_task(self._run())

    @property
    def id(self) -> str:
        return self.room.row.id

    async def call(self, job: Callable[[], Awaitable[T]]) -> T:
        """Run ``job`` in this room's turn and return what it returns (raises what it raised)."""
        if self.stopped:
            raise Refusal(HTTPStatus.CONFLICT, "this room moved to another server", hint="open the link again")
        done: asyncio.Future[T] = asyncio.get_running_loop().create_future()
        self.inbox.put_nowait((job, done))
        return await done

    def post(self, job: Job) -> None:
        """Queue ``job`` without waiting for it (its errors are dropped: a timer's tick)."""
        if not self.stopped:
            self.inbox.put_nowait((job, None))

    async def _run(self) -> None:
        while not self.stopped:
            batch = [await self.inbox.get()]
            while not self.inbox.empty() and len(batch) < BATCH:  # jobs that came meanwhile: told together
                batch.append(self.inbox.get_nowait())
            finished: list[tuple[asyncio.Future[Any], Any]] = []
            self.running = batch
            for job, done in batch:
                if self.stopped:
                    break
                try:
                    out = await job()
                except Exception as exc:
                    if done is not None and not done.done():
                        done.set_exception(exc)
                else:
                    if done is not None:
                        finished.append((done, out))
            try:
                await self.settle()
            except Lost as exc:
                for done, _ in finished:
                    if not done.done():
                        done.set_exception(exc)
                await self.hub.drop(self.id, CLOSE_ELSEWHERE, str(exc))
                return
            for done, out in finished:
                if not done.done():
                    done.set_result(out)

    async def settle(self) -> None:
        """After the jobs: what they changed is told."""
        await self.publish()

    async def publish(self) -> None:
        """Every connection gets the table as it is now (once a version)."""
        if self.published.version != self.room.version:
            self.published = self.room.publish()
        version = self.published.version
        for c in self.conns:
            if c.seen != version:
                c.seen = version
                await c.send(self.published.frame(c.seat))

    async def summary(self) -> dict[str, Any]:
        """The room's public summary as it is now (``GET /api/rooms/{room}``), taken in its turn."""
        return await self.call(self.summary_now)

    async def summary_now(self) -> dict[str, Any]:
        """:meth:`summary`, in the room's turn."""
        if self.published.version != self.room.version:
            self.published = self.room.publish()
        return self.published.summary

    def check_host(self, token: object) -> None:
        """Raises :class:`Refusal` 403 unless ``token`` is the host's."""
        if not isinstance(token, str) or not secrets.compare_digest(token_hash(token), self.host):
            raise Refusal(HTTPStatus.FORBIDDEN, "only the room's host may do that", hint="send the `host` token")

    def halt(self) -> None:
        """Take no more jobs: every job queued or under way is refused (try again: the room is
        served elsewhere now, or by another object here)."""
        self.stopped = True
        moved = Refusal(HTTPStatus.SERVICE_UNAVAILABLE, "this room moved", hint="try again")
        waiting = list(self.running)
        while not self.inbox.empty():
            waiting.append(self.inbox.get_nowait())
        for _, done in waiting:
            if done is not None and not done.done():
                done.set_exception(moved)
        if asyncio.current_task() is not self.task:
            self.task.cancel()

    async def stop(self, code: int, reason: str) -> None:
        """Stop: every connection is told ``reason`` and closed with ``code``."""
        conns, self.conns = self.conns, []
        self.halt()
        for c in conns:
            await c.close(code, reason)

    async def host_close(self, host: object) -> None:
        """The host (``host``: its token) closes the room."""
        raise NotImplementedError

    async def host_remove(self, seat: str, bot: str, host: object) -> None:
        """The host gives ``seat`` to ``bot``."""
        raise NotImplementedError

    async def act(self, conn: Conn, text: str, version: int | None = None) -> None:
        """``conn``'s seat plays ``text`` (``version``: the table's the click was made on, if said)."""
        raise NotImplementedError

    async def join(self, conn: Conn) -> None:
        """``conn`` is here."""
        raise NotImplementedError

    async def leave(self, conn: Conn) -> None:
        """``conn`` is gone."""
        raise NotImplementedError


class RoomActor(Turns):
    """The one writer of a room this server owns (see the module docstring). ``hashes`` are the
    seats' token hashes and ``host`` the host's, kept here (they change only through this actor);
    ``remote`` which seats other servers have sockets for (seat -> their server ids; None:
    spectators), whose frames it ships to them."""

    def __init__(self, hub: Host, room: Room, hashes: dict[str, str], host: str):
        super().__init__(hub, room, hashes, host)
        self.remote: dict[str | None, set[str]] = {}  # seat (None: spectators) -> the servers with sockets for it
        self.noted = -1  # the version last sent to the other servers
        self.epoch = secrets.token_hex(EPOCH_BYTES)  # this actor's numbering of versions (a reload starts another)
        self.heard: dict[str, float] = {}  # a server in remote -> when it last asked anything of this room

    # ---- after the jobs ------------------------------------------------------------------------------
    async def settle(self) -> None:
        """What the jobs applied: committed, then told (each ``ok``, then the table), then the
        bots' and stand-ins' turns (in a worker thread: they may be long), committed and told."""
        await self._commit()
        told, self.after = self.after, []
        for conn, text in told:
            await conn.send(text)
        await self.publish()
        now = time.monotonic()
        if self.room.bots_to_play(now, self.hub.grace):
            await asyncio.get_running_loop().run_in_executor(None, self.room.step, now, self.hub.grace)
            await self._commit()
            await self.publish()

    async def _commit(self) -> None:
        writes = self.room.take_writes()
        if self.hub.store.shared and self.noted != self.room.version:
            self.noted = self.room.version
            writes.append(Write.note(self.moved()))
            writes.extend(self.shipped())
        try:
            await self.hub.committer.commit(writes)
        except Exception as exc:  # the store refused: the room in memory is no longer the truth
            raise Lost(f"the room could not be stored ({type(exc).__name__}): reconnect") from exc

    def moved(self) -> str:
        """The note that tells the other servers the room is at a new version: ``{"k": "moved",
        "room", "owner", "epoch", "version", "away", "players", "closed"}`` (versions compare
        within one ``epoch``: a room loaded again numbers them afresh)."""
        room = self.room
        return dumps({"k": "moved", "room": self.id, "owner": self.hub.owner, "epoch": self.epoch, "version": room.version,
                      "away": sorted(s for s, t in room.away_since.items() if t is not None),
                      "players": room.row.players, "closed": room.row.closed})

    def shipped(self) -> list[Write]:
        """The frames of this version for the other servers' sockets (:func:`frame_note`: one
        note a server and viewer), built here as this server's own are: a follower sends them
        on as they are."""
        if not any(self.remote.values()):
            return []
        if self.published.version != self.room.version:
            self.published = self.room.publish()
        version = self.published.version
        return [Write.note(frame_note(self.id, server, version, viewer, self.published.frame(viewer), self.epoch), server)
                for viewer, servers in self.remote.items() for server in sorted(servers)]

    def _sync(self, server: str, viewers: list[Any], again: bool) -> None:
        """Server ``server`` has sockets for ``viewers`` (seats, None: spectators) and no
        others: its entries in :attr:`remote` are replaced (a join or leave it sent and this
        actor never heard is repaired); it gets the note and its frames again when ``again``
        or when they changed."""
        wanted = {v for v in viewers[: len(self.room.seats) + 1] if v is None or v in self.room.seats}
        had = {v for v, servers in self.remote.items() if server in servers}
        self._forget(server, had - wanted)
        for v in wanted - had:
            self.remote.setdefault(v, set()).add(server)
            if v is not None and self.room.away_since.get(v) is not None:
                self._here(v)
        if again or wanted != had:
            self.noted = -1

    def _forget(self, server: str, viewers: set[str | None]) -> None:
        """Server ``server`` no longer has sockets for ``viewers``: their seats are away unless
        a socket elsewhere holds them."""
        for v in viewers:
            self.remote[v].discard(server)
            if v is not None:
                self._gone(v)

    def _expire(self, now: float) -> None:
        """A server that has asked nothing of this room for two leases (it says who is here
        every third of one) is dead: its seats are away, and its frames no longer shipped."""
        for server, when in list(self.heard.items()):
            if now - when > QUIET_LEASES * self.hub.lease:
                del self.heard[server]
                self._forget(server, {v for v, servers in self.remote.items() if server in servers})

    def _present(self, seat: str) -> bool:
        return any(c.seat == seat for c in self.conns) or bool(self.remote.get(seat))

    # ---- jobs ----------------------------------------------------------------------------------------
    def _act(self, seat: str, text: str, version: int | None = None) -> str:
        """Apply ``seat``'s action and the lone draws after it; the ``ok`` message (``version``:
        the table that shows it has that version or a later one). Raises
        :class:`~engine.errors.MjError` (nothing changed)."""
        room = self.room
        hand, seq = room.act(seat, text, time.monotonic(), version)
        room.step(time.monotonic(), self.hub.grace, bots=False)  # the lone draws that follow
        return dumps({"type": "ok", "action": text, "hand": hand + 1, "seq": seq, "version": room.version})

    async def act(self, conn: Conn, text: str, version: int | None = None) -> None:
        """``conn``'s seat plays ``text``; answered ``ok`` (after the commit, before the table
        that shows it) or ``error`` (at once: nothing changed)."""
        assert conn.seat is not None, "a spectator's action is refused before it is queued"
        try:
            ok = self._act(conn.seat, text, version)
        except MjError as exc:
            await conn.send(error_text(exc.message, exc.hint))
            raise
        self.after.append((conn, ok))

    async def join(self, conn: Conn) -> None:
        """``conn`` is here: it gets the hello and the table; its seat is no longer away."""
        self.conns.append(conn)
        await conn.send(self.hello)
        if conn.seat is not None:  # its seat is back: everyone's table says so
            self._here(conn.seat)

    def _here(self, seat: str) -> None:
        self.room.away_since[seat] = None
        self.room.turn_since = time.monotonic()
        self.room.version += 1

    def _gone(self, seat: str) -> None:
        if seat in self.room.away_since and not self._present(seat):
            self.room.away_since[seat] = time.monotonic()
            self.room.version += 1

    async def leave(self, conn: Conn) -> None:
        """``conn`` is gone; its seat is away once no connection (here or elsewhere) holds it."""
        if conn in self.conns:
            self.conns.remove(conn)
        conn.gone = True
        if conn.seat is not None:
            self._gone(conn.seat)

    async def tick(self) -> None:
        """A timer: stand-ins play for seats away past the grace or out of time (when the
        jobs settle); servers that went quiet are forgotten (:meth:`_expire`)."""
        if self.heard:
            self._expire(time.monotonic())

    async def start(self) -> None:
        """A new or reloaded room: bots before the first person (when the jobs settle)."""

    async def host_close(self, host: object) -> None:
        self.check_host(host)
        await self.close()

    async def host_remove(self, seat: str, bot: str, host: object) -> None:
        self.check_host(host)
        await self.remove(seat, bot)

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
        self.remote.pop(seat, None)
        room.version += 1

    async def request(self, msg: dict[str, Any]) -> None:
        """A request another server forwarded (its socket's action, join, leave, or the host's
        close or remove): done as if it were this server's own; its answer (``reply``) goes
        back with the commit, or at once when refused. See :mod:`engine.tools.rooms.bus`."""
        op, frm, req = msg.get("op"), str(msg.get("from")), msg.get("req")
        seat = msg.get("seat")
        watch = "seat" in msg and seat is None  # a follower's spectators
        seat = seat if isinstance(seat, str) and seat in self.room.seats else None

        def reply(**answer: object) -> dict[str, Any]:
            return {"k": "reply", "to": frm, "req": req, **answer}

        try:
            if frm in self.heard or op in ("sync", "join"):
                self.heard[frm] = time.monotonic()
            if op == "sync" and isinstance(msg.get("viewers"), list):  # who is there (and the frames again)
                self._sync(frm, msg["viewers"], msg.get("again") is not False)
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "join" and watch:
                self.remote.setdefault(None, set()).add(frm)
                self.noted = -1
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "leave" and watch:
                self.remote.get(None, set()).discard(frm)
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "join" and seat is not None:
                self.remote.setdefault(seat, set()).add(frm)
                self._here(seat)
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "leave" and seat is not None:
                self.remote.get(seat, set()).discard(frm)
                self._gone(seat)
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "act" and seat is not None and isinstance(msg.get("text"), str):
                version = click_version(msg.get("version"))
                self.room.writes.append(Write.note(dumps(reply(ok=self._act(seat, str(msg["text"]), version))), frm))
            elif op == "close":
                self.check_host(msg.get("host"))
                await self.close()
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            elif op == "remove" and isinstance(msg.get("seat"), str) and isinstance(msg.get("bot"), str):
                self.check_host(msg.get("host"))
                await self.remove(str(msg["seat"]), str(msg["bot"]))
                self.room.writes.append(Write.note(dumps(reply(ok=True)), frm))
            else:
                raise Refusal(HTTPStatus.BAD_REQUEST, "unknown request")
        except (MjError, Refusal) as exc:
            if req is not None:
                status = exc.status if isinstance(exc, Refusal) else HTTPStatus.CONFLICT
                await self.hub.send(reply(error=exc.message, hint=exc.hint, status=int(status)))
