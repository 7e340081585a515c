"""Hostile snapshots: every seat's melds, the win's state and the ruleset's state-only
win policies are checked by the scorer, so `score` and `test` refuse what the game could not
produce or would not allow — each refusal naming its reason."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

from engine import Scorer, compile_ruleset, compile_text
from engine.core.snapshot import build_snapshot, parse_meld
from engine.errors import IllegalAction, ScenarioError
from engine.tools.scenario import run_file

SEATS = ["E", "S", "W", "N"]
WIN_5P = {"seat": "S", "tile": "5p", "by": "discard", "from": "E"}
S_WINS = "123m456m789s东南西5p"  # a natural hand that wins on 5p
S_ROB = "123m456m东南西9s9s46p"  # wins on 5p between 4p and 6p: another seat may show pung 555p


@pytest.fixture(scope="module")
def nanchang() -> Scorer:
    return Scorer(compile_ruleset("nanchang"))


@pytest.fixture(scope="module")
def ganzhou() -> Scorer:
    return Scorer(compile_ruleset("ganzhou"))


REFUSED = [
    ("one-tile kong", {"S": S_WINS, "N": {"melds": ["kong 8m concealed"]}}, WIN_5P,
     "seat N's kong 8m is not a meld of ruleset nanchang"),
    ("pung 778p", {"S": S_WINS, "N": {"melds": ["pung 778p from W"]}}, WIN_5P,
     "seat N's pung 778p is not a meld of ruleset nanchang"),
    ("pung from itself", {"S": S_WINS, "W": {"melds": ["pung 777p from W"]}}, WIN_5P,
     "seat W's pung 777p is claimed from W itself: a seat cannot claim its own discard"),
    ("kong from itself", {"S": S_WINS, "N": {"melds": ["kong 7777p from N"]}}, WIN_5P,
     "seat N's kong 7777p is claimed from N itself"),
    ("chow not from the 上家", {"S": S_WINS, "W": {"melds": ["chow 345p from E"]}}, WIN_5P,
     "seat W's chow 345p is claimed from E, but a chow takes only the discard of the seat before, S (上家) "
     "(flow 吃牌 = chow(from: previous))"),
    ("concealed kong with from", {"S": S_WINS, "N": {"melds": ["kong 7777p concealed from W"]}}, WIN_5P,
     "seat N's kong 7777p is concealed, so it was claimed from nobody"),
    ("winner's chow not from the 上家", {"S": {"concealed": "456m789s东南西5p", "melds": ["chow 123m from N"]}}, WIN_5P,
     "seat S's chow 123m is claimed from N, but a chow takes only the discard of the seat before, E (上家)"),
    ("first_turn on a 闲's discard", {"S": S_WINS}, {**WIN_5P, "from": "W", "first_turn": True},
     "a first-turn discard is the dealer's, and W is not the dealer (E)"),
    ("first_turn on a 闲's self-draw", {"S": S_WINS}, {"seat": "S", "tile": "5p", "by": "self_draw", "first_turn": True},
     "a first-turn self-draw is the dealer's, and S is not the dealer (E)"),
    ("first_turn on a kong draw", {"S": {"concealed": "123m456m东南西5p", "melds": ["kong 7777s concealed"]}},
     {"seat": "S", "tile": "5p", "by": "kong_draw", "first_turn": True},
     "not a kong_draw win: a kong ends the first go-around"),
    ("first_turn on a robbed kong", {"S": S_ROB, "W": {"melds": ["pung 555p from N"]}},
     {"seat": "S", "tile": "5p", "by": "rob_kong", "from": "W", "first_turn": True},
     "not a rob_kong win: a kong ends the first go-around"),
    ("first_turn with a meld on the table", {"S": S_WINS, "N": {"melds": ["pung 777p from W"]}},
     {**WIN_5P, "first_turn": True}, "seat N has declared a pung, and a claim or a kong ends the first go-around"),
    ("kong_draw without a kong", {"S": S_WINS}, {"seat": "S", "tile": "5p", "by": "kong_draw"},
     "seat S wins on a kong replacement (kong_draw) but has declared no kong"),
    ("rob_kong without the pung", {"S": S_WINS}, {"seat": "S", "tile": "5p", "by": "rob_kong", "from": "W"},
     "seat S robs W's kong of 5p, but W shows no pung of 5p to add it to"),
    ("discard from the winner", {"S": S_WINS}, {**WIN_5P, "from": "S"}, "seat S cannot win on its own discard"),
    ("rob its own kong", {"S": {"concealed": "123m456m东南西9s", "melds": ["pung 555p from N"]}},
     {"seat": "S", "tile": "5p", "by": "rob_kong", "from": "S"}, "seat S cannot rob its own kong"),
    ("a non-winner holding too many tiles", {"S": S_WINS, "N": "1112223334445m6m"}, WIN_5P,
     "seat N holds 14 tiles counting each meld as 3 (11122233344456m + 0 meld(s)); it can hold at most 13"),
]


@pytest.mark.parametrize("hands, win, message", [r[1:] for r in REFUSED], ids=[r[0] for r in REFUSED])
def test_an_impossible_snapshot_is_refused_with_its_reason(nanchang, hands, win, message):
    snap = build_snapshot(nanchang, jing="8m", hands=hands, win=win)
    with pytest.raises(IllegalAction) as exc:
        nanchang.score_win(snap)
    assert message in exc.value.message
    with pytest.raises(IllegalAction):  # the whole end-of-hand settlement refuses it too
        nanchang.settle_end_parts(snap)


def test_the_same_hands_score_once_the_snapshot_is_possible(nanchang):
    """The refusals above are about what they name: the well-formed neighbours score."""
    for hands, win in [({"S": S_WINS, "N": {"melds": ["kong 7777m concealed"]}}, WIN_5P),
                       ({"S": S_WINS, "W": {"melds": ["pung 777p from N"], "concealed": "8p"}}, WIN_5P),
                       ({"S": S_WINS, "N": {"melds": ["chow 345p from W"]}}, WIN_5P),
                       ({"S": S_WINS}, {**WIN_5P, "first_turn": True}),
                       ({"S": {"concealed": "123m456m东南西5p", "melds": ["kong 7777s concealed"]}},
                        {"seat": "S", "tile": "5p", "by": "kong_draw"}),
                       ({"S": S_ROB, "W": {"melds": ["pung 555p from N"]}},
                        {"seat": "S", "tile": "5p", "by": "rob_kong", "from": "W"})]:
        snap = build_snapshot(nanchang, jing="8m", hands=hands, win=win)
        assert nanchang.score_win(snap).ledger.net(SEATS)["S"] > 0


def test_a_bad_meld_is_refused_without_a_win_too(nanchang):
    """A one-tile kong of 精 was paid 杠精 and kong points; now the settlement refuses it."""
    snap = build_snapshot(nanchang, jing="8m", hands={"N": {"melds": ["kong 8m concealed"]}})
    with pytest.raises(IllegalAction, match="seat N's kong 8m is not a meld of ruleset nanchang"):
        nanchang.settle_indicator(snap, "upper")
    with pytest.raises(IllegalAction, match="kong 8m is not a meld"):
        nanchang.settle_exhaustive(snap)
    ok = build_snapshot(nanchang, jing="7m", hands={"N": {"melds": ["kong 8888m concealed"]}})
    assert nanchang.settle_indicator(ok, "upper").net(SEATS)["N"] > 0


def test_the_dealer_may_hold_a_full_hand_right_after_the_deal(nanchang):
    snap = build_snapshot(nanchang, jing="8m", hands={"E": "123m456m789s东南西5p5p", "S": "123m456m789s东南西5p"})
    nanchang.settle_indicator(snap, "upper")  # no error: 14 for the dealer, 13 for the others
    snap = build_snapshot(nanchang, jing="8m", hands={"S": "123m456m789s东南西5p5p"})
    with pytest.raises(IllegalAction, match="seat S holds 14 tiles .* it can hold at most 13"):
        nanchang.settle_indicator(snap, "upper")


def test_a_forbidden_jing_wait_discard_win_is_refused_by_the_scorer(ganzhou):
    """ganzhou's default: a 精钓 hand may not win on a discard — `score` and `test` refuse it as play does."""
    snap = build_snapshot(ganzhou, jing="9p", hands={"S": "123m456m789s东南西1p"},
                          win={"seat": "S", "tile": "中", "by": "discard", "from": "W"})
    with pytest.raises(IllegalAction) as exc:
        ganzhou.score_win(snap)
    assert "seat S's hand is in 精钓" in exc.value.message
    assert "(flow 精钓点炮 = jing_wait_discard(win: forbid))" in exc.value.message
    assert exc.value.hint == "it may win on its own draw"
    # the option that allows it, and the self-draw, score
    yes = Scorer(compile_ruleset("ganzhou", {"精钓点炮": "yes"}))
    assert yes.score_win(build_snapshot(yes, jing="9p", hands={"S": "123m456m789s东南西1p"},
                                        win={"seat": "S", "tile": "中", "by": "discard", "from": "W"})).fans == []
    drawn = ganzhou.score_win(build_snapshot(ganzhou, jing="9p", hands={"S": "123m456m789s东南西1p"},
                                             win={"seat": "S", "tile": "中", "by": "self_draw"}))
    assert drawn.fans == ["精钓"]


def test_no_rob_kong_policy_means_no_robbing(tmp_path):
    rs = compile_text("ruleset norob\nextends nanchang\nremove flow 抢杠\n", base_dir=tmp_path)
    scorer = Scorer(rs)
    snap = build_snapshot(scorer, jing="8m", hands={"S": S_ROB, "W": {"melds": ["pung 555p from N"]}},
                          win={"seat": "S", "tile": "5p", "by": "rob_kong", "from": "W"})
    with pytest.raises(IllegalAction, match=r"this ruleset lets no one rob a kong \(no `flow … = rob_kong\(…\)`\)"):
        scorer.score_win(snap)


def test_malformed_wins_are_file_errors(nanchang):
    with pytest.raises(ScenarioError, match="a self_draw win takes no `from`"):
        build_snapshot(nanchang, hands={"S": S_WINS}, win={"seat": "S", "tile": "5p", "by": "self_draw", "from": "W"})
    with pytest.raises(ScenarioError, match="a kong_draw win takes no `from`"):
        build_snapshot(nanchang, hands={"S": S_WINS}, win={"seat": "S", "tile": "5p", "by": "kong_draw", "from": "W"})
    with pytest.raises(ScenarioError, match="win.first_turn is true or false, not 'no'"):
        build_snapshot(nanchang, hands={"S": S_WINS}, win={**WIN_5P, "first_turn": "no"})


def test_copies_count_the_indicators(nanchang):
    """Already checked before the hostile-snapshot checks, kept: four 3p in hands plus the 3p indicator is a fifth copy."""
    with pytest.raises(ScenarioError, match=r"tile 3p is used 5 times; the set has 4 \(indicators count as one copy each\)"):
        build_snapshot(nanchang, jing="3p", hands={"S": "3333p", "N": "4p"})
    with pytest.raises(ScenarioError, match="tile 7s is used 5 times"):
        build_snapshot(nanchang, jing="3p", lower="7s", hands={"S": {"melds": ["kong 7777s concealed"]}})
    with pytest.raises(ScenarioError, match="tile 5p is used 5 times"):  # the winning tile counts too
        build_snapshot(nanchang, jing="3p", hands={"S": "123m456m789s5p5p5p5p"}, win={**WIN_5P})


def test_a_chow_claims_its_lowest_tile_in_notation_order(nanchang):
    t = nanchang.tiles
    assert parse_meld(nanchang, "chow 白发中 from N", SEATS).claimed == t.parse_one("白")
    assert parse_meld(nanchang, "chow 中发白 from N", SEATS).claimed == t.parse_one("5z")
    assert parse_meld(nanchang, "chow 东西北 from N", SEATS).claimed == t.parse_one("东")
    assert parse_meld(nanchang, "chow 789m from N", SEATS).claimed == t.parse_one("7m")
    assert parse_meld(nanchang, "chow 白发中 from N claimed 中", SEATS).claimed == t.parse_one("中")


FANS = """\
ruleset chains
extends nanchang
fan 甲 = x3 when discard instead of 乙
fan 乙 = x5 when discard instead of 丙
fan 丙 = x7 when discard
fan 丁 = x11 when discard instead of 戊
fan 戊 = x13 when discard instead of 丁
"""


def test_a_replaced_fan_replaces_nothing(tmp_path):
    """甲 instead of 乙, 乙 instead of 丙: 甲 and 丙 stay (乙 no longer drops 丙); a cycle keeps one."""
    scorer = Scorer(compile_text(FANS, base_dir=tmp_path))
    snap = build_snapshot(scorer, jing="8m", hands={"S": "123m456m789s东南西5p", "N": "8m"}, win=WIN_5P)
    ws = scorer.score_win(snap)
    assert "甲" in ws.fans and "丙" in ws.fans and "乙" not in ws.fans
    assert ("丁" in ws.fans) != ("戊" in ws.fans)
    assert "德国" in ws.fans  # the hand needs no 精; N holds one


def test_the_runner_reports_a_refused_settlement(tmp_path):
    f = tmp_path / "bad.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: one-tile kong\n    jing: 8m\n"
                 "    hands: {N: {melds: [kong 8m concealed]}}\n    expect:\n      upper: {N: 36}\n", encoding="utf-8")
    [r] = run_file(f)
    assert not r.passed
    assert r.differences == ["the engine refused the hand: seat N's kong 8m is not a meld of ruleset nanchang"]


def test_score_prints_the_reason(tmp_path):
    out = subprocess.run([sys.executable, "-m", "engine", "score", "-r", "nanchang", "--jing", "3p",
                          "-H", "S=123m456m789s东南西3p", "--win", "S", "--tile", "中", "--by", "discard",
                          "--from", "W", "--first-turn", "--json"], capture_output=True, text=True)
    assert out.returncode != 0 and "Traceback" not in out.stderr
    err = json.loads(out.stdout or out.stderr)
    assert "a first-turn discard is the dealer's, and W is not the dealer (E)" in err["error"]


def test_an_indicator_from_the_previous_hand_is_no_copy_of_this_wall():
    """回头一笑 settles the previous hand's 上精 kind: four 3p in hand are possible with it."""
    scorer = Scorer(compile_ruleset("chongguan"))
    snap = build_snapshot(scorer, indicators={"回头": "3p"}, hands={"E": "3333p"})
    assert scorer.settle_indicator(snap, "回头").net(SEATS)["E"] > 0
    with pytest.raises(ScenarioError, match="tile 3p is used 5 times"):  # this hand's 上精 is one of its tiles
        build_snapshot(scorer, jing="3p", hands={"E": "3333p"})
