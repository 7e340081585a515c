"""The rooms' commits (engine/tools/rooms/commit.py): a SQLite store is written on the event
loop, every room's writes of one turn of the loop in one transaction, and its write-ahead log
is checkpointed off the loop every CHECKPOINT_COMMITS commits (the writer connection's own
automatic checkpoint is off); and what a room loaded again from its store makes of its seats'
people."""
from __future__ import annotations

import asyncio
import gc
import sqlite3
import threading
import time

import pytest

from .extras import need_extra

need_extra("sqlalchemy", "serve")  # the rooms' store

from engine.tools.rooms import commit as commit_module  # noqa: E402
from engine.tools.rooms.commit import Committer  # noqa: E402
from engine.tools.rooms.store import RoomRow, Store, Write  # noqa: E402

SQLITE_AUTOCHECKPOINT_PAGES = 1000  # SQLite's default wal_autocheckpoint
HOLD_SECONDS = 0.4  # another connection holds the file's write lock this long
TICK_SECONDS = 0.01  # a task on the loop wakes this often meanwhile


def _store(tmp_path) -> Store:
    store = Store(str(tmp_path / "rooms.db"))
    store.create_room(RoomRow("r1", "nanchang", {}, 1, 1, {}, None, False), {}, "h", "me", 60.0)
    store.create_room(RoomRow("r2", "nanchang", {}, 1, 2, {}, None, False), {}, "h", "me", 60.0)
    return store


def test_one_turn_of_the_loop_is_one_transaction_and_both_rooms_are_stored(tmp_path):
    store = _store(tmp_path)
    committer = Committer(store)
    assert committer.inline and committer.thread is None  # SQLite: on the loop, no thread
    transactions = []
    real = store.write

    def counting(writes, **kw):
        transactions.append(len(writes))
        real(writes, **kw)

    store.write = counting  # type: ignore[method-assign]

    async def go():
        await asyncio.gather(committer.commit([Write.action("r1", 0, 0, "draw", "seat")]),
                             committer.commit([Write.action("r2", 0, 0, "draw", "seat"),
                                               Write.action("r2", 0, 1, "discard 1m", "seat")]))

    asyncio.run(go())
    committer.close()
    assert transactions == [3] and committer.thread is None  # written on the loop
    assert store.actions("r1") == {0: ["draw"]}
    assert store.actions("r2") == {0: ["draw", "discard 1m"]}


def test_a_room_whose_place_is_taken_gets_the_error_and_the_other_is_stored(tmp_path):
    store = _store(tmp_path)
    store.write([Write.action("r1", 0, 0, "draw", "seat")])
    committer = Committer(store)

    async def go():
        return await asyncio.gather(committer.commit([Write.action("r1", 0, 0, "draw", "another server")]),
                                    committer.commit([Write.action("r2", 0, 0, "draw", "seat")]),
                                    return_exceptions=True)

    first, second = asyncio.run(go())
    committer.close()
    assert isinstance(first, Exception) and "IntegrityError" in type(first).__name__
    assert second is None
    assert store.actions("r2") == {0: ["draw"]}


def test_the_loop_runs_on_while_another_connection_writes_the_file(tmp_path):
    """Found by a review: the loop's commit waited for SQLite's lock (its busy timeout, up to
    30 s) while another connection wrote the file (a room being made, a seat changed, in the
    pool), and nothing else on the loop ran meanwhile. Now the batch goes to a thread that
    waits, and the loop runs on; once the lock is free the commit is stored and told."""
    store = _store(tmp_path)
    committer = Committer(store)
    holder = sqlite3.connect(tmp_path / "rooms.db", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")  # the file's write lock, as another connection's write holds it
    release = threading.Timer(HOLD_SECONDS, lambda: holder.execute("COMMIT"))
    ticks: list[float] = []

    async def go():
        async def ticker():
            while True:
                ticks.append(time.monotonic())
                await asyncio.sleep(TICK_SECONDS)

        t = asyncio.create_task(ticker())
        await asyncio.sleep(0)
        release.start()
        before = len(ticks)
        await committer.commit([Write.action("r1", 0, 0, "draw", "seat")])
        t.cancel()
        return len(ticks) - before

    ran = asyncio.run(go())
    release.join()
    committer.close()
    holder.close()
    assert ran >= HOLD_SECONDS / TICK_SECONDS / 4  # the loop ran while the lock was held (it ran 0 or 1 times)
    assert store.actions("r1") == {0: ["draw"]}
    assert committer.waiting == 0  # told: the next commit goes on the loop again


def test_a_commit_the_thread_made_counts_toward_the_checkpoint(tmp_path, monkeypatch):
    """Found by a review: a batch the thread committed (the file busy) was not counted, so a
    contended file was checkpointed far less often than every CHECKPOINT_COMMITS commits."""
    monkeypatch.setattr(commit_module, "CHECKPOINT_COMMITS", 1)
    store = _store(tmp_path)
    committer = Committer(store)
    calls: list[int] = []
    real = store.checkpoint
    store.checkpoint = lambda: calls.append(1) or real()  # type: ignore[method-assign]
    holder = sqlite3.connect(tmp_path / "rooms.db", isolation_level=None, check_same_thread=False)
    holder.execute("BEGIN IMMEDIATE")
    release = threading.Timer(HOLD_SECONDS, lambda: holder.execute("COMMIT"))

    async def go():
        release.start()
        await committer.commit([Write.action("r1", 0, 0, "draw", "seat")])  # by the thread: the file is held
        assert committer.checkpointing is not None
        await committer.checkpointing

    asyncio.run(go())
    release.join()
    committer.close()
    holder.close()
    assert committer.thread is not None and calls == [1]


def test_a_writer_connection_that_failed_is_not_given_back_to_the_pool(tmp_path):
    """Found by a review: a failed write on the loop's connection (busy timeout 0) dropped it
    unclosed, and the pool handed it out again: a room made later failed at once on a lock
    another connection held, instead of waiting for it."""
    store = _store(tmp_path)
    store.write([Write.action("r1", 0, 0, "draw", "seat")], wait=False)  # the loop's connection, open
    other = sqlite3.connect(tmp_path / "rooms.db", isolation_level=None, check_same_thread=False)
    other.execute("ALTER TABLE actions RENAME TO actions_away")
    with pytest.raises(Exception, match="actions"):
        store.write([Write.action("r1", 0, 1, "draw", "seat")], wait=False)  # fails: no such table
    other.execute("ALTER TABLE actions_away RENAME TO actions")
    gc.collect()  # a dropped, unclosed connection went back to the pool when collected
    other.execute("BEGIN IMMEDIATE")
    release = threading.Timer(HOLD_SECONDS, lambda: other.execute("COMMIT"))
    release.start()
    for n in range(3, 3 + 5):  # the pool's connections in turn: each waits for the lock
        store.create_room(RoomRow(f"r{n}", "nanchang", {}, 1, n, {}, None, False), {}, "h", "me", 60.0)
    release.join()
    other.close()
    assert store.room("r7") is not None


def test_the_log_is_checkpointed_off_the_loop_every_checkpoint_commits(tmp_path, monkeypatch):
    monkeypatch.setattr(commit_module, "CHECKPOINT_COMMITS", 3)
    store = _store(tmp_path)
    committer = Committer(store)
    calls = []
    real = store.checkpoint
    loop_thread = []

    def spying():
        import threading
        calls.append(threading.current_thread().name)
        return real()

    store.checkpoint = spying  # type: ignore[method-assign]

    async def go():
        import threading
        loop_thread.append(threading.current_thread().name)
        for seq in range(7):
            await committer.commit([Write.action("r1", 0, seq, "draw", "seat")])
            if committer.checkpointing is not None:  # one at a time: a commit meanwhile starts none
                await committer.checkpointing

    asyncio.run(go())
    committer.close()
    assert len(calls) == 2  # after the 3rd and the 6th commit
    assert all(name != loop_thread[0] for name in calls)  # in the pool, not on the loop
    assert store.actions("r1") == {0: ["draw"] * 7}


def test_the_writers_log_grows_past_sqlites_own_checkpoint_until_checkpoint_copies_it(tmp_path):
    store = _store(tmp_path)
    for seq in range(SQLITE_AUTOCHECKPOINT_PAGES):  # each commit logs at least one page
        store.write([Write.action("r1", 0, seq, "draw", "seat")])
    log, copied = store.checkpoint()
    assert log > SQLITE_AUTOCHECKPOINT_PAGES  # SQLite's own checkpoint would have emptied it at 1000
    assert copied == log


def test_a_restart_keeps_a_seat_nobody_opened_waiting_for_its_person(tmp_path):
    """Found by a review: a restart set every person's seat "away since now", so once the grace
    ran out a bot played the seats nobody had ever opened (the whole match, with nobody there).
    A seat whose person played (or was stood in for) gets the grace from the restart; the others
    wait, as before it (a lone draw taken for a seat is no sign of its person)."""
    from engine.lang.compiler import compile_ruleset
    from engine.tools.rooms.room import NEVER, Room

    store = Store(str(tmp_path / "rooms.db"))
    row = RoomRow("r1", "nanchang", {}, 1, 11, {}, None, False)  # four people's seats
    store.create_room(row, {}, "h", "me", 60.0)
    rs = compile_ruleset("nanchang")
    room = Room(row, rs, store)
    room.start(0.0)
    discard = next(a for a in room.game.legal_actions("E") if a.kind == "discard")
    room.act("E", discard.text(room.scorer), 1.0)  # the dealer's person plays
    room.step(2.0, grace=30.0, bots=False)  # lone draws taken for the next seat, if any
    store.write(room.take_writes())
    again = Room.load(row, rs, store, now=100.0)
    assert again.away_since["E"] == 100.0  # the grace runs from the restart
    assert {s: again.away_since[s] for s in "SWN"} == dict.fromkeys("SWN", NEVER)
    assert not any(again.stand_in(s, 1_000.0, 30.0) for s in "SWN")


def test_a_room_over_closed_or_a_day_old_no_longer_counts_as_open(tmp_path):
    """Found by a review: a finished match counted as an open room for ever (only the host's
    close ended one), so 256 rooms made in a minute refused every new room, also after restarts."""
    import time

    store = Store(str(tmp_path / "rooms.db"))
    for rid, hands in (("playing", 2), ("over", 1), ("closed", 1), ("old", 1)):
        store.create_room(RoomRow(rid, "nanchang", {}, hands, 1, {}, None, False), {}, "h", "me", 60.0)
    store.write([Write.hand("over", 0, "record", {"E": 0}), Write.hand("playing", 0, "record", {"E": 0})])
    store.close("closed")
    now = time.time()
    assert store.count_open(now - 86_400) == 2  # playing (1 hand of 2 stored) and old (none of 1)
    with store.engine.begin() as c:
        from engine.tools.rooms.store import ROOMS

        c.execute(ROOMS.update().where(ROOMS.c.id == "old").values(created=now - 2 * 86_400))
    assert store.count_open(now - 86_400) == 1  # old, made two days ago, is taken as abandoned


def test_a_click_made_on_a_table_before_the_seat_was_last_asked_plays_nothing(tmp_path):
    """Found by a review: an action carried no version, so a late duplicate of an earlier turn's
    click (the same text legal again) played the later turn. The page now says the version of
    the table it clicked on; one from before the seat was last asked is refused."""
    import pytest

    from engine.errors import IllegalAction
    from engine.lang.compiler import compile_ruleset
    from engine.tools.rooms.room import Room

    store = Store(str(tmp_path / "rooms.db"))
    row = RoomRow("r1", "nanchang", {}, 1, 11, dict.fromkeys("SWN", "greedy"), None, False)  # E a person
    store.create_room(row, {}, "h", "me", 60.0)
    room = Room(row, compile_ruleset("nanchang"), store)
    room.start(0.0)
    first = room.version
    discards = [a.text(room.scorer) for a in room.game.legal_actions("E") if a.kind == "discard"]
    room.act("E", discards[0], 1.0, first)  # clicked on the table shown: played
    while not room.finished and "E" not in room.game.to_act():
        assert room.step(2.0, grace=30.0)  # the bots play until E is asked again
    assert not room.finished
    again = [a.text(room.scorer) for a in room.game.legal_actions("E")]  # a claim to answer, or its turn
    played = len(room.game.actions)
    with pytest.raises(IllegalAction, match="earlier table"):
        room.act("E", again[0], 3.0, first)  # the first turn's click arriving late
    assert len(room.game.actions) == played
    room.act("E", again[0], 3.0, room.version)  # clicked on the table as it is: played
    assert len(room.game.actions) > played


def test_a_load_leaves_the_record_a_crash_lost_for_the_actor_to_commit(tmp_path):
    """Found by a review: Room.load stored a finished hand's lost record itself, from the worker
    thread it runs in, on the writer connection that only the committer's thread may use. It now
    leaves the record in the room's writes, which the owner's actor commits on the loop."""
    from engine.lang.compiler import compile_ruleset
    from engine.tools.rooms.room import Room

    store = Store(str(tmp_path / "rooms.db"))
    row = RoomRow("r1", "nanchang", {}, 2, 11, dict.fromkeys("ESWN", "greedy"), None, False)
    store.create_room(row, {}, "h", "me", 60.0)
    rs = compile_ruleset("nanchang")
    room = Room(row, rs, store)
    room.start(0.0)
    while room.hand == 0:
        room.step(1.0, grace=30.0, limit=1)
    kept = [w for w in room.take_writes() if w.table == "actions"]  # the hand's record "lost in a crash"
    store.write(kept)
    assert not store.has_record("r1", 0)
    calls = []
    real = store.write
    store.write = lambda writes: calls.append(writes) or real(writes)  # type: ignore[method-assign]
    again = Room.load(row, rs, store, now=2.0)
    assert calls == [] and not store.has_record("r1", 0)  # nothing written from the loading thread
    lost = [w for w in again.take_writes() if w.table == "hands"]
    assert len(lost) == 1
    real(lost)  # what the actor's first commit does
    assert store.has_record("r1", 0)
