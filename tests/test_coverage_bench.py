"""benchmarks/coverage.py ``--options`` on one app ruleset, a few hands: every option value
gives a measurement, not an error — a seat-count choice included (played unpaired, or paired
with the default at that seat count). No timing here; the figures are the benchmark's."""
from __future__ import annotations

import importlib.util
import sys

import pytest

from .conftest import ROOT


def _load_coverage():
    spec = importlib.util.spec_from_file_location("mjrules_coverage", ROOT / "benchmarks" / "coverage.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


coverage = _load_coverage()
HANDS = 10


@pytest.fixture(scope="module")
def rows():
    return list(coverage.option_coverage("ganzhou-app", HANDS, 1, "greedy", 1))


def test_no_option_row_is_an_error(rows):
    assert rows and not [r for r in rows if "error" in r]
    assert all(coverage.option_line(r) for r in rows)  # each prints


def test_a_seat_count_choice_plays_its_own_hands(rows):
    seat_rows = [r for r in rows if r["options"] in ({"人数": "3"}, {"人数": "2"})]
    assert len(seat_rows) == 2
    for r in seat_rows:
        assert r["unpaired"] and r["hands"] == HANDS
        assert {"table.seats", "table.stacks_per_seat"} <= set(r["applies_every_hand"])


def test_all_choices_together_are_paired_at_their_seat_count(rows):
    together = rows[-1]
    assert len(together["options"]) > 2 and together["options"]["人数"] == "3"
    assert together["paired_with"] == {"人数": "3"} and not together["unpaired"]
    assert "table.seats" in together["applies_every_hand"] and together["fired"]


def test_a_removed_no_win_fan_fired_in_the_hands_it_refuses(rows):
    # 胡法=可平胡 drops the default's 精必钩: it fired in the choice's hands the default refuses
    row = next(r for r in rows if r["options"] == {"胡法": "可平胡"})
    assert row["fired"]["fan.精必钩"] > 0
