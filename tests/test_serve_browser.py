"""mjrules serve in a real headless browser (Debian's chromium and chromium-driver, selenium).

Plays a whole hand by clicking until the ledger shows, and checks its numbers against
``mjrules score`` for the same final state; types a mistake into the playground and sees the
diagnostic at its line; changes 大七对 to x4 and sees the diff and a finished impact report.
Checks the page is 简体中文 first (seats 东南西北 with 上家/下家/对家 and 庄, tiles and actions by
name, the 正精 and 副精 named) with an English switch that is remembered, and that at 1366 × 768
and at 390 × 844 a decision needs no scrolling. Takes the screenshots table.png, table-1366.png,
table-390.png and playground.png: into the test's temporary folder, or into
docs/img (the README's pictures) with MJRULES_SCREENSHOTS=docs, so a test run changes no
tracked file.

Skipped when chromium, its driver or selenium is missing here; MJRULES_REQUIRE_BROWSER=1 (set
by .ci/run) makes that a failure.
"""
from __future__ import annotations

import json
import os
import shutil
import tempfile
from collections import Counter
from pathlib import Path

import pytest

from .conftest import ROOT
from .serve_support import REQUIRED, Running, need

SEED = 5
# MJRULES_SCREENSHOTS=docs: refresh the README's pictures; else a scratch folder
SHOTS = ROOT / "docs" / "img" if os.environ.get("MJRULES_SCREENSHOTS") == "docs" else Path(tempfile.gettempdir()) / "mjrules-shots"
WAIT = 60  # seconds a step may take on a busy machine (a ceiling, not a timing)


def _binary(*names: str) -> str | None:
    for n in names:
        found = shutil.which(n) or (n if os.path.isfile(n) else None)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def srv(tmp_path_factory):
    s = Running(tmp_path_factory.mktemp("serve-browser"))
    yield s
    s.stop()


def chrome(profile, size: str = "1400,1000", extra: tuple[str, ...] = ()):
    """A headless Chromium (selenium) with its own profile folder; skips (or fails, with
    MJRULES_REQUIRE_BROWSER=1) when chromium, its driver or selenium is missing."""
    need("selenium")
    chromium = _binary("chromium", "chromium-browser", "google-chrome")
    driver = _binary("chromedriver", "/usr/lib/chromium/chromedriver")
    if not chromium or not driver:
        if REQUIRED:
            pytest.fail("chromium or chromium-driver is missing, and MJRULES_REQUIRE_BROWSER=1")
        pytest.skip("chromium and chromium-driver are not installed (apt-get install chromium chromium-driver)")
    from selenium import webdriver
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
              "--disable-component-update", "--disable-sync", "--no-first-run", "--disable-dev-shm-usage",
              f"--user-data-dir={profile}", f"--window-size={size}", *extra):
        opts.add_argument(a)
    d = webdriver.Chrome(options=opts, service=Service(driver))
    d.set_page_load_timeout(WAIT)
    return d


@pytest.fixture(scope="module")
def browser(tmp_path_factory):
    d = chrome(tmp_path_factory.mktemp("chromium-profile"), extra=("--lang=en-US",))
    yield d
    d.quit()


def wait_for(d, fn, what: str):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(d, WAIT, poll_frequency=0.1).until(lambda _: fn(), message=f"waiting for {what}")


def click(d, css: str, what: str) -> None:
    """Click the element ``css`` once it is there: found again when the page redrew it between
    the find and the click (a room's bars are drawn anew on every frame)."""
    from selenium.common.exceptions import StaleElementReferenceException
    from selenium.webdriver.common.by import By

    def done() -> bool:
        try:
            found = d.find_elements(By.CSS_SELECTOR, css)
            if not found:
                return False
            found[0].click()
            return True
        except StaleElementReferenceException:
            return False

    wait_for(d, done, what)


def open_page(d, srv):
    from selenium.webdriver.common.by import By

    d.get(srv.url + "/")
    wait_for(d, lambda: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready") == "1", "the page")


def select(d, css: str, value: str) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    Select(d.find_element(By.CSS_SELECTOR, css)).select_by_value(value)


# ---- the table ----------------------------------------------------------------------------------------


def score_args(game) -> list[str]:
    """``mjrules score`` flags for a finished game's final state."""
    from engine.core.snapshot import lower_indicator, wild_indicator

    sc = game.scorer
    code, fmt = sc.tiles.code, sc.tiles.format
    r = game.result
    args = ["score", "--rules", game.rs.name, "--dealer", game.dealer, "--floor", str(game.floor), "--json"]
    for k, v in game.rs.options.items():
        args += ["--option", f"{k}={v.chosen}"]
    upper, lower = wild_indicator(sc), lower_indicator(sc)
    for name, tile in game.indicators.items():
        if name == upper:
            args += ["--jing", code(tile)]
        elif name == lower:
            args += ["--lower", code(tile)]
        else:
            args += ["--indicator", f"{name}={code(tile)}"]
    for s in game.seats:
        concealed = list(game.hands[s].concealed)
        if r.winner == s:
            concealed.remove(r.win.tile)  # score's notation: the winning tile apart
        parts = [fmt(sorted(concealed))]
        for m in game.hands[s].melds:
            text = f"{m.meld_kind} {fmt(list(m.tiles))}" + (" concealed" if m.concealed else "") + \
                (" added" if m.added else "") + (f" from {m.from_seat}" if m.from_seat else "") + \
                (f" claimed {code(m.claimed)}" if m.claimed is not None else "")
            parts.append(text)
        args += ["--hand", f"{s}=" + "; ".join(parts)]
    if r.winner:
        w = r.win
        args += ["--win", w.seat, "--tile", code(w.tile), "--by", w.by]
        if w.from_seat:
            args += ["--from", w.from_seat]
        if w.first_turn:
            args.append("--first-turn")
    return args


def test_play_a_hand_by_clicking_until_the_ledger_shows(srv, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = browser
    open_page(d, srv)
    select(d, "#ruleset", "nanchang")
    d.find_element(By.ID, "seed").send_keys(str(SEED))
    d.find_element(By.ID, "start").click()
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#actions button, #ledger"), "the first decision")
    clicks = 0
    while not d.find_elements(By.CSS_SELECTOR, "#ledger"):
        assert clicks < 400, "the hand did not end"
        buttons = d.find_elements(By.CSS_SELECTOR, "#actions button")
        kinds = {b.get_attribute("data-kind"): b for b in buttons}
        before = d.find_element(By.ID, "board").get_attribute("innerHTML")
        if "win" in kinds:
            kinds["win"].click()
        elif "pass" in kinds:
            d.find_element(By.TAG_NAME, "body").send_keys("p")  # the key for pass
        else:
            tiles = d.find_elements(By.CSS_SELECTOR, "#board .seat[data-seat='S'] .hand .tile.playable")
            assert tiles, "a discard is due but no tile can be clicked"
            tiles[-1].click()  # the drawn tile, or the last of the hand
        clicks += 1
        if clicks == 3:
            wait_for(d, lambda: d.find_element(By.ID, "board").get_attribute("innerHTML") != before, "the table")
            assert d.find_element(By.ID, "wall").text.startswith("牌墙余 ")  # 简体中文 by default
            SHOTS.mkdir(parents=True, exist_ok=True)
            d.save_screenshot(str(SHOTS / "table.png"))
        wait_for(d, lambda: d.find_element(By.ID, "board").get_attribute("innerHTML") != before
                 or d.find_elements(By.CSS_SELECTOR, "#ledger"), "the table to change")
    # the page's ledger is the game's, row by row
    rows = [(r.get_attribute("data-payer"), r.get_attribute("data-payee"), int(r.get_attribute("data-amount")))
            for r in d.find_elements(By.CSS_SELECTOR, "#ledger .ledger-row")]
    sessions = srv.app.state.server.sessions
    game = next(s.game for s in sessions.values() if s.seed == SEED and s.game.over)
    from engine.tools.play import ledger_rows

    assert rows == [(r["payer"], r["payee"], r["amount"]) for r in ledger_rows(game.result)]
    shown = {c.get_attribute("data-seat"): int(c.text) for c in d.find_elements(By.CSS_SELECTOR, "#net td")}
    assert shown == game.result.net(game.seats)
    # … and its end-of-hand settlements are what `mjrules score` says for the same final state
    from typer.testing import CliRunner

    from engine.cli import app

    r = CliRunner().invoke(app, score_args(game))
    assert r.exit_code == 0, r.output
    score = json.loads(r.stdout)
    end = Counter()
    for when, _, lg in game.result.parts:
        if when == "end":
            for s, v in lg.net(game.seats).items():
                end[s] += v
    assert score["net"]["total"] == {s: end[s] for s in game.seats}
    page_end = Counter()
    for row in d.find_elements(By.CSS_SELECTOR, "#ledger .ledger-row"):
        if row.get_attribute("data-when") == "end":
            a = int(row.get_attribute("data-amount"))
            page_end[row.get_attribute("data-payee")] += a
            page_end[row.get_attribute("data-payer")] -= a
    assert {s: page_end[s] for s in game.seats} == score["net"]["total"]
    want = sorted((t["part"], t["payer"], t["payee"], t["amount"], t["rule"]) for t in score["transfers"]
                  if t["part"] in {p for w, p, _ in game.result.parts if w == "end"})
    got = sorted((p, t.payer, t.payee, t.amount, t.rule) for w, p, lg in game.result.parts if w == "end"
                 for t in lg.transfers)
    assert got == want
    assert d.find_element(By.ID, "download").get_attribute("href").endswith("/record")
    d.find_element(By.TAG_NAME, "body").send_keys(Keys.ESCAPE)


# ---- the playground --------------------------------------------------------------------------------------


def load_base(d, name: str) -> None:
    from selenium.webdriver.common.by import By

    d.find_element(By.ID, "tab-playground").click()
    select(d, "#pg-base", name)
    d.find_element(By.ID, "pg-load").click()
    wait_for(d, lambda: d.find_element(By.ID, "pg-status").get_attribute("data-ok") == "1", "the base to check clean")


def test_a_mistake_shows_its_diagnostic_at_its_line(srv, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    d = browser
    open_page(d, srv)
    load_base(d, "nanchang")
    src = d.find_element(By.ID, "source")
    lines = src.get_attribute("value").split("\n")
    bad_line = len(lines) + (0 if lines[-1] == "" else 1)
    src.send_keys(Keys.CONTROL, Keys.END)
    src.send_keys("fan 坏 = x2 when pattern 没有")  # a pattern nobody declares
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#diagnostics li.diag.error"), "the diagnostic")
    diag = d.find_element(By.CSS_SELECTOR, "#diagnostics li.diag.error")
    assert int(diag.get_attribute("data-line")) == bad_line
    assert diag.text.startswith(f"{bad_line}:") and "没有" in diag.text
    marked = d.find_elements(By.CSS_SELECTOR, "#highlight .ln.err")
    assert [int(m.get_attribute("data-line")) for m in marked] == [bad_line]
    # the highlighting comes from the TextMate grammar
    assert d.find_elements(By.CSS_SELECTOR, "#highlight .tm-storage") and d.find_elements(By.CSS_SELECTOR, "#highlight .tm-comment")
    d.execute_script("document.querySelector('#source').scrollTop = 1e6; document.querySelector('#source')"
                     ".dispatchEvent(new Event('scroll'))")
    SHOTS.mkdir(parents=True, exist_ok=True)
    d.save_screenshot(str(SHOTS / "playground.png"))


def test_big_seven_pairs_x4_shows_the_diff_and_an_impact_report(srv, browser):
    from selenium.webdriver.common.by import By

    d = browser
    open_page(d, srv)
    load_base(d, "nanchang")
    src = d.find_element(By.ID, "source")
    text = src.get_attribute("value")
    at = text.index("fan 大七对 = x2") + len("fan 大七对 = x")
    d.execute_script("arguments[0].focus(); arguments[0].setSelectionRange(arguments[1], arguments[1] + 1)", src, at)
    src.send_keys("4")  # typed over the selected 2
    assert "fan 大七对 = x4" in src.get_attribute("value")
    wait_for(d, lambda: d.find_element(By.ID, "pg-status").get_attribute("data-ok") == "1", "the edit to check clean")
    d.find_element(By.ID, "pg-diff").click()
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#diff .change"), "the diff")
    changes = d.find_elements(By.CSS_SELECTOR, "#diff .change")
    assert [c.get_attribute("data-path") for c in changes] == ["fan.大七对"]
    assert "- x2 when pattern 大七对" in changes[0].text and "+ x4 when pattern 大七对" in changes[0].text
    assert d.find_element(By.ID, "diff-summary").get_attribute("data-changes") == "0/0/1"
    assert d.find_element(By.ID, "diff-summary").text.endswith("1 处差异：增 0，删 0，改 1")
    assert "edited.rules:" in changes[0].text and "jobs" not in d.find_element(By.ID, "diff").text  # no server path
    d.find_element(By.CSS_SELECTOR, ".subtab[data-pane='impact']").click()
    hands = d.find_element(By.ID, "impact-hands")
    hands.clear()
    hands.send_keys("20")
    d.find_element(By.ID, "impact-start").click()
    wait_for(d, lambda: d.find_element(By.ID, "impact-state").get_attribute("data-state") == "done", "the impact run")
    report = d.find_element(By.ID, "impact-report")
    assert report.find_element(By.TAG_NAME, "h2").text == "Impact of nanchang over nanchang: 20 paired hands"
    titles = [h.text for h in report.find_elements(By.TAG_NAME, "h3")]
    assert titles[:2] == ["Effects (Δ 子 per hand, B − A)", "Changed rules: coverage and scoring effect"]
    rules = [r.find_elements(By.TAG_NAME, "td")[0].text for r in report.find_elements(By.TAG_NAME, "tr")
             if r.find_elements(By.TAG_NAME, "td")]
    assert "fan.大七对" in rules and "子 moved per hand" in rules
    bar = d.find_element(By.ID, "impact-progress")
    assert bar.get_attribute("value") == bar.get_attribute("max") == "20"


def test_a_record_replays_step_by_step(srv, browser, tmp_path):
    import urllib.request

    from selenium.webdriver.common.by import By

    status, g = srv.call("POST", "/api/games", {"ruleset": "nanchang", "seat": "S", "seed": 8})
    while not g["table"]["over"]:
        g = srv.call("POST", f"/api/games/{g['id']}/act", {"action": g["table"]["legal"][-1]["text"]})[1]
    record = tmp_path / "hand.yaml"
    record.write_bytes(urllib.request.urlopen(f"{srv.url}/api/games/{g['id']}/record").read())
    n = len(srv.app.state.server.sessions[g["id"]].game.actions)
    d = browser
    open_page(d, srv)
    d.find_element(By.ID, "tab-replay").click()
    d.find_element(By.ID, "record-file").send_keys(str(record))
    step = d.find_element(By.ID, "replay-step")
    wait_for(d, lambda: step.get_attribute("data-step") == "0", "the record")
    assert step.text == f"第 0 步 / 共 {n} 步：配牌"
    d.find_element(By.ID, "replay-next").click()
    d.find_element(By.ID, "replay-next").click()
    assert step.text.startswith(f"第 2 步 / 共 {n} 步：")
    d.find_element(By.ID, "replay-prev").click()
    assert step.text.startswith(f"第 1 步 / 共 {n} 步：")
    assert len(d.find_elements(By.CSS_SELECTOR, "#replay-board .seat")) == 4
    assert not d.find_elements(By.CSS_SELECTOR, "#replay-board .hand .tile.back")  # every hand face up
    for _ in range(n):
        d.find_element(By.ID, "replay-next").click()
    line = d.find_element(By.ID, "result-line")
    assert line.get_attribute("data-winner") == (g["result"]["winner"] or "")
    assert ("胡牌" if g["result"]["winner"] else "荒庄") in line.text
    shown = {c.get_attribute("data-seat"): int(c.text) for c in d.find_elements(By.CSS_SELECTOR, "#replay-result #net td")}
    assert shown == g["result"]["net"]
    assert d.find_element(By.ID, "replay-error").text == ""


# ---- 简体中文 first, English by the switch; a laptop and a phone ---------------------------------------


def sit_down(d, srv, seed: int) -> None:
    from selenium.webdriver.common.by import By

    open_page(d, srv)
    assert d.find_element(By.ID, "ruleset").get_attribute("value") == "nanchang"  # the default, not the first by name
    d.find_element(By.ID, "seed").send_keys(str(seed))
    d.find_element(By.ID, "start").click()
    wait_for(d, lambda: d.find_elements(By.CSS_SELECTOR, "#actions button"), "the first decision")


def test_the_page_is_chinese_first_and_english_by_the_switch(srv, browser):
    from selenium.webdriver.common.by import By

    d = browser
    open_page(d, srv)
    d.execute_script("localStorage.clear()")
    sit_down(d, srv, SEED)
    assert d.find_element(By.ID, "start").text == "入座" and d.find_element(By.ID, "tab-table").text == "牌桌"
    heads = {b.get_attribute("data-seat"): b.find_element(By.TAG_NAME, "h3").text for b in d.find_elements(By.CSS_SELECTOR, "#board .seat")}
    assert heads["S"].startswith("南 · 自己") and heads["W"].startswith("西 · 下家") and heads["N"].startswith("北 · 对家")
    assert heads["E"] == "东 · 上家 · 庄"  # E deals the first hand
    # the 正精 and the 副精 both named on the indicator strip, and marked on the tiles
    strip = {e.get_attribute("data-jing"): e.text for e in d.find_elements(By.CSS_SELECTOR, "#board .jing-name")}
    assert set(strip) == {"正精", "副精"} and strip["正精"].startswith("正精") and strip["副精"].startswith("副精")
    assert d.find_elements(By.CSS_SELECTOR, "#board .tile.jing-main") and d.find_elements(By.CSS_SELECTOR, "#board .tile.jing-sub")
    names = [t.get_attribute("data-name") for t in d.find_elements(By.CSS_SELECTOR, "#board .seat[data-seat='S'] .hand .tile")]
    assert names and all(n[-1] in "万筒条" or n in "东风南风西风北风红中发财白板" for n in names), names
    labels = [b.text for b in d.find_elements(By.CSS_SELECTOR, "#actions button")]
    assert all(any(w in x for w in ("吃", "碰", "杠", "胡", "过", "打")) for x in labels), labels
    assert not any(c in "".join(labels) for c in "mps"), labels  # tiles by name, not by code
    # English by the switch, remembered across a reload
    d.find_element(By.ID, "lang").click()
    assert d.find_element(By.ID, "start").text == "Sit down"
    assert d.find_element(By.CSS_SELECTOR, "#board .seat[data-seat='S'] h3").text.startswith("South · you")
    assert any("pass" in b.text for b in d.find_elements(By.CSS_SELECTOR, "#actions button"))
    open_page(d, srv)
    assert d.find_element(By.ID, "start").text == "Sit down" and d.find_element(By.TAG_NAME, "html").get_attribute("lang") == "en"
    d.find_element(By.ID, "lang").click()
    assert d.find_element(By.ID, "start").text == "入座"


@pytest.mark.parametrize("width, height", [(1366, 768), (390, 844)])
def test_a_decision_needs_no_scrolling_on_a_laptop_and_a_phone(srv, browser, width, height):
    from selenium.webdriver.common.by import By

    d = browser
    d.execute_cdp_cmd("Emulation.setDeviceMetricsOverride",
                      {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 700})
    try:
        sit_down(d, srv, SEED)  # seed 5: the first decision is a claim of E's discard
        assert d.find_element(By.ID, "prompt").is_displayed()

        def seen(css: str) -> list[dict]:
            return d.execute_script(
                "return [...document.querySelectorAll(arguments[0])].map(e => { const r = e.getBoundingClientRect();"
                " return {top: r.top, bottom: r.bottom, left: r.left, right: r.right, h: r.height}; })", css)

        assert d.execute_script("return window.scrollY") == 0
        view_w, view_h = d.execute_script("return [innerWidth, innerHeight]")
        assert (view_w, view_h) == (width, height)
        for css in ("#actions button", "#prompt", "#board .seat[data-seat='S'] .hand .tile"):
            boxes = seen(css)
            assert boxes and all(b["top"] >= 0 and b["bottom"] <= view_h and b["right"] <= view_w for b in boxes), (css, boxes)
        # the other seats' concealed tiles are one compact row, never a column of tiles
        tile_h = seen("#board .seat[data-seat='S'] .hand .tile")[0]["h"]
        for s in ("E", "W", "N"):
            hand = seen(f"#board .seat[data-seat='{s}'] .hand")[0]
            assert hand["h"] <= tile_h * 1.3, (s, hand, tile_h)
        SHOTS.mkdir(parents=True, exist_ok=True)
        d.save_screenshot(str(SHOTS / f"table-{width}.png"))  # the claim of the first discard
        # play a few discards by clicking: each one reachable where it is
        for _ in range(6):
            tiles = d.find_elements(By.CSS_SELECTOR, "#board .seat[data-seat='S'] .hand .tile.playable")
            buttons = d.find_elements(By.CSS_SELECTOR, "#actions button")
            before = d.find_element(By.ID, "board").get_attribute("innerHTML")
            if d.find_elements(By.CSS_SELECTOR, "#ledger"):
                break
            target = tiles[-1] if tiles else next((b for b in buttons if b.get_attribute("data-kind") == "pass"), buttons[-1])
            r = seen("#actions button") + seen("#board .seat[data-seat='S'] .hand .tile")
            assert all(b["bottom"] <= view_h for b in r) and d.execute_script("return window.scrollY") == 0
            target.click()
            wait_for(d, lambda: d.find_element(By.ID, "board").get_attribute("innerHTML") != before
                     or d.find_elements(By.CSS_SELECTOR, "#ledger"), "the table to change")
    finally:
        d.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
