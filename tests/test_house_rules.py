"""House rules without code: a rule file that `extends nanchang` changes numbers and shapes.

What it must show: 杠精 set to 14 and wind chows removed, both taking effect; a new
pattern 清一色 (one suit only) ×2 defined only in a rule file.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.core.snapshot import build_snapshot
from engine.errors import IllegalAction

HOUSE = """\
ruleset myhouse "a house rule"
extends nanchang
override jing 杠精 = 14 each per jing kong instead of kong points   # 杠精 pays 14
remove meld 风顺                                                    # no wind chows
pattern 清一色 = sets 4 + pair, one of suits
fan 清一色 = x2 when pattern 清一色
"""


@pytest.fixture
def house(tmp_path: Path) -> Scorer:
    f = tmp_path / "myhouse.rules"
    f.write_text(HOUSE, encoding="utf-8")
    return Scorer(compile_ruleset(str(f)))


@pytest.fixture
def base() -> Scorer:
    return Scorer(compile_ruleset("nanchang"))


def _gangjing_upper(scorer: Scorer) -> dict:
    # E holds a kong of four 副精 (4p with indicator 3p); S and W hold a 正精 each, so no 霸王
    # (E's kong does not make E a holder, RULES.md §2).
    snap = build_snapshot(scorer, jing="3p", hands={"E": {"concealed": "", "melds": ["kong 4444p concealed"]},
                                                    "S": "3p", "W": "3p"})
    return scorer.settle_indicator(snap, "upper").net(snap.seats)


def test_gangjing_14_takes_effect(house, base):
    # nanchang: E n=4 → 4, + 杠精 10 → 14 from each; S and W collect 2 from each
    assert _gangjing_upper(base) == {"E": 3 * 14 - 2 - 2, "S": 3 * 2 - 14 - 2, "W": 3 * 2 - 14 - 2, "N": -14 - 2 - 2}
    # the house rule: 杠精 14 → 18 from each
    assert _gangjing_upper(house) == {"E": 3 * 18 - 2 - 2, "S": 3 * 2 - 18 - 2, "W": 3 * 2 - 18 - 2, "N": -18 - 2 - 2}


WIND_CHOW_WIN = {"hands": {"S": "123m456m789s东西55p"}, "win": {"seat": "S", "tile": "南", "by": "self_draw"}, "jing": "1s"}


def test_wind_chows_removed(house, base):
    # 东西南 is a chow under nanchang …
    snap = build_snapshot(base, **WIND_CHOW_WIN)
    assert base.score_win(snap).reading.pattern == "平胡"
    # … and not under the house rule: the same hand is no win
    snap = build_snapshot(house, **WIND_CHOW_WIN)
    with pytest.raises(IllegalAction, match="no winning hand"):
        house.score_win(snap)


def test_wind_chow_meld_refused(house):
    snap = build_snapshot(house, jing="1s", hands={"S": {"concealed": "123m456m789s5p", "melds": ["chow 东西南 from E"]}},
                          win={"seat": "S", "tile": "5p", "by": "self_draw"})
    with pytest.raises(IllegalAction, match="not a meld"):
        house.score_win(snap)


def test_qingyise_fires_on_one_suit(house):
    # one suit (万) only, self-drawn by a 闲, and no one holds 精 (德中德 x4, +5 each):
    # 闲 payers 1 x2 self x2 清一色 x4 = 16 +5; the dealer pays double before the adder: 32 +5
    snap = build_snapshot(house, jing="1s", hands={"S": "123m345m567m789m9m"},
                          win={"seat": "S", "tile": "9m", "by": "self_draw"})
    ws = house.score_win(snap)
    assert "清一色" in ws.fans
    assert ws.reading.pattern == "清一色"
    assert ws.ledger.net(snap.seats)["S"] == 2 * (16 + 5) + (32 + 5)


def test_qingyise_not_on_mixed_hand(house):
    snap = build_snapshot(house, jing="1s", hands={"S": "123m345m567m789p9m"},
                          win={"seat": "S", "tile": "9m", "by": "self_draw"})
    ws = house.score_win(snap)
    assert "清一色" not in ws.fans
    assert ws.reading.pattern == "平胡"


def test_qingyise_with_wild_and_exposed_pung(house):
    # a 精 (1s, wild) may stand for a 万 tile; an exposed 万 pung keeps it one suit
    snap = build_snapshot(house, jing="1s", hands={"S": {"concealed": "123m345m567m1s", "melds": ["pung 999m from E"]}},
                          win={"seat": "S", "tile": "5m", "by": "discard", "from": "E"})
    ws = house.score_win(snap)
    assert "清一色" in ws.fans


def test_options_choose_rules(tmp_path: Path):
    f = tmp_path / "opt.rules"
    f.write_text('extends nanchang\noption 大七对倍数 "大七对 multiplier" = 2 {\n  2: {}\n'
                 '  4: { override fan 大七对 = x4 when pattern 大七对 }\n}\n', encoding="utf-8")
    assert compile_ruleset(str(f)).fans["大七对"].multiplier == 2
    rs = compile_ruleset(str(f), {"大七对倍数": "4"})
    assert rs.fans["大七对"].multiplier == 4
    assert rs.options["大七对倍数"].chosen == "4"


MIXED = """\
extends nanchang
pattern 混一色 = sets 4 + pair, one of suits plus honours
pattern 字一色 = sets 4 + pair, only honours
fan 混一色 = x2 when pattern 混一色
fan 字一色 = x4 when pattern 字一色
"""


@pytest.mark.parametrize("hand, fan", [
    ("123m345m567m东南西中", "混一色"),        # one suit and honours
    ("东南西北北北发白南南南西西", "字一色"),  # honours only: winds and dragons
    ("123m345m567p东南西中", None),            # two suits: neither
])
def test_mixed_group_patterns(tmp_path, hand, fan):
    f = tmp_path / "mixed.rules"
    f.write_text(MIXED, encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    snap = build_snapshot(scorer, jing="1s", hands={"S": hand}, win={"seat": "S", "tile": "中", "by": "self_draw"})
    fans = scorer.score_win(snap).fans
    assert {"混一色", "字一色"} & set(fans) == ({fan} if fan else set())


def test_an_inherited_option_applies_after_the_child():
    """An option is the user's explicit choice: chongguan pays kongs 2, but 明杠分=1 still gives 1."""
    assert compile_ruleset("chongguan").jing["kong"].exposed == 2
    assert compile_ruleset("chongguan", {"明杠分": "1"}).jing["kong"].exposed == 1
    lower = compile_ruleset("chongguan", {"下精": "after_deal"}).indicators["lower"]
    assert (lower.settle, lower.hidden) == ("after_deal", False)
    assert compile_ruleset("chongguan").options["下精"].chosen == "declared"
