"""`simulate` is a fixed function of (ruleset, seed, bots): a pinned hash of its JSON output
catches any change that is meant to change only speed (issue 8: "nothing changes but speed").

The hashes were taken on the engine of issue 7 (before the speed work). If a change is *meant*
to change how hands are played or paid, re-pin it in the same commit and say so there."""
from __future__ import annotations

import hashlib

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


def _hash(*args: str) -> str:
    r = CliRunner().invoke(app, ["simulate", *args])
    assert r.exit_code == 0, r.output
    out = r.stdout if r.stdout.lstrip().startswith("{") else r.output
    return hashlib.sha256(out.encode("utf-8")).hexdigest()


def test_simulate_500_random_hands_is_unchanged():
    assert _hash("nanchang", "-n", "500", "--seed", "1", "--json", "--bots", "random") == PINNED


@pytest.mark.parametrize("rules,n,seed,bots", sorted(MORE_PINS))
def test_simulate_is_unchanged(rules, n, seed, bots):
    assert _hash(rules, "-n", n, "--seed", seed, "--json", "--bots", bots) == MORE_PINS[(rules, n, seed, bots)]


def test_simulate_greedy_is_independent_of_workers():
    one = _hash("nanchang", "-n", "200", "--seed", "3", "--json", "--bots", "greedy", "--workers", "2")
    assert one == MORE_PINS[("nanchang", "200", "3", "greedy")]
