"""Rooms under load, on loopback: R rooms × 4 websocket clients playing random legal actions.

Real ``mjrules serve`` processes (``--servers N``, SQLite or ``--db postgresql://…`` in a
scratch data folder; with ``--nginx`` behind Debian's nginx) host ``--rooms`` rooms of
``--hands`` hands each, every seat a person's. The clients run in ``--client-procs`` processes
of their own (never in a server's): each seat's websocket (asyncio) sends, whenever its seat
has legal actions, one chosen at random (seeded). With several servers and no nginx, the seats
of a room are split across them (seat i on server i mod N). It reports:

- the action → frame latency: from sending an action to the next table that seat is sent
  (p50 / p95 / p99, ms, on loopback);
- the servers' CPU seconds per applied action (``/proc/PID/stat``: user + system of the server
  processes only, summed), actions per second, and each server's peak memory (VmHWM, MiB);
- the peer, measured in the same run (before it and after, in the benchmark's own process):
  one game step of four random bots playing nanchang with the table layer alone, in CPU ms;
  ``server_cpu_in_game_steps`` is the servers' CPU an action in such steps. (Issue 27's goal,
  0.3 ms, was set when a step cost 0.05 ms: 6 steps; the steps have since grown faster, and
  0.3 ms is about 15–20 of today's, docs/serve.md.) A slow spell of the shared machine falls
  on both sides of that ratio;
- errors (any refused action but the rate cap's "slow down", any socket closed early) and lost
  actions: every action the server accepted must be in its room's stored records, in order.

Bounded in time: ``--seconds`` (default 300) stops the run and reports what was done.

    python benchmarks/rooms.py [--rooms 50] [--hands 2] [--seed 1] [--servers 1] [--client-procs 2]
                               [--db URL] [--nginx] [--seconds 300] [--json]

``actions_applied`` counts every stored action, the draws the server takes for a seat (a lone
``draw``) included; ``actions_acknowledged`` the clients' own, each answered ``ok``. docs/serve.md
("Rooms under load") has the measured numbers and where the time goes.
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import orjson  # the serve extra's (docs/serve.md)
import uvloop  # uvicorn[standard]'s
from peer import PEER_HANDS, game_step_ms  # benchmarks/peer.py: the game step the servers' CPU is counted in

ROOT = Path(__file__).resolve().parent.parent


def _cpu_seconds(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _peak_mib(pid: int) -> float:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return round(int(line.split()[1]) / 1024, 1)
    except OSError:
        pass
    return float("nan")


def _tree(pid: int) -> list[int]:
    """``pid`` and its children (a server started with --workers forks them)."""
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        try:
            kids = Path(f"/proc/{p}/task/{p}/children").read_text().split()
        except OSError:
            kids = []
        todo.extend(int(k) for k in kids)
    return out


def _post(url: str, body: dict) -> dict:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=60) as r:
        return json.loads(r.read())


async def _seat(ws_url: str, rng: random.Random, lat: list[float], oks: list[tuple[int, int, str]],
                errors: list[str], stop_at: float, got: list[int]) -> None:
    """One seat's client. It acts on a table it has not acted on yet, one action in flight at a
    time (the server answers each with ``ok`` or ``error``); an action refused because the table
    moved on first (another seat's claim) is chosen again from the newer table."""
    from websockets.asyncio.client import connect

    async with connect(ws_url, max_size=2**22) as ws:
        last: dict | None = None
        acted_on = -1  # the version of the table the last action was chosen from
        in_flight: float | None = None  # when the action in flight was sent
        waiting_frame: float | None = None  # an applied action whose next table has not come yet
        while time.monotonic() < stop_at:
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=max(0.1, stop_at - time.monotonic()))
            except TimeoutError:
                break
            f = orjson.loads(raw)
            got[0] += 1
            got[1] += len(raw)
            if f["type"] == "hello":
                continue
            if f["type"] == "ok":
                oks.append((f["hand"], f["seq"], f["action"]))
                waiting_frame, in_flight = in_flight, None
            elif f["type"] == "error":
                in_flight = None
                if "slow down" in f["error"]:
                    await asyncio.sleep(1.0)
                    acted_on = -1
                elif last is None or last["version"] <= acted_on:  # refused on the table it was chosen from
                    errors.append(f["error"])
                    return
            else:
                last = f
                if waiting_frame is not None and f["version"] > acted_on:
                    lat.append(time.monotonic() - waiting_frame)
                    waiting_frame = None
                if f["finished"]:
                    return
            legal = last["view"]["legal"] if last and last["view"] else []
            if legal and in_flight is None and last is not None and last["version"] > acted_on:
                acted_on = last["version"]
                in_flight = time.monotonic()
                await ws.send(orjson.dumps({"type": "act", "action": rng.choice(legal)["text"]}).decode())
    errors.append("the run's time ran out before this room finished")


def _clients(seats: list[tuple[str, int]], stop_at: float, out: multiprocessing.Queue) -> None:
    """A client process: every seat in ``seats`` (websocket URL, seed), reported on ``out``."""
    lat: list[float] = []
    errors: list[str] = []
    oks: dict[str, list[tuple[int, int, str]]] = {}
    got = [0, 0]  # messages and bytes the seats received

    async def everything() -> None:
        tasks = []
        for url, seed in seats:
            room = url.split("/ws/rooms/")[1].split("?")[0]
            tasks.append(_seat(url, random.Random(seed), lat, oks.setdefault(room, []), errors, stop_at, got))
        results = await asyncio.gather(*tasks, return_exceptions=True)
        errors.extend(f"socket: {x!r}"[:200] for x in results if isinstance(x, BaseException))

    uvloop.run(everything())  # the load's own cost kept low: it shares the machine with the servers
    out.put({"lat": lat, "errors": errors, "oks": oks, "cpu": time.process_time(), "got": got})


def _start_server(port: int, data: Path, db: str | None) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "engine", "serve", "--port", str(port), "--data", str(data), "--json",
           "--grace", "3600", "--joins", "100000"] + (["--db", db] if db else [])
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT)


def _wait_up(proc: subprocess.Popen) -> str:
    line = proc.stdout.readline() if proc.stdout else ""
    if not line:
        sys.exit(f"a server did not start: {proc.stderr.read() if proc.stderr else ''}")
    url = json.loads(line)["url"].rstrip("/")
    for _ in range(300):
        try:
            urllib.request.urlopen(url + "/", timeout=5).read()
            return url
        except OSError:
            time.sleep(0.1)
    sys.exit(f"the server at {url} does not answer")


def _nginx(ports: list[int], scratch: Path) -> tuple[subprocess.Popen, str]:
    """Debian's nginx in front of the servers (docs/serve.md's config, on a scratch port)."""
    from nginx_conf import render  # benchmarks/nginx_conf.py: the config docs/nginx/mjrules.conf shows

    if shutil.which("nginx") is None:
        sys.exit("--nginx needs Debian's nginx: apt-get install nginx")
    port = 20_000 + random.Random().randrange(20_000)
    conf = scratch / "nginx.conf"
    conf.write_text(render(port, ports, scratch), encoding="utf-8")
    proc = subprocess.Popen(["nginx", "-c", str(conf), "-p", str(scratch), "-g", "daemon off;"],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    url = f"http://127.0.0.1:{port}"
    for _ in range(100):
        try:
            urllib.request.urlopen(url + "/", timeout=5).read()
            return proc, url
        except OSError:
            time.sleep(0.1)
    sys.exit(f"nginx did not start: {proc.stderr.read() if proc.stderr else ''}")


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rooms", type=int, default=50, help="rooms, each with 4 person seats (default 50)")
    ap.add_argument("--hands", type=int, default=2, help="hands a room plays (default 2)")
    ap.add_argument("--seed", type=int, default=1, help="the rooms' and the clients' seed (default 1)")
    ap.add_argument("--servers", type=int, default=1, help="server processes sharing one database (default 1)")
    ap.add_argument("--client-procs", type=int, default=2, help="client processes (default 2)")
    ap.add_argument("--db", default=None, help="a postgresql:// URL the servers share (default: SQLite; "
                                                 "several servers need PostgreSQL)")
    ap.add_argument("--nginx", action="store_true", help="put Debian's nginx in front (the clients talk to it)")
    ap.add_argument("--seconds", type=float, default=300.0, help="stop the run after this (default 300)")
    ap.add_argument("--json", action="store_true", help="print the report as JSON")
    args = ap.parse_args(argv)
    for name in ("rooms", "hands", "servers", "client_procs"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1")
    if args.servers > 1 and not (args.db or "").startswith("postgresql"):
        ap.error("several servers share one PostgreSQL database: give --db postgresql://…")
    scratch = Path(tempfile.mkdtemp(prefix="mjrules-rooms-bench-"))
    base = 20_000 + random.Random().randrange(20_000)
    ports = [base + i for i in range(args.servers)]
    procs = [_start_server(p, scratch / f"data{i}", args.db) for i, p in enumerate(ports)]
    front = None
    try:
        urls = [_wait_up(p) for p in procs]
        if args.nginx:
            front, url = _nginx(ports, scratch)
            seat_urls = [url]
        else:
            seat_urls = urls
        rooms = [_post(urls[i % len(urls)] + "/api/rooms", {"ruleset": "nanchang", "hands": args.hands,
                                                              "seed": args.seed + i}) for i in range(args.rooms)]
        seats = []
        for i, r in enumerate(rooms):
            for j, v in enumerate(r["seats"].values()):
                ws = seat_urls[j % len(seat_urls)].replace("http://", "ws://")
                seats.append((f"{ws}/ws/rooms/{r['room']}?token={v['token']}", args.seed * 1_000 + i * 8 + j))
        game_step_ms(PEER_HANDS, args.seed + 1)  # warm: the parser and the win tables
        step_ms = game_step_ms(PEER_HANDS, args.seed)
        pids = [q for p in procs for q in _tree(p.pid)]
        cpu0 = sum(_cpu_seconds(p) for p in pids)
        stop_at = time.monotonic() + args.seconds
        started = time.monotonic()
        ctx = multiprocessing.get_context("spawn")
        out: multiprocessing.Queue = ctx.Queue()
        workers = [ctx.Process(target=_clients, args=(seats[k::args.client_procs], stop_at, out))
                   for k in range(args.client_procs)]
        for w in workers:
            w.start()
        parts = [out.get(timeout=args.seconds + 120) for _ in workers]
        for w in workers:
            w.join(timeout=30)
        wall = time.monotonic() - started
        cpu = sum(_cpu_seconds(p) for p in pids) - cpu0
        step_ms = (step_ms + game_step_ms(PEER_HANDS, args.seed)) / 2  # before and after: the machine's drift
        lat = [x for p in parts for x in p["lat"]]
        errors = [e for p in parts for e in p["errors"]]
        oks: dict[str, list[tuple[int, int, str]]] = {}
        for p in parts:
            for room, v in p["oks"].items():
                oks.setdefault(room, []).extend(tuple(x) for x in v)
        sys.path.insert(0, str(ROOT))
        from engine.lang.yamlio import load_text

        applied = lost = 0
        for r in rooms:
            stored: dict[int, list[str]] = {}
            for k in range(1, args.hands + 1):
                try:
                    with urllib.request.urlopen(f"{urls[0]}/api/rooms/{r['room']}/hands/{k}/record", timeout=60) as resp:
                        stored[k] = list(load_text(resp.read().decode(), "record.yaml").get("actions") or [])
                except OSError:
                    stored[k] = []
            applied += sum(len(v) for v in stored.values())
            # every action the server said it applied is in the stored record, at its place
            lost += sum(1 for hand, seq, text in oks.get(r["room"], [])
                        if seq >= len(stored.get(hand, [])) or stored[hand][seq] != text)
        for r in rooms:  # closed: a shared database keeps no open rooms of a benchmark (MAX_ROOMS)
            try:
                _post(f"{urls[0]}/api/rooms/{r['room']}/close", {"host": r["host"]})
            except OSError:
                pass
        q = statistics.quantiles(lat, n=100) if len(lat) >= 100 else [float("nan")] * 99
        report = {
            "rooms": args.rooms, "clients": 4 * args.rooms, "client_processes": args.client_procs,
            "servers": args.servers, "nginx": args.nginx, "database": "postgresql" if args.db else "sqlite",
            "hands_per_room": args.hands, "wall_s": round(wall, 1), "actions_applied": applied,
            "actions_acknowledged": sum(len(v) for v in oks.values()),
            "actions_per_s": round(applied / wall, 1) if wall else 0.0,
            "latency_ms": {"p50": round(q[49] * 1e3, 1), "p95": round(q[94] * 1e3, 1), "p99": round(q[98] * 1e3, 1)},
            "server_cpu_ms_per_action": round(cpu / max(applied, 1) * 1e3, 3),
            "peer_game_step_ms": round(step_ms, 4),
            "server_cpu_in_game_steps": round(cpu / max(applied, 1) * 1e3 / step_ms, 1) if step_ms else None,
            "clients_cpu_ms_per_action": round(sum(p["cpu"] for p in parts) / max(applied, 1) * 1e3, 3),
            "messages_per_action": round(sum(p["got"][0] for p in parts) / max(applied, 1), 2),
            "bytes_per_message": round(sum(p["got"][1] for p in parts) / max(sum(p["got"][0] for p in parts), 1)),
            "server_peak_rss_mib": [_peak_mib(p) for p in pids], "errors": len(errors), "error_examples": errors[:5],
            "lost_actions": lost,
        }
    finally:
        for p in procs + ([front] if front else []):
            p.terminate()
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
        shutil.rmtree(scratch, ignore_errors=True)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for k, v in report.items():
            print(f"{k:28s} {v}")
    return report


if __name__ == "__main__":
    main()
