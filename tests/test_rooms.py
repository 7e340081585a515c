"""Rooms (issue 18; docs/serve.md "Rooms"): four people at one table by their links, hand after
hand with running totals, every action stored before it is told, a seat that drops comes back,
and nobody sees what they should not. A real server (uvicorn in a thread) and real websockets."""
from __future__ import annotations

import json
import urllib.request

import pytest

from .rooms_support import Client, drive
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


def test_a_seat_that_reloads_mid_hand_sees_the_table_as_it_is_and_plays_on(srv):
    out = _room(srv)
    links = {s: v["token"] for s, v in out["seats"].items()}
    clients = {s: _ws(srv, out["room"], t) for s, t in links.items()}
    drive(clients, stop_after=12)
    before = clients["S"].latest()
    clients["S"].close()
    clients["S"] = _ws(srv, out["room"], links["S"])
    again = clients["S"].wait(lambda c: c.latest())
    assert again["view"]["hand"] == before["view"]["hand"] or again["version"] > before["version"]
    drive(clients)
    assert clients["E"].latest()["finished"]


def test_a_seat_away_past_the_grace_is_played_by_a_bot_until_it_is_back(srv):
    out = _room(srv, bots={"W": "greedy", "N": "greedy"})
    links = {s: v["token"] for s, v in out["seats"].items()}
    east = _ws(srv, out["room"], links["E"])
    south = _ws(srv, out["room"], links["S"])
    south.wait(lambda c: c.latest())
    south.close()  # S drops; after 0.3 s a bot plays for it
    drive({"E": east}, timeout=180)
    assert east.latest()["finished"]
    from engine.lang.yamlio import load_text

    rec = load_text(_record(srv, out["room"], 1), "h.yaml")
    assert any(a.startswith("S ") and a.split()[1] != "draw" for a in rec["actions"])


def test_frames_never_show_what_a_seat_may_not_see_over_a_4_hand_match(srv, monkeypatch):
    """Every frame the server sends, checked against the table when it is sent: a seat's
    frame carries its own concealed tiles only, the wall as a count, other seats' concealed
    kongs face down and no hidden indicator before the hand is over; a spectator's, no hand."""
    from engine.tools.rooms import room as room_mod

    seen: list[tuple[str | None, dict, dict]] = []
    real = room_mod.Room.view

    def spy(self, seat):
        frame = real(self, seat)
        g = self.game
        truth = {"hands": {s: g.tiles.format(g.hands[s].concealed) for s in g.seats},
                 "hidden": [n for n, ind in g.rs.indicators.items() if ind.hidden and n in g.indicators and not g.over],
                 "indicator_tiles": {n: g.tiles.code(t) for n, t in g.indicators.items()}} if g else {}
        seen.append((seat, frame, truth))
        return frame

    monkeypatch.setattr(room_mod.Room, "view", spy)
    out = _room(srv, hands=4, bots={"S": "greedy", "W": "greedy", "N": "greedy"})
    watcher = _ws(srv, out["room"])
    east = _ws(srv, out["room"], out["seats"]["E"]["token"])
    drive({"E": east}, timeout=240)
    assert east.latest()["finished"]
    assert len(seen) > 50
    for seat, frame, truth in seen:
        v = frame["view"]
        if v is None:
            continue
        assert isinstance(v["wall"], int) and isinstance(v["live_wall"], int)
        if seat is None:
            assert "hand" not in v and v["legal"] == []
        else:
            assert sorted(v["hand"].split()) == sorted(truth["hands"][seat].split())
        for name in truth["hidden"]:
            assert name not in v["indicators"], (name, v["indicators"])
        for s, melds in v["melds"].items():
            if s != seat:
                assert all(not m.startswith("kong ") or m == "kong ????" or "????" not in m for m in melds)
        text = json.dumps({k: x for k, x in v.items() if k not in ("hand", "legal")}, ensure_ascii=False)
        for s, tiles in truth["hands"].items():
            if s != seat and len(tiles.split()) >= 4:
                assert tiles not in text  # another seat's concealed hand appears nowhere
    watcher.close()
    east.close()


def test_hostile_clients_are_refused_and_change_nothing(srv):
    out = _room(srv)
    room = out["room"]
    links = {s: v["token"] for s, v in out["seats"].items()}
    east = _ws(srv, room, links["E"])
    first = east.wait(lambda c: c.latest())
    v0 = first["version"]
    east.ws.send("{not json")
    east.ws.send("x" * 5000)
    east.ws.send(json.dumps({"type": "act", "action": "S discard 5p"}))  # another seat's action
    east.ws.send(json.dumps({"type": "act", "action": "E discard"}))
    east.ws.send(json.dumps({"type": "hello"}))
    east.wait(lambda c: len(c.errors) >= 5)
    assert [e["error"][:20] for e in east.errors][:2] == ["a message is JSON"[:20], "a message is at most "[:20]]
    st, summary = srv.call("GET", f"/api/rooms/{room}")
    assert summary["hand"] == 1 and summary["totals"] == {"E": 0, "S": 0, "W": 0, "N": 0}
    assert srv.app.state.hub.actors[room].room.version == v0  # nothing was applied
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
    assert srv.app.state.hub.actors[room].room.version == v0
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
    ({"bots": {"Z": "greedy"}}, "no seat 'Z'"), ({"ruleset": "../../etc/passwd"}, "no ruleset"),
    ({"seed": -1}, "`seed`"), ({"timer": 1}, "`timer`"), ({"options": {"no such": "x"}}, "no such"),
    ({"optionz": {}}, "unknown key 'optionz'"),
])
def test_a_bad_room_is_refused_with_what_to_fix_and_nothing_is_made(srv, body, says):
    st, out = srv.call("POST", "/api/rooms", {"ruleset": "nanchang", **body})
    assert st == 400 and says in out["error"] + (out.get("hint") or ""), out
    assert srv.app.state.hub.store.count_open() == 0


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
    from engine.tools.rooms.store import ACTIONS

    with srv.app.state.hub.store.engine.connect() as c:
        by = [r.by for r in c.execute(ACTIONS.select().where(ACTIONS.c.room == out["room"]).order_by(ACTIONS.c.seq))]
    assert "托管" in by  # the stored action says who chose it
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
