"""The game core's API, the match (连庄, 爬楼, 抄庄 passing the deal), observations, simulate."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import compile_ruleset
from engine.cli import app
from engine.core.scoring import WinInfo
from engine.errors import IllegalAction
from engine.table.bots import GreedyBot
from engine.table.game import Action, Game, HandResult
from engine.table.match import Match, next_deal, play_hand

runner = CliRunner()
RS = compile_ruleset("nanchang")
SEATS = ["E", "S", "W", "N"]


def _result(winner=None, follow_first=False):
    win = WinInfo(winner, 0, "self_draw") if winner else None
    return HandResult(winner, win, None, [], [], follow_first)


@pytest.mark.parametrize("winner, follow, want", [
    ("E", False, ("E", 3)),    # the dealer wins: keeps the deal, climbs a floor (爬楼)
    (None, False, ("E", 2)),   # 荒庄: the dealer keeps the deal, the floor stays
    ("S", False, ("S", 1)),    # a 闲 wins: the next seat deals, floor 1
    ("N", False, ("S", 1)),
    ("E", True, ("S", 1)),     # 抄庄 passes the deal even when the dealer wins
])
def test_next_deal(winner, follow, want):
    assert next_deal(RS, SEATS, _result(winner, follow), "E", 2) == want


def test_a_match_rotates_and_carries_indicators():
    m = Match(RS, seed=3)
    bots = {s: GreedyBot(i) for i, s in enumerate(m.seats)}
    games = m.play(bots, 6)
    for prev, nxt in zip(games, games[1:]):
        assert (nxt.dealer, nxt.floor) == next_deal(RS, SEATS, prev.result, prev.dealer, prev.floor)
        assert nxt.previous_indicators == prev.indicators


def test_a_seat_view_shows_its_own_tiles_only():
    from engine.table.view import view_of

    g = Game(RS, 5)
    obs = view_of(g, "S")
    assert obs["hand"] == [g.tiles.code(k) for k in sorted(g.hands["S"].concealed)]
    assert obs["hands"] == {"S": obs["hand"], "E": None, "W": None, "N": None}
    assert obs["hand_sizes"] == {s: len(g.hands[s].concealed) for s in SEATS}
    assert obs["legal"] == []  # the dealer acts first
    east = view_of(g, "E")
    assert [a["text"] for a in east["legal"]] == [a.text(g.scorer) for a in g.legal_actions("E")]
    assert sorted(east["hand"] + [east["drawn"]]) == sorted(g.tiles.code(k) for k in g.hands["E"].concealed)


def test_illegal_actions_say_what_is_legal_and_change_nothing():
    g = Game(RS, 5)
    before = (len(g.actions), [list(h.concealed) for h in g.hands.values()])
    with pytest.raises(IllegalAction, match="S has nothing to do now; waiting for E"):
        g.apply("S draw")
    tile = next(k for k in range(len(g.tiles)) if k not in g.hands["E"].concealed)
    with pytest.raises(IllegalAction, match="illegal action 'E discard") as info:
        g.apply(Action("E", "discard", tile))
    assert info.value.hint.startswith("legal now: ") and "E discard" in info.value.hint
    with pytest.raises(IllegalAction, match="cannot read action"):
        g.apply("E flip 5p")
    assert (len(g.actions), [list(h.concealed) for h in g.hands.values()]) == before


def test_a_hand_settles_the_lower_indicator_right_after_the_deal():
    g = Game(RS, 8)
    assert [(w, p) for w, p, _ in g.parts] == [("after_deal", "lower")]
    play_hand(g, {s: GreedyBot(i) for i, s in enumerate(g.seats)})
    assert ("end", "upper") in [(w, p) for w, p, _ in g.result.parts]


def test_simulate_is_deterministic_and_independent_of_workers(tmp_path: Path):
    args = ["simulate", "nanchang", "-n", "30", "--seed", "7", "--json"]
    one = runner.invoke(app, args)
    again = runner.invoke(app, args)
    two = runner.invoke(app, args + ["--workers", "2"])
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout) == json.loads(again.stdout) == json.loads(two.stdout)
    data = json.loads(one.stdout)
    assert data["hands"] == 30
    assert sum(v["wins"] for v in data["seats"].values()) + round(data["exhaustive_rate"] * 30) == 30
    assert abs(sum(v["avg_zi_per_hand"] for v in data["seats"].values())) < 1e-6


def test_simulate_records_replay(tmp_path: Path):
    r = runner.invoke(app, ["simulate", "nanchang-table", "-n", "3", "--seed", "2", "--records", str(tmp_path),
                            "--bots", "random,greedy,greedy,random"])
    assert r.exit_code == 0, r.output
    files = sorted(tmp_path.glob("hand-*.yaml"))
    assert len(files) == 3
    for f in files:
        rr = runner.invoke(app, ["replay", str(f), "--json"])
        assert rr.exit_code == 0, rr.output
        assert json.loads(rr.stdout)["identical"] is True


def test_replay_reports_a_tampered_record(tmp_path: Path):
    runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--seed", "2", "--records", str(tmp_path)])
    f = next(tmp_path.glob("hand-*.yaml"))
    text = f.read_text(encoding="utf-8")
    f.write_text(text.replace("follow_first: false", "follow_first: true"), encoding="utf-8")
    rr = runner.invoke(app, ["replay", str(f)])
    assert rr.exit_code == 1
    assert "DIFFERS from the record" in rr.stdout


def test_play_auto_watches_four_bots():
    r = runner.invoke(app, ["play", "nanchang", "--auto", "--seed", "3"])
    assert r.exit_code == 0, r.output
    assert "E discard" in r.output and "ledger" in r.output and "match total:" in r.output


def test_play_takes_a_persons_choices():
    # the person at S answers every question with "1" (the first legal action)
    r = runner.invoke(app, ["play", "nanchang", "--seed", "5", "--seat", "S"], input="1\n" * 400)
    assert r.exit_code == 0, r.output
    assert "your choice:" in r.output and "(you)" in r.output


def test_unknown_bot_is_refused():
    r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--bots", "clever"])
    assert r.exit_code == 2
    assert "give one kind, or one per seat in seat order" in r.output


@pytest.mark.parametrize("rules", ["nanchang", "nanchang-table", "chongguan", "ganzhou"])
def test_every_bundled_ruleset_simulates_and_plays(rules):
    r = runner.invoke(app, ["simulate", rules, "-n", "8", "--seed", "1", "--json"])
    assert r.exit_code == 0, r.output
    assert json.loads(r.stdout)["hands"] == 8
    auto = runner.invoke(app, ["play", rules, "--auto", "--seed", "2"])
    assert auto.exit_code == 0, auto.output
    assert "match total:" in auto.output


def test_ganzhou_settles_three_extra_indicators_at_the_end():
    rs = compile_ruleset("ganzhou")
    g = Game(rs, 4)
    assert [p for _, p, _ in g.parts] == []  # nothing after the deal: 上下左右翻 is at the end
    play_hand(g, {s: GreedyBot(i) for i, s in enumerate(g.seats)})
    ends = [p for w, p, _ in g.result.parts if w == "end"]
    assert ends == ["hand", "upper", "lower", "left", "right"]
    assert set(g.indicators) == {"upper", "lower", "left", "right"}


def test_chongguan_carries_the_previous_upper_into_the_next_hand():
    rs = compile_ruleset("chongguan")
    m = Match(rs, seed=9)
    games = m.play({s: GreedyBot(i) for i, s in enumerate(m.seats)}, 2)
    first, second = games
    assert "回头" not in first.indicators
    assert second.indicators["回头"] == first.indicators["upper"]
    assert [(w, p) for w, p, _ in second.parts][:1] == [("after_deal", "回头")]
    assert [(w, p) for w, p, _ in first.parts if w == "after_deal"] == []


def test_replay_refuses_malformed_records(tmp_path: Path):
    runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--seed", "2", "--records", str(tmp_path)])
    f = next(tmp_path.glob("hand-*.yaml"))
    good = f.read_text(encoding="utf-8")
    from ruamel.yaml import YAML

    assert YAML(typ="safe").load(good)["ruleset_file"] is None  # a bundled ruleset is recorded by name
    for old, new, says in [("dealer: E", "dealer: Q", "dealer 'Q' is not a seat"),
                           ("floor: 1", "floor: -3", "`floor` must be a whole number"),
                           ("ruleset: nanchang\n", "ruleset: nosuch\n", "no bundled ruleset 'nosuch'")]:
        f.write_text(good.replace(old, new, 1), encoding="utf-8")
        r = runner.invoke(app, ["replay", str(f)])
        assert r.exit_code == 2 and says in r.output, (old, r.output)
    cut = good.split("actions:")[0] + "actions: [E discard 1m]\n"
    f.write_text(cut, encoding="utf-8")
    r = runner.invoke(app, ["replay", str(f)])
    assert r.exit_code in (1, 2) and ("before the hand is over" in r.output or "cannot be replayed" in r.output)


def test_records_folder_that_cannot_be_written(tmp_path: Path):
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--records", str(blocker)])
    assert r.exit_code == 2 and "cannot write records in" in r.output
    r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "-o", "junk"])
    assert r.exit_code == 2 and "--option 'junk' is not NAME=VALUE" in r.output


def test_an_out_of_range_tile_is_an_illegal_action():
    g = Game(RS, 5)
    with pytest.raises(IllegalAction, match="names a tile this ruleset does not have"):
        g.apply(Action("E", "discard", 999))


def test_every_kind_of_action_has_what_it_does():
    """Game.apply dispatches on the kind: each of actions.KINDS is mapped, and nothing else."""
    from engine.table.actions import KINDS
    from engine.table.game import APPLY

    assert set(APPLY) == set(KINDS)


def test_the_play_menu_names_the_tile_a_claim_takes_and_its_discarder():
    """`mjrules play`'s menu line of a pung, kong or win on a discard (engine/tools/play.py
    action_text): the claimed tile and who threw it; a chow names the two tiles it adds."""
    from engine.tools.play import action_text

    rs = compile_ruleset("nanchang")
    seen: set[str] = set()
    for seed in range(40):
        g = Game(rs, seed)
        bot = GreedyBot(seed)
        while not g.over and not {"pung", "chow"} <= seen:
            if g.phase == "claim":
                assert g.last_discard is not None
                who, tile = g.last_discard
                for s in g.to_act():
                    for a in g.legal_actions(s):
                        if a.kind == "pung":
                            assert action_text(g, a) == f"pung {g.tiles.code(tile)} (from {who})"
                            seen.add("pung")
                        elif a.kind == "chow":
                            assert action_text(g, a).endswith(f" + {g.tiles.code(tile)}")
                            seen.add("chow")
            s = g.to_act()[0]
            g.apply(bot(g, s))
        if {"pung", "chow"} <= seen:
            break
    assert seen == {"pung", "chow"}
