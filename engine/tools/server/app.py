"""``mjrules serve``: the table and the rule playground in a browser (a Starlette ASGI app).

Routes (JSON unless said otherwise; an error is ``{"error", "file", "line", "column", "hint"}``
with status 400 for bad input, 404 for an unknown game or job, 409 for an illegal action, 413
for a body over :data:`MAX_BODY_BYTES`, 429 when :data:`MAX_RUNS` or :data:`MAX_IMPACT_RUNS`
are busy or :data:`MAX_SESSIONS` are open, 504 past :data:`REQUEST_SECONDS`):

- ``GET /`` the page; ``GET /static/…`` its CSS and JavaScript; ``GET /grammar.json`` the
  TextMate grammar the editor highlights with.
- ``GET /api/rulesets`` bundled and uploaded rulesets with their options (and which it
  ``extends``), the ``default`` (:func:`default_ruleset`) and the bots;
  ``GET /api/rulesets/{name}`` one's text; ``POST /api/rulesets`` ``{name, text}`` uploads one
  into the data folder (it must compile).
- ``POST /api/games`` ``{ruleset, options, seat, bots, seed}`` sits at a table; ``GET
  /api/games/{id}`` the table as the seat sees it; ``POST /api/games/{id}/act`` ``{action}``
  (an action's text, ``S discard 5p``) goes through :meth:`Game.apply`: an illegal one changes
  nothing (409); ``GET /api/games/{id}/record`` the record (YAML) to download.
- ``POST /api/replay`` ``{record}`` the table after each action of a record.
- ``POST /api/check`` ``{text, options}``, ``POST /api/diff`` ``{text, options, base,
  base_options}``, ``POST /api/test`` ``{text, scenario}``: the playground (each in a child
  process killed after :data:`REQUEST_SECONDS`).
- ``POST /api/impact`` ``{text, options, base, base_options, hands, seed}`` starts an impact
  run (at most :data:`IMPACT_MAX_HANDS` hands, :data:`IMPACT_SECONDS`); ``GET
  /api/impact/{id}`` its state; ``WS /ws/impact/{id}`` its progress as it comes; ``POST
  /api/impact/{id}/cancel`` stops it.

Nothing of the server's disk is read or written outside ``data_dir`` but the package's own files
(bundled rulesets, the grammar, the static files).
"""
from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import secrets
import shutil
import threading
import time
from collections import OrderedDict
from collections.abc import AsyncIterator, Awaitable, Callable
from multiprocessing.connection import Connection
from pathlib import Path
from typing import TYPE_CHECKING, Any

from starlette import status as http
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

import engine.tools.server.work as work
from engine.errors import MjError
from engine.tools.server.caps import (
    CLIP,
    CLIP_BUG,
    DEFAULT_IMPACT_HANDS,
    GC_THRESHOLDS,
    IMPACT_MAX_HANDS,
    IMPACT_SECONDS,
    JOIN_SECONDS,
    MAX_ACTION_CHARS,
    MAX_IMPACT_RUNS,
    MAX_JOBS_KEPT,
    MAX_RECORD_BYTES,
    MAX_RULE_BYTES,
    MAX_RUNS,
    MAX_SCENARIO_BYTES,
    MAX_SESSIONS,
    MAX_UPLOADS,
    POLL_SECONDS,
    REQUEST_SECONDS,
    SEED_SPACE,
    SESSION_IDLE_SECONDS,
    SWITCH_SECONDS,
    TOKEN_BYTES,
    WATCH_SECONDS,
)
from engine.tools.server.http import Refused, clean_error, clean_paths
from engine.tools.server.http import read_body as _body
from engine.tools.server.http import read_options as _opts
from engine.tools.server.table import Session, replay_frames

if TYPE_CHECKING:  # the fork server exists only where there is fork (not on Windows)
    from multiprocessing.context import ForkServerContext, SpawnContext

    _Context = SpawnContext | ForkServerContext  # what :func:`_mp` gives

STATIC = Path(__file__).resolve().parent / "static"

def _mp() -> _Context:
    """The multiprocessing context: a fork server that has the engine imported (fast, and
    safe from this process's threads)."""
    if "forkserver" not in multiprocessing.get_all_start_methods():  # Windows
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["engine.tools.server.work", "engine.lang.lint", "engine.tools.sheet", "engine.tools.diff",
                                "engine.tools.scenario", "engine.tools.simulate"])
    return ctx


def _child(conn: Connection, name: str, args: tuple[object, ...]) -> None:
    """Run ``work.NAME(*args)`` in a child; send ("ok", result) / ("error", json) / ("bug", text).
    An impact run also sends ("progress", done, total)."""
    try:
        fn = getattr(work, name)
        if name == "impact":
            result = fn(*args, progress=lambda d, t: conn.send(("progress", d, t)))
        else:
            result = fn(*args)
        conn.send(("ok", result))
    except MjError as exc:
        conn.send(("error", exc.to_json()))
    except Exception as exc:  # a bug: said in one line, never a traceback to the page
        conn.send(("bug", f"{type(exc).__name__}: {str(exc)[:CLIP_BUG]}"))
    finally:
        conn.close()


class Job:
    """A child process doing one piece of work, read through a pipe."""

    def __init__(self, ctx: _Context, name: str, args: tuple[object, ...]):
        self.conn, child = ctx.Pipe(duplex=False)
        self.proc = ctx.Process(target=_child, args=(child, name, args), daemon=True)
        self.proc.start()
        child.close()
        self.started = time.monotonic()
        self.state, self.done, self.total = "running", 0, 0
        self.result: Any = None  # what work.NAME returned, as the pipe brought it
        self.error: dict[str, Any] | None = None
        self.watcher: asyncio.Task[None] | None = None  # an impact run's watch (create_app)

    def poll(self) -> bool:
        """Read what the child sent; True once it has finished (ok, error or bug)."""
        try:
            while self.state == "running" and self.conn.poll():
                msg = self.conn.recv()
                if msg[0] == "progress":
                    self.done, self.total = msg[1], msg[2]
                elif msg[0] == "ok":
                    self.state, self.result = "done", msg[1]
                else:
                    self.state = "failed"
                    self.error = msg[1] if msg[0] == "error" else {"error": "internal error: " + msg[1]}
        except (EOFError, OSError):
            if self.state == "running":
                self.state, self.error = "failed", {"error": "the run stopped without an answer"}
        if self.state == "running" and not self.proc.is_alive() and not self.conn.poll():
            self.state, self.error = "failed", {"error": "the run stopped without an answer"}
        return self.state != "running"

    def kill(self, state: str, message: str) -> None:
        """Stop the child (if still running) and mark the job ``state``."""
        if self.proc.is_alive():
            self.proc.kill()
        self.proc.join(timeout=JOIN_SECONDS)
        if self.state == "running":
            self.state, self.error = state, {"error": message}
        self.conn.close()

    def to_json(self) -> dict[str, Any]:
        """The job's state for the page."""
        return {"state": self.state, "done": self.done, "total": self.total, "result": self.result,
                "error": self.error, "seconds": round(time.monotonic() - self.started, 1)}


class Server:
    """The server's state: its data folder, open games, impact runs and the caps' counters."""

    def __init__(self, data_dir: Path):
        self.data = Path(data_dir).resolve()
        self.rules = self.data / "rules"
        self.jobs_dir = self.data / "jobs"
        self.rules.mkdir(parents=True, exist_ok=True)
        self.jobs_dir.mkdir(parents=True, exist_ok=True)
        self.sessions: OrderedDict[str, Session] = OrderedDict()
        self.sessions_lock = threading.Lock()
        self.impacts: OrderedDict[str, Job] = OrderedDict()
        self.runs = 0
        self.described: dict[tuple[str, int | None], dict[str, Any]] = {}  # (ruleset ref, file mtime) → its entry in /api/rulesets
        self.ctx = _mp()

    # ---- helpers ----------------------------------------------------------------------------------
    def job_dir(self) -> Path:
        """A fresh folder for one request's files, inside the data folder."""
        return self.jobs_dir / secrets.token_hex(TOKEN_BYTES)

    async def run(self, name: str, *args: object, seconds: float = REQUEST_SECONDS) -> Any:
        """``work.NAME(*args)`` in a child process, killed after ``seconds``; at most MAX_RUNS at once."""
        if self.runs >= MAX_RUNS:
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"busy: {MAX_RUNS} runs are going on; try again in a moment")
        self.runs += 1
        job = Job(self.ctx, name, args)
        try:
            while not job.poll():
                if time.monotonic() - job.started > seconds:
                    job.kill("timeout", f"the request took longer than {seconds} seconds and was stopped")
                    raise Refused(http.HTTP_504_GATEWAY_TIMEOUT, f"the request took longer than {seconds} seconds and was stopped",
                                  hint="a smaller rule file or scenario")
                await asyncio.sleep(POLL_SECONDS)
        finally:
            self.runs -= 1
            if job.proc.is_alive():
                job.kill("failed", "stopped")
            for a in args:
                if isinstance(a, Path) and a.parent == self.jobs_dir:
                    shutil.rmtree(a, ignore_errors=True)
        if job.state == "failed":
            raise Refused(http.HTTP_400_BAD_REQUEST, "", None) from _Failed(job.error or {})
        return job.result

    def session(self, sid: str) -> Session:
        s = self.sessions.get(sid)
        if s is None:
            raise Refused(http.HTTP_404_NOT_FOUND, f"no game {sid[:CLIP]!r} (it ended or the server restarted)")
        s.touched = time.monotonic()
        return s

    def add_session(self, s: Session) -> str:
        with self.sessions_lock:
            now = time.monotonic()
            for sid in [k for k, v in self.sessions.items() if now - v.touched > SESSION_IDLE_SECONDS]:
                del self.sessions[sid]
            if len(self.sessions) >= MAX_SESSIONS:
                raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"{MAX_SESSIONS} games are open: finish one, or wait for an idle one to expire")
            sid = secrets.token_urlsafe(TOKEN_BYTES)
            self.sessions[sid] = s
            return sid

    def uploaded(self) -> list[str]:
        return sorted(p.stem for p in self.rules.glob("*.rules"))


class _Failed(Exception):
    def __init__(self, body: dict[str, Any]):
        super().__init__(body.get("error"))
        self.body = body


def default_ruleset(entries: list[dict[str, Any]]) -> str | None:
    """The ruleset the page offers first: the bundled one the most other bundled rulesets
    extend (the family's root), the first by name on a tie; None when nothing is bundled.
    ``entries`` are ``/api/rulesets`` entries (``name``, ``bundled``, ``extends``)."""
    bundled = [e for e in entries if e["bundled"]]
    if not bundled:
        return None
    heirs: dict[str, int] = {str(e["name"]): sum(e["name"] in o["extends"] for o in bundled) for e in bundled}
    return min(heirs, key=lambda n: (-heirs[n], n))


def _text(data: dict[str, Any], key: str, cap: int, what: str, required: bool = True) -> str:
    v = data.get(key)
    if v is None and not required:
        return ""
    if not isinstance(v, str):
        raise Refused(http.HTTP_400_BAD_REQUEST, f"`{key}`: {what} as a string")
    if len(v.encode("utf-8", "surrogatepass")) > cap:
        raise Refused(http.HTTP_413_CONTENT_TOO_LARGE, f"the {what} is larger than {cap} bytes", hint="a rule file is a short list of rules")
    return v


def steady() -> None:
    """Keep the event loop's turns short while bots play in worker threads: the interpreter
    hands the GIL over every SWITCH_SECONDS (not Python's 5 ms: a room's commit or send that
    waits for the GIL behind a bot thread would wait that long each time), what the server has
    loaded by now is left out of the garbage collector's full passes (gc.freeze) and full
    passes come less often (GC_THRESHOLDS): a full pass stalls every thread. Measured by
    tests/test_rooms_isolation.py (docs/serve.md "One writer per room")."""
    import gc
    import sys

    sys.setswitchinterval(SWITCH_SECONDS)
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


def create_app(data_dir: Path, db: str | None = None, preselect: dict[str, Any] | None = None,
               grace: float | None = None, lease: float | None = None, joins: int | None = None,
               worker: int | None = None) -> Starlette:
    """The ASGI app, keeping its files in ``data_dir`` (created if missing) and its rooms in
    ``db`` (a database URL; default SQLite ``data_dir/rooms.db``). ``preselect``: ``{"ruleset",
    "options"}`` the pages start with (``mjrules serve --rules``); ``grace``: seconds a seat may
    be away before a bot plays for it; ``lease``: seconds this server holds a room it serves;
    ``joins``: rooms made and websockets joined per client address per 10 s; ``worker``: this
    process's number among ``serve --workers`` (its server id in the rooms' leases is the data
    folder's with ``-wN``)."""
    import engine.tools.server.rooms_api as rooms_api
    from engine.tools.rooms.conn import Rate
    from engine.tools.rooms.store import Store

    server = Server(data_dir)
    hub = rooms_api.hub_for(Store(db or str(server.data / "rooms.db")), server.rules,
                            rooms_api.server_id(server.data, worker))
    if grace is not None:
        hub.grace = grace
    if lease is not None:
        hub.lease = lease
    if joins is not None:
        hub.joins = Rate(joins, 10.0)

    def handle(fn: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
        async def endpoint(request: Request) -> Response:
            try:
                return await fn(request)
            except Refused as exc:
                cause = exc.__cause__
                body = cause.body if isinstance(cause, _Failed) else exc.body
                return JSONResponse(clean_error(body, server.data), status_code=exc.status)
            except MjError as exc:
                return JSONResponse(clean_error(exc.to_json(), server.data), status_code=http.HTTP_400_BAD_REQUEST)
        return endpoint

    async def index(request: Request) -> Response:
        return FileResponse(STATIC / "index.html", headers={"Cache-Control": "no-store"})

    async def grammar(request: Request) -> Response:
        from engine.lang.resources import data_dir

        return FileResponse(data_dir("grammar") / "mjrules.tmLanguage.json", media_type="application/json")

    # ---- rulesets ------------------------------------------------------------------------------------
    async def rulesets(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        from engine.table.bots import LIVE_BOTS

        def describe() -> list[dict[str, Any]]:
            from engine.lang.compiler import compile_ruleset
            from engine.lang.resources import bundled_ruleset_names

            out: list[dict[str, Any]] = []
            for name, bundled in [*((n, True) for n in bundled_ruleset_names()), *((n, False) for n in server.uploaded())]:
                ref = work.ruleset_ref(name, server.rules)
                path = Path(ref) if ref.endswith(".rules") else None
                key = (ref, path.stat().st_mtime_ns if path else None)
                if key not in server.described:
                    try:
                        rs = compile_ruleset(ref)
                    except MjError:
                        continue
                    server.described[key] = {
                        "name": name, "label": rs.label or rs.name, "bundled": bundled, "extends": list(rs.extends),
                        "seats": [str(v) for v in rs.table["seats"].values],
                        "options": {k: {"label": o.label, "default": o.default, "choices": list(o.choices)}
                                    for k, o in rs.options.items()}}
                out.append(server.described[key])
            return out

        found = await run_in_threadpool(describe)
        chosen = (preselect or {}).get("ruleset")  # `serve --rules`, else the family's root
        return JSONResponse({"rulesets": found, "default": chosen or default_ruleset(found),
                             "default_options": (preselect or {}).get("options", {}), "bots": list(LIVE_BOTS),
                             "caps": {"impact_hands": IMPACT_MAX_HANDS, "rule_bytes": MAX_RULE_BYTES}})

    async def ruleset_text(request: Request) -> Response:
        ref = work.ruleset_ref(request.path_params["name"], server.rules)
        from engine.lang.compiler import compile_ruleset, read_rule_file

        path = Path(ref) if ref.endswith(".rules") else Path(compile_ruleset(ref).file)
        return JSONResponse({"name": request.path_params["name"], "text": read_rule_file(path)})

    async def upload(request: Request) -> Response:
        data = await _body(request)
        name = data.get("name")
        if not isinstance(name, str) or not name or work.safe_name(name) != name:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`name`: letters, digits, - and _ only (a file name in the data folder, not a path): "
                               f"{str(name)[:CLIP]!r}")
        from engine.lang.resources import bundled_ruleset_names

        if name in bundled_ruleset_names():
            raise Refused(http.HTTP_400_BAD_REQUEST, f"{name!r} is a bundled ruleset's name: choose another")
        text = _text(data, "text", MAX_RULE_BYTES, "rule file")
        if name not in server.uploaded() and len(server.uploaded()) >= MAX_UPLOADS:
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"the data folder holds {MAX_UPLOADS} rule files already")
        job = server.job_dir()
        result = await server.run("check", text, {}, server.rules, job)
        if not result["ok"]:
            first = result["diagnostics"][0] if result["diagnostics"] else {}
            return JSONResponse({"error": "the rule file has errors: " + first.get("message", ""),
                                 "file": first.get("file"), "line": first.get("line"),
                                 "column": first.get("column"), "hint": first.get("hint"),
                                 "diagnostics": result["diagnostics"]}, status_code=http.HTTP_400_BAD_REQUEST)
        (server.rules / f"{name}.rules").write_text(text, encoding="utf-8")
        return JSONResponse({"name": name, "ok": True})

    # ---- games ---------------------------------------------------------------------------------------
    async def new_game(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        data = await _body(request)
        name = data.get("ruleset")
        ref = work.ruleset_ref(name, server.rules)
        seed = data.get("seed")
        if seed is not None and (type(seed) is not int or not 0 <= seed < SEED_SPACE):
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`seed`: a whole number from 0 to {SEED_SPACE - 1}")
        s = await run_in_threadpool(Session.start, ref, _opts(data), data.get("seat"), data.get("bots"), seed)
        sid = server.add_session(s)
        return JSONResponse({"id": sid, **await run_in_threadpool(s.state)})

    async def game_state(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        s = server.session(request.path_params["id"])
        return JSONResponse({"id": request.path_params["id"], **await run_in_threadpool(s.state)})

    async def act(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        s = server.session(request.path_params["id"])
        data = await _body(request)
        action = data.get("action")
        if not isinstance(action, str) or len(action) > MAX_ACTION_CHARS:
            raise Refused(http.HTTP_400_BAD_REQUEST, "`action`: an action's text, e.g. `S discard 5p`")
        try:
            state = await run_in_threadpool(s.act, action)
        except MjError as exc:
            return JSONResponse({**exc.to_json(), "state": await run_in_threadpool(s.state)}, status_code=http.HTTP_409_CONFLICT)
        return JSONResponse({"id": request.path_params["id"], **state})

    async def record(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        s = server.session(request.path_params["id"])
        try:
            text = await run_in_threadpool(s.record_yaml)  # its lock is held while bots play: not on the loop
        except MjError as exc:
            raise Refused(http.HTTP_409_CONFLICT, exc.message) from None
        return Response(text, media_type="application/x-yaml",
                        headers={"Content-Disposition": f'attachment; filename="{s.record_name()}"'})

    async def replay(request: Request) -> Response:
        from starlette.concurrency import run_in_threadpool

        data = await _body(request)
        text = _text(data, "record", MAX_RECORD_BYTES, "record")
        return JSONResponse(await run_in_threadpool(replay_frames, text, server.rules))

    # ---- the playground --------------------------------------------------------------------------------
    async def check(request: Request) -> Response:
        data = await _body(request)
        text = _text(data, "text", MAX_RULE_BYTES, "rule file")
        return JSONResponse(clean_paths(await server.run("check", text, _opts(data), server.rules, server.job_dir()), server.data))

    async def diff(request: Request) -> Response:
        data = await _body(request)
        text = _text(data, "text", MAX_RULE_BYTES, "rule file")
        base = data.get("base")
        return JSONResponse(await server.run("diff", text, _opts(data), base, _opts(data, "base_options"),
                                             server.rules, server.job_dir()))

    async def scenario(request: Request) -> Response:
        data = await _body(request)
        text = _text(data, "text", MAX_RULE_BYTES, "rule file")
        scen = _text(data, "scenario", MAX_SCENARIO_BYTES, "scenario file")
        return JSONResponse(await server.run("scenarios", text, scen, server.rules, server.job_dir(),
                                             MAX_SCENARIO_BYTES))

    async def impact_start(request: Request) -> Response:
        data = await _body(request)
        text = _text(data, "text", MAX_RULE_BYTES, "rule file")
        hands, seed = data.get("hands", DEFAULT_IMPACT_HANDS), data.get("seed", 1)
        if type(hands) is not int or not 1 <= hands <= IMPACT_MAX_HANDS:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`hands`: from 1 to {IMPACT_MAX_HANDS} hands in one impact run (got {str(hands)[:CLIP]})",
                          hint="run more with `mjrules impact A B -n N` at the command line")
        if type(seed) is not int or not 0 <= seed < SEED_SPACE:
            raise Refused(http.HTTP_400_BAD_REQUEST, f"`seed`: a whole number from 0 to {SEED_SPACE - 1}")
        base = data.get("base")
        work.ruleset_ref(base, server.rules)  # a bad base is said now, not in the run
        for jid in [k for k, j in server.impacts.items() if j.state != "running"][:-MAX_JOBS_KEPT or None]:
            del server.impacts[jid]
        if sum(j.state == "running" for j in server.impacts.values()) >= MAX_IMPACT_RUNS:
            raise Refused(http.HTTP_429_TOO_MANY_REQUESTS, f"{MAX_IMPACT_RUNS} impact runs are going on: wait for one, or cancel one")
        job_dir = server.job_dir()
        job = Job(server.ctx, "impact", (text, _opts(data), base, _opts(data, "base_options"), hands, seed,
                                          server.rules, job_dir))
        job.total = hands
        jid = secrets.token_urlsafe(TOKEN_BYTES)
        server.impacts[jid] = job

        async def watch() -> None:
            try:
                while not job.poll():
                    if time.monotonic() - job.started > IMPACT_SECONDS:
                        job.kill("timeout", f"the impact run took longer than {IMPACT_SECONDS} seconds and was stopped")
                        break
                    await asyncio.sleep(WATCH_SECONDS)
            finally:
                if job.proc.is_alive():
                    job.kill("failed", "stopped")
                if job.error:
                    job.error = clean_error(job.error, server.data)
                shutil.rmtree(job_dir, ignore_errors=True)

        job.watcher = asyncio.create_task(watch())
        return JSONResponse({"id": jid, **job.to_json()})

    def impact_job(jid: str) -> Job:
        job = server.impacts.get(jid)
        if job is None:
            raise Refused(http.HTTP_404_NOT_FOUND, f"no impact run {jid[:CLIP]!r}")
        return job

    async def impact_state(request: Request) -> Response:
        return JSONResponse(impact_job(request.path_params["id"]).to_json())

    async def impact_cancel(request: Request) -> Response:
        job = impact_job(request.path_params["id"])
        job.kill("cancelled", "cancelled")
        return JSONResponse(job.to_json())

    async def impact_ws(ws: WebSocket) -> None:
        await ws.accept()
        job = server.impacts.get(ws.path_params["id"])
        if job is None:
            await ws.send_json({"state": "failed", "error": {"error": "no such impact run"}})
            await ws.close()
            return
        last: tuple[object, object] | None = None
        try:
            while True:
                now = job.to_json()
                key = (now["state"], now["done"])
                if key != last:
                    await ws.send_json(now)
                    last = key
                if now["state"] != "running":
                    break
                await asyncio.sleep(WATCH_SECONDS)
            await ws.close()
        except (WebSocketDisconnect, RuntimeError):
            pass

    async def room_page(request: Request) -> Response:
        return FileResponse(STATIC / "room.html", headers={"Cache-Control": "no-store"})

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        steady()
        ticker = asyncio.create_task(hub.tick())
        yield
        ticker.cancel()
        await hub.release_all()
        hub.store.dispose()
        for job in server.impacts.values():
            if job.state == "running":
                job.kill("cancelled", "the server stopped")

    routes = [
        Route("/", index),
        Route("/grammar.json", grammar),
        Route("/api/rulesets", handle(rulesets), methods=["GET"]),
        Route("/api/rulesets", handle(upload), methods=["POST"]),
        Route("/api/rulesets/{name:path}", handle(ruleset_text), methods=["GET"]),
        Route("/api/games", handle(new_game), methods=["POST"]),
        Route("/api/games/{id}", handle(game_state), methods=["GET"]),
        Route("/api/games/{id}/act", handle(act), methods=["POST"]),
        Route("/api/games/{id}/record", handle(record), methods=["GET"]),
        Route("/api/replay", handle(replay), methods=["POST"]),
        Route("/api/check", handle(check), methods=["POST"]),
        Route("/api/diff", handle(diff), methods=["POST"]),
        Route("/api/test", handle(scenario), methods=["POST"]),
        Route("/api/impact", handle(impact_start), methods=["POST"]),
        Route("/api/impact/{id}", handle(impact_state), methods=["GET"]),
        Route("/api/impact/{id}/cancel", handle(impact_cancel), methods=["POST"]),
        WebSocketRoute("/ws/impact/{id}", impact_ws),
        Route("/rooms", room_page),
        Route("/room/{room}", room_page),
        *rooms_api.routes(hub, handle),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, lifespan=lifespan)
    app.state.server = server
    app.state.hub = hub
    return app
