"""Each seat's own 精 (随精): the indicator attribute `picked by each seat` (docs/language.md
`indicator`). After the deal every seat in play order from the dealer picks a kind; a seat's
wilds are its own pick's 正精 and 副精; the end settles the winner's pick, and a 荒庄 none."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import compile_ruleset
from engine.core.scoring import Scorer
from engine.core.snapshot import build_snapshot
from engine.errors import RuleError, ScenarioError
from engine.table.actions import ACT, PICK
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import play_hand


@pytest.fixture(scope="module")
def rs():
    return compile_ruleset("nanchang-app", {"随精": "是"})


def test_every_seat_picks_in_play_order_from_the_dealer_before_play(rs):
    g = Game(rs, 5, dealer="S")
    assert g.phase == PICK and g.current == "S" and "upper" not in g.indicators
    assert "upper" in g.indicator_positions  # its stack anchors the 埋地雷 under it
    assert len(g.legal_actions("S")) == len(g.tiles) and not g.legal_actions("W")
    for seat, tile in zip(["S", "W", "N", "E"], ["3m", "东", "9s", "3m"]):
        assert g.to_act() == [seat]
        g.apply(f"{seat} pick {tile}")
    assert g.phase == ACT and g.current == "S"
    from engine.table.view import view_of

    assert view_of(g, "W")["pick"] == "东" and view_of(g, "N")["pick"] == "9s" and view_of(g, None)["pick"] is None
    code = g.tiles.code
    assert {s: sorted(map(code, w)) for s, w in g.wilds.items()} == {
        "S": ["3m", "4m"], "W": ["东", "南"], "N": ["1s", "9s"], "E": ["3m", "4m"]}
    assert not g.wild  # no wild shared by every seat
    assert g.wilds["S"] is not g.wilds["W"]


def test_a_seat_wins_with_its_own_pick_and_the_end_settles_the_winners(rs):
    """Bots play hands out: the winner's hand is read with its own wilds, and the 上精 settled at
    the end is the winner's pick; on a 荒庄 the 上精 has no tile."""
    won = drawn = 0
    for seed in range(40):
        g = Game(rs, seed)
        r = play_hand(g, {s: BOTS["greedy"](seed) for s in g.seats})
        parts = [p for _, p, _ in r.parts]
        if r.winner:
            won += 1
            assert g.indicators["upper"] == g.picked.chosen[r.winner] and "upper" in parts
        else:
            drawn += 1
            assert "upper" not in g.indicators and "upper" not in parts
    assert won


def test_picks_are_no_wild_under_the_common_path():
    g = Game(compile_ruleset("nanchang-app"), 1)
    assert g.picked is None and g.phase != PICK
    assert all(w is g.wild for w in g.wilds.values())  # one set, shared: the cache checks stay by identity


@pytest.mark.parametrize("bots", ["greedy", "value", "random"])
def test_every_bot_picks_and_plays(rs, bots):
    for seed in range(3):
        g = Game(rs, seed)
        play_hand(g, {s: BOTS[bots](seed) for s in g.seats})
        assert g.over and set(g.picked.chosen) == set(g.seats)


def test_bots_pick_the_kind_their_hand_counts_most(rs):
    g = Game(rs, 2)
    seat = g.current
    pick = BOTS["greedy"](0)(g, seat)
    counts = {k: g.scorer.jing.count(g.hands[seat].concealed, *g.scorer.rules.jing_kinds(k)) for k in range(len(g.tiles))}
    assert pick.kind == "pick" and counts[pick.tile] == max(counts.values())
    assert BOTS["value"](0)(g, seat).tile in {k for k, n in counts.items() if n == max(counts.values())}


def test_a_record_replays_the_picks(rs):
    from engine.table.records import game_record, replay

    g = Game(rs, 7)
    play_hand(g, {s: BOTS["greedy"](7) for s in g.seats})
    again, differences = replay(game_record(g))
    assert not differences and again.picked.chosen == g.picked.chosen


@pytest.mark.parametrize("line, message", [
    ("indicator p = next draw 1, picked by each seat, settle at end", "`picked by each seat` takes a place"),
    ("indicator p = under upper, picked by each seat, settle after deal", "settles the winner's pick"),
    ("indicator p = under upper, picked by each seat, family, settle at end", "not a `family`"),
    ("indicator p = under upper, picked by each seat, hidden, settle at end", "never shown"),
])
def test_bad_picked_indicators_are_errors(tmp_path: Path, line: str, message: str):
    f = tmp_path / "x.rules"
    f.write_text(f"extends nanchang\n{line}\n", encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert message in e.value.message


def test_two_picked_indicators_are_an_error(tmp_path: Path):
    f = tmp_path / "x.rules"
    f.write_text("extends nanchang\noverride indicator upper = top of dice stack from tail, picked by each seat, wild, "
                 "settle at end\nindicator p = left of upper, picked by each seat, settle at end\n", encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert "only one indicator is picked by each seat" in e.value.message


def test_scenario_picks_are_checked(rs):
    sc = Scorer(rs)
    hands = {"S": "456p789p55s78s23s东"}
    win = {"seat": "S", "tile": "1s", "by": "discard", "from": "W"}
    snap = build_snapshot(sc, hands=hands, win=win, picks={"E": "9s", "S": "东"})
    assert snap.indicators["upper"] == sc.tiles.parse_one("东") and snap.picks["E"] == sc.tiles.parse_one("9s")
    assert sc.rules.wild_kinds(snap, "E") == frozenset(sc.tiles.parse("9s1s"))
    for picks, jing, message in [({"E": "东"}, None, "the winner S has no pick"),
                                 ({"X": "东"}, None, "no seat 'X'"),
                                 ({"S": "东"}, "3m", "give the picks, not its tile")]:
        with pytest.raises(ScenarioError) as e:
            build_snapshot(sc, hands=hands, win=win, picks=picks, jing=jing)
        assert message in e.value.message
    with pytest.raises(ScenarioError):
        build_snapshot(Scorer(compile_ruleset("nanchang-app")), hands=hands, win=win, picks={"S": "东"})


def test_play_asks_a_person_for_the_pick_and_shows_it():
    """`mjrules play` (engine/tools/play.py): a person types the tile of its pick; --auto narrates
    each seat's pick."""
    from typer.testing import CliRunner

    from engine.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["play", "nanchang-app", "-o", "随精=是", "--auto", "--seed", "3"])
    assert r.exit_code == 0 and "E picks its 精: " in r.output, r.output[-2000:]
    r = runner.invoke(app, ["play", "nanchang-app", "-o", "随精=是", "--seat", "E", "--seed", "3"], input="xx\n3m\n")
    assert "pick your own 精" in r.output and "type a tile, e.g. 3m" in r.output and "E picks its 精: 3m" in r.output


def test_the_web_table_offers_the_pick_and_marks_the_seats_own_jing():
    """`mjrules serve` (engine/tools/server/table.py): a person's seat is offered a pick of every
    kind (a button each); once picked, its own 正精/副精 are marked on its tiles."""
    from engine.tools.server.table import Session

    s = Session.start("nanchang-app", {"随精": "是"}, "E", "greedy", 3)
    legal = s.state()["table"]["legal"]
    assert [a["kind"] for a in legal] == ["pick"] * len(s.game.tiles)
    state = s.act("E pick 3m")
    view = state["table"]
    held = set(view["hand"]) | ({view["drawn"]} if view["drawn"] else set())
    assert "4m" in held  # seed 3: E holds 456m
    assert view["jing"].get("4m") == "副精" and view["jing"].get("3m") == "正精"  # its own pick's marks
    assert s.state()["table"]["jing"] == view["jing"]
    from engine.table.view import view_of

    code = s.game.tiles.code
    main, nxt = s.game.scorer.rules.jing_kinds(s.game.picked.chosen["S"])  # S's view marks S's own pick
    south = view_of(s.game, "S")["jing"]
    assert south[code(main)] == "正精" and (nxt is None or south[code(nxt)] == "副精")
    assert view_of(s.game, None)["jing"] == {}  # a spectator sees nobody's pick


def test_the_next_hands_huitou_is_the_winners_pick(rs):
    """回头一笑 (`previous upper`): the next hand settles the previous winner's pick after the deal
    (MJTable_NanChang: shang_ju_jing = jing = personJing[winner]); after a 荒庄 there is none."""
    from engine.table.match import Match

    m = Match(rs, 11)
    games = m.play({s: BOTS["greedy"](11) for s in rs.table["seats"].values}, 12)
    checked = 0
    for before, after in zip(games, games[1:]):
        if before.result.winner:
            assert after.indicators["回头"] == before.picked.chosen[before.result.winner]
            checked += 1
        else:
            assert "回头" not in after.indicators
    assert checked
