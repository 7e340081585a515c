"""Flips before play (发电): `indicator NAME = flips from tail up to N stop when EXPR` and the
flow policy `stop_penalty(pays: N)` (docs/language.md). Each flip is settled at once on the
dealt hands (NAME@k); the first seat, from the dealer, that may stop and stops makes the tile
the indicator; nobody stopping after N flips draws the hand; the stopper who does not win pays."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import compile_ruleset
from engine.errors import RuleError
from engine.table.actions import FLIP
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import play_hand

RULES = """ruleset fadian "发电"
extends nanchang
remove indicator lower
override indicator upper "上精" = flips from tail up to 22 at most 2 per sum stop when n >= 3, wild, settle at end with kongs
flow 发电罚分 = stop_penalty(pays: 5)
"""


@pytest.fixture(scope="module")
def rs(tmp_path_factory):
    f = tmp_path_factory.mktemp("flips") / "fadian.rules"
    f.write_text(RULES, encoding="utf-8")
    return compile_ruleset(str(f))


def first_flip_game(rs, seed_range=range(200)) -> Game:
    for seed in seed_range:
        g = Game(rs, seed)
        if g.phase == FLIP:
            return g
    raise AssertionError("no seed gave a flip a seat may stop")


def test_a_flip_is_settled_at_once_and_asks_the_seats_it_meets_the_condition_for(rs):
    g = first_flip_game(rs)
    flips = [e for e in g.events if e["event"] == "flip"]
    assert flips and flips[-1]["name"] == f"upper@{len(flips)}"
    assert [p for _, p, _ in g.parts] == [f"upper@{k}" for k in range(1, len(flips) + 1)]
    tile = g.tiles.parse_one(flips[-1]["tile"])
    order = g.seats[g.seats.index(g.dealer):] + g.seats[:g.seats.index(g.dealer)]
    n = {s: g.scorer.jing.count(g.hands[s].concealed, tile, g.tiles.successor(tile)) for s in order}
    asked = [s for s in order if n[s] >= 3]  # nanchang: 正 2, 副 1
    assert asked and g.current == asked[0] and g.to_act() == [asked[0]]
    assert [a.text(g.scorer) for a in g.legal_actions(g.current)] == [f"{g.current} stop", f"{g.current} pass"]
    from engine.table.view import view_of

    assert view_of(g, g.current)["flip"] == {"name": "upper", "made": len(flips), "of": 22, "tile": flips[-1]["tile"]}
    assert "upper" not in g.indicators and not g.wild


def test_a_stop_makes_the_tile_the_wild_indicator_and_play_begins(rs):
    g = first_flip_game(rs)
    seat, tile = g.current, g.flips.tile
    g.apply(f"{seat} stop")
    assert g.indicators["upper"] == tile and g.flips.stopper == seat
    assert tile in g.wild and g.phase != FLIP and g.current == g.dealer


def test_passing_every_flip_draws_the_hand_before_play(rs):
    g = first_flip_game(rs)
    while g.phase == FLIP:
        g.apply(f"{g.current} pass")
    assert g.over and g.result.winner is None and g.flips.made == 22
    assert len({e["position"] for e in g.events if e["event"] == "flip"}) == 22  # 22 different tiles
    sums = [sum(e["dice"]) for e in g.events if e["event"] == "flip"]
    assert all(sums.count(s) <= 2 for s in set(sums))
    assert "stop_penalty" not in [p for _, p, _ in g.parts]


def test_the_stopper_pays_each_other_seat_when_it_does_not_win(rs):
    seen = {"paid": 0, "won": 0}
    for seed in range(60):
        g = Game(rs, seed)
        r = play_hand(g, {s: BOTS["greedy"](seed) for s in g.seats})
        stopper = g.flips.stopper
        penalty = [lg for _, p, lg in r.parts if p == "stop_penalty"]
        if stopper is None:
            assert not penalty
        elif r.winner == stopper:
            seen["won"] += 1
            assert not penalty
        else:
            seen["paid"] += 1
            net = penalty[0].net(g.seats)
            assert net[stopper] == -5 * (len(g.seats) - 1) and all(net[s] == 5 for s in g.seats if s != stopper)
    assert seen["paid"] and seen["won"]


@pytest.mark.parametrize("line, message", [
    ("flips from tail up to 23 at most 2 per sum stop when n >= 3", "23 flips, but 2 dice make 11 sums"),
    ("flips from tail up to 40 stop when n >= 3", "throw 40 of a sum of 12 counts 480 tiles"),
    ("flips from tail up to 4 stop when self_drawn", "self_drawn"),
    ("flips from tail up to 4 stop when n >= 3, family, settle at end", "cannot be a `family`"),
])
def test_bad_flips_are_errors(tmp_path: Path, line: str, message: str):
    f = tmp_path / "x.rules"
    f.write_text(f"extends nanchang\nremove indicator lower\noverride indicator upper = {line}, wild\n", encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert message in e.value.message + (e.value.hint or "")


def test_indicators_beside_the_flips_are_placed_when_a_seat_stops(tmp_path: Path):
    """ganzhou's 下精 is under the 上精 and its 左/右精 beside the 下精: with a flipped 上精 they
    are placed beside the stopped tile (none under a stack's bottom tile)."""
    f = tmp_path / "gz.rules"
    f.write_text("extends ganzhou\noverride indicator upper \"上精\" = flips from tail up to 22 at most 2 per sum "
                 "stop when n >= 3, wild, settle at end with kongs\n", encoding="utf-8")
    rs = compile_ruleset(str(f))
    placed = 0
    for seed in range(80):
        g = first_flip_game(rs, range(seed * 7, seed * 7 + 7)) if seed < 10 else None
        if g is None:
            break
        position = g.flips.position
        g.apply(f"{g.current} stop")
        if position % 2 == 0:  # the top tile of its stack: a 下精 under it, 左/右 beside that
            assert g.indicator_positions["lower"] == position + 1
            assert {"left", "right"} <= set(g.indicator_positions)
            placed += 1
        else:
            assert "lower" not in g.indicators
    assert placed


def test_nanchang_app_fa_dian_flips_before_play_and_the_stopper_pays_when_it_does_not_win():
    """nanchang-app 发电=是 (MJTable_NanChang sendFaDian / calFaDian, FAFENG): hands begin with
    flips; a greedy stopper that does not win pays 5 to each (−15 with four seats); 发电=否 has
    no flip and no penalty."""
    on = compile_ruleset("nanchang-app", {"发电": "是"})
    flipped = paid = 0
    for seed in range(30):
        g = Game(on, seed)
        flipped += any(e["event"] == "flip" for e in g.events)
        r = play_hand(g, {s: BOTS["greedy"](seed) for s in g.seats})
        for _, part, lg in r.parts:
            if part == "stop_penalty":
                paid += 1
                assert lg.net(g.seats)[g.flips.stopper] == -15 and r.winner != g.flips.stopper
    assert flipped == 30 and paid
    off = compile_ruleset("nanchang-app")
    g = Game(off, 1)
    assert g.flips is None and not any(e["event"] == "flip" for e in g.events)


def test_play_shows_the_flips_and_the_indicators_made_of_the_hands():
    """`mjrules play --auto` (engine/tools/play.py) reads a flip as a turned tile and names an
    indicator made of the hands by its label and tile, for 发电 and 照镜子 under nanchang-app."""
    from typer.testing import CliRunner

    from engine.cli import app

    runner = CliRunner()
    r = runner.invoke(app, ["play", "nanchang-app", "-o", "发电=是", "--auto", "--seed", "3"])
    assert r.exit_code == 0 and "upper@1 turned: " in r.output, r.output[-2000:]
    r = runner.invoke(app, ["play", "nanchang-app", "-o", "照镜子=是", "--auto", "--seed", "0"])
    assert r.exit_code == 0 and "照镜子@" in r.output, r.output[-2000:]  # seed 0: a dealt tile reaches n = 5
