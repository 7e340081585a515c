"""Every scenario case in tests/cases/ (and the shared examples, when present) passes.

The cases are the worked numbers of RULES.md §2 and seed 003's table; each is its own test.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from engine.tools.scenario import run_file

from .conftest import CASES, SHARED_EXAMPLES, assert_case_passed, scenario_params

FILES = sorted(CASES.glob("*.yaml")) + ([SHARED_EXAMPLES] if SHARED_EXAMPLES.exists() else [])


@pytest.mark.parametrize("result", scenario_params(FILES))
def test_case(result):
    assert_case_passed(result)


def test_every_case_file_has_cases():
    assert FILES, "no scenario files found"
    for f in FILES:
        assert run_file(f), f"{f} has no cases"


def test_a_wrong_expectation_fails(tmp_path: Path):
    """The runner can fail: the same case with a wrong number is reported with its difference."""
    f = tmp_path / "wrong.yaml"
    f.write_text(
        "ruleset: nanchang\n"
        "cases:\n"
        "  - name: wrong number\n"
        "    jing: 3p\n"
        "    hands: {S: 456m789m123s东西7p3p}\n"
        "    win: {seat: S, tile: 南, by: discard, from: W}\n"
        "    expect:\n"
        "      hand: {E: -2, S: 6, W: -2, N: -1}\n"
        "      fans: [德国]\n",
        encoding="utf-8",
    )
    [r] = run_file(f)
    assert not r.passed
    assert "hand.S: expected 6, got 5" in r.differences
    assert any(d.startswith("fans: expected 德国 to fire") for d in r.differences)
