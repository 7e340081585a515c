"""`simulate` is a fixed function of (ruleset, seed, bots): its JSON output, pinned in golden
files (tests/golden/simulate-*.json), catches any change that is meant to change only speed
("nothing changes but speed").

The golden files are the outputs the earlier SHA-256 pins were taken of (the engine before the
speed work, and the ``spread`` key since), byte for byte: each was checked against its hash when
it was written. They are compared key by key, so a failure lists each changed key with the
golden and the new value. If a change is *meant* to change how hands are played or paid,
rewrite them in the same commit and say so there: ``python tests/test_simulate_pin.py --write``.

They are a guard for speed work only, not a check of any rule: every number in them is the
code's own output, taken from the code and never worked out from a source. A rule's number is
checked by the cases that work it out from RULES.md, a seed or a server's code (tests/cases/*.yaml,
run by tests/test_scenarios.py); that a hand here pays what it pays says nothing about whether
the rules are right.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app

GOLDEN = Path(__file__).resolve().parent / "golden"
RUNS = [  # (ruleset, hands, seed, bots)
    ("nanchang", "500", "1", "random"),
    ("nanchang", "200", "3", "greedy"),
    ("chongguan", "200", "1", "random"),
    ("ganzhou", "200", "1", "random"),
]


def _output(*args: str) -> str:
    r = CliRunner().invoke(app, ["simulate", *args])
    assert r.exit_code == 0, r.output
    return r.stdout if r.stdout.lstrip().startswith("{") else r.output


def _args(rules: str, n: str, seed: str, bots: str) -> list[str]:
    return [rules, "-n", n, "--seed", seed, "--json", "--bots", bots]


def golden_path(rules: str, n: str, seed: str, bots: str) -> Path:
    return GOLDEN / f"simulate-{rules}-{n}-seed{seed}-{bots}.json"


def flatten(value, prefix: str = "") -> dict[str, object]:
    """Nested JSON as ``{"seats.E.wins": 12, "patterns.平胡": 0.4, …}`` (list items by index)."""
    if isinstance(value, dict):
        items = value.items()
    elif isinstance(value, list):
        items = ((str(i), v) for i, v in enumerate(value))
    else:
        return {prefix: value}
    out: dict[str, object] = {}
    for k, v in items:
        out.update(flatten(v, f"{prefix}.{k}" if prefix else str(k)))
    if not out:
        out[prefix] = value  # an empty map or list is a value of its own
    return out


def differences(golden: dict, now: dict) -> list[str]:
    """One line per key whose value changed, appeared or went: ``key: golden → now``."""
    g, n = flatten(golden), flatten(now)
    out = []
    for key in sorted(g.keys() | n.keys()):
        if key not in n:
            out.append(f"{key}: {g[key]!r} → (gone)")
        elif key not in g:
            out.append(f"{key}: (new) → {n[key]!r}")
        elif g[key] != n[key] or type(g[key]) is not type(n[key]):
            out.append(f"{key}: {g[key]!r} → {n[key]!r}")
    return out


def assert_as_golden(output: str, path: Path) -> None:
    golden = json.loads(path.read_text(encoding="utf-8"))
    diff = differences(golden, json.loads(output))
    assert not diff, f"simulate output differs from {path.name} in {len(diff)} key(s):\n" + "\n".join(diff[:60])


def test_the_comparison_names_each_changed_key():
    golden = {"hands": 500, "seats": {"E": {"wins": 3, "rate": 0.25}}, "fans": {}, "x": [1, 2]}
    now = {"hands": 500, "seats": {"E": {"wins": 4, "rate": 0.25}}, "fans": {"德国": 0.1}, "x": [1], "new": True}
    assert differences(golden, golden) == []
    assert differences(golden, now) == ["fans: {} → (gone)", "fans.德国: (new) → 0.1", "new: (new) → True",
                                        "seats.E.wins: 3 → 4", "x.1: 2 → (gone)"]
    assert differences({"a": 1}, {"a": 1.0}) == ["a: 1 → 1.0"]  # an int that became a float is a change


@pytest.mark.parametrize("run", RUNS, ids=["-".join(r) for r in RUNS])
def test_simulate_is_unchanged(run):
    assert_as_golden(_output(*_args(*run)), golden_path(*run))


def test_simulate_greedy_is_independent_of_workers():
    run = ("nanchang", "200", "3", "greedy")
    assert_as_golden(_output(*_args(*run), "--workers", "2"), golden_path(*run))


def test_spread_agrees_with_the_old_averages():
    data = json.loads(_output("nanchang", "-n", "200", "--seed", "3", "--json", "--bots", "greedy"))
    spread = data["spread"]
    for seat, v in data["seats"].items():
        s = spread["seats"][seat]
        assert s["n"] == 200 and round(s["mean"], 3) == v["avg_zi_per_hand"]
        assert s["ci95"][0] <= s["mean"] <= s["ci95"][1] and s["min"] <= s["p5"] <= s["p95"] <= s["max"]
    assert spread["zi_moved"]["mean"] == data["avg_zi_moved_per_hand"]


if __name__ == "__main__":  # rewrite the golden files from the current engine
    if sys.argv[1:] != ["--write"]:
        sys.exit("usage: python tests/test_simulate_pin.py --write")
    GOLDEN.mkdir(exist_ok=True)
    for run in RUNS:
        golden_path(*run).write_text(_output(*_args(*run)), encoding="utf-8")
        print(golden_path(*run))
