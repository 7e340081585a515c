"""A room followed by another server (engine/tools/rooms/follower.py, actor.py, hub.py), in one
process: two hubs on one SQLite file, their notes delivered to each other as PostgreSQL's
``NOTIFY`` would (after the commit that sent them, in order, on the sender's channel), with a
switch that loses what one server would hear while its listener is down. What the real
servers do on PostgreSQL behind nginx is tests/test_rooms_cluster.py; here each way a
follower could go blind or wrong is made to happen on purpose."""
from __future__ import annotations

import asyncio
import base64
import zlib
from functools import partial

import pytest

from .extras import need_extra

need_extra("sqlalchemy", "serve")
orjson = need_extra("orjson", "serve")

from engine.tools.rooms import bus as bus_module  # noqa: E402
from engine.tools.rooms import follower as follower_module  # noqa: E402
from engine.tools.rooms.actor import RoomActor  # noqa: E402
from engine.tools.rooms.bus import Bus, frame_note, frame_text, parse_note  # noqa: E402
from engine.tools.rooms.caps import CLOSE_ELSEWHERE, FRAME_BYTES, NOTE_BYTES  # noqa: E402
from engine.tools.rooms.conn import Conn, Refusal  # noqa: E402
from engine.tools.rooms.follower import Follower  # noqa: E402
from engine.tools.rooms.hub import Hub  # noqa: E402
from engine.tools.rooms.store import Store, Write, channel  # noqa: E402
from engine.tools.server.rooms_api import hub_for, new_room  # noqa: E402


class Net:
    """The servers' notes on one event loop: delivered after the commit, in order, to every
    hub listening on the note's channel; ``deaf`` hubs hear nothing (their listener is down)."""

    def __init__(self) -> None:
        self.hubs: list[Hub] = []
        self.deaf: set[str] = set()
        self.heard = 0

    def deliver(self, chan: str, payload: str) -> None:
        for hub in list(self.hubs):
            if hub.owner not in self.deaf and chan in (channel(), channel(hub.owner)):
                msg = parse_note(payload)
                assert msg is not None, payload
                self.heard += 1
                try:
                    hub.heard(msg)
                except (KeyError, TypeError, ValueError):
                    pass  # as Bus.run: a malformed message is dropped


class SharedStore(Store):
    """A SQLite store whose notes go over :class:`Net` once committed."""

    def __init__(self, url: str, net: Net):
        super().__init__(url)
        self.shared = True
        self.net = net

    def write(self, writes: list[Write], *, wait: bool = True) -> None:
        super().write([w for w in writes if w.table], wait=wait)
        notes = [w.values for w in writes if not w.table]
        if notes:  # SQLite is committed on the loop (Committer.inline)
            loop = asyncio.get_running_loop()
            for (_, chan), (_, payload) in notes:
                loop.call_soon(self.net.deliver, str(chan), str(payload))


class LoopBus:
    """:class:`Bus`'s ``send`` over :class:`Net` (its size check the real one's)."""

    def __init__(self, net: Net):
        self.net = net

    async def send(self, payload: str, to: str | None = None) -> None:
        if len(payload.encode()) > NOTE_BYTES:
            raise ValueError("too long")
        asyncio.get_running_loop().call_soon(self.net.deliver, channel(to), payload)

    async def close(self) -> None:
        pass


class Socket:
    def __init__(self) -> None:
        self.texts: list[str] = []
        self.closed: int | None = None

    async def send_text(self, data: str) -> None:
        self.texts.append(data)

    async def close(self, code: int = 1000, reason: str | None = None) -> None:
        self.closed = code

    def states(self) -> list[dict]:
        return [m for m in map(orjson.loads, self.texts) if m.get("type") == "state"]


def cluster(tmp_path, names=("A", "B")) -> tuple[Net, dict[str, Hub]]:
    net = Net()
    store = SharedStore(str(tmp_path / "rooms.db"), net)
    hubs = {}
    for name in names:
        hub = hub_for(store, tmp_path, owner=name)
        hub.bus = LoopBus(net)  # type: ignore[assignment]
        hubs[name] = hub
        net.hubs.append(hub)
    return net, hubs


async def settle(rounds: int = 40) -> None:
    for _ in range(rounds):
        await asyncio.sleep(0.005)


async def open_room(owner: Hub, follower_hub: Hub, seed: int = 5) -> tuple[RoomActor, Follower, dict, list[str]]:
    """A room of nanchang made on ``owner``: the first two seats people, the others greedy bots;
    followed by ``follower_hub``."""
    seats_probe = owner.compile("nanchang", {})
    seats = [str(v) for v in seats_probe.table["seats"].values]
    data = {"ruleset": "nanchang", "hands": 2, "seed": seed, "bots": {seats[2]: "greedy", seats[3]: "greedy"}}
    room, hashes, host, answer = await asyncio.get_running_loop().run_in_executor(
        None, new_room, owner, data, "http://x/")
    actor = await owner.add(room, hashes, host)
    side = await follower_hub.get(room.row.id)
    assert isinstance(side, Follower)
    await settle()
    return actor, side, answer, seats


async def south_on_follower(hubs: dict[str, Hub]) -> tuple[RoomActor, Follower, list[str], Socket]:
    """A room opened on hub A and followed by B (:func:`open_room`), the second seat's socket
    joined at the follower."""
    actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
    south = Socket()
    await side.call(partial(side.join, Conn(south, seats[1])))
    return actor, side, seats, south


async def play_one(actor: RoomActor, conn: Conn) -> str:
    """``conn``'s seat plays its first legal action on the owner (it must have one)."""
    room = actor.room
    assert room.game is not None and conn.seat is not None
    actions = room.game.legal_actions(conn.seat)
    assert actions, f"{conn.seat} has nothing to play"
    text = actions[0].text(room.scorer)
    await actor.call(partial(actor.act, conn, text))
    return text


def test_a_followers_socket_gets_its_seats_table_from_the_owner_and_plays_through_it(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        sock = Socket()
        conn = Conn(sock, seats[1])
        await side.call(partial(side.join, conn))
        await settle()
        assert sock.states() and sock.states()[-1]["seat"] == seats[1]
        assert actor.remote.get(seats[1]) == {"B"}
        assert "B" not in str(actor.remote.get(seats[0]))  # only the seat it holds
        assert net.heard > 0

    asyncio.run(go())


def test_the_owner_loading_the_room_again_numbers_versions_afresh_and_the_follower_keeps_up(tmp_path):
    """The owner drops the room (its store refused a write, say) and loads it again: versions
    start over, lower than the follower's sockets have seen, and its actor knows none of the
    follower's seats. The follower's sockets still get every new table."""
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        east, south = Socket(), Socket()
        await side.call(partial(side.join, Conn(south, seats[1])))
        east_conn = Conn(east, seats[0])
        await actor.call(partial(actor.join, east_conn))
        for _ in range(6):  # versions climb past what a fresh load starts at
            await actor.call(partial(actor.leave, east_conn))
            east_conn = Conn(east, seats[0])
            await actor.call(partial(actor.join, east_conn))
        await settle()
        seen_before = south.states()[-1]["version"]
        await hubs["A"].drop(actor.id, CLOSE_ELSEWHERE, "reload")
        again = await hubs["A"].get(actor.id)
        assert isinstance(again, RoomActor) and again is not actor
        assert again.room.version < seen_before  # the numbering starts over
        before = len(south.states())
        east2 = Socket()
        east2_conn = Conn(east2, seats[0])
        await again.call(partial(again.join, east2_conn))
        await settle()
        assert again.remote.get(seats[1]) == {"B"}  # the follower said again who is here
        assert len(south.states()) > before, "the follower's socket went blind after the owner's reload"
        await play_one(again, east2_conn)
        await settle()
        last = south.states()[-1]
        assert last["version"] == again.room.version  # the newest table, in the new numbering

    asyncio.run(go())


def test_a_join_the_owner_never_heard_is_repaired(tmp_path, monkeypatch):
    """The owner's listener is down when the follower's socket joins: the join is lost. The
    follower asks again (a sync with who is here) until the owner answers."""
    monkeypatch.setattr(follower_module, "REQUEST_SECONDS", 0.2)
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        net.deaf.add("A")
        south = Socket()
        await side.call(partial(side.join, Conn(south, seats[1])))
        await settle(10)
        assert actor.remote.get(seats[1]) is None  # lost
        net.deaf.discard("A")
        for _ in range(100):
            await asyncio.sleep(0.02)
            if actor.remote.get(seats[1]):
                break
        await settle()
        assert actor.remote.get(seats[1]) == {"B"}
        assert actor.room.away_since[seats[1]] is None  # its seat is back
        assert south.states() and south.states()[-1]["version"] == actor.room.version

    asyncio.run(go())


def test_a_follower_whose_listener_was_down_asks_again_and_gets_the_newest_table(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, seats, south = await south_on_follower(hubs)
        await settle()
        net.deaf.add("B")
        east_conn = Conn(Socket(), seats[0])
        await actor.call(partial(actor.join, east_conn))
        await play_one(actor, east_conn)
        await settle()
        assert south.states()[-1]["version"] < actor.room.version  # missed
        net.deaf.discard("B")
        hubs["B"].resync()  # what Bus calls when it listens again
        await settle()
        assert south.states()[-1]["version"] == actor.room.version

    asyncio.run(go())


def test_a_followers_summary_after_the_host_closed_the_room_mid_hand(tmp_path):
    """The replica is behind (actions stored since it was loaded) when the host closes the
    room: its summary catches up, then says closed."""
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, answer, seats = await open_room(hubs["A"], hubs["B"])
        east_conn = Conn(Socket(), seats[0])
        await actor.call(partial(actor.join, east_conn))
        for _ in range(3):
            room = actor.room
            game = room.game
            assert game is not None
            if not game.legal_actions(seats[0]):
                break
            await play_one(actor, east_conn)
        await settle()
        assert side.room.hand == actor.room.hand
        behind = len(side.room.game.actions) if side.room.game else -1
        assert behind < len(actor.room.game.actions), "the replica should be behind the owner"
        await actor.call(partial(actor.host_close, answer["host"]))
        await settle()
        got = await side.summary()
        assert got["closed"] is True and got["finished"] is True
        assert got["totals"] == actor.published.summary["totals"]
        assert len(side.room.game.actions) == len(actor.room.game.actions)

    asyncio.run(go())


def test_a_follower_keeps_only_the_newest_frame_of_each_viewer_till_its_turn(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        south = Socket()
        conn = Conn(south, seats[1])
        side.conns.append(conn)
        for v in range(1, 1001):  # a flood, read before the room's turn comes
            side.framed(parse_note(frame_note(side.id, "B", v, seats[1], f'{{"type":"state","version":{v}}}', side.epoch)))
        assert side.inbox.qsize() <= 2 and len(side.frames) == 1
        side.framed(parse_note(frame_note(side.id, "B", 5_000, seats[1], '{"type":"state","version":5000}', "old")))
        assert side.frames[seats[1]]["version"] == 1000  # another numbering's frame: dropped
        with pytest.raises(ValueError):
            side.framed(parse_note(frame_note(side.id, "B", 5, "nobody", "{}", side.epoch)))
        await settle()
        assert [m["version"] for m in south.states()] == [1000]

    asyncio.run(go())


def test_a_forwarded_request_too_long_for_a_note_is_refused_before_it_is_sent(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        heard = net.heard
        with pytest.raises(Refusal) as exc:
            await side.host_close("x" * 50_000)
        assert exc.value.status == 403
        with pytest.raises(Refusal) as exc:
            await side.host_remove("x" * 5_000, "greedy", "token")
        assert exc.value.status == 400
        with pytest.raises(Refusal) as exc:
            await hubs["B"].send({"k": "request", "to": "A", "text": "x" * (NOTE_BYTES + 1)})
        assert exc.value.status == 400
        await settle()
        assert net.heard == heard  # nothing went out

    asyncio.run(go())


def test_the_real_bus_refuses_an_oversized_note_before_it_is_queued_with_others():
    bus = Bus("postgresql://nobody@127.0.0.1:1/none", lambda msg: None, "me")

    async def go():
        with pytest.raises(ValueError, match="longer than"):
            await bus.send("x" * (NOTE_BYTES + 1))
        assert bus.pending == []  # never queued: it cannot fail the others' round trip

    asyncio.run(go())


def test_a_compressed_frame_cut_short_is_refused():
    frame = orjson.dumps({"type": "state", "view": list(range(FRAME_BYTES // 64))}).decode()
    packed = zlib.compress(frame.encode(), 1)
    head = orjson.dumps({"k": "frame", "room": "r", "to": "b", "version": 1, "seat": None, "z": True}).decode()
    whole = parse_note(f"{head}\n{base64.b64encode(packed).decode()}")
    assert frame_text(whole) == frame
    cut = parse_note(f"{head}\n{base64.b64encode(packed[: len(packed) // 2]).decode()}")
    with pytest.raises(ValueError, match="cut short"):
        frame_text(cut)


def test_a_follower_server_that_goes_quiet_is_forgotten_and_its_seat_is_away(tmp_path):
    """A follower server dies without a word (no leave): the owner stops shipping its frames
    and its seat is away after two leases without a sync; a live follower's regular sync keeps
    its seat."""
    net, hubs = cluster(tmp_path, ("A", "B", "C"))

    async def go():
        actor, side_b, _, seats = await open_room(hubs["A"], hubs["B"])
        side_c = await hubs["C"].get(actor.id)
        assert isinstance(side_c, Follower)
        hubs["A"].lease = 0.3  # the owner's: it forgets a server quiet for 0.6 s
        await side_b.call(partial(side_b.join, Conn(Socket(), seats[1])))
        await side_c.call(partial(side_c.join, Conn(Socket(), seats[0])))
        await settle()
        assert actor.remote.get(seats[1]) == {"B"} and actor.remote.get(seats[0]) == {"C"}
        net.deaf.add("B")  # B dies: it hears and says nothing more
        hubs["B"].followers.clear()
        for _ in range(30):  # a second and more: three leases
            side_c.sync(again=False)  # what C's hub.tick does every third of a lease
            await actor.call(actor.tick)
            await asyncio.sleep(0.04)
        assert actor.remote.get(seats[1]) == set() and "B" not in actor.heard
        assert actor.room.away_since[seats[1]] is not None  # away: a stand-in plays after the grace
        assert actor.remote.get(seats[0]) == {"C"} and actor.room.away_since[seats[0]] is None
        assert not any('"to":"B"' in str(w) for w in actor.shipped())

    asyncio.run(go())


# ---- orderings a review found (2026-12-06): each failed before the fix ---------------------------------

async def climb(actor, seat, n=6):
    east = Socket()
    conn = Conn(east, seat)
    await actor.call(partial(actor.join, conn))
    for _ in range(n):
        await actor.call(partial(actor.leave, conn))
        conn = Conn(east, seat)
        await actor.call(partial(actor.join, conn))
    await settle()


async def reload(hub, actor):
    await hub.drop(actor.id, CLOSE_ELSEWHERE, "reload")
    again = await hub.get(actor.id)
    assert isinstance(again, RoomActor) and again is not actor
    return again


def test_after_a_reload_a_frame_the_follower_builds_itself_keeps_to_the_new_numbering(tmp_path, monkeypatch):
    monkeypatch.setattr(bus_module, "NOTE_BYTES", 300)  # every frame too large for a note -> built by the follower
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, seats, south = await south_on_follower(hubs)
        await climb(actor, seats[0])
        again = await reload(hubs["A"], actor)
        east = Conn(Socket(), seats[0])
        await again.call(partial(again.join, east))
        await settle()
        before = len(south.states())
        await play_one(again, east)
        await settle()
        assert len(south.states()) > before, "south got no table for the new epoch's play"
    asyncio.run(go())


def test_frames_waiting_in_a_busy_turn_across_a_reload_leave_the_newest_table(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, seats, south = await south_on_follower(hubs)
        await climb(actor, seats[0])
        gate = asyncio.Event()

        async def busy():  # stands for a forwarded act awaiting its reply in the room's turn
            await gate.wait()
        side.post(busy)
        east = Conn(Socket(), seats[0])
        # an old-epoch frame arrives while the turn is busy (the owner's last change)
        await actor.call(partial(actor.join, east))
        await settle(5)
        again = await reload(hubs["A"], actor)     # moved(new epoch) + its frames arrive meanwhile
        east2 = Conn(Socket(), seats[0])
        await again.call(partial(again.join, east2))
        await settle()
        gate.set()
        await settle()
        assert south.states()[-1]["version"] == again.room.version, "south shows a stale table"
    asyncio.run(go())


def test_a_sync_in_flight_when_the_owner_reloads_is_sent_again_to_the_new_load(tmp_path, monkeypatch):
    monkeypatch.setattr(follower_module, "REQUEST_SECONDS", 0.2)
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, seats, south = await south_on_follower(hubs)
        await settle()
        ops = []
        real = hubs["B"].send

        async def spy(msg):
            ops.append(msg.get("op"))
            await real(msg)
        hubs["B"].send = spy
        net.deaf.add("A")              # A's listener is down for a moment
        side.sync()                     # B listens again (resync)
        while ops.count("sync") < follower_module.SYNC_TRIES:
            await asyncio.sleep(0.01)   # the last try is on its way (lost)
        net.deaf.discard("A")
        again = await reload(hubs["A"], actor)   # A loads the room again: moved(new epoch) reaches B
        await asyncio.sleep(0.5)
        east = Conn(Socket(), seats[0])
        await again.call(partial(again.join, east))
        await play_one(again, east)
        await settle()
        assert again.remote.get(seats[1]) == {"B"}, "the new actor never heard B holds the seat: south blind"
    asyncio.run(go())


def test_a_leave_is_answered_and_needs_no_sync(tmp_path, monkeypatch):
    monkeypatch.setattr(follower_module, "REQUEST_SECONDS", 0.2)
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        ops = []
        real = hubs["B"].send

        async def spy(msg):
            ops.append(msg.get("op"))
            await real(msg)
        hubs["B"].send = spy
        conn = Conn(Socket(), seats[1])
        await side.call(partial(side.join, conn))
        await side.call(partial(side.leave, conn))
        await asyncio.sleep(0.6)
        assert "sync" not in ops, "the owner never answers a leave: each leave waits REQUEST_SECONDS then syncs"
    asyncio.run(go())


def test_notes_that_flap_between_epochs_do_not_grow_the_queue(tmp_path):
    net, hubs = cluster(tmp_path)

    async def go():
        actor, side, _, seats = await open_room(hubs["A"], hubs["B"])
        gate = asyncio.Event()

        async def busy():
            await gate.wait()
        side.post(busy)
        await asyncio.sleep(0)
        for i in range(10_000):
            side.moved({"k": "moved", "room": side.id, "owner": "A", "epoch": str(i % 2), "version": 1})
        gate.set()
        assert side.inbox.qsize() <= 3, "one _renumbered job queued per note"
    asyncio.run(go())
