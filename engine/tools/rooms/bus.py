"""How servers sharing one PostgreSQL database talk about rooms: ``LISTEN``/``NOTIFY``.

Every server listens on two channels (:func:`~engine.tools.rooms.store.channel`): the one all
servers hear, for ``moved`` notes, and its own, for what is meant for it alone (requests,
replies, frames). PostgreSQL delivers what one listener hears in commit order, whatever the
channel. A message is a JSON object (PostgreSQL bounds a payload at 8000 bytes):

- ``{"k": "moved", "room", "owner", "epoch", "version", "away", "players", "closed"}``: the
  room's owner stored a new version (sent in the transaction that stored it; versions compare
  within one ``epoch``, a load of the room);
- a frame the owner built for a follower's sockets (:func:`frame_note`), sent in the same
  transaction after the ``moved`` note: the header ``{"k": "frame", "room", "to", "epoch",
  "version", "seat", "z"}`` (``seat`` None: a spectator's), a newline, and the frame's JSON text as the
  seats get it (``z``: compressed, zlib then base64, when it would not fit as it is); a frame
  that does not fit even so goes without a body, and the follower builds it from its replica
  caught up from the store. The follower sends the text on as it is: it never replays the
  hand nor builds the table;
- ``{"k": "request", "op", "room", "to", "from", "req", …}``: a follower asks the owner ``to``
  to do ``op`` (``act`` with ``seat``/``text``, ``join``/``leave`` with ``seat``, None for a
  spectator, ``close`` and ``remove`` with the host's token) for its socket, or ``sync`` with
  ``viewers`` (the seats, None for spectators, its sockets hold, and no others: the owner
  replaces what it knew of that server and sends the ``moved`` note and the frames again);
- ``{"k": "reply", "to", "req", "ok" | "error", "hint", "status"}``: the owner's answer, sent
  with the commit that stored what it did (or at once, when it refused).

:class:`Bus` listens (one psycopg connection of its own, reconnecting) and sends what is not
part of a commit (:meth:`Bus.send`: another connection of its own, autocommit, on the event
loop, the messages of a moment in one round trip); a note that is part of a commit is a :meth:`Write.note` in it.
Messages are untrusted like any input: a malformed one is dropped.
"""
from __future__ import annotations

import asyncio
import base64
import zlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from engine.tools.rooms.caps import FRAME_BYTES, NOTE_BYTES
from engine.tools.rooms.store import channel, notify

if TYPE_CHECKING:
    import psycopg

RETRY_SECONDS = 1.0  # a lost listening connection is made again after this


def frame_note(room: str, to: str, version: int, seat: str | None, frame: str, epoch: str = "") -> str:
    """The note that carries ``frame`` (a state frame's JSON text, as ``seat``'s sockets get
    it, at ``version`` of the owner's ``epoch``) to server ``to``: a JSON header, a newline,
    the frame, compressed when it would not fit in :data:`NOTE_BYTES`, left out when it would
    not fit even so."""
    head = {"k": "frame", "room": room, "to": to, "epoch": epoch, "version": version, "seat": seat, "z": False}
    note = f"{orjson.dumps(head).decode()}\n{frame}"
    if len(note.encode()) <= NOTE_BYTES:
        return note
    head["z"] = True
    packed = base64.b64encode(zlib.compress(frame.encode(), 1)).decode()
    note = f"{orjson.dumps(head).decode()}\n{packed}"
    return note if len(note.encode()) <= NOTE_BYTES else orjson.dumps({**head, "z": None}).decode()


def frame_text(msg: dict[str, Any]) -> str | None:
    """The frame a ``frame`` note carries (its ``body`` as :meth:`Bus.run` split it off), or
    None when it came without one (too large). Raises :class:`ValueError` on a malformed body."""
    body = msg.get("body")
    if not isinstance(body, str) or msg.get("z") is None:
        return None
    if not msg.get("z"):
        return body
    try:
        unpack = zlib.decompressobj()
        text = unpack.decompress(base64.b64decode(body), FRAME_BYTES)
        if unpack.unconsumed_tail or not unpack.eof:
            raise ValueError(f"a frame note's body unpacks past {FRAME_BYTES} bytes, or is cut short")
        return text.decode()
    except (zlib.error, UnicodeDecodeError) as exc:
        raise ValueError("a frame note's body does not decompress") from exc


def parse_note(payload: str) -> dict[str, Any] | None:
    """A note's message: its JSON header, with ``body`` the text after the first newline (a
    frame's), if any; None when the header is not a JSON object."""
    head, nl, body = payload.partition("\n")
    try:
        msg = orjson.loads(head)
    except orjson.JSONDecodeError:
        return None
    if not isinstance(msg, dict):
        return None
    if nl:
        msg["body"] = body
    return msg


async def _quietly_close(conn: psycopg.AsyncConnection[Any]) -> None:
    import psycopg

    try:
        await conn.close()
    except (psycopg.Error, OSError):
        pass  # it is broken already: nothing more to free


class Bus:
    """Listens on the rooms' channel of the PostgreSQL database at ``url`` (a ``postgresql://``
    URL) and hands every message (a dict) to ``handle``, in the order the database delivers
    them (commit order). :attr:`ready` is set once it listens; ``listening`` is called each
    time it starts to listen (again: what was sent while it did not is lost, so whoever
    follows a room asks for it again)."""

    def __init__(self, url: str, handle: Callable[[dict[str, Any]], None], me: str,
                 listening: Callable[[], None] = lambda: None):
        self.url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.handle = handle
        self.listening = listening
        self.me = me  # this server's id: it hears its own channel besides the common one
        self.ready = asyncio.Event()
        self.sender: psycopg.AsyncConnection[Any] | None = None  # send()'s connection
        self.pending: list[tuple[str, str, asyncio.Future[None]]] = []  # (channel, payload, its sender's wait)
        self.flushing = asyncio.Lock()  # one round trip of send()'s at a time
        self.flushes: set[asyncio.Task[None]] = set()  # kept till done (a task nobody holds may be collected)

    async def send(self, payload: str, to: str | None = None) -> None:
        """``NOTIFY`` ``payload`` (a JSON object's text, under 8000 bytes) on the channel of
        server ``to`` (None: every server's); returns once the database has it. The messages
        sent while one round trip is under way go together in the next (one statement, in the
        order they were sent). Raises :class:`ValueError` (nothing sent) when ``payload`` is
        longer than :data:`NOTE_BYTES` encoded, :class:`ConnectionError` when the database cannot
        be reached (the next call connects again)."""
        if len(payload.encode()) > NOTE_BYTES:  # it would fail the whole round trip: refused alone
            raise ValueError(f"a note of {len(payload.encode())} bytes is longer than {NOTE_BYTES}")
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.pending.append((channel(to), payload, done))
        if len(self.pending) == 1:  # the first since the last round trip began: it takes them all
            task = asyncio.get_running_loop().create_task(self._flush())
            self.flushes.add(task)
            task.add_done_callback(self.flushes.discard)
        await done

    async def _flush(self) -> None:
        import psycopg

        async with self.flushing:  # one round trip at a time: what comes meanwhile waits for the next
            batch, self.pending = self.pending, []
            if not batch:
                return
            try:
                conn = self.sender
                if conn is None or conn.closed:
                    conn = self.sender = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                await conn.execute(*notify([(c, n) for c, n, _ in batch]))
            except (psycopg.Error, OSError) as exc:
                broken, self.sender = self.sender, None
                if broken is not None:
                    await _quietly_close(broken)
                lost = ConnectionError(f"the rooms' database cannot be reached: {type(exc).__name__}")
                for _, _, done in batch:
                    if not done.done():
                        done.set_exception(lost)
                return
            for _, _, done in batch:
                if not done.done():
                    done.set_result(None)

    async def close(self) -> None:
        """Close the sending connection (the listening one ends with :meth:`run`'s task)."""
        conn, self.sender = self.sender, None
        if conn is not None:
            await conn.close()

    async def run(self) -> None:
        """Forever (until cancelled): listen, hand over, reconnect after a failure."""
        import psycopg

        while True:
            try:
                conn = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                async with conn:
                    await conn.execute(f"LISTEN {channel()}; LISTEN {channel(self.me)}")
                    self.ready.set()
                    self.listening()
                    async for n in conn.notifies():
                        msg = parse_note(n.payload)
                        if msg is not None:
                            try:
                                self.handle(msg)
                            except (KeyError, TypeError, ValueError):
                                continue  # a malformed message: dropped
            except (psycopg.Error, OSError):
                self.ready.clear()
                await asyncio.sleep(RETRY_SECONDS)
