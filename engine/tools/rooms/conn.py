"""A connection to a room, and the room's refusals: what the rooms' actors and the routes share.

:class:`Conn` is one websocket on a room (a seat's or a spectator's), :class:`Rate` a sliding
window of events, :class:`Refusal` a refused request with the HTTP status it stands for and
:class:`Lost` a room whose state the store refused (the room is dropped and loaded again).
"""
from __future__ import annotations

import contextlib
import json
from collections import defaultdict, deque
from dataclasses import dataclass, field
from typing import Protocol

from engine.tools.rooms.caps import ACT_RATE, RATE_KEYS


class Refusal(Exception):
    """A request about a room refused: ``status`` is the HTTP status it stands for (404: no such
    room, 409: another server serves it, 403: not the host's, 400: a bad value)."""

    def __init__(self, status: int, message: str, hint: str | None = None):
        super().__init__(message)
        self.status, self.message, self.hint = status, message, hint


class Lost(Exception):
    """The room's state could not be committed: the actor stops and the room is dropped (the
    next connection loads it again from the store)."""


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
    epoch: str = ""  # the numbering ``seen`` is of, on a followed room (its owner's load of it)

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
