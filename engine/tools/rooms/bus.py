"""How servers sharing one PostgreSQL database talk about rooms: ``LISTEN``/``NOTIFY``.

Every server listens on one channel (:data:`~engine.tools.rooms.store.CHANNEL`); a message is
a JSON object (PostgreSQL bounds a payload at 8000 bytes; these are far smaller):

- ``{"k": "moved", "room", "owner", "version", "away", "players", "closed", "actions"}``: the
  room's owner stored a new version (sent in the transaction that stored it); ``actions`` are
  the ``[hand, seq, text]`` that transaction stored, or None when they would not fit (a
  follower then reads them from the store);
- ``{"k": "request", "op", "room", "to", "from", "req", …}``: a follower asks the owner ``to``
  to do ``op`` (``act`` with ``seat``/``text``, ``join``/``leave`` with ``seat``, ``close``
  and ``remove`` with the host's token) for its socket, or ``sync`` (a new follower: send the
  ``moved`` note again);
- ``{"k": "reply", "to", "req", "ok" | "error", "hint", "status"}``: the owner's answer, sent
  with the commit that stored what it did (or at once, when it refused).

:class:`Bus` listens (one psycopg connection of its own, reconnecting) and sends what is not
part of a commit (:meth:`Bus.send`: another connection of its own, autocommit, one round trip
a message, on the event loop); a note that is part of a commit is a :meth:`Write.note` in it.
Messages are untrusted like any input: a malformed one is dropped.
"""
from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import orjson

from engine.tools.rooms.store import CHANNEL

if TYPE_CHECKING:
    import psycopg

RETRY_SECONDS = 1.0  # a lost listening connection is made again after this


class Bus:
    """Listens on the rooms' channel of the PostgreSQL database at ``url`` (a ``postgresql://``
    URL) and hands every message (a dict) to ``handle``, in the order the database delivers
    them (commit order). :attr:`ready` is set once it listens."""

    def __init__(self, url: str, handle: Callable[[dict[str, Any]], None]):
        self.url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.handle = handle
        self.ready = asyncio.Event()
        self.sender: psycopg.AsyncConnection[Any] | None = None  # send()'s connection
        self.connecting = asyncio.Lock()  # one sender connection made at a time

    async def send(self, payload: str) -> None:
        """``NOTIFY`` ``payload`` (a JSON object's text, under 8000 bytes) on the rooms' channel.
        Raises :class:`ConnectionError` when the database cannot be reached (the next call
        connects again)."""
        import psycopg

        try:
            conn = self.sender
            if conn is None or conn.closed:
                async with self.connecting:
                    if self.sender is None or self.sender.closed:
                        self.sender = await psycopg.AsyncConnection.connect(self.url, autocommit=True)
                    conn = self.sender
            await conn.execute("SELECT pg_notify(%s, %s)", (CHANNEL, payload))
        except (psycopg.Error, OSError) as exc:
            self.sender = None
            raise ConnectionError(f"the rooms' database cannot be reached: {type(exc).__name__}") from exc

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
                    await conn.execute(f"LISTEN {CHANNEL}")
                    self.ready.set()
                    async for n in conn.notifies():
                        try:
                            msg = orjson.loads(n.payload)
                        except orjson.JSONDecodeError:
                            continue
                        if isinstance(msg, dict):
                            try:
                                self.handle(msg)
                            except (KeyError, TypeError, ValueError):
                                continue  # a malformed message: dropped
            except (psycopg.Error, OSError):
                self.ready.clear()
                await asyncio.sleep(RETRY_SECONDS)
