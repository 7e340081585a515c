"""What one note between two servers costs, in CPU time: PostgreSQL ``LISTEN``/``NOTIFY``
(psycopg, as the rooms' bus sends them) against Redis pub/sub (redis-py with hiredis), measured
in the same run (not a timed test).

A sender process sends ``--notes`` notes of ``--bytes`` bytes each to a receiver process, in
batches of ``--batch`` (one statement or one pipeline a batch, as a commit carries its notes);
each process reports its own CPU time (``time.process_time``: user + system), and the report
gives both per note. The broker's own CPU (the PostgreSQL or Redis server) is not counted, as
``benchmarks/rooms.py`` counts only the servers'. The peer is one game step of four random bots
(the table layer alone, as ``benchmarks/rooms.py``'s ``peer_game_step_ms``), so runs on a busy
and a quiet hour compare by ratio.

This is the floor under two servers sharing rooms (docs/serve.md, "Rooms under load"): an action
whose seat is on the other server costs at least one request note and one reply, and each
action's frames for the other server's sockets one more note in the commit.

    python benchmarks/notes.py --pg postgresql://… [--redis redis://127.0.0.1:6379/0]
                               [--notes 5000] [--bytes 1500] [--batch 1] [--json]

Needs the ``postgres`` extra for ``--pg`` (``pip install '.[postgres]'``) and ``pip install redis
hiredis`` for ``--redis``; nothing else (the peer is benchmarks/peer.py).
"""
from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import sys
import time
from pathlib import Path
from typing import Any

CHANNEL = "mjrules_bench_notes"


def _payload(size: int, i: int) -> str:
    head = f'{{"k":"frame","n":{i}}}\n'
    return head + "x" * max(size - len(head), 0)


async def _pg_receive(url: str, n: int, ready: Any, out: Any) -> None:
    import psycopg

    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    await conn.execute(f"LISTEN {CHANNEL}")
    ready.set()
    got = 0
    start = time.process_time()
    async for _ in conn.notifies():
        got += 1
        if got == n:
            break
    out.put(time.process_time() - start)
    await conn.close()


async def _pg_send(url: str, n: int, size: int, batch: int, ready: Any, out: Any) -> None:
    import psycopg

    conn = await psycopg.AsyncConnection.connect(url, autocommit=True)
    ready.wait()
    start = time.process_time()
    for first in range(0, n, batch):
        k = min(batch, n - first)
        # one statement a batch, as a commit carries its notes (the bus's plain text parameters)
        sql = "SELECT " + ", ".join(["pg_notify(%s, %s)"] * k)
        params: list[str] = []
        for i in range(first, first + k):
            params += [CHANNEL, _payload(size, i)]
        await conn.execute(sql, params)
    out.put(time.process_time() - start)
    await conn.close()


async def _redis_receive(url: str, n: int, ready: Any, out: Any) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    pubsub = client.pubsub(ignore_subscribe_messages=True)
    await pubsub.subscribe(CHANNEL)
    ready.set()
    got = 0
    start = time.process_time()
    while got < n:
        msg = await pubsub.get_message(timeout=5.0)
        if msg is not None:
            got += 1
    out.put(time.process_time() - start)
    await pubsub.aclose()
    await client.aclose()


async def _redis_send(url: str, n: int, size: int, batch: int, ready: Any, out: Any) -> None:
    import redis.asyncio as aioredis

    client = aioredis.from_url(url)
    ready.wait()
    await asyncio.sleep(0.2)  # the receiver's SUBSCRIBE is answered before the first note
    start = time.process_time()
    for first in range(0, n, batch):
        k = min(batch, n - first)
        if k == 1:
            await client.publish(CHANNEL, _payload(size, first))
            continue
        pipe = client.pipeline(transaction=False)
        for i in range(first, first + k):
            pipe.publish(CHANNEL, _payload(size, i))
        await pipe.execute()
    out.put(time.process_time() - start)
    await client.aclose()


def _run(fn: Any, *args: Any) -> None:
    """Run one side; a failure (no broker at the URL, a missing package) goes to the report's
    queue as a message, and sets ``ready`` so that the other side does not wait for it."""
    *_, ready, out = args
    try:
        asyncio.run(fn(*args))
    except ModuleNotFoundError as exc:  # reported by measure(): the package to install
        extra = "pip install '.[postgres]'" if fn in (_pg_receive, _pg_send) else "pip install redis hiredis"
        out.put(f"{exc} ({extra})")
        ready.set()
    except Exception as exc:  # reported by measure(): the URL to fix
        out.put(" ".join(f"{type(exc).__name__}: {exc}".split()))  # one line (psycopg's run to several)
        ready.set()


def measure(kind: str, url: str, n: int, size: int, batch: int) -> dict[str, float]:
    """CPU ms a note of the sender and of the receiver, for ``kind`` ``pg`` or ``redis``."""
    receive, send = {"pg": (_pg_receive, _pg_send), "redis": (_redis_receive, _redis_send)}[kind]
    ctx = multiprocessing.get_context("spawn")
    ready, got_r, got_s = ctx.Event(), ctx.Queue(), ctx.Queue()
    sender: float | str | None = None
    r = ctx.Process(target=_run, args=(receive, url, n, ready, got_r))
    s = ctx.Process(target=_run, args=(send, url, n, size, batch, ready, got_s))
    r.start()
    s.start()
    try:
        sender = got_s.get(timeout=300)
        # a sender that failed sent nothing: the receiver would wait for ever
        receiver = got_r.get(timeout=300) if not isinstance(sender, str) else None
    finally:
        for side in (s, r):
            side.join(timeout=0 if isinstance(sender, str) else 30)
            if side.is_alive():
                side.kill()
    for got in (sender, receiver):
        if isinstance(got, str):
            print(f"notes.py: {kind}: {got}", file=sys.stderr)
            raise SystemExit(2)
    assert sender is not None and receiver is not None
    return {"send_ms": 1000 * sender / n, "receive_ms": 1000 * receiver / n, "both_ms": 1000 * (sender + receiver) / n}


def peer_step_ms() -> float:
    """The peer (benchmarks/peer.py): the game step's CPU ms, warmed first."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from peer import PEER_HANDS, game_step_ms

    game_step_ms(PEER_HANDS, 2)  # warm: the parser and the win tables
    return game_step_ms(PEER_HANDS, 1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--pg", help="a PostgreSQL URL (postgresql://user:password@host:port/db)")
    p.add_argument("--redis", help="a Redis URL (redis://host:port/db)")
    p.add_argument("--notes", type=int, default=5000, help="notes sent each run (default 5000)")
    p.add_argument("--bytes", type=int, default=1500, help="bytes a note, about a frame's (default 1500)")
    p.add_argument("--batch", type=int, default=1, help="notes a statement or pipeline (default 1)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    a = p.parse_args(argv)
    if not (a.pg or a.redis):
        p.error("give --pg URL, --redis URL or both")
    for flag, value, lo, hi in (("--notes", a.notes, 1, 1_000_000), ("--bytes", a.bytes, 16, 7_900),
                                ("--batch", a.batch, 1, 1000)):
        if not lo <= value <= hi:
            p.error(f"{flag} must be {lo} to {hi} (got {value})")
    report: dict[str, Any] = {"notes": a.notes, "bytes": a.bytes, "batch": a.batch}
    report["peer_game_step_ms"] = peer_step_ms()
    for kind, url in (("pg", a.pg), ("redis", a.redis)):
        if url:
            report[kind] = measure(kind, url, a.notes, a.bytes, a.batch)
            report[kind]["in_game_steps"] = report[kind]["both_ms"] / report["peer_game_step_ms"]
    if a.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"{a.notes} notes of {a.bytes} bytes, {a.batch} a batch; peer: a game step {report['peer_game_step_ms']:.4f} ms")
    for kind in ("pg", "redis"):
        if kind in report:
            r = report[kind]
            print(f"  {kind:5} send {r['send_ms']:.4f} ms  receive {r['receive_ms']:.4f} ms  "
                  f"both {r['both_ms']:.4f} ms a note = {r['in_game_steps']:.1f} game steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
