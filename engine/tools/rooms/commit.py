"""The rooms' writes to the store, committed before anyone is told (:class:`Committer`)."""
from __future__ import annotations

import asyncio
import contextlib
import queue
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from engine.tools.rooms.caps import CHECKPOINT_COMMITS, STORE_JOIN_SECONDS, STORE_THREADS
from engine.tools.rooms.store import Store, Write

T = TypeVar("T")


Batch = list[tuple[list[Write], asyncio.AbstractEventLoop, asyncio.Future[None]]]


class Committer:
    """Writes the rooms' applied actions to the store, committed before anyone is told: every
    room's writes of one turn of the event loop go in one transaction. A room whose writes
    cannot be stored (another server wrote that place) gets the error; the others are stored
    all the same. Other store calls go to a small pool (:meth:`run`).

    A database over the network (PostgreSQL) is written by a thread of its own, which takes
    every batch that waited while it committed the last one; a file of this machine's
    (``store.local``: SQLite in WAL mode, ``synchronous=NORMAL``: a commit is a write to the log, no
    disk flush) is written on the loop itself, which costs less than handing the batch to a
    thread and back, and its log is checkpointed (flushed into the database) in the pool every
    :data:`~engine.tools.rooms.caps.CHECKPOINT_COMMITS` commits, off the loop. The loop never
    waits for the file: when another connection is writing it (a room made or a seat changed in
    the pool), or the batch fails, the batch goes to that thread, which waits; later batches
    follow it there, in order, until it has told them all."""

    def __init__(self, store: Store):
        self.store = store
        self.inline = store.local
        self.queue: queue.SimpleQueue[Batch | None] = queue.SimpleQueue()
        self.gathered: Batch = []
        self.commits = 0  # commits to the file (SQLite) since the last checkpoint
        self.checkpointing: asyncio.Future[tuple[int, int]] | None = None
        self.thread: threading.Thread | None = None
        self.waiting = 0  # batches handed to the thread and not yet told (inline: later ones follow them)
        if not self.inline:
            self._start()
        self.pool = ThreadPoolExecutor(STORE_THREADS, thread_name_prefix="mjrules-store-calls")

    def _start(self) -> None:
        self.thread = threading.Thread(target=self._write, name="mjrules-store", daemon=True)
        self.thread.start()

    async def commit(self, writes: list[Write]) -> None:
        """Return once ``writes`` are committed. Raises what the store raised for them."""
        if not writes:
            return
        loop = asyncio.get_running_loop()
        done: asyncio.Future[None] = loop.create_future()
        if not self.gathered:  # the rooms that commit in this turn of the loop go to the thread together
            loop.call_soon(self._hand_over)
        self.gathered.append((writes, loop, done))
        await done

    def _hand_over(self) -> None:
        batch, self.gathered = self.gathered, []
        if self.inline and not self.waiting:
            try:
                self.store.write([w for ws, _, _ in batch for w in ws], wait=False)
            except Exception:  # the file busy (Busy), a place taken or a broken connection: the thread sorts it out
                pass
            else:
                _tell([(done, None) for _, _, done in batch])
                self._committed()
                return
        if self.thread is None:
            self._start()
        if self.inline:
            self.waiting += 1
        self.queue.put(batch)

    def _committed(self) -> None:
        """Count a commit to the file (on the loop or by the thread): every CHECKPOINT_COMMITS of
        them, its log is checkpointed in the pool (one checkpoint at a time)."""
        self.commits += 1
        if self.commits >= CHECKPOINT_COMMITS and (self.checkpointing is None or self.checkpointing.done()):
            self.commits = 0
            self.checkpointing = asyncio.get_running_loop().run_in_executor(self.pool, self.store.checkpoint)

    def _told(self, told: list[tuple[asyncio.Future[None], BaseException | None]], batches: int) -> None:
        """On the loop, what the thread committed of ``batches`` batches (one transaction): counted,
        then each room told (a room told commits again on the loop when nothing else waits)."""
        self.waiting -= batches
        self._committed()
        _tell(told)

    async def run(self, fn: Callable[..., T], *args: Any) -> T:
        """Run a store call (not a commit of actions) in a worker thread."""
        return await asyncio.get_running_loop().run_in_executor(self.pool, fn, *args)

    def _write(self) -> None:
        while True:
            item = self.queue.get()
            if item is None:
                return
            batch = list(item)
            batches = 1
            while True:  # every room's writes that came meanwhile: one transaction
                try:
                    more = self.queue.get_nowait()
                except queue.Empty:
                    break
                if more is None:
                    self.queue.put(None)
                    break
                batch.extend(more)
                batches += 1
            results = self._store(batch)
            by_loop: dict[asyncio.AbstractEventLoop, list[tuple[asyncio.Future[None], BaseException | None]]] = {}
            for (_, loop, done), exc in zip(batch, results, strict=True):
                by_loop.setdefault(loop, []).append((done, exc))
            for loop, told in by_loop.items():
                with contextlib.suppress(RuntimeError):  # a loop that closed meanwhile
                    if self.inline:  # its one loop: counted and told in one callback, in that order
                        loop.call_soon_threadsafe(self._told, told, batches)
                    else:
                        loop.call_soon_threadsafe(_tell, told)

    def _store(self, batch: Batch) -> list[BaseException | None]:
        """Commit ``batch`` in one transaction; what each room's writes got (None: stored)."""
        try:
            self.store.write([w for ws, _, _ in batch for w in ws])
            return [None] * len(batch)
        except Exception:
            results: list[BaseException | None] = []
            for ws, _, _ in batch:  # one room's conflict: each room's writes alone
                try:
                    self.store.write(ws)
                    results.append(None)
                except Exception as failed:
                    results.append(failed)
            return results

    def close(self) -> None:
        if self.thread is not None:
            self.queue.put(None)
            self.thread.join(timeout=STORE_JOIN_SECONDS)
        self.pool.shutdown(wait=True)


def _tell(told: list[tuple[asyncio.Future[None], BaseException | None]]) -> None:
    for done, exc in told:
        if done.done():
            continue
        if exc is None:
            done.set_result(None)
        else:
            done.set_exception(exc)
