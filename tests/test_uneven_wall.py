"""A wall that seats do not share equally: `table stacks_per_seat = 23 23 22` (three seats on
136 tiles, docs/language.md `table`). The compiler's hint, the break position along an uneven
ring, and hands that play to the end."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import compile_ruleset
from engine.errors import RuleError
from engine.lang.playable import seat_stacks
from engine.table.wall import break_position
from engine.tools.simulate import simulate

THREE = "extends nanchang\noverride table seats = E S W\n"


def rules(tmp_path: Path, text: str) -> str:
    f = tmp_path / "three.rules"
    f.write_text(text, encoding="utf-8")
    return str(f)


def test_three_seats_on_136_tiles_are_refused_with_the_split_to_write(tmp_path):
    with pytest.raises(RuleError) as e:
        compile_ruleset(rules(tmp_path, THREE))
    assert "3 seats × 17 stacks × 2 tiles = 102 tiles, but the suits and honours make 136" in e.value.message
    assert e.value.hint == "write `table stacks_per_seat = 23 23 22` (one per seat)"  # 68 stacks: 23 + 23 + 22


@pytest.mark.parametrize("split, message", [
    ("24 22 23", "24 + 22 + 23 stacks × 2 tiles = 138 tiles, but the suits and honours make 136"),
    ("23 23", "table stacks_per_seat must be one whole number"),
])
def test_a_wrong_split_is_an_error_at_the_table_line(tmp_path, split, message):
    with pytest.raises(RuleError) as e:
        compile_ruleset(rules(tmp_path, THREE + f"override table stacks_per_seat = {split}\n"))
    assert message in e.value.message and e.value.location.line == 3


def test_the_dice_count_along_the_rollers_own_wall():
    walls = [23, 23, 22]
    # the dealer E (index 0) throws 2: the roller is S (index 1), whose wall starts at stack 23;
    # its throw of 12 counts 12 stacks along it: ring stack 23 + 11 = 34
    assert break_position("two_rolls", [(1, 1), (6, 6)], 0, walls) == (34, 2)
    # a throw of 3 counts E, S, W: W's wall (22 stacks) starts at 46, and 12 counts to 46 + 11
    assert break_position("two_rolls", [(1, 2), (6, 6)], 0, walls) == (57, 2)
    # a throw of 4 comes back to E (its wall starts at 0); from the dealer S a throw of 3 does too
    assert break_position("two_rolls", [(1, 3), (6, 6)], 0, walls) == (11, 2)
    assert break_position("two_rolls", [(1, 2), (6, 6)], 1, walls) == (11, 2)


def test_three_seats_play_every_hand_to_the_end(tmp_path):
    ref = rules(tmp_path, THREE + "override table stacks_per_seat = 23 23 22\n")
    assert seat_stacks(compile_ruleset(ref)) == [23, 23, 22]
    s = simulate(ref, {}, 60, 3, ["greedy"]).to_json()
    assert s["hands"] == 60 and set(s["seats"]) == {"E", "S", "W"}
    assert sum(v["wins"] for v in s["seats"].values()) + round(s["exhaustive_rate"] * 60) == 60
