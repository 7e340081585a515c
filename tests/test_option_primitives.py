"""The general primitives the production room options needed (docs/language.md): `paid by
discarder`, a cap factor `at most N`, the 精 bonus `+N when`, `count discarded`, the fan effect
`no win`, the facts wilds_held / discarded_main / discarded_next, and the flow parameters
floor(falls: …) and dead_wall(per_kong: …). The numbers are checked by docs/house-rules/*.yaml;
here: their errors, bounds, and the parts no scenario shows."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.core.snapshot import build_snapshot
from engine.errors import RuleError
from engine.table.game import Game
from engine.table.match import next_deal


def compile_text(tmp_path: Path, text: str):
    f = tmp_path / "x.rules"
    f.write_text("extends nanchang\n" + text, encoding="utf-8")
    return compile_ruleset(str(f))


def bad(tmp_path: Path, text: str) -> RuleError:
    with pytest.raises(RuleError) as e:
        compile_text(tmp_path, text)
    return e.value


def test_paid_by_names_only_the_discarder_or_the_robbed_seat(tmp_path):
    err = bad(tmp_path, "override payment 点炮 = discarder x2, others x1 paid by dealer when discard\n")
    assert "only `paid by discarder` and `paid by robbed`" in err.message
    assert (err.location.line, err.location.column) == (2, 55)  # at `dealer`
    assert err.hint == "write `paid by discarder` or `paid by robbed`"


def test_no_win_stands_alone(tmp_path):
    err = bad(tmp_path, "fan 无平胡 = no win, x2 when pattern 平胡\n")
    assert err.message == "fan 无平胡: `no win` refuses the win, so it takes no other effect"
    assert (err.location.line, err.location.column) == (2, 1)


@pytest.mark.parametrize("text, what", [
    ("factor 封顶 = at most 100001 on win\n", "cap"),
    ("override jing 霸王 = +100001 when sole_holder\n", "amount"),
])
def test_new_amounts_are_bounded(tmp_path, text, what):
    err = bad(tmp_path, text)
    assert what in err.message and "100000" in err.message.replace(",", "").replace(" ", "")
    assert err.location.line == 2


def test_new_facts_belong_to_the_win(tmp_path):
    err = bad(tmp_path, "jing x = x2 when wilds_held > 0\n")
    assert "wilds_held" in err.message and err.location.line == 2


def test_flow_parameters_are_checked(tmp_path):
    err = bad(tmp_path, "flow 海底 = dead_wall(per_kong: many)\n")
    assert "takes a number" in err.message
    err = bad(tmp_path, "override flow 爬楼 = floor(climbs: dealer_win, falls: slow)\n")
    assert "reset / step" in err.message


def _win(scorer: Scorer, floor: int = 1):
    return build_snapshot(scorer, hands={"E": "123m456m789p23p5s9s"}, jing="9s", dealer="E", floor=floor,
                          win={"seat": "E", "tile": "4p", "by": "self_draw"})


def test_the_smallest_cap_that_holds_wins_and_its_condition_is_per_payer(tmp_path):
    rs = compile_text(tmp_path, "factor a = at most 300 on win\n"
                                "factor b = at most 100 on win when not payer_is_dealer and floor > 10\n")
    s = Scorer(rs)
    # the dealer self-draws on floor 100: 1 × 2 × 2 × 100 = 400 from each → 100 (b holds for all)
    led = s.score_win(_win(s, 100)).ledger
    assert led.net(rs_seats := ["E", "S", "W", "N"]) == {"E": 300, "S": -100, "W": -100, "N": -100}
    assert "factor.b at most 100" in led.transfers[0].factors
    # floor 10: 40 each, under both caps
    assert s.score_win(_win(s, 10)).ledger.net(rs_seats)["E"] == 120


def test_a_cap_on_jing_caps_each_transfer(tmp_path):
    s = Scorer(compile_text(tmp_path, "factor a = at most 3 on jing\n"))
    snap = build_snapshot(s, hands={"E": "9s"}, jing="9s")
    # E the sole holder: 2 × 2 = 4 from each → 3
    assert s.settle_indicator(snap, "upper").net(["E", "S", "W", "N"]) == {"E": 9, "S": -3, "W": -3, "N": -3}


def test_a_discarded_jing_makes_a_holder_without_count_kongs(tmp_path):
    """docs/language.md `count discarded`: a discarded 精 counts in the seat's n *and makes it a
    holder*. Every file that counts discards also has `count kongs` (then the holders are read
    from every tile counted), so only a file without it shows the holder part alone."""
    s = Scorer(compile_text(tmp_path, "jing 打出 = count discarded\n"))
    snap = build_snapshot(s, hands={"E": "3p", "S": {"discards": "4p"}}, jing="3p")
    # nanchang: 正精 3p 2, 副精 4p 1. E n 2, S n 1 (its discard); two holders, no 霸王:
    # E +6 − 1 = 5, S +3 − 2 = 1, W and N −3. (S counted but no holder: E 霸王 ×2, 4 from each:
    # E +12 − 1 = 11, S +3 − 4 = −1, W and N −5.)
    assert s.settle_indicator(snap, "upper").net(["E", "S", "W", "N"]) == {"E": 5, "S": 1, "W": -3, "N": -3}


def test_a_floor_steps_down_to_one_at_least(tmp_path):
    rs = compile_text(tmp_path, "override flow 爬楼 = floor(climbs: dealer_win, falls: step)\n")
    g = Game(rs, 1)
    g.result = type("R", (), {"winner": "S", "follow_first": False})()
    assert next_deal(rs, g.seats, g.result, "E", 5) == ("S", 4)
    assert next_deal(rs, g.seats, g.result, "E", 1) == ("S", 1)
    base = compile_ruleset("nanchang")
    assert next_deal(base, g.seats, g.result, "E", 5) == ("S", 1)


def test_the_game_keeps_discards_for_the_scorer(tmp_path):
    """A played hand's snapshot carries each seat's unclaimed discards (not the tile won on)."""
    rs = compile_text(tmp_path, "jing 打出 = count discarded\n")
    g = Game(rs, 3)
    for _ in range(12):
        seat = g.current
        if g.phase == "draw":
            g.apply(f"{seat} draw")
        tile = g.hands[seat].concealed[-1]
        g.apply(f"{seat} discard {g.tiles.code(tile)}")
        while g.phase == "claim":
            for x in g.to_act():
                g.apply(f"{x} pass")
    snap = g.score_snapshot()
    assert sum(len(v) for v in snap.discards.values()) == sum(len(v) for v in g.discards.values()) > 0


def test_scenario_discards_count_as_copies(tmp_path):
    """A hand's `discards` are tiles of the set: a fifth copy is refused, with its place."""
    f = tmp_path / "five.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: x\n    jing: 9s\n    hands:\n"
                 "      E: {concealed: 1m1m, discards: 1m1m1m}\n    expect: {upper: {E: 0}}\n", encoding="utf-8")
    from engine.tools.scenario import run_file
    [r] = run_file(f, keep_going=True)
    assert r.error is not None and "1m is used 5 times" in r.error.message
