"""The general primitives a production room (nanchang-app) needed (docs/language.md): factors
`after caps`, the factor scopes `kongs` and `follow`, the facts `keeps` and `drawn`, `fixed N by
payment`, `jing NAME = count kongs`, a 杠精 bonus `of any indicator`, and
jing_wait_discard(first_turn: allow). Each on a plain `extends nanchang` file, so none leans on
the ruleset that first used it; tests/cases/nanchang_app*.yaml check the room's numbers."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.core.snapshot import build_snapshot
from engine.errors import IllegalAction, RuleError

SEATS = ["E", "S", "W", "N"]


def compile_text(tmp_path: Path, text: str):
    f = tmp_path / "x.rules"
    f.write_text("extends nanchang\n" + text, encoding="utf-8")
    return compile_ruleset(str(f))


def _dealer_self_draw(scorer: Scorer, floor: int = 1):
    # E self-draws a plain hand with a wild: 1 × 2 × dealer 2 = 4 from each (× floor)
    return build_snapshot(scorer, hands={"E": "123m456m789p23p5s9s"}, jing="9s", dealer="E", floor=floor,
                          win={"seat": "E", "tile": "4p", "by": "self_draw"})


def test_after_caps_multiplies_the_capped_amount(tmp_path):
    rs = compile_text(tmp_path, "remove factor 爬楼\n"
                                "factor 封顶 = at most 10 on win\n"
                                "factor 楼 = floor on win after caps\n")
    s = Scorer(rs)
    # floor 5: 4 → (no cap) → × 5 = 20 from each; an `after adders` factor would be capped at 10
    led = s.score_win(_dealer_self_draw(s, 5)).ledger
    assert led.net(SEATS) == {"E": 60, "S": -20, "W": -20, "N": -20}
    # floor 5 with the base doubled: 8 → 8 × 5 = 40; with after adders it would be min(40, 10)
    rs2 = compile_text(tmp_path, "remove factor 爬楼\nfactor 封顶 = at most 10 on win\n"
                                 "factor 楼 = floor on win after adders\n")
    s2 = Scorer(rs2)
    assert s2.score_win(_dealer_self_draw(s2, 5)).ledger.net(SEATS)["S"] == -10


def test_after_caps_on_jing(tmp_path):
    s = Scorer(compile_text(tmp_path, "remove factor 爬楼\nfactor 封顶 = at most 3 on jing\n"
                                      "factor 楼 = 2 on jing after caps\n"))
    snap = build_snapshot(s, hands={"E": "9s"}, jing="9s")
    # E the sole holder: 2 × 2 = 4 → 3 → × 2 = 6 from each
    assert s.settle_indicator(snap, "upper").net(SEATS) == {"E": 18, "S": -6, "W": -6, "N": -6}


def test_keeps_is_floor_minus_one_and_a_condition_writes_max(tmp_path):
    rs = compile_text(tmp_path, "override factor 爬楼 = keeps on win when keeps >= 2\n")
    s = Scorer(rs)
    # × max(1, keeps): floor 1 and 2 → × 1; floor 4 → keeps 3 → × 3
    assert s.score_win(_dealer_self_draw(s, 1)).ledger.net(SEATS)["S"] == -4
    assert s.score_win(_dealer_self_draw(s, 2)).ledger.net(SEATS)["S"] == -4
    assert s.score_win(_dealer_self_draw(s, 4)).ledger.net(SEATS)["S"] == -12


def test_a_kongs_factor_touches_only_kongs_and_drawn_is_a_drawn_hand(tmp_path):
    s = Scorer(compile_text(tmp_path, "factor 荒杠 = 0 on kongs when drawn\n"))
    hands = {"E": {"concealed": "", "melds": ["kong 5555m concealed"]}, "S": "9s"}
    drawn = build_snapshot(s, hands=hands, jing="9s")
    # no kong points (E's 暗杠 2 from each) on a drawn hand; S's 精 (霸王: 4 from each) still paid
    led = s.settle_indicator(drawn, "upper")
    assert led.net(SEATS) == {"E": -4, "S": 12, "W": -4, "N": -4}
    assert all(t.amount for t in led.transfers)  # a transfer that comes to 0 is not made
    won = build_snapshot(s, hands={**hands, "N": "678m345p789p567s1p"}, jing="9s",
                         win={"seat": "N", "tile": "1p", "by": "self_draw"})
    assert s.settle_indicator(won, "upper").net(SEATS)["E"] == 6 - 4


def test_drawn_belongs_to_settlements_only(tmp_path):
    with pytest.raises(RuleError) as e:
        compile_text(tmp_path, "fan x = x2 when drawn\n")
    assert "drawn" in e.value.message and e.value.location.line == 2


def test_a_follow_factor_multiplies_the_follow_payment(tmp_path):
    s = Scorer(compile_text(tmp_path, "factor 楼 = floor on follow when floor >= 2\n"))
    first = [(seat, 30) for seat in SEATS]  # all four discard one tile kind
    assert s.flow.follow_first(first, SEATS, "E").net(SEATS) == {"E": -15, "S": 5, "W": 5, "N": 5}
    assert s.flow.follow_first(first, SEATS, "E", 3).net(SEATS) == {"E": -45, "S": 15, "W": 15, "N": 15}


def test_fixed_by_payment_is_paid_only_by_the_seats_the_payment_covers(tmp_path):
    text = ("override payment 点炮 = discarder x2 when discard\n"
            "override fan 地胡 = fixed 20 {} when first_turn and discard and discarder_is_dealer instead of all\n")
    snap_args = {"hands": {"S": "123m456m789p234s5p"}, "jing": "9s",
                     "win": {"seat": "S", "tile": "5p", "by": "discard", "from": "E", "first_turn": True}}
    s = Scorer(compile_text(tmp_path, text.format("by payment")))
    assert s.score_win(build_snapshot(s, **snap_args)).ledger.net(SEATS) == {"E": -20, "S": 20, "W": 0, "N": 0}
    s = Scorer(compile_text(tmp_path, text.format("each")))
    assert s.score_win(build_snapshot(s, **snap_args)).ledger.net(SEATS) == {"E": -20, "S": 60, "W": -20, "N": -20}


def test_count_kongs_makes_a_kong_a_holder(tmp_path):
    hands = {"S": "9s", "W": {"concealed": "", "melds": ["kong 1111s concealed"]}}  # W: a kong of 副精
    plain = Scorer(compile_text(tmp_path, ""))
    # without the rule S is 霸王 (2 × 2 = 4 from each); W's n 4 + 杠精 10 from each
    snap = build_snapshot(plain, hands=hands, jing="9s")
    assert plain.settle_indicator(snap, "upper").net(SEATS)["S"] == 4 * 3 - 10 - 4
    held = Scorer(compile_text(tmp_path, "jing 霸王计杠 = count kongs\n"))
    led = held.settle_indicator(build_snapshot(held, hands=hands, jing="9s"), "upper")
    assert led.net(SEATS)["S"] == 2 * 3 - 10 - 4  # no 霸王 for S: W holds 精 in a kong
    assert "霸王计杠" in led.fired


def test_a_kong_bonus_of_any_indicator(tmp_path):
    hands = {"S": {"concealed": "", "melds": ["kong 3333m concealed"]}}  # the 下精 2m's 副
    text = "override jing 杠精 = 10 each per jing kong{} instead of kong points\n"
    own = Scorer(compile_text(tmp_path, text.format("")))
    snap = build_snapshot(own, hands=hands, jing="9s", lower="2m")
    assert own.settle_indicator(snap, "upper").net(SEATS)["S"] == 6  # not the 上精's: 暗杠 points 2 each
    any_ = Scorer(compile_text(tmp_path, text.format(" of any indicator")))
    snap = build_snapshot(any_, hands=hands, jing="9s", lower="2m")
    assert any_.settle_indicator(snap, "upper").net(SEATS)["S"] == 30


def test_jing_wait_discard_may_let_a_first_turn_discard_through(tmp_path):
    args = {"hands": {"S": "123m456m789p234s9s"}, "jing": "9s"}
    for first_turn, allowed in (("forbid", False), ("allow", True)):
        s = Scorer(compile_text(tmp_path, "override flow 精钓点炮 = jing_wait_discard(win: forbid, first_turn: "
                                          f"{first_turn})\n"))
        diehu = build_snapshot(s, **args, win={"seat": "S", "tile": "5p", "by": "discard", "from": "E",
                                                "first_turn": True})
        if allowed:
            assert s.score_win(diehu).ledger.net(SEATS)["S"] == 120  # 地胡 20 × 精钓 2 from each — a 精钓 hand
        else:
            with pytest.raises(IllegalAction):
                s.score_win(diehu)
        later = build_snapshot(s, **args, win={"seat": "S", "tile": "5p", "by": "discard", "from": "W"})
        with pytest.raises(IllegalAction):  # any other discard is still refused
            s.score_win(later)


def test_next_draw_is_turned_when_the_hand_ends(tmp_path):
    from engine.table.game import Game
    rs = compile_text(tmp_path, "override table dead_wall = 17\n"
                                'indicator 下 "下" = next draw 1, settle at end\n'
                                'indicator 左 "左" = next draw 2, settle at end\n')
    g = Game(rs, 5)
    assert "下" not in g.indicators  # not turned at the deal
    while not g.over:
        seat = g.current
        if g.phase == "draw":
            g.apply(f"{seat} draw")
        g.apply(f"{seat} discard {g.tiles.code(g.hands[seat].concealed[-1])}")
        while g.phase == "claim":
            for x in g.to_act():
                g.apply(f"{x} pass")
    assert g.result is not None and g.result.winner is None  # a 荒庄 at 34 left
    first, second = g.indicator_positions["下"], g.indicator_positions["左"]
    others = {p for n, p in g.indicator_positions.items() if n not in ("下", "左")}
    untaken = [p for p in range(len(g.wall.tiles)) if p not in g.wall.taken and p not in others]
    assert [first, second] == untaken[:2]  # the next two head draws, the 上精 passed over
    assert g.indicators["下"] == g.wall.tiles[first]
    assert any(name == "下" for _, name, _ in g.parts)


def test_next_draw_is_never_wild_nor_after_the_deal(tmp_path):
    for attrs in ("wild, settle at end", "settle after deal"):
        with pytest.raises(RuleError) as e:
            compile_text(tmp_path, f'indicator 下 "下" = next draw 1, {attrs}\n')
        assert "turned only when the hand ends" in e.value.message and e.value.location.line == 2
