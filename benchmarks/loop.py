"""Speed of the game loop, in CPU time, against a named peer measured in the same run (not a
timed test; issue 8).

1. Hands per CPU second (``time.process_time``) of ``simulate`` (one process, the same seeds on
   every run, after a one-hand warm-up) with four random bots and with four greedy bots.
2. The peer: RLCard's mahjong environment (``rlcard.make("mahjong")``, pip install rlcard) with
   four ``RandomAgent``s, hands per CPU second of ``env.run`` on the same machine in the same
   run; the report gives our rate divided by the peer's. The games differ (RLCard plays a plain
   four-player game without 精 wilds or payments), so the ratio is the speed of a whole hand
   of each engine's loop, not of the same rules.
3. Memory: the peak resident set (VmHWM, MiB) of a child process running
   ``mjrules simulate RULES -n 1000`` (random bots, one worker).

    python benchmarks/loop.py [--rules nanchang] [--random 300] [--greedy 150] [--peer 100]
                              [--memory-hands 1000] [--profile random|greedy] [--json]

``--profile KIND`` prints the cProfile functions taking the most time for that bot kind.
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time

from engine.tools.simulate import simulate


def ours(rules: str, bots: str, hands: int, seed: int) -> float:
    """Hands per CPU second of ``simulate`` with four ``bots`` (one process), after one warm-up
    hand: the grammar's parser is built once per process (start-up, not the loop)."""
    simulate(rules, {}, 1, seed, [bots])
    start = time.process_time()
    simulate(rules, {}, hands, seed, [bots])
    return hands / (time.process_time() - start)


def peer(hands: int, seed: int) -> float | str:
    """Hands per CPU second of RLCard's mahjong env with four random agents, or why not."""
    try:
        import rlcard
        from rlcard.agents import RandomAgent
    except ImportError:
        return "rlcard not installed: pip install rlcard"
    env = rlcard.make("mahjong", config={"seed": seed})
    env.set_agents([RandomAgent(num_actions=env.num_actions) for _ in range(env.num_players)])
    start = time.process_time()
    for _ in range(hands):
        env.run(is_training=False)
    return hands / (time.process_time() - start)


_CHILD = """
import atexit, runpy, sys
def hwm():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            sys.stderr.write("VmHWM " + line.split()[1] + "\\n")
atexit.register(hwm)
sys.argv = ["mjrules"] + sys.argv[1:]
runpy.run_module("engine", run_name="__main__")
"""


def peak_rss_mib(rules: str, hands: int, seed: int) -> float | str:
    """Peak RSS (VmHWM, MiB) of a child ``mjrules simulate`` of ``hands`` random hands. Read in
    the child itself: a fork's ``ru_maxrss`` would count the parent's pages it started with."""
    r = subprocess.run([sys.executable, "-c", _CHILD, "simulate", rules, "-n", str(hands), "--seed", str(seed),
                        "--json", "--bots", "random"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    kib = [line.split()[1] for line in r.stderr.splitlines() if line.startswith("VmHWM ")]
    return round(int(kib[-1]) / 1024, 1) if kib else "no /proc/self/status here (Linux only)"


def profile(rules: str, bots: str, hands: int, seed: int, top: int = 20) -> None:
    """Print where the time goes for ``hands`` hands with four ``bots``."""
    import cProfile
    import pstats

    pr = cProfile.Profile()
    pr.enable()
    simulate(rules, {}, hands, seed, [bots])
    pr.disable()
    pstats.Stats(pr, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="nanchang")
    ap.add_argument("--random", type=int, default=300, help="hands with random bots")
    ap.add_argument("--greedy", type=int, default=150, help="hands with greedy bots")
    ap.add_argument("--peer", type=int, default=100, help="RLCard hands")
    ap.add_argument("--memory-hands", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", choices=("random", "greedy"))
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    if args.profile:
        profile(args.rules, args.profile, args.random if args.profile == "random" else args.greedy, args.seed)
        return
    report: dict = {"rules": args.rules, "clock": "CPU time (time.process_time)"}
    report["random_hands_per_cpu_s"] = round(ours(args.rules, "random", args.random, args.seed), 1)
    report["greedy_hands_per_cpu_s"] = round(ours(args.rules, "greedy", args.greedy, args.seed), 1)
    p = peer(args.peer, args.seed)
    if isinstance(p, str):
        report["peer"] = p
    else:
        report["peer"] = "rlcard.make('mahjong') with four RandomAgent, env.run"
        report["peer_hands_per_cpu_s"] = round(p, 1)
        report["random_to_peer_ratio"] = round(report["random_hands_per_cpu_s"] / p, 2)
        report["greedy_to_peer_ratio"] = round(report["greedy_hands_per_cpu_s"] / p, 2)
    report[f"peak_rss_mib_simulate_{args.memory_hands}"] = peak_rss_mib(args.rules, args.memory_hands, args.seed)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for k, v in report.items():
            print(f"{k:40s} {v}")


if __name__ == "__main__":
    main()
