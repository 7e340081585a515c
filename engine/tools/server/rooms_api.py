"""Rooms over HTTP and websockets: the contract of docs/serve.md ("Rooms").

- ``POST /api/rooms`` ``{"ruleset", "options", "hands", "bots": {SEAT: KIND}, "seed", "timer"}``
  → ``{"room", "seats": {SEAT: {"token", "url"}}, "watch"}`` (every seat not in ``bots`` is a
  person's, with its own token; the token is shown once and stored only as its SHA-256);
- ``GET /api/rooms/{room}`` the public summary; ``POST /api/rooms/{room}/close`` and ``POST
  /api/rooms/{room}/seats/{seat}/remove`` (a bot takes the seat), both with the host's token;
- ``WS /ws/rooms/{room}?token=T`` (no token: watch): the server sends ``{"type": "state", …}``
  (:meth:`Room.view`) on every change; the client sends ``{"type": "act", "action": TEXT}``; a
  refused message gets ``{"type": "error", "error", "hint"}`` and changes nothing; an applied
  action, ``{"type": "ok", "action", "hand", "seq"}`` (stored as action ``seq`` of hand ``hand``);
- ``GET /api/rooms/{room}/hands/{k}/record`` the record (YAML) of finished hand ``k`` (1-based).

Every action is stored (committed) before any frame says it happened. A server owns the rooms
it serves through a lease row (:meth:`Store.acquire`), renewed while it runs: a second server
on the same database takes a room over once its owner's lease has run out.
"""
from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import secrets
import threading
import time
from collections import defaultdict, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from starlette import status as http
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.errors import MjError
from engine.lang.compiler import compile_ruleset
from engine.table.bots import BOTS
from engine.tools.rooms.room import HUMAN, ID_BYTES, Room, new_token, token_hash
from engine.tools.rooms.store import RoomRow, Store
from engine.tools.server.caps import (
    ACT_RATE,
    CLIP,
    CLOSE_BAD,
    CLOSE_BUSY,
    CLOSE_ELSEWHERE,
    CLOSE_FORBIDDEN,
    CLOSE_NO_ROOM,
    GRACE_SECONDS,
    JOIN_RATE,
    LEASE_SECONDS,
    MAX_ACTION_CHARS,
    MAX_FRAME_BYTES,
    MAX_ID_CHARS,
    MAX_MATCH_HANDS,
    MAX_ROOMS,
    MAX_TIMER_SECONDS,
    MAX_TOKEN_CHARS,
    MAX_WATCHERS,
    MIN_TIMER_SECONDS,
    RATE_KEYS,
    SEED_SPACE,
    TICK_SECONDS,
)
from engine.tools.server.http import Refused, read_body, read_options
from engine.tools.server.work import ruleset_ref

Handler = Callable[[Request], Awaitable[Response]]
ROOM_KEYS = frozenset({"ruleset", "options", "hands", "bots", "seed", "timer"})  # POST /api/rooms


def server_id(data: Path) -> str:
    """This server's name in the rooms' leases, kept in its data folder (``server-id``): a server
    started again on the same folder owns its rooms at once; another folder is another server."""
    f = data / "server-id"
    try:
        known = f.read_text(encoding="utf-8").strip()
    except OSError:
        known = ""
    if len(known) == 32 and all(c in "0123456789abcdef" for c in known):
        return known
    fresh = secrets.token_hex(16)
    f.write_text(fresh + "\n", encoding="utf-8")
    return fresh


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


@dataclass
class Conn:
    """A websocket on a room: its seat (None: a spectator) and its actions' rate."""

    ws: WebSocket
    seat: str | None
    acts: Rate = field(default_factory=lambda: Rate(*ACT_RATE))


@dataclass
class Hub:
    """The rooms this server serves: loaded rooms, their connections, the store and the lease."""

    store: Store
    rules_dir: Path  # uploaded rule files
    owner: str = field(default_factory=lambda: secrets.token_hex(8))
    grace: float = GRACE_SECONDS
    lease: float = LEASE_SECONDS
    rooms: dict[str, Room] = field(default_factory=dict)
    conns: dict[str, list[Conn]] = field(default_factory=lambda: defaultdict(list))
    joins: Rate = field(default_factory=lambda: Rate(*JOIN_RATE))
    sending: dict[str, asyncio.Lock] = field(default_factory=dict)  # room -> its broadcast lock
    loading: threading.Lock = field(default_factory=threading.Lock)

    # ---- rooms ---------------------------------------------------------------------------------
    def _compile(self, ruleset: str, options: dict[str, str]) -> Any:
        return compile_ruleset(ruleset_ref(ruleset, self.rules_dir), options)

    def create(self, data: dict[str, Any], base: str) -> dict[str, Any]:
        """A new room (see the module docstring). Raises :class:`Refused` or :class:`MjError`."""
        unknown_keys = sorted(set(data) - ROOM_KEYS)
        if unknown_keys:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"unknown key {unknown_keys[0][:CLIP]!r} in the room",
                          hint="the keys: " + ", ".join(sorted(ROOM_KEYS)))
        name = data.get("ruleset")
        options = read_options(data)
        hands = data.get("hands", 4)
        if type(hands) is not int or not 1 <= hands <= MAX_MATCH_HANDS:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`hands`: a whole number from 1 to {MAX_MATCH_HANDS}",
                          hint="局数: 4, 8 or 16 hands a match")
        seed = data.get("seed")
        if seed is None:
            seed = secrets.randbelow(SEED_SPACE)
        if type(seed) is not int or not 0 <= seed < SEED_SPACE:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`seed`: a whole number from 0 to {SEED_SPACE - 1}")
        timer = data.get("timer")
        if timer is not None and (type(timer) not in (int, float) or not MIN_TIMER_SECONDS <= timer <= MAX_TIMER_SECONDS):
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`timer`: seconds a seat has to act, {MIN_TIMER_SECONDS} to {MAX_TIMER_SECONDS} (or none)")
        bots = data.get("bots") or {}
        if not isinstance(bots, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in bots.items()):
            raise Refused(http.HTTP_400_BAD_REQUEST, "`bots`: a mapping of seat to bot, e.g. {\"南\": \"greedy\"}")
        for s, kind in bots.items():
            if kind not in BOTS:
                raise Refused(http.HTTP_400_BAD_REQUEST, f"`bots`: unknown bot {kind[:CLIP]!r} for {s[:CLIP]!r}",
                              hint=f"one of: {', '.join(BOTS)}")
        if self.store.count_open() >= MAX_ROOMS:
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"{MAX_ROOMS} rooms are open: close one first")
        if not isinstance(name, str):
            raise Refused(http.HTTP_400_BAD_REQUEST, "`ruleset`: a ruleset's name", hint="GET /api/rulesets lists them")
        rs = self._compile(name, options)
        seats = [str(v) for v in rs.table["seats"].values]
        unknown = [s for s in bots if s not in seats]
        if unknown:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`bots`: no seat {unknown[0][:CLIP]!r} at this table",
                          hint=f"seats: {' '.join(seats)}")
        players = {s: bots.get(s, HUMAN) for s in seats}
        room_id = secrets.token_urlsafe(ID_BYTES)
        tokens = {s: new_token() for s in seats if players[s] == HUMAN}
        host = new_token()
        row = RoomRow(room_id, str(name), options, hands, seed, players, float(timer) if timer is not None else None, False)
        hashes = {s: token_hash(t) for s, t in tokens.items()}
        self.store.create_room(row, hashes, token_hash(host), self.owner, self.lease)
        room = Room(row, rs, self.store)
        room.start()
        room.step(time.monotonic(), self.grace)  # bots before the first person
        self.rooms[room_id] = room
        return {"room": room_id, "ruleset": row.ruleset, "hands": hands, "seed": seed, "host": host,
                "seats": {s: {"token": t, "url": f"{base}room/{room_id}#token={t}"} for s, t in tokens.items()},
                "watch": f"{base}room/{room_id}"}

    def get(self, room_id: str) -> Room:
        """The room, loaded from the store when this server does not have it (taking its lease).
        Raises :class:`Refused` 404 (no such room) or 409 (another server serves it)."""
        room = self.rooms.get(room_id)
        if room is not None:
            return room
        with self.loading:  # one load per room: every connection must share the one Room
            room = self.rooms.get(room_id)
            if room is not None:
                return room
            row = self.store.room(room_id) if len(room_id) <= MAX_ID_CHARS else None
            if row is None:
                raise Refused(http.HTTP_404_NOT_FOUND, f"no room {room_id[:CLIP]!r}")
            if not self.store.acquire(room_id, self.owner, self.lease):
                raise Refused(http.HTTP_409_CONFLICT, "another server serves this room now",
                              hint="connect to that server, or wait until its lease runs out")
            room = Room.load(row, self._compile(row.ruleset, row.options), self.store, time.monotonic())
            self.rooms[room_id] = room
            return room

    def seat_of(self, room: Room, token: str) -> str | None:
        return room.seat_of(token, self.store.token_hashes(room.row.id))

    # ---- frames ------------------------------------------------------------------------------------
    async def broadcast(self, room: Room) -> None:
        """Send every connection of the room its frame. One broadcast at a time per room, so
        a connection never gets an older table after a newer one."""
        lock = self.sending.setdefault(room.row.id, asyncio.Lock())
        async with lock:
            for c in list(self.conns.get(room.row.id, [])):
                try:
                    await c.ws.send_text(json.dumps(room.view(c.seat), ensure_ascii=False))
                except Exception:  # a closed socket: its reader removes it
                    with contextlib.suppress(ValueError):
                        self.conns[room.row.id].remove(c)

    def here(self, room: Room, seat: str) -> bool:
        return any(c.seat == seat for c in self.conns.get(room.row.id, []))

    async def tick(self) -> None:
        """Forever: stand-ins play for seats away or out of time, leases are renewed (a room
        whose lease is lost is dropped and its sockets closed)."""
        last_lease = 0.0
        while True:
            await asyncio.sleep(TICK_SECONDS)
            now = time.monotonic()
            for room in list(self.rooms.values()):
                try:
                    if await run_in_threadpool(room.step, now, self.grace):
                        await self.broadcast(room)
                except MjError:
                    continue
            if now - last_lease > self.lease / 3:
                last_lease = now
                for room_id in list(self.rooms):
                    ok = await run_in_threadpool(self.store.acquire, room_id, self.owner, self.lease)
                    if not ok:
                        await self.drop(room_id, CLOSE_ELSEWHERE, "another server serves this room now")

    async def drop(self, room_id: str, code: int, reason: str) -> None:
        self.rooms.pop(room_id, None)
        self.sending.pop(room_id, None)
        for c in self.conns.pop(room_id, []):
            with contextlib.suppress(Exception):
                await c.ws.send_text(json.dumps({"type": "error", "error": reason, "hint": None}))
                await c.ws.close(code=code)

    async def release_all(self) -> None:
        for room_id in list(self.rooms):
            await run_in_threadpool(self.store.release, room_id, self.owner)


def _error(message: str, hint: str | None = None) -> str:
    return json.dumps({"type": "error", "error": message, "hint": hint}, ensure_ascii=False)


def _client(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else "?"


def routes(hub: Hub, handle: Callable[[Handler], Handler]) -> list[BaseRoute]:
    """The rooms' routes; ``handle`` turns :class:`Refused` and :class:`MjError` into error
    responses (the app's own wrapper)."""

    async def create(request: Request) -> Response:
        if not hub.joins.allow(_client(request), time.monotonic()):
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, "too many rooms and joins from here: wait a little")
        data = await read_body(request)
        base = str(request.base_url)
        out = await run_in_threadpool(hub.create, data, base)
        return JSONResponse(out, status_code=http.HTTP_201_CREATED)

    async def summary(request: Request) -> Response:
        room = await run_in_threadpool(hub.get, request.path_params["room"])
        return JSONResponse(room.summary())

    def _host(request: Request, data: dict[str, Any], room: Room) -> None:
        token = data.get("host")
        stored = hub.store.host_hash(room.row.id)
        if not isinstance(token, str) or stored is None or not secrets.compare_digest(token_hash(token), stored):
            raise Refused(http.HTTP_403_FORBIDDEN, "only the room's host may do that", hint="send the `host` token")

    async def close(request: Request) -> Response:
        room = await run_in_threadpool(hub.get, request.path_params["room"])
        data = await read_body(request)
        _host(request, data, room)
        await run_in_threadpool(hub.store.close, room.row.id)
        room.row = dataclasses.replace(room.row, closed=True)
        room.version += 1
        await hub.broadcast(room)
        return JSONResponse(room.summary())

    async def remove(request: Request) -> Response:
        room = await run_in_threadpool(hub.get, request.path_params["room"])
        data = await read_body(request)
        _host(request, data, room)
        seat = request.path_params["seat"]
        if room.player(seat) != HUMAN or seat not in room.seats:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"{seat[:CLIP]!r} is not a person's seat here")
        bot = data.get("bot") or "greedy"
        if bot not in BOTS:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"unknown bot {str(bot)[:CLIP]!r}", hint=f"one of: {', '.join(BOTS)}")
        await run_in_threadpool(hub.store.set_player, room.row.id, seat, bot)
        room.row = dataclasses.replace(room.row, players={**room.row.players, seat: bot})
        for c in [c for c in hub.conns.get(room.row.id, []) if c.seat == seat]:
            with contextlib.suppress(Exception):
                await c.ws.send_text(_error("the host gave your seat to a bot"))
                await c.ws.close(code=CLOSE_FORBIDDEN)
        await run_in_threadpool(room.step, time.monotonic(), hub.grace)
        await hub.broadcast(room)
        return JSONResponse(room.summary())

    async def record(request: Request) -> Response:
        room_id = request.path_params["room"]
        k = request.path_params["k"]
        if not k.isdigit() or not 1 <= int(k) <= MAX_MATCH_HANDS:
            raise Refused(http.HTTP_404_NOT_FOUND, f"no hand {k[:CLIP]!r}")
        rec = await run_in_threadpool(hub.store.record, room_id[:MAX_ID_CHARS], int(k) - 1)
        if rec is None:
            raise Refused(http.HTTP_404_NOT_FOUND, f"hand {k} of room {room_id[:CLIP]!r} is not finished (or no such room)")
        return Response(rec, media_type="application/x-yaml",
                        headers={"Content-Disposition": f'attachment; filename="{room_id}-hand{k}.yaml"'})

    async def room_ws(ws: WebSocket) -> None:
        now = time.monotonic()
        await ws.accept()
        if not hub.joins.allow(_client(ws), now):
            await ws.send_text(_error("too many joins from here: wait a little"))
            await ws.close(code=CLOSE_BUSY)
            return
        try:
            room = await run_in_threadpool(hub.get, ws.path_params["room"])
        except Refused as exc:
            await ws.send_text(_error(str(exc.body["error"]), exc.body.get("hint")))
            await ws.close(code=CLOSE_NO_ROOM if exc.status == http.HTTP_404_NOT_FOUND else CLOSE_ELSEWHERE)
            return
        except MjError as exc:
            await ws.send_text(_error(exc.message, exc.hint))
            await ws.close(code=CLOSE_BAD)
            return
        token = ws.query_params.get("token")
        seat = None
        if token is not None:
            seat = await run_in_threadpool(hub.seat_of, room, token[:MAX_TOKEN_CHARS])
            if seat is None:
                await ws.send_text(_error("this link's token opens no seat here", "ask the host for your link"))
                await ws.close(code=CLOSE_FORBIDDEN)
                return
        conns = hub.conns[room.row.id]
        if len(conns) >= MAX_WATCHERS:
            await ws.send_text(_error(f"{MAX_WATCHERS} people are connected to this room"))
            await ws.close(code=CLOSE_BUSY)
            return
        conn = Conn(ws, seat)
        conns.append(conn)
        if seat is not None:
            room.away_since[seat] = None
            room.turn_since = now
        await hub.broadcast(room)
        try:
            while True:
                raw = await ws.receive_text()
                if len(raw) > MAX_FRAME_BYTES:
                    await ws.send_text(_error(f"a message is at most {MAX_FRAME_BYTES} bytes"))
                    continue
                try:
                    msg = json.loads(raw)
                except (ValueError, RecursionError):
                    await ws.send_text(_error("a message is JSON", '{"type": "act", "action": "E discard 5p"}: one of your view\'s legal texts'))
                    continue
                if not isinstance(msg, dict) or msg.get("type") != "act" or not isinstance(msg.get("action"), str):
                    await ws.send_text(_error("unknown message", '{"type": "act", "action": TEXT}'))
                    continue
                if seat is None:
                    await ws.send_text(_error("a spectator cannot act", "open your seat's link to play"))
                    continue
                t = time.monotonic()
                if not conn.acts.allow("", t):
                    await ws.send_text(_error("too many actions: slow down"))
                    continue
                action = msg["action"][:MAX_ACTION_CHARS + 1]
                if len(action) > MAX_ACTION_CHARS:
                    await ws.send_text(_error(f"an action is at most {MAX_ACTION_CHARS} characters"))
                    continue
                try:
                    hand, seq = await run_in_threadpool(room.act, seat, action, t)
                except MjError as exc:
                    await ws.send_text(_error(exc.message, exc.hint))
                    continue
                await ws.send_text(json.dumps({"type": "ok", "action": action, "hand": hand + 1, "seq": seq},
                                              ensure_ascii=False))
                await run_in_threadpool(room.step, time.monotonic(), hub.grace)
                await hub.broadcast(room)
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            with contextlib.suppress(ValueError):
                conns.remove(conn)
            if seat is not None and not hub.here(room, seat):
                room.away_since[seat] = time.monotonic()
                with contextlib.suppress(Exception):
                    await hub.broadcast(room)

    return [
        Route("/api/rooms", handle(create), methods=["POST"]),
        Route("/api/rooms/{room}", handle(summary), methods=["GET"]),
        Route("/api/rooms/{room}/close", handle(close), methods=["POST"]),
        Route("/api/rooms/{room}/seats/{seat}/remove", handle(remove), methods=["POST"]),
        Route("/api/rooms/{room}/hands/{k}/record", handle(record), methods=["GET"]),
        WebSocketRoute("/ws/rooms/{room}", room_ws),
    ]
