"""Speed of the game loop, in CPU time, against a named peer measured in the same run (not a
timed test).

1. Hands per CPU second (``time.process_time``) of ``simulate`` (the same seeds on every run,
   after ``--warm`` hands of each bot kind, so that the rounds measure a long run's steady
   state) with four random bots and with four greedy bots, in ``--rounds`` rounds interleaved
   with the peer's (a slow spell of a shared machine then falls on both sides); the totals give
   the rates, and the ratio of each round is listed too. Each kind, and the peer, runs in a
   worker process of its own (forked), as a real run of it would: in one process each paid for
   the heap the others had left (after the value bots' rounds the random bots' were about 9 %
   slower, the peer's 4 %); ``--one-process`` measures that way still.
2. The peer: RLCard's mahjong environment (``rlcard.make("mahjong")``, pip install rlcard) with
   four ``RandomAgent``s, hands per CPU second of ``env.run`` on the same machine in the same
   run; the report gives our rate divided by the peer's. The games differ (RLCard plays a plain
   four-player game without 精 wilds or payments), so the ratio is the speed of a whole hand
   of each engine's loop, not of the same rules.
   Four ``value`` bots are measured in the same rounds against our own greedy bots (the peer
   there): ``value_to_greedy_ratio``, hands per CPU second of the one over the other. Both
   play the same deals (as many hands, the same seeds): deals differ in how long their hands
   last, and 40 value hands a round against 150 greedy ones gave per-round ratios from 0.37 to
   0.74 by seed alone.
3. Memory: the peak resident set (VmHWM, MiB) of a child process running
   ``mjrules simulate RULES -n 1000`` (random bots, one worker).

    python benchmarks/loop.py [--rules nanchang] [--random 300] [--greedy 150] [--value N] [--peer 100 (0: skip)] [--rounds 5]
                              [--warm 100]
                              [--memory-hands 1000] [--profile random|greedy|value] [--one-process] [--json]

``--profile KIND`` prints the cProfile functions taking the most time for that bot kind.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine, not another installed one

from engine.errors import MjError  # noqa: E402
from engine.tools.simulate import compiled, simulate  # noqa: E402


def ours(rules: str, bots: str, hands: int, seed: int) -> float:
    """CPU seconds of ``simulate`` of ``hands`` hands with four ``bots`` (one process; call
    :func:`warm` first: the grammar's parser is built once per process, start-up not loop)."""
    start = time.process_time()
    simulate(rules, {}, hands, seed, [bots])
    return time.process_time() - start


def warm(rules: str, kind: str, seed: int, hands: int) -> None:
    """Play ``hands`` hands of one bot kind first (seeds apart from the measured ones), so that
    the rounds measure the steady state of a long run: the parser built, the win tables read,
    the bots' shanten memos (bounded, engine/core/shanten.py) filled as a long simulate fills them."""
    simulate(rules, {}, hands if kind != "random" else 1, seed + 10_000, [kind])


KINDS = ("random", "greedy", "value", "peer")  # what a round measures, in its order


class InProcess:
    """Measures one kind (a bot kind, or ``peer``) in this process: warmed once, then
    :meth:`run` gives the CPU seconds of ``hands`` hands on ``seed`` (or why the peer cannot run)."""

    def __init__(self, kind: str, rules: str, seed: int, warm_hands: int):
        self.kind, self.rules = kind, rules
        if kind != "peer":
            warm(rules, kind, seed, warm_hands)

    def run(self, hands: int, seed: int) -> float | str:
        return peer(hands, seed) if self.kind == "peer" else ours(self.rules, self.kind, hands, seed)

    def close(self) -> None:
        pass


def _serve(conn, kind: str, rules: str, seed: int, warm_hands: int) -> None:
    """A worker's loop: warm, say ready, then answer each (hands, seed) with :meth:`InProcess.run`."""
    try:
        m = InProcess(kind, rules, seed, warm_hands)
        conn.send(("ok", None))
        while (msg := conn.recv()) is not None:
            conn.send(("ok", m.run(*msg)))
    except Exception as e:  # noqa: BLE001 - reported to the parent, which stops the run with it
        conn.send(("error", f"{type(e).__name__}: {e}"))


class Worker:
    """Measures one kind as :class:`InProcess` does, in a process of its own (forked, so Linux
    or macOS), as a real run of that kind would be: measured in one process, each kind paid for
    the heap the others had left (the value bots' memos made the random bots' rounds about 9 %
    slower, the peer's 4 %)."""

    def __init__(self, kind: str, rules: str, seed: int, warm_hands: int):
        self.kind = kind
        ctx = multiprocessing.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(target=_serve, args=(child, kind, rules, seed, warm_hands), daemon=True)
        self.proc.start()

    def _answer(self) -> float | str | None:
        status, value = self.conn.recv()
        if status == "error":
            raise SystemExit(f"loop.py: the {self.kind} worker failed: {value}")
        return value

    def ready(self) -> None:
        """Wait for the worker's warm-up."""
        self._answer()

    def run(self, hands: int, seed: int) -> float | str:
        self.conn.send((hands, seed))
        got = self._answer()
        assert got is not None, "a round answers with its CPU seconds"
        return got

    def close(self) -> None:
        try:
            self.conn.send(None)
        except OSError:
            pass  # the worker has stopped already (its error is the one reported)
        self.proc.join(timeout=30)


def peer(hands: int, seed: int) -> float | str:
    """CPU seconds of ``hands`` hands of RLCard's mahjong env with four random agents, or why not."""
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
    return time.process_time() - start


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
    if r.returncode != 0:
        said = [line for line in r.stderr.splitlines() if line.strip() and not line.startswith("VmHWM ")]
        return f"the child simulate failed (exit {r.returncode}): {said[-1] if said else 'no message'}"
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


class _Defaults(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default unless it has none to show (None, a flag's False)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default in (None, False):
            return action.help
        return super()._get_help_string(action)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=_Defaults)
    ap.add_argument("--rules", default="nanchang", help="a bundled rule file's name or a path")
    ap.add_argument("--random", type=int, default=300, help="hands with random bots, each round")
    ap.add_argument("--greedy", type=int, default=150, help="hands with greedy bots, each round")
    ap.add_argument("--value", type=int, default=None,
                    help="hands with value bots, each round (default: as many as --greedy, the same deals; 0: skip)")
    ap.add_argument("--peer", type=int, default=100, help="RLCard hands, each round (0: skip)")
    ap.add_argument("--rounds", type=int, default=5,
                    help="interleaved rounds (each: random, greedy, value, peer), seeds --seed, --seed + 1, …")
    ap.add_argument("--warm", type=int, default=100, help="hands of each bot kind played before the rounds")
    ap.add_argument("--memory-hands", type=int, default=1000, help="hands of the child simulate whose peak memory is read")
    ap.add_argument("--seed", type=int, default=1, help="the first round's seed")
    ap.add_argument("--profile", choices=("random", "greedy", "value"),
                    help="instead of the rounds: the cProfile functions taking the most time for that bot kind")
    ap.add_argument("--one-process", action="store_true",
                    help="measure every kind in this one process (each then pays for the heap the others left)")
    ap.add_argument("--json", action="store_true", help="the report as JSON")
    args = ap.parse_args()
    for name in ("random", "greedy", "rounds", "memory_hands"):
        if getattr(args, name) < 1:
            ap.error(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(args, name)})")
    for name in ("warm", "value", "peer", "seed"):
        if getattr(args, name) is not None and getattr(args, name) < 0:
            ap.error(f"--{name} must be 0 or more (got {getattr(args, name)})")
    try:
        compiled(args.rules, {})  # a bad --rules is said here, not by a worker's traceback
    except MjError as e:
        print(f"loop.py: --rules {args.rules}: {e.render()}", file=sys.stderr)
        raise SystemExit(2) from None
    if args.value is None:
        args.value = args.greedy
    if args.profile:
        hands = {"random": args.random, "greedy": args.greedy, "value": args.value}[args.profile]
        profile(args.rules, args.profile, hands, args.seed)
        return
    report: dict = {"rules": args.rules, "clock": "CPU time (time.process_time)", "rounds": args.rounds,
                    "processes": "one" if args.one_process else "one per kind",
                    "hands_per_round": {k: v for k, v in (("random", args.random), ("greedy", args.greedy),
                                                          ("value", args.value), ("peer", args.peer)) if v}}
    kinds = [k for k in KINDS if (k != "value" or args.value) and (k != "peer" or args.peer)]
    if args.one_process:
        meters: dict[str, InProcess | Worker] = {k: InProcess(k, args.rules, args.seed, args.warm) for k in kinds}
    else:
        workers = {k: Worker(k, args.rules, args.seed, args.warm) for k in kinds}
        for w in workers.values():
            w.ready()
        meters = dict(workers)
    # interleaved rounds (random, greedy, value, the peer; seeds seed, seed + 1, …): a slow
    # spell of this shared machine then falls on all of them, not on one
    cpu = {"random": 0.0, "greedy": 0.0, "value": 0.0, "peer": 0.0}
    rounds: list[tuple[float, float, float]] = []
    value_rounds: list[float] = []
    p: float | str = 0.0 if args.peer else "skipped (--peer 0)"
    try:
        for r in range(args.rounds):
            t_random = meters["random"].run(args.random, args.seed + r)
            t_greedy = meters["greedy"].run(args.greedy, args.seed + r)
            assert isinstance(t_random, float) and isinstance(t_greedy, float), "our rounds give CPU seconds"
            cpu["random"] += t_random
            cpu["greedy"] += t_greedy
            if args.value:
                t_value = meters["value"].run(args.value, args.seed + r)
                assert isinstance(t_value, float), "our rounds give CPU seconds"
                cpu["value"] += t_value
                value_rounds.append((args.value / t_value) / (args.greedy / t_greedy))
            if isinstance(p, str):
                continue  # no peer here (said in the report): our rounds still all run
            p = meters["peer"].run(args.peer, args.seed + r)
            if isinstance(p, str):
                continue
            cpu["peer"] += p
            rounds.append((args.random / t_random, args.greedy / t_greedy, args.peer / p))
    finally:
        for m in meters.values():
            m.close()
    n = args.rounds
    rate = {k: hands * n / cpu[k] for k, hands in (("random", args.random), ("greedy", args.greedy),
                                                    ("value", args.value), ("peer", args.peer)) if cpu[k]}
    report["random_hands_per_cpu_s"] = round(rate["random"], 1)
    report["greedy_hands_per_cpu_s"] = round(rate["greedy"], 1)
    if args.value:
        report["value_hands_per_cpu_s"] = round(rate["value"], 1)
        report["value_to_greedy_ratio"] = round(rate["value"] / rate["greedy"], 2)  # of the unrounded rates
        report["value_to_greedy_ratio_per_round"] = [round(x, 2) for x in value_rounds]
    if isinstance(p, str):
        report["peer"] = p
        report["hands_per_round"].pop("peer", None)  # none were played
    else:
        report["peer"] = "rlcard.make('mahjong') with four RandomAgent, env.run"
        report["peer_hands_per_cpu_s"] = round(rate["peer"], 1)
        report["random_to_peer_ratio"] = round(rate["random"] / rate["peer"], 2)
        report["greedy_to_peer_ratio"] = round(rate["greedy"] / rate["peer"], 2)
        report["random_ratio_per_round"] = [round(a / c, 2) for a, _, c in rounds]
        report["greedy_ratio_per_round"] = [round(b / c, 2) for _, b, c in rounds]
    report[f"peak_rss_mib_simulate_{args.memory_hands}"] = peak_rss_mib(args.rules, args.memory_hands, args.seed)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for k, v in report.items():
            shown = ", ".join(f"{a} {b}" for a, b in v.items()) if isinstance(v, dict) else v
            print(f"{k:40s} {shown}")


if __name__ == "__main__":
    main()
