"""benchmarks/trace.py, the guard that a speed change kept play: the same seeds give the same
hash and action count, and a different play (another seed, another bot kind) a different hash,
so a change of play cannot pass unseen. Small runs: a hand or two per rule file."""
from __future__ import annotations

import importlib.util
import sys

from .conftest import ROOT


def _load_trace():
    spec = importlib.util.spec_from_file_location("mjrules_trace_bench", ROOT / "benchmarks" / "trace.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


trace = _load_trace().trace
RULES = ["nanchang", "jian"]


def test_the_same_seeds_give_the_same_hash():
    first = trace(RULES, 2, 11, "value")
    again = trace(RULES, 2, 11, "value")
    assert first == again
    assert first["actions"] == sum(r["actions"] for r in first["rules"].values()) > 20
    assert set(first["rules"]) == set(RULES)


def test_other_play_gives_another_hash():
    value = trace(RULES, 1, 11, "value")
    assert trace(RULES, 1, 12, "value")["hash"] != value["hash"]  # other deals
    assert trace(RULES, 1, 11, "random")["hash"] != value["hash"]  # other choices on the same deals
