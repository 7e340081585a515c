"""Shared by the rooms tests: a websocket client per seat (frames read by a thread as they
come) and a driver that plays every person's seat by a choice that depends only on what the
seat sees, so that two runs of one seed make the same choices."""
from __future__ import annotations

import hashlib
import json
import threading
import time

from .serve_support import need


class Client:
    """One websocket on a room (a seat's link, or a spectator without a token)."""

    def __init__(self, ws_url: str):
        need("websockets")
        from websockets.sync.client import connect

        self.ws = connect(ws_url, open_timeout=30, max_size=2**22)
        self.frames: list[dict] = []
        self.times: list[float] = []  # time.monotonic() when each of ``frames`` arrived (one clock for every process)
        self.errors: list[dict] = []
        self.oks: list[dict] = []  # the server's word that an action was applied (hand, seq)
        self.hellos: list[dict] = []  # what does not change in a match (tiles, seats), first on every connection
        self.closed: tuple[int, str] | None = None
        self.cond = threading.Condition()
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        try:
            for raw in self.ws:
                f = json.loads(raw)
                now = time.monotonic()
                with self.cond:
                    kind = f.get("type")
                    if kind == "state":
                        self.times.append(now)
                    {"state": self.frames, "ok": self.oks, "hello": self.hellos}.get(kind, self.errors).append(f)
                    self.cond.notify_all()
        except Exception:
            pass
        with self.cond:
            self.closed = (self.ws.close_code or 1006, self.ws.close_reason or "")
            self.cond.notify_all()

    def latest(self) -> dict | None:
        """The newest table this client was sent (the server sends them in order)."""
        with self.cond:
            return self.frames[-1] if self.frames else None

    def wait(self, test, timeout: float = 60.0):
        """Wait until ``test(self)`` is true; returns its value. Raises AssertionError on timeout."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while True:
                v = test(self)
                if v:
                    return v
                left = deadline - time.monotonic()
                assert left > 0, f"timed out; last frame {self.frames[-1:]!r}, errors {self.errors[-3:]!r}"
                self.cond.wait(left)

    def act(self, text: str) -> None:
        self.ws.send(json.dumps({"type": "act", "action": text}))

    def close(self) -> None:
        self.ws.close()
        self.thread.join(timeout=10)


def choose(frame: dict) -> str:
    """A legal action's text picked by a hash of what the seat decides on (its legal actions,
    its tiles, the discards), a win whenever there is one. Only those fields: a change to what
    else a view shows (a new field, an indicator shown) leaves a seeded match's choices alone."""
    view = frame["view"]
    legal = [a["text"] for a in view["legal"]]
    wins = [a["text"] for a in view["legal"] if a["kind"] == "win"]
    if wins:
        return wins[0]
    seen = {k: view.get(k) for k in ("legal", "hand", "drawn", "discards")}
    h = hashlib.sha256(json.dumps(seen, sort_keys=True, ensure_ascii=False).encode()).digest()
    return legal[int.from_bytes(h[:4], "big") % len(legal)]


def drive(clients: dict[str, Client], stop_after: int | None = None, timeout: float = 120.0) -> int:
    """Play every seat in ``clients`` until the match is over (or ``stop_after`` actions).
    Returns the number of actions sent."""
    sent = 0
    deadline = time.monotonic() + timeout
    for c in clients.values():
        c.wait(lambda c: c.latest())  # each has its first frame
    while stop_after is None or sent < stop_after:
        assert time.monotonic() < deadline, "the match did not end in time"
        top = max((c.latest() or {"version": -1})["version"] for c in clients.values())
        for c in clients.values():  # everyone has seen the same table
            c.wait(lambda c: (c.latest() or {"version": -1})["version"] >= top)
        frames = {s: c.latest() for s, c in clients.items()}
        if any(f["finished"] for f in frames.values()):  # a seat read the last table: every seat gets it
            for c in clients.values():
                c.wait(lambda c: c.latest()["finished"])
            return sent
        actors = [s for s, f in frames.items() if f["view"] and f["view"]["legal"]]
        if not actors:
            time.sleep(0.02)  # bots or stand-ins are playing
            continue
        seat = actors[0]
        c = clients[seat]
        before, errors = frames[seat]["version"], len(c.errors)
        for _ in range(5):
            c.act(choose(frames[seat]))
            c.wait(lambda c: (c.latest()["version"] > before) or len(c.errors) > errors)
            if len(c.errors) == errors:
                sent += 1
                break
            said = c.errors[-1]["error"]
            errors = len(c.errors)
            if "is not an action" in said:  # the table moved on meanwhile (a stand-in, a timer): choose again
                c.wait(lambda c: c.latest()["version"] > before, timeout=10)
                break
            assert "slow down" in said, c.errors[-1]  # the server's rate cap: wait, send again
            time.sleep(1.0)
    return sent
