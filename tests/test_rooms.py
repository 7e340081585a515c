"""Rooms (issue 18; docs/serve.md "Rooms"): four people at one table by their links, hand after
hand with running totals, every action stored before it is told, a seat that drops comes back,
and nobody sees what they should not. A real server (uvicorn in a thread) and real websockets."""
from __future__ import annotations

import json
import time
import urllib.request

import pytest

from .rooms_support import Client, choose, drive
from .serve_support import Running, need

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def srv(tmp_path):
    need("sqlalchemy")
    s = Running(tmp_path / "data", grace=0.3)
    yield s
    s.stop()


def _room(srv, **body) -> dict:
    st, out = srv.call("POST", "/api/rooms", {"ruleset": "nanchang", "hands": 1, "seed": 11, **body})
    assert st == 201, out
    return out


def _ws(srv, room: str, token: str | None = None) -> Client:
    q = f"?token={token}" if token is not None else ""
    return Client(f"ws://127.0.0.1:{srv.port}/ws/rooms/{room}{q}")


def _record(srv, room: str, k: int) -> str:
    with urllib.request.urlopen(f"{srv.url}/api/rooms/{room}/hands/{k}/record", timeout=60) as r:
        return r.read().decode()


def test_four_people_play_a_hand_to_the_ledger_and_its_record_replays(srv):
    from engine.lang.yamlio import load_text
    from engine.table.records import replay
    from engine.tools.play import ledger_rows

    out = _room(srv)
    assert set(out["seats"]) == {"E", "S", "W", "N"}
    assert all(v["url"].endswith(f"/room/{out['room']}#token={v['token']}") for v in out["seats"].values())
    clients = {s: _ws(srv, out["room"], v["token"]) for s, v in out["seats"].items()}
    sent = drive(clients)
    assert sent > 10
    final = clients["E"].latest()
    assert final["finished"] and final["last"]["hand"] == 0
    rec = load_text(_record(srv, out["room"], 1), "hand1.yaml")
    game, diffs = replay(rec)
    assert diffs == []  # the stored record plays again to the same result
    assert final["last"]["ledger"] == ledger_rows(game.result)  # the ledger the seats were shown
    assert final["totals"] == game.result.net(game.seats)
    st, summary = srv.call("GET", f"/api/rooms/{out['room']}")
    assert st == 200 and summary["finished"] and summary["totals"] == final["totals"]
    for c in clients.values():
        c.close()


def test_a_match_runs_hand_after_hand_with_running_totals(srv):
    out = _room(srv, hands=3, bots={"S": "greedy", "W": "random", "N": "greedy"})
    east = _ws(srv, out["room"], out["seats"]["E"]["token"])
    drive({"E": east}, timeout=180)
    final = east.latest()
    assert final["finished"] and final["hand"] == 3
    nets = []
    for k in (1, 2, 3):
        from engine.lang.yamlio import load_text
        from engine.table.records import replay

        g, diffs = replay(load_text(_record(srv, out["room"], k), f"h{k}.yaml"))
        assert diffs == []
        nets.append(g.result.net(g.seats))
    assert final["totals"] == {s: sum(n[s] for n in nets) for s in nets[0]}
    east.close()


def _stored(srv, room: str) -> list[tuple[int, int, str, str]]:
    """Every stored action of ``room``: (hand, seq, text, by), in order (the store's ACTIONS rows)."""
    from engine.tools.rooms.store import ACTIONS

    with srv.app.state.hub.store.engine.connect() as c:
        rows = c.execute(ACTIONS.select().where(ACTIONS.c.room == room).order_by(ACTIONS.c.hand, ACTIONS.c.seq))
        return [(r.hand, r.seq, r.text, r.by) for r in rows]


def _table_now(srv, out: dict, options: dict | None = None):
    """The first hand of room ``out`` as its stored actions leave it: dealt again from the room's
    seed (as the room deals it) and every stored action applied, independently of the room."""
    from engine.lang.compiler import compile_ruleset
    from engine.table.match import Match

    game = Match(compile_ruleset(out["ruleset"], options or {}), out["seed"]).deal()
    for text in srv.app.state.hub.store.actions(out["room"]).get(0, []):
        game.apply(text)
    return game


def test_a_seat_that_reloads_mid_hand_sees_the_table_as_it_is_and_plays_on(srv):
    from engine.table.view import view_of

    out = _room(srv)
    links = {s: v["token"] for s, v in out["seats"].items()}
    clients = {s: _ws(srv, out["room"], t) for s, t in links.items()}
    drive(clients, stop_after=12)
    before = clients["S"].latest()
    clients["S"].close()
    clients["S"] = _ws(srv, out["room"], links["S"])  # the reload: the same link, a new socket
    again = clients["S"].wait(lambda c: c.latest())
    assert again["version"] > before["version"] and not again["view"]["over"]  # its leave and its return are changes
    for c in clients.values():  # every seat is here: the table waits for a person, so it is still this version
        c.wait(lambda c: c.latest()["version"] >= again["version"])
    assert all(c.latest()["version"] == again["version"] for c in clients.values())
    table = _table_now(srv, out)  # the table the stored actions make (a stand-in may have played for S meanwhile)
    assert len(table.actions) >= 12
    assert again["view"] == json.loads(json.dumps(view_of(table, "S"), ensure_ascii=False))  # exactly S's view of it
    assert again["hand"] == 1 and again["away"] == [] and again["players"]["S"] == "human"
    drive(clients)
    assert clients["E"].latest()["finished"]


def test_a_seat_away_past_the_grace_is_played_by_a_bot_until_it_is_back(srv):
    out = _room(srv, hands=2, bots={"W": "greedy", "N": "greedy"})
    room = out["room"]
    links = {s: v["token"] for s, v in out["seats"].items()}
    east = _ws(srv, room, links["E"])
    south = _ws(srv, room, links["S"])
    south.wait(lambda c: c.latest())
    south.close()  # S drops; after 0.3 s a bot plays for it (托管)
    for _ in range(60):  # E plays on until S's stand-in has chosen for it
        if any(t.startswith("S ") and by == "托管" for _, _, t, by in _stored(srv, room)):
            break
        drive({"E": east}, stop_after=1, timeout=60)
    stood_in = [i for i, (_, _, t, by) in enumerate(_stored(srv, room)) if t.startswith("S ") and by == "托管"]
    assert stood_in, "no stand-in played for S"
    assert "S" in east.latest()["away"]
    south = _ws(srv, room, links["S"])  # S is back with its link
    drive({"E": east, "S": south}, timeout=180)
    assert east.latest()["finished"]
    rows = _stored(srv, room)
    own = [i for i, (_, _, t, by) in enumerate(rows)
           if t.startswith("S ") and by == "seat" and t.split()[1] != "draw" and i > stood_in[-1]]
    assert own, "S never played its own turn after it was back"  # a choice of S's socket, after the 托管 ones
    assert not [r for r in rows[own[0]:] if r[2].startswith("S ") and r[3] == "托管"]  # no stand-in once back
    assert len(own) >= 3
    east.close()
    south.close()


# the rooms of the frames' test: between them every secret is on the table while frames are sent
PRIVACY_ROOMS = [
    ("ganzhou-app", {}, 32),  # 埋地雷's hidden 下精; seed 32: greedy bots declare two concealed kongs
    ("nanchang-app", {"随精": "是"}, 11),  # each seat picks its own 精; the hidden 下精 (埋地雷)
]


def test_frames_never_show_what_a_seat_may_not_see_over_a_4_hand_match(srv, monkeypatch):
    """Every frame the server builds (a spy on Published.frame) and every frame the clients
    got, checked against the secrets of the real game at the moment the table it shows was
    published (tests/privacy_support.py), over a 4-hand match of each of PRIVACY_ROOMS (a
    person's seat E, three greedy bots and a spectator); first, the check is shown to catch each
    kind of leak planted in a copy of a real frame."""
    from engine.tools.rooms import room as room_mod

    from .privacy_support import PLANTS, hosts, leaks, plant, truth_of

    truths: dict[int, tuple[object, object]] = {}  # id(Published) -> (it, the truth when it was made)
    built: list[tuple[str | None, dict, object]] = []  # (seat, frame, truth) of every frame built
    real_publish, real_frame = room_mod.Room.publish, room_mod.Published.frame

    def publish(self):
        published = real_publish(self)
        truths[id(published)] = (published, truth_of(self.game) if published.table is not None else None)
        return published

    def frame(self, seat):
        text = real_frame(self, seat)
        built.append((seat, json.loads(text), truths[id(self)][1]))
        return text

    monkeypatch.setattr(room_mod.Room, "publish", publish)
    monkeypatch.setattr(room_mod.Published, "frame", frame)
    got: list[tuple[str | None, dict, object]] = []  # (seat, frame, truth) of every frame a client got
    for ruleset, options, seed in PRIVACY_ROOMS:
        out = _room(srv, ruleset=ruleset, options=options, hands=4, seed=seed,
                    bots={"S": "greedy", "W": "greedy", "N": "greedy"})
        watcher = _ws(srv, out["room"])
        east = _ws(srv, out["room"], out["seats"]["E"]["token"])
        drive({"E": east}, timeout=240)
        assert east.latest()["finished"]
        watcher.wait(lambda c: c.latest()["finished"])
        by_version = {p.version: t for p, t in truths.values() if p.summary["room"] == out["room"]}
        got += [(c.latest()["seat"], f, by_version[f["version"]]) for c in (east, watcher) for f in c.frames]
        watcher.close()
        east.close()
    assert {json.dumps(f, sort_keys=True) for _, f, _ in got} <= {json.dumps(f, sort_keys=True) for _, f, _ in built}

    moments: dict[str, tuple[dict, object]] = {}
    situations: dict[str, int] = dict.fromkeys(PLANTS, 0)
    for _, f, truth in built:
        for kind in hosts(f, truth) if truth is not None else ():
            situations[kind] += 1
            moments.setdefault(kind, (f, truth))
    for kind in PLANTS:  # first: each kind of leak, planted in a copy of a real frame, is caught
        assert kind in moments, f"no frame had {kind!r} to hide (pick another seed): {situations}"
        f, truth = moments[kind]
        assert any(PLANTS[kind] in x for x in leaks(plant(kind, f, truth), truth)), kind
    assert situations["concealed kong"] > 0 and situations["a hidden indicator"] > 50, situations
    assert len(built) > 100 and len(got) > 100
    found = [(seat, f["version"], x) for seat, f, truth in built + got if truth is not None for x in leaks(f, truth)]
    assert found == [], found[:10]
    assert all(f["view"] is None for _, f, truth in built if truth is None)  # a match over: no table


def test_hostile_clients_are_refused_and_change_nothing(srv):
    out = _room(srv)
    room = out["room"]
    links = {s: v["token"] for s, v in out["seats"].items()}
    east = _ws(srv, room, links["E"])
    first = east.wait(lambda c: c.latest())
    v0 = first["version"]
    assert first["view"]["legal"]  # E, the dealer, is to discard: an action would apply at once

    def nothing_applied() -> None:  # seen from outside: the summary, a new spectator's frame, the store
        st, summary = srv.call("GET", f"/api/rooms/{room}")
        assert st == 200 and summary["hand"] == 1 and summary["totals"] == {"E": 0, "S": 0, "W": 0, "N": 0}
        look = _ws(srv, room)  # a spectator joining changes nothing: its frame is the table's version now
        assert look.wait(lambda c: c.latest())["version"] == v0
        assert look.latest()["view"] == {**first["view"], "seat": None, "hand": None, "drawn": None, "legal": [],
                                        "hands": dict.fromkeys(first["view"]["hands"]), "drawn_by": {}, "pick": None}
        look.close()
        assert srv.app.state.hub.store.actions(room) == {}  # no action stored
        assert east.latest()["version"] == v0 and not east.oks

    east.ws.send("{not json")
    east.ws.send("x" * 5000)
    east.ws.send(json.dumps({"type": "act", "action": "S discard 5p"}))  # another seat's action
    east.ws.send(json.dumps({"type": "act", "action": "E discard"}))
    east.ws.send(json.dumps({"type": "hello"}))
    east.ws.send(b'{"type": "act", "action": "E discard 5p"}')  # bytes: a traceback and a dropped socket once
    east.wait(lambda c: len(c.errors) >= 6)
    assert [e["error"][:20] for e in east.errors][:2] == ["a message is JSON"[:20], "a message is at most "[:20]]
    assert east.errors[5]["error"] == "a message is JSON text, not bytes" and not east.closed
    nothing_applied()
    forged = _ws(srv, room, "A" * 32)
    assert forged.wait(lambda c: c.closed)[0] == 4403
    other = _room(srv)
    wrong_room = _ws(srv, room, other["seats"]["E"]["token"])  # a real token of another room
    assert wrong_room.wait(lambda c: c.closed)[0] == 4403
    watcher = _ws(srv, room)
    watcher.ws.send(json.dumps({"type": "act", "action": "E discard 5p"}))
    assert "spectator" in watcher.wait(lambda c: c.errors)[0]["error"]
    missing = _ws(srv, "nosuchroom")
    assert missing.wait(lambda c: c.closed)[0] == 4404
    nothing_applied()
    discard = next(a["text"] for a in first["view"]["legal"] if a["kind"] == "discard")
    east.act(discard)  # the check can fail: one real action is seen at once
    east.wait(lambda c: c.oks)
    assert srv.app.state.hub.store.actions(room) == {0: [discard]}
    assert east.wait(lambda c: c.latest()["version"] > v0 and c.latest())["view"]["phase"] == "claim"
    assert _table_now(srv, out).to_act() == ["S"]  # S may answer the discard now (E is not told so), and only S
    errors = len(east.errors)
    east.act("S pass")  # E answers for S, whose turn it really is
    assert "not an action E may take" in east.wait(lambda c: len(c.errors) > errors and c.errors[-1], timeout=10)["error"]
    assert srv.app.state.hub.store.actions(room) == {0: [discard]}
    east.close()
    watcher.close()


def test_a_flood_of_joins_is_rate_limited(srv):
    from engine.tools.rooms.caps import JOIN_RATE

    out = _room(srv)
    codes = []
    for _ in range(JOIN_RATE[0] + 5):
        c = _ws(srv, out["room"])
        c.wait(lambda c: c.closed or c.latest())
        codes.append(c.closed[0] if c.closed else 0)
        c.close()
    assert 4429 in codes


@pytest.mark.parametrize("body, says", [
    ({"hands": 0}, "`hands`"), ({"hands": "4"}, "`hands`"), ({"bots": {"E": "nobody"}}, "unknown bot"),
    ({"bots": {"E": "search"}}, "unknown bot 'search'"),  # seconds of CPU a decision: not at a live table
    ({"bots": {"Z": "greedy"}}, "no seat 'Z'"), ({"ruleset": "../../etc/passwd"}, "no ruleset"),
    ({"seed": -1}, "`seed`"), ({"timer": 1}, "`timer`"), ({"options": {"no such": "x"}}, "no such"),
    ({"optionz": {}}, "unknown key 'optionz'"),
])
def test_a_bad_room_is_refused_with_what_to_fix_and_nothing_is_made(srv, body, says):
    st, out = srv.call("POST", "/api/rooms", {"ruleset": "nanchang", **body})
    assert st == 400 and says in out["error"] + (out.get("hint") or ""), out
    assert srv.app.state.hub.store.count_open(0.0) == 0


def test_the_host_closes_a_room_and_gives_a_seat_to_a_bot(srv):
    out = _room(srv, bots={"W": "greedy", "N": "greedy"})
    room = out["room"]
    st, body = srv.call("POST", f"/api/rooms/{room}/seats/S/remove", {"host": "wrong"})
    assert st == 403
    st, body = srv.call("POST", f"/api/rooms/{room}/seats/S/remove", {"host": out["host"]})
    assert st == 200 and body["seats"]["S"]["player"] == "greedy"
    south = _ws(srv, room, out["seats"]["S"]["token"])
    assert south.wait(lambda c: c.closed)[0] == 4403  # its link no longer opens the seat
    st, body = srv.call("POST", f"/api/rooms/{room}/close", {"host": out["host"]})
    assert st == 200 and body["closed"]


def test_a_turn_timer_lets_a_bot_act_for_a_seat_that_waits_too_long(srv):
    out = _room(srv, timer=5, bots={"S": "greedy", "W": "greedy", "N": "greedy"})
    east = _ws(srv, out["room"], out["seats"]["E"]["token"])
    east.wait(lambda c: c.latest() and c.latest()["view"]["legal"])  # E, the dealer, must discard
    first = east.latest()
    # E is here and says nothing: after 5 s its stand-in plays for it and the table moves on
    east.wait(lambda c: c.latest()["version"] > first["version"], timeout=60)
    assert "托管" in [by for _, _, _, by in _stored(srv, out["room"])]  # the stored action says who chose it
    east.close()


def test_serve_refuses_a_bad_ruleset_option_or_database_before_it_listens(tmp_path):
    need("starlette")
    need("sqlalchemy")
    from typer.testing import CliRunner

    from engine.cli import app

    r = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--rules", "no-such-ruleset", "--port", "1"])
    assert r.exit_code == 2 and "no-such-ruleset" in r.output
    r = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--option", "飘精=是"])
    assert r.exit_code == 2 and "--option needs --rules" in r.output
    r = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--rules", "nanchang-app", "--option", "飘精=maybe"])
    assert r.exit_code == 2 and "飘精" in r.output
    r = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--db", "postgresql://nobody@127.0.0.1:1/none"])
    assert r.exit_code == 2 and "--db" in r.output and "Traceback" not in r.output


def test_serve_rules_preselects_its_ruleset_and_options_for_the_pages(tmp_path):
    need("sqlalchemy")
    s = Running(tmp_path / "data", preselect={"ruleset": "nanchang-app", "options": {"飘精": "是"}})
    try:
        st, body = s.call("GET", "/api/rulesets")
        assert st == 200 and body["default"] == "nanchang-app" and body["default_options"] == {"飘精": "是"}
    finally:
        s.stop()
    plain = Running(tmp_path / "plain")
    try:
        st, body = plain.call("GET", "/api/rulesets")
        assert body["default"] == "nanchang" and body["default_options"] == {}  # the ruleset the others extend
    finally:
        plain.stop()


def _played_out(srv, **body) -> dict:
    """A two-hand room of four greedy bots, waited on until its match is over."""
    out = _room(srv, hands=2, bots=dict.fromkeys("ESWN", "greedy"), **body)
    deadline = time.monotonic() + 120
    while True:
        st, summary = srv.call("GET", f"/api/rooms/{out['room']}")
        if st == 200 and summary["finished"]:
            return out
        assert time.monotonic() < deadline, summary
        time.sleep(0.2)


def _next_hand_seed_from(record_text: str) -> int:
    """What anyone who reads a finished hand's record (the room id suffices) can work out of the
    next hand, when the match's hand seeds follow by plain arithmetic (match.hand_seed below
    2**31): the match's seed from the hand's, then the next hand's seed, which deals its tiles."""
    from engine.lang.yamlio import load_text

    first = load_text(record_text, "hand1.yaml")["seed"]
    match_seed = first * pow(1_000_003, -1, 2**31) % 2**31  # hand 0's seed, (seed · 1000003 + 0) mod 2**31, inverted
    return (match_seed * 1_000_003 + 1) % 2**31


def test_a_finished_hands_record_tells_nothing_of_the_next_hand_in_a_room_the_server_seeds(srv):
    """Found by a review: a room's hand records (served to anyone with the room id while the
    match goes on) carry each hand's seed, from which the room's seed and every later deal
    followed. The check is shown first to catch that on a room whose seed the host gave (such a
    room deals as `mjrules play --seed`: its seed's holder may know every hand), then to find
    nothing on a room the server seeds, whose seed is never sent."""
    from engine.lang.yamlio import load_text

    plain = _played_out(srv)  # seed 11, given by the host
    second = load_text(_record(srv, plain["room"], 2), "hand2.yaml")["seed"]
    assert _next_hand_seed_from(_record(srv, plain["room"], 1)) == second  # the check catches the leak

    st, out = srv.call("POST", "/api/rooms", {"ruleset": "nanchang", "hands": 2, "bots": dict.fromkeys("ESWN", "greedy")})
    assert st == 201 and "seed" not in out  # the room's secret stays on the server
    row = srv.app.state.hub.store.room(out["room"])
    assert row is not None and row.seed >= 2**31
    secret = row.seed
    deadline = time.monotonic() + 120
    while not srv.call("GET", f"/api/rooms/{out['room']}")[1].get("finished"):
        assert time.monotonic() < deadline
        time.sleep(0.2)
    first, second = _record(srv, out["room"], 1), _record(srv, out["room"], 2)
    assert _next_hand_seed_from(first) != load_text(second, "hand2.yaml")["seed"]
    shown = json.dumps([out, srv.call("GET", f"/api/rooms/{out['room']}")[1]]) + first + second
    assert str(secret) not in shown


def test_a_late_click_from_an_earlier_turn_is_refused_over_the_socket(srv):
    """The page sends the version of the table it clicked on; the server refuses a click made on a
    table from before the seat was last asked (the rooms' logic: tests/test_rooms_commit.py)."""
    out = _room(srv, bots=dict.fromkeys("SWN", "greedy"))
    east = _ws(srv, out["room"], out["seats"]["E"]["token"])
    first = east.wait(lambda c: (f := c.latest()) and f["view"]["legal"] and f)
    east.ws.send(json.dumps({"type": "act", "action": choose(first), "version": first["version"]}))
    east.wait(lambda c: len(c.oks) >= 1)
    later = east.wait(lambda c: (f := c.latest()) and (f["view"]["legal"] or f["finished"]) and f["version"] > first["version"] and f)
    assert not later["finished"]  # seed 11: east is asked again
    east.ws.send(json.dumps({"type": "act", "action": choose(later), "version": first["version"]}))
    east.wait(lambda c: c.errors)
    assert east.errors[-1]["error"] == "that click was made on an earlier table: nothing was played"
    assert len(east.oks) == 1
    east.close()


def test_a_bad_option_choice_names_the_bundled_file_not_where_the_server_is_installed(srv):
    """Found by the fresh-clone walkthrough: the 400's `file` was the rule file's absolute path
    in the server's site-packages."""
    from engine.lang.resources import rulesets_dir

    st, out = srv.call("POST", "/api/rooms", {"ruleset": "nanchang-app", "options": {"底分": "3"}})
    assert st == 400 and "底分" in out["error"], out
    assert out["file"] == "<bundled>/nanchang-app.rules", out
    assert not any(str(rulesets_dir().resolve()) in str(v) for v in out.values()), out
