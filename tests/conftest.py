"""Shared fixtures: paths of the repository, the shared cases and the bundled rulesets."""
from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
SHARED_EXAMPLES = ROOT.parent / "shared" / "cases" / "examples.yaml"


@pytest.fixture
def nanchang():
    from engine import Scorer, compile_ruleset

    return Scorer(compile_ruleset("nanchang"))
