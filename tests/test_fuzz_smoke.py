"""benchmarks/fuzz.py on a small fixed sample: every input is generated the same way each time,
run through the CLI entry point and classified; planted failures land in the right class."""
from __future__ import annotations

import importlib.util
import json
import sys
from collections import Counter
from pathlib import Path

import pytest

import engine.cli.inputs
from engine.errors import MjError

ROOT = Path(__file__).resolve().parent.parent


def _load_fuzz():
    spec = importlib.util.spec_from_file_location("mjrules_fuzz", ROOT / "benchmarks" / "fuzz.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


fuzz = _load_fuzz()


@pytest.fixture(scope="module")
def seeds(tmp_path_factory):
    return fuzz.load_seeds(tmp_path_factory.mktemp("seeds"), records_per_ruleset=2)


def _case(files: dict[str, bytes], *argv: str, kind: str = "rules", index: int = 0):
    return fuzz.Case(index, kind, "planted", ["planted"], list(argv), files)


def test_seeds_cover_rules_scenarios_records_and_score_flags(seeds):
    hostile = ROOT / "benchmarks" / "fuzz_hostile"
    assert set(seeds.rules) == ({p.name for p in (ROOT / "rulesets").glob("*.rules")}
                                | {f"hostile-{p.name}" for p in hostile.glob("*.rules")})
    assert set(seeds.scenario) == ({p.name for p in (ROOT / "tests" / "cases").glob("*.yaml")}
                                   | {f"hostile-{p.name}" for p in hostile.glob("*.yaml")})
    assert len(seeds.record) == 2 * len(list((ROOT / "rulesets").glob("*.rules")))  # records of the bundled ones
    assert all(r.startswith(b"format: mjrules-record/1") for r in seeds.record.values())
    assert all(f[0] == "--rules" for f in seeds.score_flags)
    assert sum("--hand" in f and "--win" in f for f in seeds.score_flags) > 50


def test_inputs_are_reproducible_and_differ_by_seed(seeds):
    a = [fuzz.make_case(seeds, 7, i) for i in range(12)]
    b = [fuzz.make_case(seeds, 7, i) for i in range(12)]
    c = [fuzz.make_case(seeds, 8, i) for i in range(12)]
    assert [(x.argv, x.files) for x in a] == [(x.argv, x.files) for x in b]
    assert [x.files for x in a] != [x.files for x in c]
    assert [x.kind for x in a] == list(fuzz.KINDS) * 4
    # every mutant differs from the seed it came from (or is a score command line)
    for x in a:
        if x.kind != "scenario" or x.argv[0] == "test":
            main = next(v for k, v in x.files.items() if k in ("R.rules", "S.yaml", "rec.yaml", "rec.json"))
            assert main not in (seeds.rules.get(x.seed_name), seeds.scenario.get(x.seed_name),
                                seeds.record.get(x.seed_name)), x.mutators


def test_a_sample_of_60_is_run_and_classified(seeds, tmp_path):
    results = fuzz.run_many(seeds, 60, 11, tmp_path, workers=0, timeout=5.0)
    assert [r["index"] for r in results] == list(range(60))
    assert Counter(r["kind"] for r in results) == {"rules": 20, "scenario": 20, "record": 20}
    assert all(r["outcome"] in fuzz.OUTCOMES for r in results)
    assert all(r["command"].startswith("mjrules ") for r in results)
    for r in results:  # the outcome follows from the exit code
        if r["outcome"] == "ok":
            assert r["code"] in (0, 1)
        elif r["outcome"] == "bad_input":
            assert r["code"] == 2
        elif r["outcome"] in ("internal", "hang"):
            assert r["exception"] and r["where"] and r["traceback"], r
    outcomes = Counter(r["outcome"] for r in results)
    assert outcomes["ok"] > 0 and outcomes["bad_input"] > 0  # mutants are mostly refused, some still run
    s = fuzz.summarize(results, 1.0)
    assert s["total"]["inputs"] == 60
    assert sum(s["total"][o] for o in fuzz.OUTCOMES) == 60
    assert sum(c["count"] for c in s["classes"]) == sum(outcomes[o] for o in fuzz.FAILURES)
    slow = max(results, key=lambda r: r["seconds"])  # the input nearest the hang timeout is named
    assert (s["slowest"]["index"], s["slowest"]["seconds"]) == (slow["index"], slow["seconds"])
    assert s["slowest"]["command"] == slow["command"] and s["total"]["slowest_s"] == slow["seconds"]
    slow = max(results, key=lambda r: r["seconds"])  # the input nearest the hang timeout is named
    assert (s["slowest"]["index"], s["slowest"]["seconds"]) == (slow["index"], slow["seconds"])
    assert s["slowest"]["command"] == slow["command"] and s["total"]["slowest_s"] == slow["seconds"]
    assert all(r["peak_mb"] > 0 for r in results)  # memory is measured
    # hostile input: no input ends in an internal error, a hang over 5 CPU-seconds or a memory failure
    failures = [(r["command"], r["outcome"], r["exception"], r["where"]) for r in results if r["outcome"] in fuzz.FAILURES]
    assert not failures, failures


def test_the_hostile_corpus_is_refused_each_with_a_located_error(tmp_path):
    """Issue 16's two held-back inputs (benchmarks/fuzz_hostile/): a scripted game with more
    `replacements` than the wall (was an internal IndexError) and a suit of 24 ranks (passed
    `check`, then `simulate -n 12` ran for minutes). Each is now exit 2, in the CPU budget."""
    names = {p.name for p in fuzz.HOSTILE.iterdir()}
    assert {"long-replacements.yaml", "wide-suit.rules"} <= names
    results = fuzz.run_hostile(tmp_path, timeout=5.0)
    assert sorted(r["command"].split()[1] for r in results) == ["check", "simulate", "test"]
    bad = [(r["command"], r["outcome"], r["code"], r["exception"], r["where"]) for r in results if r["regressed"]]
    assert not bad, bad
    assert all((r["outcome"], r["code"]) == ("bad_input", 2) for r in results)


def test_workers_do_not_change_the_results(seeds, tmp_path):
    one = fuzz.run_many(seeds, 6, 7, tmp_path / "a", workers=0, timeout=2.0)
    two = fuzz.run_many(seeds, 6, 7, tmp_path / "b", workers=2, timeout=2.0)
    key = lambda rs: [(r["index"], r["command"], r["outcome"], r["code"], r["exception"]) for r in rs]  # noqa: E731
    assert key(one) == key(two)


def test_a_valid_file_is_ok_and_an_mjerror_is_bad_input(seeds, tmp_path, monkeypatch):
    ok = fuzz.run_case(_case({"R.rules": seeds.rules["nanchang.rules"]}, "check", "{dir}/R.rules"), tmp_path)
    assert (ok["outcome"], ok["code"], ok["exception"]) == ("ok", 0, None)
    differs = fuzz.run_case(_case({"R.rules": seeds.rules["chongguan.rules"]}, "diff", "nanchang", "{dir}/R.rules"),
                            tmp_path)
    assert (differs["outcome"], differs["code"]) == ("ok", 1)
    bad = fuzz.run_case(_case({"R.rules": b"ruleset x\nfan = \n"}, "check", "{dir}/R.rules"), tmp_path)
    assert (bad["outcome"], bad["code"]) == ("bad_input", 2)


def _plant(monkeypatch, fn):
    monkeypatch.setattr(engine.cli.inputs, "compile_ruleset", fn)


def test_planted_crash_is_an_internal_error_at_its_engine_line(seeds, tmp_path, monkeypatch):
    def boom(*a, **k):
        return {}["no such key"]

    _plant(monkeypatch, boom)  # (export compiles through engine.cli.inputs.compile_ruleset; check lints)
    r = fuzz.run_case(_case({"R.rules": seeds.rules["nanchang.rules"]}, "export", "{dir}/R.rules"), tmp_path)
    assert (r["outcome"], r["code"], r["exception"]) == ("internal", 3, "KeyError")
    assert r["where"].startswith("engine/cli/inputs.py:")  # the innermost frame in engine/
    assert r["traceback"][-1] == "KeyError: 'no such key'"
    # two inputs failing the same way are one class
    r2 = fuzz.run_case(_case({"R.rules": b"anything"}, "export", "{dir}/R.rules", index=1), tmp_path)
    classes = fuzz.classes([r, r2])
    assert len(classes) == 1 and classes[0]["count"] == 2 and classes[0]["indices"] == [0, 1]


def test_planted_busy_loop_is_a_hang(seeds, tmp_path, monkeypatch):
    def spin(*a, **k):
        while True:
            pass

    _plant(monkeypatch, spin)
    r = fuzz.run_case(_case({"R.rules": b""}, "export", "{dir}/R.rules"), tmp_path, timeout=0.3)
    assert (r["outcome"], r["exception"]) == ("hang", "Timeout")
    assert r["cpu_s"] >= 0.25


def test_a_hang_whose_first_alarm_is_swallowed_is_still_a_hang(seeds, tmp_path, monkeypatch):
    """An alarm that lands in a finalizer run by the garbage collector is lost there (a long test
    run once spun for ever so): the alarm repeats, and the next one stops the case."""
    import time

    def swallow_then_spin(*a, **k):
        try:
            while True:
                pass
        except fuzz.Timeout:
            pass  # lost, as in a finalizer
        end = time.process_time() + 3.0  # bounded: a one-shot alarm makes this an error, not a hang
        while time.process_time() < end:
            pass
        return {}["the case went on"]

    _plant(monkeypatch, swallow_then_spin)
    r = fuzz.run_case(_case({"R.rules": b""}, "export", "{dir}/R.rules"), tmp_path, timeout=0.3)
    assert (r["outcome"], r["exception"]) == ("hang", "Timeout")
    assert 0.5 <= r["cpu_s"] < 3.0  # the second alarm, not the end of the spin


def test_planted_memory_error_and_big_peak_are_memory_failures(seeds, tmp_path, monkeypatch):
    def hog(*a, **k):
        raise MemoryError

    _plant(monkeypatch, hog)
    r = fuzz.run_case(_case({"R.rules": b""}, "sheet", "{dir}/R.rules"), tmp_path)
    assert (r["outcome"], r["exception"]) == ("memory", "MemoryError")

    def big(*a, **k):
        block = bytearray(64 * 2**20)
        block[:: 4096] = b"x" * len(block[:: 4096])  # touch every page
        raise MjError("refused after using 64 MiB")

    _plant(monkeypatch, big)
    r = fuzz.run_case(_case({"R.rules": b""}, "export", "{dir}/R.rules"), tmp_path, mem_flag_mb=1.0)
    assert (r["outcome"], r["exception"]) == ("memory", "PeakRSS")
    assert r["peak_mb"] > 64


def test_main_exits_1_on_a_planted_crash_and_saves_it(tmp_path, monkeypatch, capsys):
    real = engine.cli.inputs.compile_ruleset

    def boom(ref, *a, **k):  # the fuzzed files only, not the seed records' bundled rulesets
        if "case-" in str(ref):
            raise ZeroDivisionError("planted")
        return real(ref, *a, **k)

    _plant(monkeypatch, boom)
    code = fuzz.main(["--n", "4", "--kinds", "rules", "--workers", "0", "--records", "1", "--json",
                      "--save", str(tmp_path / "found")])
    assert code == 1
    s = json.loads(capsys.readouterr().out)
    assert s["total"]["inputs"] == 4
    # a rule file that does not even parse never reaches compile_ruleset here, so: at least one
    cls = [c for c in s["classes"] if c["exception"] == "ZeroDivisionError"]
    assert cls and cls[0]["where"].startswith("engine/cli/")
    listing = json.loads((tmp_path / "found" / "classes.json").read_text(encoding="utf-8"))
    folder = tmp_path / "found" / next(c["folder"] for c in listing if c["exception"] == "ZeroDivisionError")
    saved = sorted(folder.glob("input-*/command.txt"))
    assert saved and "mjrules " in saved[0].read_text(encoding="utf-8")
    assert "ZeroDivisionError: planted" in "".join(p.read_text(encoding="utf-8") for p in saved)


def test_a_scenario_whose_cases_hold_a_number_is_still_mutated():
    """An earlier mutation can leave a number among a scenario's cases (seed 2 of a full run
    did, and the generator raised); the scenario mutations edit only the cases that are
    mappings, and never raise."""
    import copy
    import random

    first = {"name": "a", "hands": {"S": "1m"}, "win": {}, "expect": {}, "game": {"draws": []}}
    edited = 0
    for seed in range(200):
        tree = {"ruleset": "nanchang", "cases": [copy.deepcopy(first), 3.5]}
        out = fuzz.t_scenario(random.Random(seed), tree, {})
        edited += isinstance(out.get("cases"), list) and out["cases"][:1] != [first] and 3.5 in out["cases"]
    assert edited > 20  # the mapping case was edited, the number left alone


def test_a_repeated_string_stays_within_the_tree_bound():
    """t_string_edit's repeat makes at most MAX_TREE_STRING characters (a 1.9 MB scalar took
    ruamel's emitter minutes, and the run counted the generator's time as a hang)."""
    import random

    longest = 0
    for seed in range(300):
        tree = {"cases": [{"game": {"replacements": ["x" * 5000]}}]}
        out = fuzz.t_string_edit(random.Random(seed), tree, {})
        longest = max(longest, len(out["cases"][0]["game"]["replacements"][0]))
    assert longest == fuzz.MAX_TREE_STRING  # reached (×20, ×2000), never passed
