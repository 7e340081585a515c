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


def test_events_hash_every_event_and_each_hands_end_and_leave_the_action_hash_alone():
    plain = trace(RULES, 2, 11, "value")
    logged = trace(RULES, 2, 11, "value", events=True)
    assert logged == trace(RULES, 2, 11, "value", events=True)  # the same seeds, the same hash
    assert {k: v for k, v in logged.items() if not k.startswith("events")} | {
        "rules": {r: {k: v for k, v in x.items() if not k.startswith("events")} for r, x in logged["rules"].items()}
    } == plain  # the actions' hash as without events
    assert logged["events"] == sum(r["events"] for r in logged["rules"].values()) > logged["actions"] // 2
    assert trace(RULES, 2, 12, "value", events=True)["events_hash"] != logged["events_hash"]


def test_events_see_what_the_actions_hash_cannot(monkeypatch):
    """An action that does something else to the hand (here: a discard logged with a field it
    never has) keeps the bots' choices, so the actions' hash, and changes the events' hash."""
    from engine.table.game import Game

    before = trace(RULES, 1, 11, "value", events=True)
    log = Game.log

    def changed(self, kind, **data):
        log(self, kind, **(data | {"tail": True} if kind == "discard" else data))

    monkeypatch.setattr(Game, "log", changed)
    after = trace(RULES, 1, 11, "value", events=True)
    assert after["hash"] == before["hash"]
    assert after["events_hash"] != before["events_hash"]


# What `python benchmarks/trace.py --bots KIND --events` prints today (40 hands on each of its five
# rule files, seed 11). A change that means to change play updates these in the same commit and
# says why there; any other change must leave them as they are (the guard a speed change runs).
PINNED = {
    "value": ("9e84fa67490a6198", 9403, "2b4277d2471367bb"),
    "greedy": ("ddffcc372b3cb155", 9724, "d07867c765ee6d54"),
    # 2026-12-07: a dealer whose first discard was claimed may 暗杠 (actions); nanchang-app's
    # 包冲关 is the server's (its settlements only: the actions' hash stayed)
    "random": ("f81c09270e3e1668", 24658, "16062600a285c79b"),
}


def test_play_is_what_it_was():
    """Every bot kind plays the pinned trace: actions and every logged event and settlement."""
    mod = _load_trace()
    for kind, (actions_hash, actions, events_hash) in PINNED.items():
        got = trace(list(mod.RULES), 40, 11, kind, events=True)
        assert (got["hash"], got["actions"], got["events_hash"]) == (actions_hash, actions, events_hash), kind


def test_a_closed_pipe_exits_141_quietly():
    """`trace.py | head -1` (the reader gone), as mjrules itself: no traceback, exit 141."""
    import subprocess

    proc = subprocess.Popen([sys.executable, str(ROOT / "benchmarks" / "trace.py"), "--bots", "random",
                             "--hands", "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before the first line is written
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 141 and b"Traceback" not in err, err
