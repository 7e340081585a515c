"""benchmarks/env.py runs and reports the floor beside the sides it compares: the floor (PettingZoo's
AEC turns with no game) plays its fixed hands, and the report's allowance and the floor's share
of it are the goal's arithmetic on the measured figures. No timing is asserted."""
from __future__ import annotations

import json
import subprocess
import sys

from .conftest import ROOT
from .extras import need_extra

need_extra("pettingzoo", "rl")

BENCH = str(ROOT / "benchmarks" / "env.py")


def test_the_floor_side_plays_its_hands():
    out = subprocess.run([sys.executable, BENCH, "--side", "floor", "--hands", "3"], capture_output=True, text=True,
                         timeout=300, check=True)
    assert out.stdout.split() == ["180"]  # 3 hands of 60 steps (the terminated agents' leaving not counted)


def test_the_report_sets_the_floor_against_the_allowance():
    out = subprocess.run([sys.executable, BENCH, "--hands", "2", "--rounds", "1", "--peer-hands", "0", "--json"],
                         capture_output=True, text=True, timeout=300, check=True)
    rep = json.loads(out.stdout)
    us = rep["us_per_step"]
    assert set(us) == {"loop", "env", "env_no_obs", "floor"}
    assert abs(rep["goal_allowance_us"] - 0.3 * us["loop"]) < 0.02
    assert abs(rep["floor_share_of_allowance"] - us["floor"] / (0.3 * us["loop"])) < 0.02
    assert rep["steps_per_cpu_second"]["floor"] > 0
