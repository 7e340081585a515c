"""A file that passes `check` plays (hostile input).

Hypothesis mutates the bundled rulesets (numbers in `table`, `suit`, `honours`, `meld`,
`pattern`, `indicator`, `payment`/`fan` lines; a declaration line deleted or duplicated; a
keyword swapped; an option dropped; a seat dropped or added — benchmarks/mutate_rulesets.py, which also runs thousands
of them). Every mutant either fails to compile with a positioned MjError, or plays 20
random-bot hands and scores them with no exception but the project's own.
"""
from __future__ import annotations

import importlib.util
import random
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from .conftest import ROOT

_spec = importlib.util.spec_from_file_location("mutate_rulesets", ROOT / "benchmarks" / "mutate_rulesets.py")
mutants = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("mutate_rulesets", mutants)  # its dataclasses look their module up
_spec.loader.exec_module(mutants)

TEXTS = {name: mutants.source(name) for name in mutants.BUNDLED}


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(mutants.BUNDLED), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 3),
       repair=st.booleans())
def test_a_checked_mutant_plays(name, seed, steps, repair):
    """``repair`` follows the compiler's hints for the wall and the deal, so more mutants play."""
    text, what = mutants.mutate(TEXTS[name], random.Random(seed), steps)
    if repair:
        text = mutants.repair(text)
    out = mutants.run_mutant(text, hands=20, seed=seed % 1000)
    assert out.kind in ("refused", "played", "play_error"), f"{name} with {what}: {out.kind}\n{out.detail}"


def test_the_mutator_changes_the_file():
    """Each kind of mutation happens and changes the text (a mutator that did nothing would
    make the property vacuous)."""
    rng = random.Random(5)
    changed, said = 0, []
    for _ in range(80):
        text, what = mutants.mutate(TEXTS["nanchang"], rng, 1)
        changed += text != TEXTS["nanchang"]
        said += what
    assert changed >= 60
    for kind in ("→", "deleted", "duplicated", "dropped"):
        assert any(kind in w for w in said), kind


@pytest.mark.parametrize("what,old,new", [
    ("a table number", "table hand = 13", "table hand = 14"),
    ("a meld size", "meld 刻子 pung = same 3", "meld 刻子 pung = same 4"),
    ("the dice", "table dice = 2", "table dice = 0"),
    ("an indicator", "indicator lower \"下精\" = under upper", "indicator lower \"下精\" = under lower"),
])
def test_known_bad_mutants_are_refused_with_a_place(what, old, new):
    text = TEXTS["nanchang"]
    assert old in text, what
    out = mutants.run_mutant(text.replace(old, new, 1), hands=2, seed=1)
    assert out.kind == "refused", (what, out)
