"""`simulate` is a fixed function of (ruleset, seed, bots): a pinned hash of its JSON output
catches any change that is meant to change only speed (issue 8: "nothing changes but speed").

The hash was taken on the engine of issue 7 (before the speed work). If a change is *meant*
to change how hands are played or paid, re-pin it in the same commit and say so there."""
from __future__ import annotations

import hashlib

from typer.testing import CliRunner

from engine.cli import app

PINNED = "dbef0fecc184ca2f495f98d60aef7ef4b3755d402645c1d09f0302ffa990ef45"


def test_simulate_500_random_hands_is_unchanged():
    r = CliRunner().invoke(app, ["simulate", "nanchang", "-n", "500", "--seed", "1", "--json", "--bots", "random"])
    assert r.exit_code == 0, r.output
    out = r.stdout if r.stdout.lstrip().startswith("{") else r.output
    assert hashlib.sha256(out.encode("utf-8")).hexdigest() == PINNED
