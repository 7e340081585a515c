"""mjrules serve: the caps and the safety rules, over HTTP against a real server (docs/serve.md).

Each cap answers cleanly (a status and a JSON error, never a traceback): an oversized rule
file, an impact run beyond the hand cap or beyond the concurrent-run cap, a path outside the
data folder in every place a page can name one, an illegal action (nothing changes), and 20
games played at once."""
from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from .serve_support import Running, need

BIG = 10_000


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    s = Running(tmp_path_factory.mktemp("serve-data"))
    yield s
    s.stop()


def caps():
    from engine.tools.server import caps

    return caps


def test_page_and_static_files_are_served(srv):
    import urllib.request

    html = urllib.request.urlopen(srv.url + "/").read().decode()
    assert "<script type=\"module\" src=\"/static/app.js\">" in html and "cdn" not in html.lower()
    js = urllib.request.urlopen(srv.url + "/static/app.js").read().decode()
    assert 'fetch("/grammar.json")' in js and "//cdn" not in js and "https://" not in js  # nothing from elsewhere
    with urllib.request.urlopen(srv.url + "/static/i18n.js") as r:  # the catalogue, a module another page imports
        assert "javascript" in r.headers["Content-Type"] and "export function tileName" in r.read().decode()
    grammar = json.loads(urllib.request.urlopen(srv.url + "/grammar.json").read())
    assert grammar["scopeName"] == "source.mjrules"


def test_an_oversized_rule_file_is_refused(srv):
    c = caps()
    text = "# " + "x" * (c.MAX_RULE_BYTES) + "\n"
    status, body = srv.call("POST", "/api/check", {"text": text})
    assert status == 413
    assert body["error"] == f"the rule file is larger than {c.MAX_RULE_BYTES} bytes"
    status, body = srv.call("POST", "/api/rulesets", {"name": "big", "text": text})
    assert status == 413 and "larger than" in body["error"]
    status, body = srv.call("POST", "/api/check", raw=b"{" + b" " * (c.MAX_BODY_BYTES + 1) + b"}")
    assert status == 413 and body["error"] == f"the request is larger than {c.MAX_BODY_BYTES} bytes"
    assert not (srv.data / "rules" / "big.rules").exists()


def test_a_10000_hand_impact_run_is_beyond_the_cap(srv):
    c = caps()
    status, body = srv.call("POST", "/api/impact", {"text": "ruleset x\nextends nanchang\n", "base": "nanchang",
                                                    "hands": BIG})
    assert status == 400
    assert body["error"] == f"`hands`: from 1 to {c.IMPACT_MAX_HANDS} hands in one impact run (got {BIG})"
    assert "mjrules impact A B -n N" in body["hint"]
    assert not srv.app.state.server.impacts  # nothing started


def test_paths_outside_the_data_folder_are_refused(srv, tmp_path):
    outside = tmp_path / "secret.rules"
    outside.write_text("ruleset secret\nextends nanchang\n", encoding="utf-8")
    # a ruleset named by a path, to read or to play
    for name in ("..%2F..%2Fetc%2Fpasswd", "%2Fetc%2Fpasswd", str(outside).replace("/", "%2F")):
        status, body = srv.call("GET", f"/api/rulesets/{name}")
        assert status == 400 and body["error"].startswith("no ruleset"), body
    status, body = srv.call("POST", "/api/games", {"ruleset": str(outside)})
    assert status == 400 and body["error"].startswith("no ruleset")
    # an upload named like a path
    status, body = srv.call("POST", "/api/rulesets", {"name": "../evil", "text": "ruleset e\nextends nanchang\n"})
    assert status == 400 and "not a path" in body["error"]
    # a rule file that extends a path
    status, body = srv.call("POST", "/api/check", {"text": f'ruleset x\nextends "{outside}"\n'})
    assert status == 200 and not body["ok"]
    d = body["diagnostics"][0]
    assert (d["line"], d["column"]) == (2, 9) and "extends a bundled ruleset by name" in d["message"]
    # a scenario that names a rule file by its path
    scen = f"ruleset: {outside}\ncases: []\n"
    status, body = srv.call("POST", "/api/test", {"text": "ruleset x\nextends nanchang\n", "scenario": scen})
    assert status == 400 and body["error"].startswith("no ruleset")
    # a record that names one
    status, game = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seed": 3})
    from engine.table.records import game_record, to_yaml

    rec = game_record(srv.app.state.server.sessions[game["id"]].game)
    rec["ruleset_file"] = str(outside)
    status, body = srv.call("POST", "/api/replay", {"record": to_yaml(rec)})
    assert status == 400 and "outside the server's data folder" in body["error"]
    # the static files stay in their folder
    import urllib.error
    import urllib.request

    with pytest.raises(urllib.error.HTTPError) as e:
        urllib.request.urlopen(srv.url + "/static/..%2F..%2F..%2F..%2Fpyproject.toml")
    assert e.value.code == 404
    # nothing was written but the data folder's own files
    own = {"jobs", "rules", "server-id", "rooms.db", "rooms.db-wal", "rooms.db-shm"}  # the rooms' SQLite file (WAL while open)
    assert {"jobs", "rules", "server-id", "rooms.db"} <= {p.name for p in srv.data.iterdir()} <= own
    assert list((srv.data / "jobs").iterdir()) == []


def test_an_illegal_click_changes_nothing(srv):
    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "S", "bots": "greedy", "seed": 11})
    assert status == 200
    before = srv.call("GET", f"/api/games/{g['id']}")[1]
    legal = {a["text"] for a in before["table"]["legal"]}
    for bad in ("S discard 9z", "W discard 1m", "S win", "hello", "S pung"):
        if bad in legal:
            continue
        status, body = srv.call("POST", f"/api/games/{g['id']}/act", {"action": bad})
        assert status in (400, 409) and body["error"], (bad, body)
        assert srv.call("GET", f"/api/games/{g['id']}")[1] == before
    status, body = srv.call("POST", f"/api/games/{g['id']}/act", {"action": "W discard 1m"})
    assert status == 409 and body["error"].startswith("you sit at S")


def test_a_seat_or_bot_of_the_wrong_type_is_bad_input(srv):
    for bad in ({"bots": ["greedy"]}, {"bots": {"a": 1}}, {"seat": ["S"]}, {"seat": {"S": 1}}, {"bots": "search"}):
        status, body = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seed": 1, **bad})
        assert status == 400 and body["error"].startswith(("unknown bot", "no seat")), (bad, body)


def _play(srv, i: int, out: dict) -> None:
    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "ESWN"[i % 4], "bots": "random",
                                                "seed": 100 + i})
    statuses = [status]
    while status == 200 and not g["table"]["over"]:
        legal = g["table"]["legal"]
        pick = next((a for a in legal if a["kind"] == "win"), legal[-1])
        status, g = srv.call("POST", f"/api/games/{g['id']}/act", {"action": pick["text"]})
        statuses.append(status)
    out[i] = (statuses, g)


def test_20_sessions_play_at_once(srv):
    out: dict = {}
    threads = [threading.Thread(target=_play, args=(srv, i, out)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert len(out) == 20
    for i, (statuses, g) in out.items():
        assert set(statuses) == {200}, (i, statuses, g)
        assert g["table"]["over"] and g["result"] is not None
        assert sum(g["result"]["net"].values()) == 0
        booked = dict.fromkeys(g["result"]["net"], 0)  # the ledger's rows add up to each seat's net
        for row in g["result"]["ledger"]:
            booked[row["payee"]] += row["amount"]
            booked[row["payer"]] -= row["amount"]
        assert booked == g["result"]["net"], (i, g["result"])


def test_replay_steps_through_a_record(srv):
    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "S", "seed": 4})
    while not g["table"]["over"]:
        g = srv.call("POST", f"/api/games/{g['id']}/act", {"action": g["table"]["legal"][-1]["text"]})[1]
    import urllib.request

    resp = urllib.request.urlopen(f"{srv.url}/api/games/{g['id']}/record")
    assert "attachment" in resp.headers["Content-Disposition"]
    status, rep = srv.call("POST", "/api/replay", {"record": resp.read().decode()})
    assert status == 200 and rep["identical"]
    session = srv.app.state.server.sessions[g["id"]]
    assert len(rep["frames"]) == len(session.game.actions) + 1
    assert rep["frames"][-1]["action"] == session.game.actions[-1].text(session.game.scorer)
    assert rep["result"]["net"] == g["result"]["net"]


def test_a_hand_the_server_seeds_shows_no_seed_nor_record_until_it_is_over(srv):
    """Found by a review: every state carried the seed the server drew, and the record (the whole
    wall, the dice) was served mid-hand: either gave away the bots' hands and every draw."""
    import urllib.error
    import urllib.request

    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "S"})
    assert status == 200 and not g["table"]["over"] and g["seed"] is None
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(f"{srv.url}/api/games/{g['id']}/record")
    assert refused.value.code == 409 and "still being played" in json.loads(refused.value.read())["error"]
    while not g["table"]["over"]:
        g = srv.call("POST", f"/api/games/{g['id']}/act", {"action": g["table"]["legal"][-1]["text"]})[1]
        assert g["table"]["over"] or g["seed"] is None
    assert g["seed"] == srv.app.state.server.sessions[g["id"]].seed  # shown once the hand is over
    assert urllib.request.urlopen(f"{srv.url}/api/games/{g['id']}/record").status == 200


def test_impact_runs_report_progress_and_are_capped_and_cancellable(srv):
    need("websockets")
    from websockets.sync.client import connect

    c = caps()
    body = {"text": "ruleset x\nextends nanchang\n", "base": "nanchang", "hands": 10}
    status, job = srv.call("POST", "/api/impact", body)
    assert status == 200 and job["state"] == "running" and job["total"] == 10  # paired hands
    seen = []
    with connect(srv.url.replace("http", "ws") + f"/ws/impact/{job['id']}") as ws:
        for msg in ws:
            seen.append(json.loads(msg))
            if seen[-1]["state"] != "running":
                break
    assert seen[-1]["state"] == "done", seen[-1]
    assert seen[-1]["done"] == 10 and "| 子 moved per hand |" in seen[-1]["result"]["markdown"]
    assert seen[-1]["result"]["report"]["hands"] == 10  # the review's JSON (mjrules impact --json)
    # the cap on concurrent runs, and cancelling
    long = {**body, "hands": c.IMPACT_MAX_HANDS}
    ids = []
    for _ in range(c.MAX_IMPACT_RUNS):
        status, j = srv.call("POST", "/api/impact", long)
        assert status == 200
        ids.append(j["id"])
    status, j = srv.call("POST", "/api/impact", long)
    assert status == 429 and j["error"] == f"{c.MAX_IMPACT_RUNS} impact runs are going on: wait for one, or cancel one"
    for jid in ids:
        status, j = srv.call("POST", f"/api/impact/{jid}/cancel")
        assert status == 200 and j["state"] == "cancelled"
    status, j = srv.call("POST", "/api/impact", body)
    assert status == 200
    srv.call("POST", f"/api/impact/{j['id']}/cancel")


def test_scenarios_run_against_the_editor_text(srv):
    case = (Path(__file__).parent / "cases" / "nanchang_fans.yaml").read_text(encoding="utf-8")
    text = "ruleset mine\nextends nanchang\n"
    scen = case.replace("ruleset: nanchang", "ruleset: edited.rules", 1)
    status, body = srv.call("POST", "/api/test", {"text": text, "scenario": scen})
    assert status == 200 and body["failed"] == 0 and body["errors"] == 0 and body["passed"] > 0
    status, body = srv.call("POST", "/api/test", {"text": text + "override fan 大七对 = x4 when pattern 大七对\n",
                                                 "scenario": scen})
    assert status == 200 and body["failed"] >= 1
    failed = [c for c in body["cases"] if c["status"] == "fail"]
    assert all("大七对" in c["name"] or any("大七对" in f for f in c["fired"]) for c in failed)
    status, body = srv.call("POST", "/api/test", {"text": "ruleset mine\nfan = \n", "scenario": scen})
    assert status == 400 and body["file"] == "edited.rules" and body["line"] == 2


def test_serve_needs_its_extra_and_says_how(monkeypatch):
    import builtins

    from typer.testing import CliRunner

    from engine.cli import app

    real = builtins.__import__

    def no_uvicorn(name, *a, **k):
        if name == "uvicorn":
            raise ImportError(name)
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_uvicorn)
    r = CliRunner().invoke(app, ["serve", "--json"])
    assert r.exit_code == 2
    assert json.loads(r.stdout)["hint"] == "pip install 'mjrules[serve]' (from a clone: pip install '.[serve]')"


def test_a_request_past_its_time_cap_is_stopped(srv):
    """The child of a check is killed at its cap (here 0 s: any run is past it) and said so."""
    import asyncio

    from engine.tools.server.app import Refused

    server = srv.app.state.server
    job = server.job_dir()
    with pytest.raises(Refused) as e:
        asyncio.run(server.run("check", "ruleset x\nextends nanchang\n", {}, server.rules, job, seconds=0))
    assert e.value.status == 504 and e.value.body["error"] == "the request took longer than 0 seconds and was stopped"
    assert server.runs == 0 and not job.exists()


def test_runs_beyond_the_concurrent_cap_are_refused(srv):
    c = caps()
    server = srv.app.state.server
    server.runs += c.MAX_RUNS  # as if that many were going on
    try:
        status, body = srv.call("POST", "/api/check", {"text": "ruleset x\nextends nanchang\n"})
    finally:
        server.runs -= c.MAX_RUNS
    assert status == 429 and body["error"] == f"busy: {c.MAX_RUNS} runs are going on; try again in a moment"
    status, body = srv.call("POST", "/api/check", {"text": "ruleset x\nextends nanchang\n"})
    assert status == 200 and body["ok"]


def test_an_uploaded_rule_file_can_be_played_and_diffed(srv):
    text = "ruleset mine \"my house\"\nextends nanchang\noverride fan 大七对 = x4 when pattern 大七对\n"
    status, body = srv.call("POST", "/api/rulesets", {"name": "mine", "text": text})
    assert status == 200 and (srv.data / "rules" / "mine.rules").read_text(encoding="utf-8") == text
    names = {r["name"]: r for r in srv.call("GET", "/api/rulesets")[1]["rulesets"]}
    assert names["mine"]["bundled"] is False and names["mine"]["label"] == "my house"
    status, g = srv.call("POST", "/api/games", {"ruleset": "mine", "seed": 2})
    assert status == 200 and g["ruleset"] == "mine"
    status, d = srv.call("POST", "/api/diff", {"text": "ruleset y\nextends nanchang\n", "base": "mine"})
    assert status == 200 and [c["path"] for c in d["changes"]] == ["fan.大七对"]
    status, body = srv.call("POST", "/api/rulesets", {"name": "broken", "text": "ruleset b\nextends nanchang\nfan = \n"})
    assert status == 400 and body["line"] == 3 and "unexpected" in body["error"]
    assert not (srv.data / "rules" / "broken.rules").exists()
    status, body = srv.call("POST", "/api/check", raw=b"[" * 100_000 + b"]" * 100_000)
    assert status == 400 and body["error"] == "the request body is not JSON"


def test_a_port_in_use_is_bad_input_and_nothing_is_said_to_listen(tmp_path):
    import socket
    import subprocess
    import sys

    need("uvicorn")
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        done = subprocess.run([sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()",
                               "serve", "--port", str(port), "--data", str(tmp_path / "data"), "--json"],
                              capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    got = json.loads(done.stdout)  # one JSON document: the error, no "url" line before it
    assert got["error"].startswith(f"--port {port}: cannot listen on 127.0.0.1:{port}: ")
    assert got["hint"] == "another program uses that port: try another --port"


def test_the_default_ruleset_is_the_one_the_others_extend(srv):
    from engine.tools.server.app import default_ruleset

    body = srv.call("GET", "/api/rulesets")[1]
    bundled = [r for r in body["rulesets"] if r["bundled"]]
    assert body["default"] == "nanchang" != bundled[0]["name"]  # not the first by name (chongguan)
    assert all("nanchang" in r["extends"] for r in bundled if r["name"] != "nanchang")
    # the rule itself: most heirs first, then the name; uploaded files never count
    entries = [{"name": "b", "bundled": True, "extends": []}, {"name": "a", "bundled": True, "extends": []},
               {"name": "c", "bundled": True, "extends": ["b"]}, {"name": "u", "bundled": False, "extends": ["a", "a"]}]
    assert default_ruleset(entries) == "b"
    assert default_ruleset(entries[:2]) == "a"
    assert default_ruleset([entries[3]]) is None


def test_the_same_seed_deals_the_same_tiles_as_mjrules_play(srv):
    from engine.lang.compiler import compile_ruleset
    from engine.table.game import Game
    from engine.table.match import Match
    from engine.table.records import game_record

    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "S", "seed": 7})
    assert status == 200 and g["seed"] == 7
    game = srv.app.state.server.sessions[g["id"]].game
    rs = compile_ruleset("nanchang")
    cli = Match(rs, 7).deal()  # the hand `mjrules play nanchang --seed 7` plays first
    deal = ("seed", "ring", "wall", "dice")
    assert {k: game_record(game)[k] for k in deal} == {k: game_record(cli)[k] for k in deal}
    assert game.indicators == cli.indicators
    old = Game(rs, 7)  # the old way: the seed asked for as the hand's own
    assert (game_record(old)["ring"], game_record(old)["wall"]) != (game_record(cli)["ring"], game_record(cli)["wall"])


def test_the_diff_names_files_not_server_paths(srv):
    text = "ruleset y\nextends nanchang\noverride fan 大七对 = x4 when pattern 大七对\n"
    status, d = srv.call("POST", "/api/diff", {"text": text, "base": "nanchang"})
    assert status == 200 and [c["path"] for c in d["changes"]] == ["fan.大七对"]
    c = d["changes"][0]
    assert c["new"]["at"] == "edited.rules:3"
    assert c["old"]["at"].startswith("nanchang.rules:")
    assert "jobs" not in json.dumps(d) and str(srv.data) not in json.dumps(d)


def _catalogue(static: Path) -> dict[str, set[str]]:
    """The keys of each language of i18n.js (zh-CN, en)."""
    import re

    src = (static / "i18n.js").read_text(encoding="utf-8")
    keys = re.compile(r'"([a-zA-Z]+\.[\w.]+)":')
    return {"zh-CN": set(keys.findall(src[src.index('"zh-CN": {'):src.index("\n  en: {")])),
            "en": set(keys.findall(src[src.index("\n  en: {"):src.index("\n};")]))}


def _dynamic_values(static: Path) -> dict[str, set[str]]:
    """Each prefix the pages build a catalogue key from at run time (``t("phase." + view.phase)``)
    and every value the server can send for it, read from the Python that makes them: the phases
    (engine/table/actions.py: its single-word constants DRAW, ACT …), the action kinds (KINDS), the
    ways of winning (WIN_BY, and a 荒庄's ``exhaustive``), when a part is settled (the tables'
    ``parts`` entries, engine/table/), the websocket close codes (the rooms' caps, CLOSE_*), the 精 marks."""
    import importlib
    import re

    from engine.core.ledger import WIN_BY
    from engine.table import actions

    table = Path(actions.__file__).parent
    phases = set(getattr(actions, "PHASES", ())) or {
        v for k, v in vars(actions).items() if k.isupper() and isinstance(v, str) and v.isidentifier() and v.islower()}
    whens = {w for f in table.glob("*.py") for w in re.findall(
        r'(?:parts|kept)(?:\.append\(|\s*\+=\s*\[)\(\s*"(\w+)",', f.read_text(encoding="utf-8"))}
    codes: set[str] = set()
    for where in ("engine.tools.rooms.caps", "engine.tools.server.caps"):  # the rooms' caps, or the server's that held them
        try:
            caps = importlib.import_module(where)
        except ImportError:
            continue
        codes |= {str(v) for k, v in vars(caps).items() if k.startswith("CLOSE_") and isinstance(v, int)}
    marks = dict(re.findall(r'(\S+): "(\w+)"', re.search(r"JING = \{([^}]*)\}", (static / "tiles.js").read_text(encoding="utf-8"))[1]))
    # what the server does today: a rename that these no longer find must fail here, not pass on nothing
    assert {"draw", "act", "claim", "rob", "over"} <= phases and "discard" in actions.KINDS, (phases, actions.KINDS)
    assert {"after_deal", "end"} <= whens and {"4403", "4404", "4409"} <= codes and set(marks) == {"正精", "副精"}
    return {"phase.": phases, "act.": set(actions.KINDS), "by.": {*WIN_BY, "exhaustive"}, "when.": whens,
            "room.closed": codes, "jing.": {m + short for m in marks.values() for short in ("", "Short")}}


def test_every_word_of_the_pages_is_in_the_catalogue_in_both_languages():
    """i18n.js holds the same keys in zh-CN and en; every key the pages' scripts (app.js, room.js,
    tiles.js) and their markup name is there; every key they build at run time (``"phase." +
    phase``) is there for each value the server can send, in both languages; the page's markup
    carries no text of its own (each element says its catalogue key)."""
    import re

    import engine.tools.server as server  # the package, without starlette: the pages are plain files

    STATIC = Path(server.__file__).parent / "static"
    cat = _catalogue(STATIC)
    spaces = {k.split(".")[0] for k in cat["zh-CN"]}
    scripts = {p.name: p.read_text(encoding="utf-8") for p in sorted(STATIC.glob("*.js")) if p.name != "i18n.js"}
    assert {"app.js", "room.js", "tiles.js"} <= set(scripts)
    # the keys named as they are: every string that looks like one of the catalogue's namespaces
    for name, js in scripts.items():
        literal = {k for k in re.findall(r'"([a-zA-Z]+\.[\w.]+)"(?!\s*\+)', js) if k.split(".")[0] in spaces}
        assert literal <= cat["zh-CN"], (name, literal - cat["zh-CN"])
    # the keys built at run time: each prefix is one this test follows, and every value's key is in both languages
    dynamic = _dynamic_values(STATIC)
    built: set[str] = set()  # a prefix passed to t() (or status(), has()), and any other of a catalogue namespace
    for js in scripts.values():
        built |= set(re.findall(r'\b(?:t|tr|has|status)\(\s*["`]([a-zA-Z]+\.[a-zA-Z]*)(?:"\s*\+|\$\{)', js))
        built |= {p for p in re.findall(r'["`]([a-zA-Z]+\.[a-zA-Z]*)(?:"\s*\+|\$\{)', js) if p.split(".")[0] in spaces}
    assert built and built <= set(dynamic), ("keys built from a prefix this test does not follow", built - set(dynamic))
    missing = sorted(f"{lang}: {prefix}{v}" for prefix in built for v in dynamic[prefix] for lang, keys in cat.items()
                     if prefix + v not in keys)
    assert not missing, missing
    assert cat["zh-CN"] == cat["en"] and len(cat["zh-CN"]) > 100, cat["zh-CN"] ^ cat["en"]
    for page, script in (("index.html", "app.js"), ("room.html", "room.js")):
        used = set(re.findall(r'\bt[r]?\("([a-zA-Z]+\.[\w.]+)"', scripts[script]))
        html = (STATIC / page).read_text(encoding="utf-8")
        used |= set(re.findall(r'data-i18n(?:-title|-placeholder)?="([^"]+)"', html))
        assert used and used <= cat["zh-CN"], (script, used - cat["zh-CN"])
        body = re.sub(r"<(script|style|code|title)\b.*?</\1>", "", html, flags=re.S)
        text = re.sub(r"<[^>]+>", " ", body)
        assert set(text.split()) <= {"mjrules"}, text.split()  # the brand is the only word written in the page itself


def test_the_playground_names_a_bundled_file_not_where_the_server_is_installed(srv):
    """Found by a review: a diagnostic's note (`is declared here`) gave the bundled rule file's
    absolute path, and so did a note of an error; they read `<bundled>/NAME.rules:LINE:COL`."""
    from engine.lang.resources import rulesets_dir

    text = "ruleset x\nextends nanchang\noverride jing 冲关 = score n * (n - 3) when n >= 5\n"
    status, body = srv.call("POST", "/api/check", {"text": text})
    notes = [n for d in body["diagnostics"] for n in d["notes"]]
    assert status == 200 and notes and all(n["at"].startswith("<bundled>/nanchang.rules:") for n in notes), body
    assert str(rulesets_dir().resolve()) not in json.dumps(body, ensure_ascii=False)
