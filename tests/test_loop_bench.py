"""benchmarks/loop.py's arithmetic, with the measurements replaced by fixed CPU seconds: the
rates are the hands of every round over their CPU time, also when RLCard is not installed (a
fresh-clone check found the rounds stopped after the first while the rates were still divided
as if all had run). No timing here; the figures are the benchmark's."""
from __future__ import annotations

import importlib.util
import json
import sys

import pytest

from .conftest import ROOT


def _load_loop():
    spec = importlib.util.spec_from_file_location("mjrules_loop_bench", ROOT / "benchmarks" / "loop.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


loop = _load_loop()
CPU = {"random": 0.5, "greedy": 1.0, "value": 2.0}  # seconds a round takes, per bot kind


@pytest.mark.parametrize("peer", ["rlcard not installed: pip install rlcard", 4.0])
def test_rates_count_every_round(monkeypatch, capsys, peer):
    played: list[tuple[str, int]] = []

    def ours(rules, bots, hands, seed):
        played.append((bots, seed))
        return CPU[bots]

    monkeypatch.setattr(loop, "ours", ours)
    monkeypatch.setattr(loop, "warm", lambda rules, kind, seed, hands: None)
    monkeypatch.setattr(loop, "peer", lambda hands, seed: peer)
    monkeypatch.setattr(loop, "peak_rss_mib", lambda rules, hands, seed: 1.0)
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rounds", "3", "--random", "30", "--greedy", "40",
                                      "--value", "20", "--peer", "10", "--json", "--one-process"])
    loop.main()
    report = json.loads(capsys.readouterr().out)
    assert sorted(played) == sorted((b, 1 + r) for r in range(3) for b in ("random", "greedy", "value"))
    assert report["random_hands_per_cpu_s"] == 60.0  # 30 hands / 0.5 s, every round
    assert report["greedy_hands_per_cpu_s"] == 40.0
    assert report["value_hands_per_cpu_s"] == 10.0
    assert report["value_to_greedy_ratio"] == 0.25
    assert report["value_to_greedy_ratio_per_round"] == [0.25, 0.25, 0.25]
    if isinstance(peer, str):
        assert report["peer"] == peer and "peer_hands_per_cpu_s" not in report
        assert "peer" not in report["hands_per_round"]  # none were played
    else:
        assert report["peer_hands_per_cpu_s"] == 2.5  # 10 hands / 4 s
        assert report["random_to_peer_ratio"] == 24.0


def test_value_bots_play_the_greedy_bots_deals_by_default(monkeypatch, capsys):
    """Without --value, the value bots play as many hands as the greedy bots, on the same seeds."""
    played: list[tuple[str, int, int]] = []

    def ours(rules, bots, hands, seed):
        played.append((bots, hands, seed))
        return CPU[bots]

    monkeypatch.setattr(loop, "ours", ours)
    monkeypatch.setattr(loop, "warm", lambda rules, kind, seed, hands: None)
    monkeypatch.setattr(loop, "peer", lambda hands, seed: 4.0)
    monkeypatch.setattr(loop, "peak_rss_mib", lambda rules, hands, seed: 1.0)
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rounds", "2", "--random", "30", "--greedy", "40", "--json",
                                      "--one-process"])
    loop.main()
    report = json.loads(capsys.readouterr().out)
    greedy = [(h, s) for b, h, s in played if b == "greedy"]
    assert [(h, s) for b, h, s in played if b == "value"] == greedy == [(40, 1), (40, 2)]
    assert report["value_hands_per_cpu_s"] == 20.0  # 40 hands / 2 s


@pytest.mark.parametrize("flag", ["--rounds", "--random", "--greedy"])
def test_a_count_below_one_is_refused(monkeypatch, capsys, flag):
    """No round or no hand would divide by no CPU time: argparse refuses it (exit 2) first."""
    monkeypatch.setattr(sys, "argv", ["loop.py", flag, "0"])
    with pytest.raises(SystemExit) as exc:
        loop.main()
    assert exc.value.code == 2
    assert f"{flag} must be at least 1" in capsys.readouterr().err


def test_the_ratio_is_of_the_unrounded_rates(monkeypatch, capsys):
    """One round: the overall ratio is that round's (a fresh-clone check found 0.57 against a
    round's 0.58, the ratio taken of rates already rounded to 25.7 and 44.7)."""
    cpu = {"random": 1.0, "greedy": 0.2237, "value": 0.389}
    monkeypatch.setattr(loop, "ours", lambda rules, bots, hands, seed: cpu[bots])
    monkeypatch.setattr(loop, "warm", lambda rules, kind, seed, hands: None)
    monkeypatch.setattr(loop, "peak_rss_mib", lambda rules, hands, seed: 1.0)
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rounds", "1", "--random", "10", "--greedy", "10", "--peer", "0",
                                      "--json", "--one-process"])
    loop.main()
    report = json.loads(capsys.readouterr().out)
    assert report["value_to_greedy_ratio_per_round"] == [0.58] and report["value_to_greedy_ratio"] == 0.58


def test_peer_zero_skips_the_peer(monkeypatch, capsys):
    """``--peer 0`` measures our kinds only: the peer never runs, the report says it was skipped
    and lists no peer hands; ``--peer -1`` is refused."""
    monkeypatch.setattr(loop, "ours", lambda rules, bots, hands, seed: CPU[bots])
    monkeypatch.setattr(loop, "warm", lambda rules, kind, seed, hands: None)

    def no_peer(hands, seed):
        raise AssertionError("the peer ran")

    monkeypatch.setattr(loop, "peer", no_peer)
    monkeypatch.setattr(loop, "peak_rss_mib", lambda rules, hands, seed: 1.0)
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rounds", "2", "--random", "30", "--greedy", "40", "--peer", "0",
                                      "--json", "--one-process"])
    loop.main()
    report = json.loads(capsys.readouterr().out)
    assert report["peer"] == "skipped (--peer 0)" and "peer" not in report["hands_per_round"]
    assert report["greedy_hands_per_cpu_s"] == 40.0 and "random_to_peer_ratio" not in report
    monkeypatch.setattr(sys, "argv", ["loop.py", "--peer", "-1"])
    with pytest.raises(SystemExit) as exc:
        loop.main()
    assert exc.value.code == 2
    assert "--peer must be 0 or more" in capsys.readouterr().err


def test_each_kind_runs_in_a_worker_process_of_its_own(monkeypatch, capsys, tmp_path):
    """By default every kind is measured in a forked worker of its own: each round runs there
    (never in the parent), and a worker's failure stops the run with its error."""
    import os

    parent = os.getpid()

    def ours(rules, bots, hands, seed):
        with open(tmp_path / bots, "a") as f:
            f.write(f"{os.getpid()}\n")
        return 1.0 if os.getpid() != parent else 1000.0

    monkeypatch.setattr(loop, "ours", ours)
    monkeypatch.setattr(loop, "warm", lambda rules, kind, seed, hands: None)
    monkeypatch.setattr(loop, "peer", lambda hands, seed: "no peer in this test")
    monkeypatch.setattr(loop, "peak_rss_mib", lambda rules, hands, seed: 1.0)
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rounds", "2", "--random", "3", "--greedy", "4", "--json"])
    loop.main()
    report = json.loads(capsys.readouterr().out)
    assert report["processes"] == "one per kind" and report["peer"] == "no peer in this test"
    assert report["random_hands_per_cpu_s"] == 3.0 and report["value_to_greedy_ratio"] == 1.0  # 1 s a round
    pids = {k: (tmp_path / k).read_text().split() for k in ("random", "greedy", "value")}
    assert all(len(v) == 2 and len(set(v)) == 1 for v in pids.values())  # both rounds in one worker
    assert len({v[0] for v in pids.values()} | {str(parent)}) == 4  # three workers, none the parent

    def broken(rules, bots, hands, seed):
        raise ValueError("no such deal")

    monkeypatch.setattr(loop, "ours", broken)
    with pytest.raises(SystemExit, match="the random worker failed: ValueError: no such deal"):
        loop.main()


def test_a_bad_ruleset_or_seed_is_a_clear_error(monkeypatch, capsys):
    """--rules naming no ruleset and a negative --seed stop with exit 2 and one message, before
    any worker starts (a fresh-clone check found a worker's traceback, and a memory figure read
    off a child simulate that had refused the seed)."""
    monkeypatch.setattr(sys, "argv", ["loop.py", "--rules", "nosuch"])
    with pytest.raises(SystemExit) as exc:
        loop.main()
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "--rules nosuch" in err and "nosuch" in err and "Traceback" not in err
    monkeypatch.setattr(sys, "argv", ["loop.py", "--seed", "-1"])
    with pytest.raises(SystemExit) as exc:
        loop.main()
    assert exc.value.code == 2 and "--seed must be 0 or more (got -1)" in capsys.readouterr().err


def test_a_failed_memory_child_is_reported_not_measured():
    """A child simulate that exits with an error gives its message, not the peak of its failure."""
    got = loop.peak_rss_mib("nosuch", 10, 1)
    assert isinstance(got, str) and got.startswith("the child simulate failed (exit 2)")
