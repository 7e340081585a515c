"""tests/extras.py's guard: with MJRULES_REQUIRE_EXTRAS=1 (CI) a missing extra fails the test
that needs it; without it, the test is skipped."""
from __future__ import annotations

import os
import subprocess
import sys

from .conftest import ROOT

PLANTED = "from tests.extras import need_extra\n\ndef test_x():\n    need_extra('no_such_module_mjrules', 'lsp')\n"


def _run(tmp_path, required: str) -> str:
    test = tmp_path / "test_planted_extra.py"
    test.write_text(PLANTED, encoding="utf-8")
    env = {**os.environ, "MJRULES_REQUIRE_EXTRAS": required, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test)],
                         capture_output=True, text=True, env=env, cwd=ROOT, timeout=120)
    return out.stdout.strip().splitlines()[-1]


def test_a_missing_extra_fails_in_ci_and_is_skipped_elsewhere(tmp_path):
    assert "1 failed" in _run(tmp_path, "1")
    assert "1 skipped" in _run(tmp_path, "")
