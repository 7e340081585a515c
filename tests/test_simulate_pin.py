"""`simulate` is a fixed function of (ruleset, seed, bots): a pinned hash of its JSON output
catches any change that is meant to change only speed ("nothing changes but speed").

The hashes were taken on the engine before the speed work, of the keys it printed
then (see NEW_KEYS; FULL_PINS pin the whole output). If a change is *meant* to change how hands
are played or paid, re-pin it in the same commit and say so there."""
from __future__ import annotations

import hashlib
import json

import pytest
from typer.testing import CliRunner

from engine.cli import app

PINNED = "dbef0fecc184ca2f495f98d60aef7ef4b3755d402645c1d09f0302ffa990ef45"

# (ruleset, hands, seed, bots) -> sha256 of the JSON summary, taken before the game-loop speed work
MORE_PINS = {
    ("nanchang", "200", "3", "greedy"): "a2d8dc8ba5cab9a20632d7d79ed92589d929e55fcf454b856ae72331a42b288a",
    ("chongguan", "200", "1", "random"): "a5f48259624b002315742e4b94863bebe20b133b0e8258bb890eb16b297c5e80",
    ("ganzhou", "200", "1", "random"): "a5f9abba53e642d2fd5cafa4dbd0eb8a544ca8c894f6358bdc3423dba31c9073",
}


# keys added after the pins were taken (the spread of 子 per hand). The pinned hashes
# are of the output *without* them, re-printed exactly as the command prints (json.dumps, indent 2,
# a newline): so they still prove every old key byte-identical; FULL_PINS pin the whole output.
NEW_KEYS = ("spread",)


def _output(*args: str) -> str:
    r = CliRunner().invoke(app, ["simulate", *args])
    assert r.exit_code == 0, r.output
    return r.stdout if r.stdout.lstrip().startswith("{") else r.output


def _hash(*args: str, full: dict | None = None) -> str:
    """The hash of the output without NEW_KEYS; ``full["hash"]`` gets the whole output's."""
    out = _output(*args)
    if full is not None:
        full["hash"] = hashlib.sha256(out.encode("utf-8")).hexdigest()
    data = json.loads(out)
    for k in NEW_KEYS:
        del data[k]
    old = json.dumps(data, ensure_ascii=False, indent=2) + "\n"
    return hashlib.sha256(old.encode("utf-8")).hexdigest()


def test_simulate_500_random_hands_is_unchanged():
    full: dict = {}
    assert _hash("nanchang", "-n", "500", "--seed", "1", "--json", "--bots", "random", full=full) == PINNED
    assert full["hash"] == FULL_PINS[("nanchang", "500", "1", "random")]


@pytest.mark.parametrize("rules,n,seed,bots", sorted(MORE_PINS))
def test_simulate_is_unchanged(rules, n, seed, bots):
    full: dict = {}
    assert _hash(rules, "-n", n, "--seed", seed, "--json", "--bots", bots, full=full) == MORE_PINS[(rules, n, seed, bots)]
    assert full["hash"] == FULL_PINS[(rules, n, seed, bots)]


def test_simulate_greedy_is_independent_of_workers():
    one = _hash("nanchang", "-n", "200", "--seed", "3", "--json", "--bots", "greedy", "--workers", "2")
    assert one == MORE_PINS[("nanchang", "200", "3", "greedy")]


# the whole output, "spread" included (taken when it was added: the old keys above unchanged)
FULL_PINS = {
    ("nanchang", "500", "1", "random"): "a513c285973a8a87f1a18104201bc52aa2a6bfe55bdc79cb698d4644976b22ad",
    ("nanchang", "200", "3", "greedy"): "b96ff06e2674b82bb12e490e88c0628f8296f4fca3f477c01c0064e63cf1852e",
    ("chongguan", "200", "1", "random"): "fc2af5ab5f8d8254a9ec137c78c321c2ef5bf36928343e89d8b840514a62bd2a",
    ("ganzhou", "200", "1", "random"): "15763f6b6bcabe4e7c3df5c85d2584f67da0f467e85f7f7998256874ce2fe373",
}



def test_spread_agrees_with_the_old_averages():
    data = json.loads(_output("nanchang", "-n", "200", "--seed", "3", "--json", "--bots", "greedy"))
    spread = data["spread"]
    for seat, v in data["seats"].items():
        s = spread["seats"][seat]
        assert s["n"] == 200 and round(s["mean"], 3) == v["avg_zi_per_hand"]
        assert s["ci95"][0] <= s["mean"] <= s["ci95"][1] and s["min"] <= s["p5"] <= s["p95"] <= s["max"]
    assert spread["zi_moved"]["mean"] == data["avg_zi_moved_per_hand"]
