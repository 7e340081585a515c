"""Rooms over HTTP and websockets: the contract of docs/serve.md ("Rooms").

- ``POST /api/rooms`` ``{"ruleset", "options", "hands", "bots": {SEAT: KIND}, "seed", "timer"}``
  → ``{"room", "seats": {SEAT: {"token", "url"}}, "watch"}`` (every seat not in ``bots`` is a
  person's, with its own token; the token is shown once and stored only as its SHA-256);
- ``GET /api/rooms/{room}`` the public summary; ``POST /api/rooms/{room}/close`` and ``POST
  /api/rooms/{room}/seats/{seat}/remove`` (a bot takes the seat), both with the host's token;
- ``WS /ws/rooms/{room}?token=T`` (no token: watch): the server sends ``{"type": "hello", …}``
  once (:meth:`Room.hello`), then ``{"type": "state", …}`` (:meth:`Published.frame`) on every
  change; the client sends ``{"type": "act", "action": TEXT}``; a refused message gets
  ``{"type": "error", "error", "hint"}`` and changes nothing; an applied action, ``{"type":
  "ok", "action", "hand", "seq"}`` (stored as action ``seq`` of hand ``hand``), before the table
  that shows it;
- ``GET /api/rooms/{room}/hands/{k}/record`` the record (YAML) of finished hand ``k`` (1-based).

Every change goes through the room's actor (:mod:`engine.tools.rooms.hub`); every action is
stored (committed) before any frame says it happened. A server owns the rooms it serves
through a lease row (:meth:`Store.acquire`), renewed while it runs: a second server on the
same database takes a room over once its owner's lease has run out.
"""
from __future__ import annotations

import functools
import json
import secrets
import time
from collections.abc import Awaitable, Callable
from functools import partial
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
from engine.lang.ruleset import Ruleset
from engine.table.bots import LIVE_BOTS
from engine.table.match import PLAIN_SEEDS
from engine.tools.rooms.actor import Turns
from engine.tools.rooms.caps import (
    CLIP,
    CLOSE_BAD,
    CLOSE_BUSY,
    CLOSE_ELSEWHERE,
    CLOSE_FORBIDDEN,
    CLOSE_NO_ROOM,
    COMPILED_KEPT,
    MAX_ACTION_CHARS,
    MAX_FRAME_BYTES,
    MAX_ID_CHARS,
    MAX_MATCH_HANDS,
    MAX_ROOMS,
    MAX_TIMER_SECONDS,
    MAX_TOKEN_CHARS,
    MAX_WATCHERS,
    MIN_TIMER_SECONDS,
    OPEN_SECONDS,
    SECRET_SEEDS,
    SEED_SPACE,
)
from engine.tools.rooms.conn import Conn, Lost, Refusal, error_text
from engine.tools.rooms.hub import Hub
from engine.tools.rooms.room import HUMAN, ID_BYTES, Room, click_version, new_token, token_hash
from engine.tools.rooms.store import RoomRow, Store
from engine.tools.server.http import Refused, read_body, read_options
from engine.tools.server.work import ruleset_ref

Handler = Callable[[Request], Awaitable[Response]]
ROOM_KEYS = frozenset({"ruleset", "options", "hands", "bots", "seed", "timer"})  # POST /api/rooms


def server_id(data: Path, worker: int | None = None) -> str:
    """This server's name in the rooms' leases, kept in its data folder (``server-id``): a server
    started again on the same folder owns its rooms at once; another folder is another server.
    Worker ``worker`` of ``serve --workers`` is the folder's id with ``-wN``."""
    if worker is not None:
        return f"{server_id(data)}-w{worker}"
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


@functools.lru_cache(maxsize=COMPILED_KEPT)
def _bundled(name: str, options: tuple[tuple[str, str], ...]) -> Ruleset:
    return compile_ruleset(name, dict(options))


def hub_for(store: Store, rules_dir: Path, owner: str) -> Hub:
    """The rooms' hub of a server whose uploaded rule files are in ``rules_dir``. A bundled
    ruleset with its options is compiled once a process (its files never change while it
    runs; the IR is frozen, so rooms share it); an uploaded one, each time a room is made or
    loaded (it may have been uploaded again)."""
    def compile_ref(ruleset: str, options: dict[str, str]) -> Ruleset:
        ref = ruleset_ref(ruleset, rules_dir)
        if ref == ruleset:  # a bundled name
            return _bundled(ref, tuple(sorted(options.items())))
        return compile_ruleset(ref, options)
    return Hub(store, compile_ref, owner=owner)


def new_room(hub: Hub, data: dict[str, Any], base: str) -> tuple[Room, dict[str, str], str, dict[str, Any]]:
    """A new room from a ``POST /api/rooms`` body, stored (see the module docstring): the room,
    its seats' token hashes, the host's token hash and the answer. Raises :class:`Refused` or
    :class:`MjError`. Runs in a worker thread (it compiles and writes)."""
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
    given = seed is not None  # a host's seed deals as `mjrules play --seed` does: its holder may know every hand
    if seed is None:  # the room's secret: never sent, each hand's seed a keyed hash of it (match.hand_seed)
        seed = PLAIN_SEEDS + secrets.randbelow(SECRET_SEEDS - PLAIN_SEEDS)
    elif type(seed) is not int or not 0 <= seed < SEED_SPACE:
        raise Refused(http.HTTP_400_BAD_REQUEST, f"`seed`: a whole number from 0 to {SEED_SPACE - 1}")
    timer = data.get("timer")
    if timer is not None and (type(timer) not in (int, float) or not MIN_TIMER_SECONDS <= timer <= MAX_TIMER_SECONDS):
        raise Refused(http.HTTP_400_BAD_REQUEST, f"`timer`: seconds a seat has to act, {MIN_TIMER_SECONDS} to {MAX_TIMER_SECONDS} (or none)")
    bots = data.get("bots") or {}
    if not isinstance(bots, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in bots.items()):
        raise Refused(http.HTTP_400_BAD_REQUEST, "`bots`: a mapping of seat to bot, e.g. {\"南\": \"greedy\"}")
    for s, kind in bots.items():
        if kind not in LIVE_BOTS:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`bots`: unknown bot {kind[:CLIP]!r} for {s[:CLIP]!r}",
                          hint=f"one of: {', '.join(LIVE_BOTS)}")
    if hub.store.count_open(time.time() - OPEN_SECONDS) >= MAX_ROOMS:
        raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"{MAX_ROOMS} rooms are open: close one first",
                      hint="a room counts until it is closed, its match is over or a day has passed")
    if not isinstance(name, str):
        raise Refused(http.HTTP_400_BAD_REQUEST, "`ruleset`: a ruleset's name", hint="GET /api/rulesets lists them")
    rs = hub.compile(name, options)
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
    hub.store.create_room(row, hashes, token_hash(host), hub.owner, hub.lease)
    room = Room(row, rs, hub.store)
    room.start(time.monotonic())
    answer = {"room": room_id, "ruleset": row.ruleset, "hands": hands, **({"seed": seed} if given else {}), "host": host,
              "seats": {s: {"token": t, "url": f"{base}room/{room_id}#token={t}"} for s, t in tokens.items()},
              "watch": f"{base}room/{room_id}"}
    return room, hashes, token_hash(host), answer


def _refused(exc: Refusal) -> Refused:
    return Refused(exc.status, exc.message, exc.hint)


def _client(conn: Request | WebSocket) -> str:
    return conn.client.host if conn.client else "?"


def routes(hub: Hub, handle: Callable[[Handler], Handler]) -> list[BaseRoute]:
    """The rooms' routes; ``handle`` turns :class:`Refused` and :class:`MjError` into error
    responses (the app's own wrapper)."""

    async def actor_of(request: Request) -> Turns:
        try:
            return await hub.get(request.path_params["room"])
        except Refusal as exc:
            raise _refused(exc) from exc

    async def create(request: Request) -> Response:
        if not hub.joins.allow(_client(request), time.monotonic()):
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, "too many rooms and joins from here: wait a little")
        data = await read_body(request)
        room, hashes, host, out = await run_in_threadpool(new_room, hub, data, str(request.base_url))
        await hub.add(room, hashes, host)
        return JSONResponse(out, status_code=http.HTTP_201_CREATED)

    async def summary(request: Request) -> Response:
        actor = await actor_of(request)
        try:
            return JSONResponse(await actor.summary())
        except Lost as exc:  # the room is loaded again at the next request
            raise Refused(http.HTTP_503_SERVICE_UNAVAILABLE, str(exc), hint="try again") from exc

    async def close(request: Request) -> Response:
        actor = await actor_of(request)
        data = await read_body(request)
        try:
            await actor.call(partial(actor.host_close, data.get("host")))
            return JSONResponse(await actor.summary())
        except Refusal as exc:
            raise _refused(exc) from exc
        except Lost as exc:
            raise Refused(http.HTTP_503_SERVICE_UNAVAILABLE, str(exc), hint="try again") from exc

    async def remove(request: Request) -> Response:
        actor = await actor_of(request)
        data = await read_body(request)
        seat = request.path_params["seat"]
        bot = data.get("bot") or "greedy"
        try:
            if not isinstance(bot, str) or bot not in LIVE_BOTS:
                raise Refusal(http.HTTP_400_BAD_REQUEST, f"unknown bot {str(bot)[:CLIP]!r}", hint=f"one of: {', '.join(LIVE_BOTS)}")
            await actor.call(partial(actor.host_remove, seat, bot, data.get("host")))
            return JSONResponse(await actor.summary())
        except Refusal as exc:
            raise _refused(exc) from exc
        except Lost as exc:
            raise Refused(http.HTTP_503_SERVICE_UNAVAILABLE, str(exc), hint="try again") from exc

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

    async def refuse(ws: WebSocket, code: int, message: str, hint: str | None = None) -> None:
        await ws.send_text(error_text(message, hint))
        await ws.close(code=code)

    async def room_ws(ws: WebSocket) -> None:
        await ws.accept()
        if not hub.joins.allow(_client(ws), time.monotonic()):
            return await refuse(ws, CLOSE_BUSY, "too many joins from here: wait a little")
        try:
            actor = await hub.get(ws.path_params["room"])
        except Refusal as exc:
            return await refuse(ws, CLOSE_NO_ROOM if exc.status == http.HTTP_404_NOT_FOUND else CLOSE_ELSEWHERE,
                                exc.message, exc.hint)
        except MjError as exc:
            return await refuse(ws, CLOSE_BAD, exc.message, exc.hint)
        token = ws.query_params.get("token")
        seat = None
        if token is not None:
            seat = Room.seat_of(token[:MAX_TOKEN_CHARS], actor.hashes)
            if seat is None:
                return await refuse(ws, CLOSE_FORBIDDEN, "this link's token opens no seat here", "ask the host for your link")
        if len(actor.conns) >= MAX_WATCHERS:
            return await refuse(ws, CLOSE_BUSY, f"{MAX_WATCHERS} people are connected to this room")
        conn = Conn(ws, seat)
        room_id = actor.id
        try:
            await actor.call(partial(actor.join, conn))
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    raise WebSocketDisconnect(message.get("code", http.WS_1000_NORMAL_CLOSURE))
                raw = message.get("text")
                if raw is None:  # a binary message (receive_text raised KeyError on one: a traceback)
                    await conn.send(error_text("a message is JSON text, not bytes", '{"type": "act", "action": TEXT}'))
                    continue
                if len(raw) > MAX_FRAME_BYTES:
                    await conn.send(error_text(f"a message is at most {MAX_FRAME_BYTES} bytes"))
                    continue
                try:
                    msg = json.loads(raw)
                except (ValueError, RecursionError):
                    await conn.send(error_text("a message is JSON", '{"type": "act", "action": "E discard 5p"}: one of your view\'s legal texts'))
                    continue
                if not isinstance(msg, dict) or msg.get("type") != "act" or not isinstance(msg.get("action"), str):
                    await conn.send(error_text("unknown message", '{"type": "act", "action": TEXT}'))
                    continue
                if seat is None:
                    await conn.send(error_text("a spectator cannot act", "open your seat's link to play"))
                    continue
                if not conn.acts.allow("", time.monotonic()):
                    await conn.send(error_text("too many actions: slow down"))
                    continue
                action = msg["action"][:MAX_ACTION_CHARS + 1]
                if len(action) > MAX_ACTION_CHARS:
                    await conn.send(error_text(f"an action is at most {MAX_ACTION_CHARS} characters"))
                    continue
                side = hub.serving(room_id)  # its owner here, or its follower: it may change (a takeover)
                if side is None:
                    await conn.close(CLOSE_ELSEWHERE, "this room moved to another server")
                    break
                version = click_version(msg.get("version"))  # the table the click was made on (the page says it)
                try:
                    await side.call(partial(side.act, conn, action, version))
                except MjError:
                    continue  # refused: the seat was told why
                except Refusal as exc:
                    await conn.send(error_text(exc.message, exc.hint))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            side = hub.serving(room_id)
            if side is not None:
                side.post(partial(side.leave, conn))

    return [
        Route("/api/rooms", handle(create), methods=["POST"]),
        Route("/api/rooms/{room}", handle(summary), methods=["GET"]),
        Route("/api/rooms/{room}/close", handle(close), methods=["POST"]),
        Route("/api/rooms/{room}/seats/{seat}/remove", handle(remove), methods=["POST"]),
        Route("/api/rooms/{room}/hands/{k}/record", handle(record), methods=["GET"]),
        WebSocketRoute("/ws/rooms/{room}", room_ws),
    ]
