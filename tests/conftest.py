"""Shared fixtures: paths of the repository, the shared cases and the bundled rulesets."""
from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "tests" / "cases"
SHARED_EXAMPLES = ROOT.parent / "shared" / "cases" / "examples.yaml"


def pytest_configure(config):
    """The win-table cache (engine/core/tables.py) goes to a folder of this test session, not
    the user's ~/.cache: tests never write outside their own temporary files."""
    cache = tempfile.mkdtemp(prefix="mjrules-test-cache-")
    os.environ["XDG_CACHE_HOME"] = cache
    atexit.register(shutil.rmtree, cache, True)


@pytest.fixture
def nanchang():
    from engine import Scorer, compile_ruleset

    return Scorer(compile_ruleset("nanchang"))


def scenario_params(files):
    """Every case of the scenario ``files``, run, as pytest params named ``file::case``."""
    from engine.tools.scenario import run_file

    return [pytest.param(r, id=f"{f.stem}::{r.name}") for f in files for r in run_file(f)]


def assert_case_passed(result) -> None:
    assert result.passed, "\n".join(result.differences + [f"fired: {result.fired}"] + result.explanation)
