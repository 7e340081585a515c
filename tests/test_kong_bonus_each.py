"""A kong bonus ``of each indicator`` (docs/language.md, Kong bonus): booked in the settlement of
the indicator whose 精 the kong is; with ``instead of kong points`` the kong's points are not
paid in the settlement with kongs either. Worked on ganzhou's tables: 上精 9s (正 9s, 副 1s),
下精 2m (正 2m, 副 3m); a concealed kong of 3m (the 下精's 副精) held by S alone, 4 seats."""
from __future__ import annotations

from engine.tools.scenario import run_file

RULES = '''ruleset 杠精分账 "kong bonus booked per indicator"
extends ganzhou
set 翻精 = 埋地雷
override jing 杠精 = 14 each per jing kong of each indicator{extra}
'''
CASE = '''ruleset: rules.rules
cases:
  - name: a 下精 kong
    jing: 9s
    lower: 2m
    hands:
      S: {{concealed: "", melds: [kong 3333m concealed]}}
    expect:
      upper: {upper}
      lower: {lower}
'''


def _run(tmp_path, extra: str, upper: str, lower: str) -> list[str]:
    (tmp_path / "rules.rules").write_text(RULES.format(extra=extra), encoding="utf-8")
    (tmp_path / "case.yaml").write_text(CASE.format(upper=upper, lower=lower), encoding="utf-8")
    return [d for r in run_file(tmp_path / "case.yaml") for d in r.differences]


def test_the_bonus_is_booked_in_the_kongs_own_settlement_and_the_points_stay_with_kongs(tmp_path):
    # 上精 (with kongs): no 精 of 9s/1s held; the kong's points 2 from each (ganzhou: 2 for a 暗杠).
    # 下精: S n = 4 副精 = 4, the only holder but kongs make no holder here (no `count kongs`):
    # no 霸王; the bonus 14 from each: 18 from each
    assert _run(tmp_path, "", "{E: -2, S: 6, W: -2, N: -2}", "{E: -18, S: 54, W: -18, N: -18}") == []


def test_instead_of_kong_points_drops_the_points_of_another_indicators_kong(tmp_path):
    # the same, the bonus replacing the kong's points: nothing in the 上精 settlement
    assert _run(tmp_path, " instead of kong points", "{E: 0, S: 0, W: 0, N: 0}",
                "{E: -18, S: 54, W: -18, N: -18}") == []
