"""Rooms on several server processes (issue 27; docs/serve.md "Several processes"): two
`mjrules serve` processes on one PostgreSQL database behind Debian's nginx, configured by
docs/nginx/mjrules.conf. The four seats of a room reach both processes; the room's owner is
SIGKILLed mid-hand; the other process takes the room over, the seats it holds play on without
reconnecting, the others reconnect through nginx, and the match ends with the same record as a
run that was never interrupted. And `serve --workers 2` plays a match through one port."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from .rooms_support import Client, choose
from .serve_support import free_port, need
from .test_rooms_restart import BODY, Proc, pg_database, uninterrupted_record

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")
ROOT = Path(__file__).resolve().parent.parent
RETRY = ("did not answer", "moved", "try again")  # a takeover under way: send again


class Nginx:
    """Debian's nginx with docs/nginx/mjrules.conf in front of ``ports`` (benchmarks/nginx_conf.py)."""

    def __init__(self, scratch: Path, ports: list[int]):
        if shutil.which("nginx") is None:
            if os.environ.get("MJRULES_REQUIRE_NGINX") == "1":
                pytest.fail("MJRULES_REQUIRE_NGINX=1 but nginx is not installed (apt-get install nginx-light)")
            pytest.skip("nginx is not installed (apt-get install nginx-light)")
        sys.path.insert(0, str(ROOT / "benchmarks"))
        from nginx_conf import render

        scratch.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        conf = scratch / "nginx.conf"
        conf.write_text(render(self.port, ports, scratch), encoding="utf-8")
        self.p = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(scratch), "-g", "daemon off;"],
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.url = f"http://127.0.0.1:{self.port}"
        deadline = time.monotonic() + 30
        while True:
            try:
                urllib.request.urlopen(self.url + "/", timeout=5).read()
                return
            except OSError:
                assert self.p.poll() is None, self.p.stderr.read() if self.p.stderr else "nginx stopped"
                assert time.monotonic() < deadline, "nginx did not answer"
                time.sleep(0.1)

    def ws(self, room: str, token: str) -> Client:
        return Client(f"ws://127.0.0.1:{self.port}/ws/rooms/{room}?token={token}")

    def stop(self) -> None:
        self.p.terminate()
        self.p.wait(timeout=30)


def _play(clients: dict[str, Client], reconnect, stop_after: int | None = None, timeout: float = 240.0) -> int:
    """Play every seat by :func:`choose` until the match is over (or ``stop_after`` actions),
    as the pages do: a closed socket is opened again (``reconnect(seat)``), an action the
    servers could not take during a takeover is sent again. Returns the actions applied."""
    sent = 0
    deadline = time.monotonic() + timeout
    while stop_after is None or sent < stop_after:
        assert time.monotonic() < deadline, "the match did not end in time"
        for s, c in list(clients.items()):
            if c.closed:
                clients[s] = reconnect(s)
        try:
            for c in clients.values():
                c.wait(lambda c: c.latest() or c.closed, timeout=30)
            top = max((c.latest() or {"version": -1})["version"] for c in clients.values())
            for c in clients.values():  # every seat has seen the table the last action left
                c.wait(lambda c: c.closed or (c.latest() or {"version": -1})["version"] >= top, timeout=10)
        except AssertionError:
            continue  # a server changed hands meanwhile (its versions start again): look again
        if any(c.closed for c in clients.values()):
            continue
        frames = {s: c.latest() for s, c in clients.items()}
        if any(f["finished"] for f in frames.values()):
            return sent
        actors = [s for s, f in frames.items() if f["view"] and f["view"]["legal"]]
        if not actors:
            time.sleep(0.02)
            continue
        seat = actors[0]
        c = clients[seat]
        errors, oks = len(c.errors), len(c.oks)
        c.act(choose(frames[seat]))
        try:  # ok, then the table that shows the action (a seat's joining moves the version too)
            c.wait(lambda c: c.closed or len(c.errors) > errors or
                   (len(c.oks) > oks and c.latest()["version"] >= c.oks[-1]["version"]), timeout=30)
        except AssertionError:
            continue
        if len(c.errors) > errors:
            said = c.errors[-1]["error"]
            assert any(w in said for w in RETRY) or "slow down" in said, c.errors[-1]
            time.sleep(0.5)
            continue
        if len(c.oks) > oks:
            sent += 1
    return sent


def test_two_servers_behind_nginx_share_a_room_and_its_owner_dying_loses_nothing(tmp_path):
    db = pg_database()
    a = Proc(tmp_path / "a", db, lease=2)
    b = Proc(tmp_path / "b", db, lease=2)
    front = None
    clients: dict[str, Client] = {}
    try:
        front = Nginx(tmp_path / "nginx", [a.port, b.port])
        st, out = a.call("POST", "/api/rooms", BODY)  # a owns the room
        assert st == 201, out
        room, links = out["room"], {s: v["token"] for s, v in out["seats"].items()}
        clients = {s: front.ws(room, t) for s, t in links.items()}
        where = {s: c.wait(lambda c: c.hellos)[0]["server"] for s, c in clients.items()}
        assert set(where.values()) == {a.id, b.id}, where  # nginx split the seats across both processes

        def reconnect(seat: str) -> Client:
            return front.ws(room, links[seat])

        assert _play(clients, reconnect, stop_after=15) == 15
        assert not clients["E"].latest()["finished"]
        on_b = [s for s, w in where.items() if w == b.id]
        before = {s: clients[s] for s in on_b}
        a.kill()  # the owner, mid-hand, no goodbye
        _play(clients, reconnect)
        assert all(clients[s] is before[s] for s in on_b)  # b's seats played on, never reconnected
        assert all(c.latest()["finished"] for c in clients.values())
        record = b.record(room)
    finally:
        for c in clients.values():
            c.close()
        if front is not None:
            front.stop()
        a.stop()
        b.stop()
    assert record == uninterrupted_record(tmp_path / "c", db)


def test_serve_workers_share_one_port_and_play_a_match(tmp_path):
    db = pg_database()
    need("uvicorn")
    port = free_port()
    p = subprocess.Popen([sys.executable, "-m", "engine", "serve", "--port", str(port), "--data", str(tmp_path / "w"),
                          "--json", "--workers", "2", "--db", db, "--grace", "600"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)
    clients: dict[str, Client] = {}
    try:
        hello = json.loads(p.stdout.readline())
        assert len(hello["servers"]) == 2
        url = hello["url"].rstrip("/")
        deadline = time.monotonic() + 60
        while True:
            try:
                urllib.request.urlopen(url + "/", timeout=5).read()
                break
            except OSError:
                assert time.monotonic() < deadline
                time.sleep(0.1)
        req = urllib.request.Request(url + "/api/rooms", data=json.dumps(BODY).encode(), method="POST",
                                     headers={"Content-Type": "application/json"})
        out = json.loads(urllib.request.urlopen(req, timeout=60).read())
        links = {s: v["token"] for s, v in out["seats"].items()}

        def reconnect(seat: str) -> Client:
            return Client(f"ws://127.0.0.1:{port}/ws/rooms/{out['room']}?token={links[seat]}")

        clients = {s: reconnect(s) for s in links}
        _play(clients, reconnect)
        assert all(c.latest()["finished"] for c in clients.values())
        assert {c.hellos[0]["server"] for c in clients.values()} <= set(hello["servers"])
    finally:
        for c in clients.values():
            c.close()
        p.terminate()
        p.wait(timeout=30)
    bad = subprocess.run([sys.executable, "-m", "engine", "serve", "--port", str(free_port()), "--data",
                          str(tmp_path / "x"), "--workers", "2"], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert bad.returncode == 2 and "PostgreSQL" in bad.stderr + bad.stdout and "Traceback" not in bad.stderr
