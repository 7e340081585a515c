"""A scenario's `win:` and table keys are reported at the key that is wrong, with what to write."""
from __future__ import annotations

import pytest

from engine.errors import ScenarioError
from engine.tools.scenario import run_file

CASE = """ruleset: chongguan
cases:
  - name: t
    jing: 9s
    hands:
      S: 123p456p789p东南西5s
    win: {WIN}
    expect:
      hand: {{E: -21}}
"""


@pytest.mark.parametrize("win,column,message,hint", [
    ("{seat: S, tile: 5s, by: discard, from: Q}", 49, "win.from 'Q' is not a seat", "seats: E S W N"),
    ("{seat: X, tile: 5s, by: discard, from: E}", 17, "win.seat 'X' is not a seat", "seats: E S W N"),
    ("{seat: S, tile: 5s, by: dicard, from: E}", 34, "win.by 'dicard' is not one of", "did you mean discard?"),
    ("{seat: S, tile: 5q, by: self_draw}", 26, "", None),
    ("{seat: S, tile: 5s, by: discard}", 5, "a discard win needs `from`", "seats: E S W N"),
])
def test_a_win_error_points_at_its_key(tmp_path, win, column, message, hint):
    f = tmp_path / "t.yaml"
    f.write_text(CASE.format(WIN=win), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    where = e.value.location
    assert (where.line, where.column) == (7, column), e.value.render()
    assert message in e.value.message
    if hint is not None:
        assert e.value.hint == hint


def test_a_bad_tile_in_a_hand_points_at_that_seat(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text(CASE.format(WIN="{seat: S, tile: 5s, by: self_draw}").replace("东南西5s", "东南西5x"), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    assert (e.value.location.line, e.value.location.column) == (6, 10), e.value.render()


def test_an_unknown_fan_name_is_an_error_with_the_nearest_name(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text(CASE.format(WIN="{seat: S, tile: 5s, by: discard, from: E}").replace(
        "hand: {E: -21}", "fans: [德国X]").replace("chongguan", "nanchang"), encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    assert "expect.fans names '德国X', which is no rule of ruleset nanchang" in e.value.message
    assert e.value.hint == "did you mean 德国?"


def test_a_fan_that_did_not_fire_is_one_difference_and_fired_is_listed_once(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text(CASE.format(WIN="{seat: S, tile: 5s, by: discard, from: E}").replace(
        "hand: {E: -21}", "fans: [小七对]").replace("chongguan", "nanchang"), encoding="utf-8")
    (r,) = run_file(f)
    assert not r.passed and r.differences == ["fans: expected 小七对 to fire"]
    assert "德中德" in r.fired


def test_stopped_names_a_seat_at_the_table_and_goes_with_a_snapshot_only(tmp_path):
    f = tmp_path / "t.yaml"
    f.write_text("ruleset: nanchang-app\noptions: {发电: 是}\ncases:\n  - name: t\n    jing: 9s\n    stopped: Q\n"
                 "    expect:\n      total: {E: 0}\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    assert "`stopped` names no seat 'Q'" in e.value.message and e.value.location.line == 6
    assert e.value.hint == "the seat that stopped the flips, one of: E S W N"
    f.write_text("ruleset: nanchang-app\ncases:\n  - name: t\n    stopped: W\n    game: {jing: 9s}\n"
                 "    expect:\n      phase: draw\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    assert "'stopped' does not go with `game`" in e.value.message
