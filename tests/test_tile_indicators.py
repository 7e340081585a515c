"""Indicators made of the hands' tiles: `indicator NAME = each tile where COND, settle …`
(docs/language.md `indicator`; the rooms' 照镜子 at the deal and 晒月亮 at the end). Worked
numbers: nanchang's 精 values (正 2, 副 1), 冲关 n·(n−3) from n = 5, 霸王 ×2 for the sole holder."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import compile_ruleset
from engine.errors import RuleError
from engine.tools.scenario import run_file

from .conftest import assert_case_passed

RULES = """extends nanchang
indicator 镜 "照镜子" = each tile where n >= 5, settle after deal
indicator 月 "晒月亮" = each tile where n >= 5, settle at end
"""

CASES = """ruleset: each-tile.rules
cases:
  - name: 晒月亮 — every tile some seat counts n >= 5 for is settled at the end
    # E: 3p3p + the self-drawn 3p = three 3p: as 正精 n = 6 → 冲关 18; only E holds 3p/4p: 霸王 x2 = 36
    # from each (+108). S: 5p5p5p + 6p: as 正精 5p n = 2·3 + 1 = 7 → 28, sole holder x2 = 56 from each.
    # As 正精 4p, S counts only 副 5p: n = 3 < 5, no 月@4p; as 正精 2p, E counts 副 3p: 3 < 5.
    jing: 9s
    lower: 1s
    hands: {E: 123m456m789s东东3p3p, S: 5p5p5p6p, W: 1s, N: 2s}
    win: {seat: E, tile: 3p, by: self_draw}
    expect:
      settlements:
        月@3p: {E: 108, S: -36, W: -36, N: -36}
        月@5p: {E: -56, S: 168, W: -56, N: -56}

  - name: 照镜子 on the same hands — a scenario settles it on the hands it gives (the winning tile too)
    # S's 5p n = 7 as above: 56 from each; E's three 3p n = 6 → 18 x2 = 36 from each (in play, the
    # dealt hands decide: test_played_hands_settle_them_at_the_deal_and_at_the_end)
    jing: 9s
    lower: 1s
    hands: {E: 123m456m789s东东3p3p, S: 5p5p5p6p, W: 1s, N: 2s}
    win: {seat: E, tile: 3p, by: self_draw}
    expect:
      settlements:
        镜@5p: {E: -56, S: 168, W: -56, N: -56}
        镜@3p: {E: 108, S: -36, W: -36, N: -36}

  - name: 晒月亮 changes nothing when no seat reaches n = 5
    # no seat holds 3 of a kind or 2 + its successor: the total is the hand and the 上精 only.
    # hand: E (dealer) self-draws 东 for the pair, 789s natural: 德国 1 x2 (自摸) x2 (德国) x2 (庄家) + 5 = 13
    # from each (+39). 上精 9s: E holds 9s (n = 2, +2 from each), W holds 1s (副, n = 1, +1 from each).
    # E 39 + 6 - 1 = 44; S -13 - 2 - 1 = -16; W -13 - 2 + 3 = -12; N -16
    jing: 9s
    lower: 1s
    hands: {E: 123m456m789s3p4p5p东, S: 5p6p, W: 1s, N: 2s}
    win: {seat: E, tile: 东, by: self_draw}
    expect:
      total: {E: 44, S: -16, W: -12, N: -16}
"""


def run_cases(tmp_path: Path, rules_file: str, rules: str, cases: str, count: int) -> None:
    """Write the rule file and the scenario file beside it; every one of ``count`` cases passes."""
    (tmp_path / rules_file).write_text(rules, encoding="utf-8")
    f = tmp_path / "cases.yaml"
    f.write_text(cases, encoding="utf-8")
    results = run_file(f)
    assert len(results) == count
    for r in results:
        assert_case_passed(r)


def test_each_tile_indicators_settle_the_tiles_that_reach_the_condition(tmp_path: Path):
    run_cases(tmp_path, "each-tile.rules", RULES, CASES, 3)


@pytest.mark.parametrize("line, message", [
    ('indicator 镜 = each tile where n >= 5, wild, settle at end', "never wild"),
    ('indicator 镜 = each tile where n >= 5', "must say when they are settled"),
    ('indicator 镜 = each tile where self_drawn, settle at end', "self_drawn"),
    ('indicator 镜 = each tile where n >= 5, settle at end\nindicator 左 = left of 镜, settle at end',
     "whose tile is not on the wall at the deal"),
])
def test_bad_each_tile_indicators_are_errors(tmp_path: Path, line: str, message: str):
    f = tmp_path / "x.rules"
    f.write_text("extends nanchang\n" + line + "\n", encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert message in e.value.message + (e.value.hint or "")


def test_played_hands_settle_them_at_the_deal_and_at_the_end(tmp_path: Path):
    from engine.core.ledger import indicator_of
    from engine.table.bots import BOTS
    from engine.table.game import Game
    from engine.table.match import play_hand

    f = tmp_path / "each-tile.rules"
    f.write_text(RULES, encoding="utf-8")
    rs = compile_ruleset(str(f))
    made: dict[str, set[str]] = {"after_deal": set(), "end": set()}
    for seed in range(40):
        g = Game(rs, seed)
        bots = {s: BOTS["greedy"](seed) for s in g.seats}
        r = play_hand(g, bots)
        for when, part, lg in r.parts:
            if "@" in part:
                made["after_deal" if when == "after_deal" else "end"].add(indicator_of(part))
                assert sum(lg.net(g.seats).values()) == 0
                assert lg.transfers  # a tile that reached n >= 5 pays
    assert made == {"after_deal": {"镜"}, "end": {"月"}}


SONG = """extends nanchang
indicator 歌 "同一首歌" = left of upper, family, settle at end with kongs
"""

SONG_CASES = """ruleset: song.rules
cases:
  - name: a family indicator on 3m settles 3m, 3p and 3s, each with its own 副 (4m, 4p, 4s)
    # 歌@3m: E holds 3m + 4m (副): n = 2 + 1 = 3, the only holder: 霸王 x2 = 6 from each (+18)
    # 歌@3p: E holds three 3p (the self-drawn one too): n = 6 → 冲关 18, sole holder x2 = 36 from each (+108)
    # 歌@3s: nobody holds 3s or 4s: nothing
    jing: 9s
    indicators: {歌: 3m}
    hands: {E: 123m456m789s东东3p3p, S: 5p5p5p6p, W: 1s, N: 2s}
    win: {seat: E, tile: 3p, by: self_draw}
    expect:
      settlements:
        歌@3m: {E: 18, S: -6, W: -6, N: -6}
        歌@3p: {E: 108, S: -36, W: -36, N: -36}
        歌@3s: {E: 0, S: 0, W: 0, N: 0}

  - name: on a wind it settles all four winds (东 held by E as 正 of 歌@东 and 副 of 歌@北)
    # 歌@东: E's 东东 n = 4, sole holder x2 = 8 from each (+24); 歌@北: 副 东 twice = 2, x2 = 4 each (+12);
    # 歌@南, 歌@西: E holds no 南/西/北 as 正; 西 is 南's 副, 北 西's: none held
    jing: 9s
    indicators: {歌: 南}
    hands: {E: 123m456m789s东东3p3p, S: 5p5p5p6p, W: 1s, N: 2s}
    win: {seat: E, tile: 3p, by: self_draw}
    expect:
      settlements:
        歌@东: {E: 24, S: -8, W: -8, N: -8}
        歌@北: {E: 12, S: -4, W: -4, N: -4}
        歌@南: {E: 0}
        歌@西: {E: 0}
"""


def test_a_family_indicator_settles_each_tile_of_its_family(tmp_path: Path):
    run_cases(tmp_path, "song.rules", SONG, SONG_CASES, 2)


def test_a_family_is_a_rank_in_every_suit_or_a_whole_honours_group():
    from engine.core.tiles import TileSet

    ts = TileSet(compile_ruleset("nanchang"))
    assert [ts.code(k) for k in ts.family(ts.parse_one("7p"))] == ["7m", "7p", "7s"]
    assert [ts.code(k) for k in ts.family(ts.parse_one("西"))] == ["东", "南", "西", "北"]
    assert [ts.code(k) for k in ts.family(ts.parse_one("发"))] == ["中", "发", "白"]


@pytest.mark.parametrize("line", [
    'indicator 歌 = left of upper, family, wild, settle at end',
    'indicator 歌 = left of upper, family',
    'indicator 歌 = each tile where n >= 5, family, settle at end',
])
def test_a_family_indicator_is_never_wild_and_says_when_it_settles(tmp_path: Path, line: str):
    f = tmp_path / "x.rules"
    f.write_text("extends nanchang\n" + line + "\n", encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert "family" in e.value.message
