"""How servers sharing one PostgreSQL database talk about rooms: ``LISTEN``/``NOTIFY``.

Every server listens on one channel (:data:`~engine.tools.rooms.store.CHANNEL`); a message is
a JSON object (PostgreSQL bounds a payload at 8000 bytes; these are far smaller):

- ``{"k": "moved", "room", "owner", "version", "away", "players", "closed"}``: the room's owner
  stored a new version (sent in the transaction that stored it: a follower reads the actions
  from the store, never from the note);
- ``{"k": "request", "op", "room", "to", "from", "req", …}``: a follower asks the owner ``to``
  to do ``op`` (``act`` with ``seat``/``text``, ``join``/``leave`` with ``seat``, ``close``
  and ``remove`` with the host's token) for its socket, or ``sync`` (a new follower: send the
  ``moved`` note again);
- ``{"k": "reply", "to", "req", "ok" | "error", "hint", "status"}``: the owner's answer, sent
  with the commit that stored what it did (or at once, when it refused).

:class:`Bus` is the listening side (one psycopg connection of its own, reconnecting); sending
goes through the store (:meth:`Store.notify`, or a :meth:`Write.note` in a commit). Messages
are untrusted like any input: a malformed one is dropped.
"""
from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from engine.tools.rooms.store import CHANNEL

RETRY_SECONDS = 1.0  # a lost listening connection is made again after this


class Bus:
    """Listens on the rooms' channel of the PostgreSQL database at ``url`` (a ``postgresql://``
    URL) and hands every message (a dict) to ``handle``, in the order the database delivers
    them (commit order). :attr:`ready` is set once it listens."""

    def __init__(self, url: str, handle: Callable[[dict[str, Any]], None]):
        self.url = url.replace("postgresql+psycopg://", "postgresql://", 1)
        self.handle = handle
        self.ready = asyncio.Event()

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
                            msg = json.loads(n.payload)
                        except ValueError:
                            continue
                        if isinstance(msg, dict):
                            try:
                                self.handle(msg)
                            except (KeyError, TypeError, ValueError):
                                continue  # a malformed message: dropped
            except (psycopg.Error, OSError):
                self.ready.clear()
                await asyncio.sleep(RETRY_SECONDS)
