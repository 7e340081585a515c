"""Win checks from the compiled win tables against `mahjong.agari.Agari.is_agari` (not a timed test).

The peer is MahjongRepository/mahjong's riichi checker (pip install mahjong), timed in the same
process on the same hands, in CPU time (time.process_time). Hands: 20,000 wild-free 14-tile hands
of suited tiles, half complete (four runs/pungs and a pair), half one tile off. Each measurement
runs in a fresh process with the table cache present (the first pass includes loading the
tables), ``--repeat`` times (default 5): the run with the median first-pass ratio is reported,
with the range over the runs. The table build without a cache is timed in its own process with
MJRULES_NO_CACHE=1, and a first run with an empty cache directory (tables built, written, and
their dense forms made) in another.

Cases (ratio = is_agari's time / ours; above 1 is faster than the peer):
- ``is_win`` on the wild-free hands (精 declared on 东/南, none held);
- ``is_win`` with 1, 2 and 4 精 held: the same hands with that many tiles swapped for 东/南;
- ``readings`` (everything scoring needs: pattern, wilds used, 精钓, 德国) with 4 精.

    python benchmarks/wincheck.py [--rules nanchang] [--checks 20000] [--seed 1] [--repeat 5] [--json] [--verify]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def make_hands(scorer, n: int, seed: int) -> list[list[int]]:
    """``n`` 14-tile suited hands: even ones complete, odd ones with one tile changed."""
    rng = random.Random(seed)
    tiles = scorer.tiles
    suited = [k.index for k in tiles.kinds if k.is_suit]
    out: list[list[int]] = []
    while len(out) < n:
        hand: list[int] = []
        for _ in range(4):
            t = rng.choice(suited)
            k = tiles.kinds[t]
            if rng.random() < 0.5 and k.position + 2 < len(tiles.groups[k.group].kinds):
                hand += [t, t + 1, t + 2]
            else:
                hand += [t, t, t]
        p = rng.choice(suited)
        hand += [p, p]
        if len(out) % 2:
            i = rng.randrange(14)
            hand[i] = rng.choice([s for s in suited if s != hand[i]])
        if max(hand.count(x) for x in hand) <= 4:
            rng.shuffle(hand)
            out.append(hand)
    return out


def with_jing(hands: list[list[int]], jing: list[int], k: int, seed: int) -> list[list[int]]:
    """The same hands with ``k`` tiles swapped for 精 (alternating the 精 kinds)."""
    rng = random.Random(seed + k)
    out = []
    for h in hands:
        h = list(h)
        for j, i in enumerate(rng.sample(range(len(h)), k)):
            h[i] = jing[j % len(jing)]
        out.append(h)
    return out


def worker(args) -> dict:
    from mahjong.agari import Agari

    from engine import Scorer, compile_ruleset

    scorer = Scorer(compile_ruleset(args.rules))
    ev, tiles = scorer.hands, scorer.tiles
    hands = make_hands(scorer, args.checks, args.seed)
    ind = tiles.parse_one("东")
    wild = frozenset({ind, tiles.successor(ind)})

    def to34(h):  # the peer's index: 0-8 m, 9-17 p, 18-26 s; ours is the rule file's, the same for suits
        c = [0] * 34
        for t in h:
            c[t] += 1
        return c

    hands34 = [to34(h) for h in hands]
    agari = Agari()
    if args.case == "wild-free":
        fn_name, hs = "is_win", hands
    elif args.case == "readings-4":
        fn_name, hs = "readings", with_jing(hands, sorted(wild), 4, args.seed)
    else:
        fn_name, hs = "is_win", with_jing(hands, sorted(wild), int(args.case.split("-")[1]), args.seed)
    # the benchmark's own objects (the compiled ruleset, these hands in three forms) out of the
    # collector's way, as timeit does for its setup: else a full collection of them lands in
    # whichever pass allocates (ours returns lists, is_agari a bool) and is charged to it
    gc.collect()
    gc.freeze()
    t = time.process_time()
    peer = [agari.is_agari(c) for c in hands34]
    peer_s = time.process_time() - t
    report = {"case": args.case, "peer_us": round(peer_s / len(hands) * 1e6, 3)}
    # called through the evaluator, as the game and the scorer call it (the tables are loaded
    # on the first call, inside the first pass)
    def run_once() -> list:
        if fn_name == "is_win":
            return [ev.is_win(h, [], wild, h[-1]) for h in hs]
        return [ev.readings(h, [], wild, h[-1]) for h in hs]

    t = time.process_time()
    ours = run_once()
    first = time.process_time() - t
    t = time.process_time()
    again = run_once()
    second = time.process_time() - t
    assert ours == again
    report.update({
        "ours_first_pass_us": round(first / len(hs) * 1e6, 3),
        "ours_second_pass_us": round(second / len(hs) * 1e6, 3),
        "ratio_first_pass": round(peer_s / first, 3),
        "ratio_second_pass": round(peer_s / second, 3),
        "wins": sum(map(bool, ours)),
    })
    if args.case == "wild-free":
        report["agreement_with_peer"] = round(sum(bool(a) == b for a, b in zip(ours, peer)) / len(hs), 4)
    if args.verify:
        slow = getattr(ev.recursive, fn_name)
        report["same_as_recursive"] = all(slow(h, [], wild, h[-1]) == o for h, o in zip(hs, ours))
    return report


def build_cost(args) -> dict:
    from engine import Scorer, compile_ruleset

    scorer = Scorer(compile_ruleset(args.rules))
    t = time.process_time()
    checker = scorer.hands.tables
    if checker.wild_free is not None:
        checker.wild_free.tables.load()  # the wild-free tables (else read on the first wild-free check)
    zero = time.process_time() - t
    checker._load_full()  # every table
    return {"case": args.case, "build_wild_free_s": round(zero, 3),
            "build_all_s": round(time.process_time() - t, 3)}


def run(case: str, args, env: dict, repeat: int = 1) -> dict:
    """One case in ``repeat`` fresh processes: the run with the median first-pass ratio, with
    the range of that ratio over the runs (a shared machine's noise is ±20 % per process)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", case, "--rules", args.rules,
           "--checks", str(args.checks), "--seed", str(args.seed)] + (["--verify"] if args.verify else [])
    runs = []
    for _ in range(repeat):
        out = subprocess.run(cmd, env=env, capture_output=True, text=True, cwd=ROOT)
        if out.returncode:
            last = (out.stderr.strip().splitlines() or [f"exit {out.returncode}"])[-1]
            print(f"wincheck.py: the {case!r} worker failed: {last}", file=sys.stderr)
            sys.exit(2)
        runs.append(json.loads(out.stdout))
    if repeat == 1 or "ratio_first_pass" not in runs[0]:
        return runs[0]
    runs.sort(key=lambda r: r["ratio_first_pass"])
    got = dict(runs[len(runs) // 2])
    got["runs"] = repeat
    got["ratio_first_pass_range"] = [runs[0]["ratio_first_pass"], runs[-1]["ratio_first_pass"]]
    return got


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="nanchang", help="a bundled rule file's name or a path (default: nanchang)")
    ap.add_argument("--checks", type=int, default=20000, help="hands checked per case (default: 20000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the hands (default: 1)")
    ap.add_argument("--json", action="store_true", help="the report as JSON")
    ap.add_argument("--verify", action="store_true", help="also compare every answer with the recursive evaluator")
    ap.add_argument("--repeat", type=int, default=5, help="fresh processes per case; the median is reported (default: 5)")
    ap.add_argument("--worker", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        args.case = args.worker
        print(json.dumps(build_cost(args) if args.worker.startswith("build") else worker(args)))
        return
    if args.checks < 1 or args.repeat < 1:
        ap.error("--checks and --repeat must be at least 1")
    try:
        import mahjong.agari  # noqa: F401  (the peer)
    except ImportError:
        print("wincheck.py: the peer is not installed: pip install mahjong (or pip install '.[bench]')",
              file=sys.stderr)
        sys.exit(2)
    env = dict(os.environ)
    env.pop("MJRULES_NO_CACHE", None)
    report: dict = {"rules": args.rules, "checks": args.checks,
                    "peer": "mahjong.agari.Agari.is_agari (MahjongRepository/mahjong)"}
    report["build_without_cache"] = run("build", args, {**env, "MJRULES_NO_CACHE": "1"})
    with tempfile.TemporaryDirectory() as empty:  # a first run: builds, writes the files, the dense forms
        report["first_run_empty_cache"] = run("build-first", args, {**env, "XDG_CACHE_HOME": empty})
    run("build-warm", args, env)  # make sure the cache is present
    report["load_with_cache"] = run("build-cached", args, env)
    for case in ("wild-free", "jing-1", "jing-2", "jing-4", "readings-4"):
        report[case] = run(case, args, env, args.repeat)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
        return
    print(f"rules {args.rules}, {args.checks} hands, peer {report['peer']}")
    b, c = report["build_without_cache"], report["load_with_cache"]
    e = report["first_run_empty_cache"]
    print(f"tables without a cache: wild-free {b['build_wild_free_s']} s, all {b['build_all_s']} s; "
          f"first run with an empty cache (built and written): all {e['build_all_s']} s; "
          f"from the cache: {c['build_wild_free_s']} s, all {c['build_all_s']} s")
    print("per case: our first pass (then: the same hands again), the peer, and the ratio peer/ours of the "
          "run with the median ratio [the lowest–highest ratio of the runs]")
    for case in ("wild-free", "jing-1", "jing-2", "jing-4", "readings-4"):
        r = report[case]
        lo, hi = r.get("ratio_first_pass_range", [r["ratio_first_pass"]] * 2)
        print(f"{case:11s} ours {r['ours_first_pass_us']:7.2f} µs (then {r['ours_second_pass_us']:6.2f})  "
              f"is_agari {r['peer_us']:5.2f} µs  ratio {r['ratio_first_pass']:5.2f}x [{lo:.2f}–{hi:.2f}] "
              f"(then {r['ratio_second_pass']:.2f}x)"
              + (f"  same as recursive: {r['same_as_recursive']}" if "same_as_recursive" in r else ""))


if __name__ == "__main__":
    main()
