"""Rooms in real browsers (issue 18): four headless Chromium sessions, one per seat, join by the
links the host's form gives and play a whole hand by clicking to the ledger, which is the
stored record's and what ``mjrules score`` says for its final state; one seat reloads mid-hand
and plays on. Screenshots room-1366.png and room-390.png (docs/img with MJRULES_SCREENSHOTS=docs,
else a scratch folder), each checked for an action needing no scrolling."""
from __future__ import annotations

import json
import urllib.request
from collections import Counter

import pytest

from .rooms_support import Client
from .serve_support import Running, need
from .test_serve_browser import SHOTS, chrome, click, score_args, wait_for

SEED = 17
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    need("sqlalchemy")
    s = Running(tmp_path_factory.mktemp("rooms-browser"), grace=600)
    yield s
    s.stop()


@pytest.fixture(scope="module")
def browsers(tmp_path_factory):
    out = []
    try:
        for i in range(4):  # one browser per seat
            out.append(chrome(tmp_path_factory.mktemp(f"chromium-{i}"), size="1366,768"))
        yield out
    finally:
        for d in out:
            d.quit()


def _version(d) -> int:
    v = d.execute_script("return document.body.dataset.version")
    return int(v) if v is not None else -1


def _seen(d, css: str) -> list[dict]:
    return d.execute_script(
        "return [...document.querySelectorAll(arguments[0])].map(e => { const r = e.getBoundingClientRect();"
        " return {top: r.top, bottom: r.bottom, right: r.right}; })", css)


def _shot(d, width: int, height: int) -> None:
    """A screenshot at width × height; the seat's action buttons and hand are in view without scrolling."""
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})
    try:
        d.execute_script("window.scrollTo(0, 0)")
        for css in (".room-dock button", ".room-mine .hand .tile"):
            boxes = _seen(d, css)
            assert all(b["top"] >= 0 and b["bottom"] <= height and b["right"] <= width + 1 for b in boxes), (css, boxes)
        SHOTS.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(SHOTS / f"room-{width}.png"))
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


def test_four_browsers_play_a_hand_by_their_links_to_the_ledger(srv, browsers):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    host = browsers[0]
    host.get(srv.url + "/rooms")
    wait_for(host, lambda: host.find_elements(By.CSS_SELECTOR, "#host-seats select"), "the host's form")
    assert host.find_element(By.CSS_SELECTOR, "#host h1").text == "开房间"  # 简体中文 first
    Select(host.find_element(By.ID, "host-ruleset")).select_by_value("nanchang")
    Select(host.find_element(By.ID, "host-hands")).select_by_value("1")
    host.find_element(By.ID, "host-seed").send_keys(str(SEED))
    host.find_element(By.ID, "host-create").click()
    wait_for(host, lambda: len(host.find_elements(By.CSS_SELECTOR, "#host-links a")) == 5, "the links")
    links = {a.get_attribute("data-seat"): a.get_attribute("href") for a in host.find_elements(By.CSS_SELECTOR, "#host-links a")}
    room = links["watch"].rsplit("/", 1)[1]
    seats = ["E", "S", "W", "N"]
    by_seat = dict(zip(seats, browsers))
    for s, d in by_seat.items():
        d.get(links[s])
    for d in browsers:
        wait_for(d, lambda d=d: _version(d) >= 0, "the first table")
    assert "牌墙余" in by_seat["E"].find_element(By.ID, "strip").text
    clicks, reloaded, shot = 0, False, False
    while not by_seat["E"].find_elements(By.CSS_SELECTOR, "#last .ledger-row"):
        assert clicks < 600, "the hand did not end"
        acted = False
        for s, d in by_seat.items():
            buttons = {b.get_attribute("data-kind"): b for b in d.find_elements(By.CSS_SELECTOR, ".room-dock button")}
            tiles = d.find_elements(By.CSS_SELECTOR, ".room-mine .hand .tile.playable")
            target = buttons.get("win") or buttons.get("pass") or (tiles[-1] if tiles else None) \
                or next(iter(buttons.values()), None)
            if target is None:
                continue
            if not shot and tiles and s == "E" and clicks >= 16:  # mid-hand, discards on the table
                _shot(d, 1366, 768)
                _shot(d, 390, 844)
                shot = True
            before = _version(d)
            target.click()
            clicks += 1
            acted = True
            wait_for(d, lambda d=d: _version(d) > before or d.find_elements(By.CSS_SELECTOR, "#last .ledger-row"),
                     f"{s}'s table to change")
            if clicks == 12 and not reloaded:  # a seat reloads mid-hand: same link, the table as it is
                top = max(_version(x) for x in browsers)
                page = by_seat["S"]
                page.refresh()
                wait_for(page, lambda: _version(page) > top, "S back at the table")  # its return is a change
                # what S is shown again is what the server tells S: every concealed tile (the one just
                # drawn last, apart), each meld's tiles; and the others see S's count, not its tiles
                seat = Client(f"ws://127.0.0.1:{srv.port}/ws/rooms/{room}?token={links['S'].split('#token=')[1]}")
                try:
                    told = seat.wait(lambda c: c.latest())
                    wait_for(page, lambda: _version(page) >= told["version"], "S's page at the version told")
                    v = seat.latest()["view"]
                finally:
                    seat.close()
                shown = [e.get_attribute("data-code") for e in page.find_elements(By.CSS_SELECTOR, ".room-mine .hand .tile")]
                assert shown == v["hand"] + ([v["drawn"]] if v["drawn"] else []), (shown, v["hand"], v["drawn"])
                assert len(shown) == v["hand_sizes"]["S"] and len(shown) % 3 != 0, shown  # 13 or 14 less 3 a meld
                melds = [[e.get_attribute("data-code") for e in m.find_elements(By.CSS_SELECTOR, ".tile")]
                         for m in page.find_elements(By.CSS_SELECTOR, ".room-mine .seat[data-seat='S'] .meld")]
                assert melds == [m["tiles"] for m in v["melds"]["S"]], (melds, v["melds"]["S"])
                count = by_seat["E"].find_element(By.CSS_SELECTOR, ".room-others .seat[data-seat='S'] .count").text
                assert count == f"手牌 {len(shown)} 张", count
                reloaded = True
            break
        if not acted:
            wait_for(by_seat["E"], lambda: any(x.find_elements(By.CSS_SELECTOR, ".room-dock button, .room-mine .tile.playable")
                                               for x in browsers) or by_seat["E"].find_elements(By.CSS_SELECTOR, "#last .ledger-row"),
                     "someone to have a choice")
    assert reloaded and shot
    # the ledger every seat was shown is the stored record's, and `score`'s for its final state
    from engine.lang.yamlio import load_text
    from engine.table.records import replay
    from engine.tools.play import ledger_rows

    with urllib.request.urlopen(f"{srv.url}/api/rooms/{room}/hands/1/record", timeout=60) as r:
        game, diffs = replay(load_text(r.read().decode(), "hand1.yaml"))
    assert diffs == []
    want = [(x["payer"], x["payee"], x["amount"]) for x in ledger_rows(game.result)]
    for d in browsers:
        wait_for(d, lambda d=d: d.find_elements(By.CSS_SELECTOR, "#last .ledger-row"), "the ledger")
        rows = [(r.get_attribute("data-payer"), r.get_attribute("data-payee"), int(r.get_attribute("data-amount")))
                for r in d.find_elements(By.CSS_SELECTOR, "#last .ledger-row")]
        assert rows == want
    from typer.testing import CliRunner

    from engine.cli import app

    r = CliRunner().invoke(app, score_args(game))
    assert r.exit_code == 0, r.output
    end = Counter()
    for when, _, lg in game.result.parts:
        if when == "end":
            for s, v in lg.net(game.seats).items():
                end[s] += v
    assert json.loads(r.stdout)["net"]["total"] == {s: end[s] for s in game.seats}


def test_the_playgrounds_file_opens_a_room_and_the_host_frees_a_seat_and_closes_it(srv, browsers):
    """The playground's text becomes a room's ruleset (the host's form opens with it chosen);
    in the browser that made the room the host's buttons give a seat to a bot and close it."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    from .test_serve_browser import open_page

    d = browsers[1]
    open_page(d, srv)
    d.execute_script("document.querySelector('nav .tab[data-page=\"playground\"]')?.click()")
    d.execute_script("const s = document.querySelector('#source'); s.value = arguments[0];"
                     " s.dispatchEvent(new Event('input'));", "ruleset 我家\nextends nanchang\n")
    d.execute_script("document.querySelector('#pg-room').click()")
    wait_for(d, lambda: "/rooms?ruleset=" in d.current_url and d.find_elements(By.CSS_SELECTOR, "#host-seats select"),
             "the host's form")
    assert Select(d.find_element(By.ID, "host-ruleset")).first_selected_option.get_attribute("value") == "我家"
    Select(d.find_element(By.CSS_SELECTOR, "#host-seats select[name='W']")).select_by_value("greedy")
    Select(d.find_element(By.CSS_SELECTOR, "#host-seats select[name='N']")).select_by_value("greedy")
    d.find_element(By.ID, "host-create").click()
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#host-links a[data-seat='E']"), "the links")
    link = d.find_element(By.CSS_SELECTOR, "#host-links a[data-seat='E']").get_attribute("href")
    room = link.split("/room/")[1].split("#")[0]
    d.get(link)
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#host-bar .host-remove[data-seat='S']"), "the host's buttons")
    st, summary = srv.call("GET", f"/api/rooms/{room}")
    assert summary["ruleset"] == "我家" and summary["seats"]["S"]["player"] == "human"
    click(d, "#host-bar .host-remove[data-seat='S']", "S's remove button")
    wait_for(d, lambda: srv.call("GET", f"/api/rooms/{room}")[1]["seats"]["S"]["player"] == "greedy", "S a bot")
    click(d, "#host-bar .host-close", "the close button")
    wait_for(d, lambda: srv.call("GET", f"/api/rooms/{room}")[1]["closed"], "the room closed")
