"""Nothing is lost (issue 18): a server killed mid-hand (SIGKILL, a real process) and started
again on the same database resumes the room at its last action; the four players reconnect by
their links and the hand ends with the same record as a run that was never interrupted. The
same on PostgreSQL (``MJRULES_TEST_PG``, a database URL; .ci/run starts Debian's server), and
two servers on one PostgreSQL: when the room's owner dies, the other takes it over."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request

import pytest

from .rooms_support import Client, drive
from .serve_support import free_port, need

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
PG = os.environ.get("MJRULES_TEST_PG")
NEED_PG = os.environ.get("MJRULES_REQUIRE_PG") == "1"
BODY = {"ruleset": "nanchang", "hands": 1, "seed": 29}


class Proc:
    """``mjrules serve`` in its own process."""

    def __init__(self, data, db: str | None = None, lease: float = 15.0):
        need("sqlalchemy")
        need("uvicorn")
        self.port = free_port()
        cmd = [sys.executable, "-m", "engine", "serve", "--port", str(self.port), "--data", str(data),
               "--json", "--grace", "600", "--lease", str(lease)] + (["--db", db] if db else [])
        self.p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = self.p.stdout.readline()
        assert line, self.p.stderr.read()
        started = json.loads(line)
        self.url, self.id = started["url"].rstrip("/"), started["servers"][0]
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(self.url + "/", timeout=5).read()
                break
            except (urllib.error.URLError, ConnectionError):
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data else {})
        try:
            with urllib.request.urlopen(req, timeout=60) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def record(self, room: str) -> str:
        with urllib.request.urlopen(f"{self.url}/api/rooms/{room}/hands/1/record", timeout=60) as r:
            return r.read().decode()

    def clients(self, out: dict) -> dict[str, Client]:
        ws = self.url.replace("http://", "ws://")
        return {s: Client(f"{ws}/ws/rooms/{out['room']}?token={v['token']}") for s, v in out["seats"].items()}

    def finish(self, room: str, clients: dict[str, Client]) -> str:
        """Play the room's hand to its end with ``clients``, close them; the hand's record."""
        drive(clients, timeout=300)
        for c in clients.values():
            c.close()
        return self.record(room)

    def kill(self) -> None:
        self.p.send_signal(signal.SIGKILL)
        self.p.wait(timeout=30)

    def stop(self) -> None:
        if self.p.poll() is None:
            self.p.terminate()
            try:
                self.p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.kill()


def uninterrupted_record(data, db: str | None) -> str:
    """The record of BODY's room played by one server from start to end, nothing killed."""
    srv = Proc(data, db)
    try:
        st, out = srv.call("POST", "/api/rooms", BODY)
        assert st == 201, out
        return srv.finish(out["room"], srv.clients(out))
    finally:
        srv.stop()


def _killed_and_resumed(data, db: str | None) -> str:
    srv = Proc(data, db)
    st, out = srv.call("POST", "/api/rooms", BODY)
    assert st == 201, out
    clients = srv.clients(out)
    drive(clients, stop_after=20)
    top = max(c.latest()["version"] for c in clients.values())
    for c in clients.values():  # every seat has seen the table the last action left
        c.wait(lambda c: c.latest()["version"] >= top)
    mid = clients["E"].latest()
    assert not mid["finished"]
    srv.kill()  # mid-hand, no goodbye
    for c in clients.values():
        c.wait(lambda c: c.closed)
    again = Proc(data, db)
    try:
        clients = again.clients(out)  # the same links
        first = clients["E"].wait(lambda c: c.latest())
        assert first["view"]["discards"] == mid["view"]["discards"]  # the table as it was
        return again.finish(out["room"], clients)
    finally:
        again.stop()


def test_a_server_killed_mid_hand_resumes_from_sqlite_with_the_same_record(tmp_path):
    assert _killed_and_resumed(tmp_path / "b", None) == uninterrupted_record(tmp_path / "a", None)


def pg_database() -> str:
    """MJRULES_TEST_PG's database URL; skips without it (fails when MJRULES_REQUIRE_PG=1)."""
    if not PG:
        if NEED_PG:
            pytest.fail("MJRULES_REQUIRE_PG=1 but MJRULES_TEST_PG names no database")
        pytest.skip("MJRULES_TEST_PG is not set (a postgresql:// URL of a database to use)")
    need("psycopg")
    return PG


def test_a_server_killed_mid_hand_resumes_from_postgresql_with_the_same_record(tmp_path):
    db = pg_database()
    assert _killed_and_resumed(tmp_path / "b", db) == uninterrupted_record(tmp_path / "a", db)


def test_two_servers_on_one_postgresql_the_other_takes_a_room_over_when_its_owner_dies(tmp_path):
    db = pg_database()
    a = Proc(tmp_path / "a", db, lease=3)
    b = Proc(tmp_path / "b", db, lease=3)
    try:
        st, out = a.call("POST", "/api/rooms", BODY)
        assert st == 201
        clients = a.clients(out)
        drive(clients, stop_after=20)
        top = max(c.latest()["version"] for c in clients.values())
        for c in clients.values():
            c.wait(lambda c: c.latest()["version"] >= top)
        st_a, body_a = a.call("GET", f"/api/rooms/{out['room']}")
        deadline = time.monotonic() + 10
        while True:  # b follows a's room: within moments, the same summary (who is seated included)
            st, body = b.call("GET", f"/api/rooms/{out['room']}")
            if body == body_a or time.monotonic() > deadline:
                break
            time.sleep(0.2)
        assert st == st_a == 200 and body == body_a
        a.kill()
        for c in clients.values():
            c.wait(lambda c: c.closed)
        time.sleep(3 + 1)  # a's lease runs out: b, asked for the room, takes it
        record = b.finish(out["room"], b.clients(out))
    finally:
        a.stop()
        b.stop()
    assert record == uninterrupted_record(tmp_path / "c", db)


def test_the_load_benchmark_runs_clean_on_a_few_rooms():
    """benchmarks/rooms.py, small: every room finishes, no error, no acknowledged action lost."""
    for module in ("websockets", "starlette", "uvicorn", "sqlalchemy"):
        need(module)
    root = __import__("pathlib").Path(__file__).resolve().parent.parent
    r = subprocess.run([sys.executable, str(root / "benchmarks" / "rooms.py"), "--rooms", "3", "--hands", "1",
                        "--seconds", "120", "--json"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    report = json.loads(r.stdout)
    assert report["errors"] == 0 and report["lost_actions"] == 0, report
    assert report["actions_acknowledged"] > 0 and report["actions_applied"] >= report["actions_acknowledged"]


def test_the_real_server_closes_a_socket_that_sends_an_oversized_frame(tmp_path):
    """`mjrules serve` caps a websocket message at 4 × MAX_FRAME_BYTES in uvicorn itself (close
    1009, never buffered whole); the room goes on for the others."""
    srv = Proc(tmp_path / "d")
    try:
        st, out = srv.call("POST", "/api/rooms", BODY)
        clients = srv.clients(out)
        clients["E"].wait(lambda c: c.latest())
        clients["E"].ws.send("x" * 100_000)
        assert clients["E"].wait(lambda c: c.closed, timeout=30)[0] == 1009  # "message too big"
        st, summary = srv.call("GET", f"/api/rooms/{out['room']}")
        assert st == 200 and summary["hand"] == 1
        for c in clients.values():
            c.close()
    finally:
        srv.stop()


def test_servers_started_together_on_a_fresh_postgresql_database_both_start():
    """`serve --workers 2` (or two servers at once) on an empty database: both make the tables
    at the same moment; the one that loses the race finds them made (it failed to start before)."""
    import threading

    db = pg_database()  # skips without a database
    need("sqlalchemy")
    import sqlalchemy as sa

    from engine.tools.rooms.store import Store

    engine = sa.create_engine(db.replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        for k in range(4):
            schema = f"fresh_{os.getpid()}_{k}"
            with engine.begin() as c:
                c.exec_driver_sql(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
                c.exec_driver_sql(f"CREATE SCHEMA {schema}")
            url = f"{db}{'&' if '?' in db else '?'}options=-csearch_path%3D{schema}"
            start, errors = threading.Barrier(2), []

            def open_store() -> None:
                start.wait()
                try:
                    Store(url).engine.dispose()
                except Exception as exc:  # noqa: BLE001 - the test reports what failed
                    errors.append(repr(exc)[:300])

            threads = [threading.Thread(target=open_store) for _ in range(2)]
            for t in threads:
                t.start()
            for t in threads:
                t.join(60)
            with engine.begin() as c:
                c.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
            assert errors == [], f"round {k}: {errors}"
    finally:
        engine.dispose()


def misrouted(seat: str | None, frames: list[dict]) -> list[str]:
    """What in ``frames`` (the state frames one socket of ``seat`` got; None: a spectator's) is
    another viewer's: a frame for another seat, or a table that shows a concealed hand not its
    own while the hand is played."""
    out = []
    for f in frames:
        if f["seat"] != seat:
            out.append(f"version {f['version']}: a frame for {f['seat']!r}")
        view = f.get("view")
        if view is not None and not view["over"]:
            shown = sorted(s for s, tiles in view["hands"].items() if tiles is not None)
            if shown != ([seat] if seat is not None else []):
                out.append(f"version {f['version']}: the concealed hands of {shown}")
    return out


def test_a_followers_sockets_get_the_frames_of_their_own_seat_shipped_by_the_owner(tmp_path):
    """Two servers on one PostgreSQL: a owns the room, b follows it with seats W and N and a
    spectator. The owner ships b the frames of those seats (docs/serve.md "Several processes");
    each socket on b gets only its own seat's (a spectator's: no hand), every version the
    others saw, and the hand ends with the record one server gives. First, the check is shown
    to catch a frame sent to the wrong socket."""
    from .rooms_support import Client

    db = pg_database()
    a = Proc(tmp_path / "a", db)
    b = Proc(tmp_path / "b", db)
    try:
        st, out = a.call("POST", "/api/rooms", BODY)
        assert st == 201
        ws_b = b.url.replace("http://", "ws://")
        clients = a.clients(out)
        for seat in ("W", "N"):  # these two seats' sockets reach the follower
            clients[seat].close()
            clients[seat] = Client(f"{ws_b}/ws/rooms/{out['room']}?token={out['seats'][seat]['token']}")
        watcher = Client(f"{ws_b}/ws/rooms/{out['room']}")
        record = b.finish(out["room"], clients)
        watcher.wait(lambda c: c.latest() is not None and c.latest()["finished"])
        watcher.close()
    finally:
        a.stop()
        b.stop()
    assert record == uninterrupted_record(tmp_path / "c", db)
    east, west = clients["E"].frames, clients["W"].frames
    assert misrouted("W", west + east[-3:-1]) != []  # planted: E's frames on W's socket are caught
    assert misrouted(None, watcher.frames + west[-3:-1]) != []  # and W's on a spectator's
    for seat, c in clients.items():
        assert misrouted(seat, c.frames) == [], seat
        assert c.frames[-1]["finished"]
    assert misrouted(None, watcher.frames) == []
    assert len(watcher.frames) > 20 and watcher.frames[-1]["finished"]
    # the follower's seats saw the table as the owner's did: the last table of each hand's end
    assert clients["W"].frames[-1]["last"] == clients["E"].frames[-1]["last"]
