"""One ``value`` bot against three ``greedy`` bots: the 子 it gains per hand, with a 95 % interval.

Design (paired by hand, a counterfactual): every hand ``i`` is played twice from the same seed —
the same wall, dice and 精, the same bot seeds per seat —

- **A**: the value bot at seat ``i mod 4`` (the seat rotates, so it is the dealer in a quarter
  of the hands), greedy bots at the other three;
- **B**: four greedy bots.

The hand's figure is ``Δ = net_A(seat) − net_B(seat)``: what replacing that seat's greedy bot by
the value bot changed for that seat, everything else equal. The pairing removes most of the
luck of the deal (the 精, a hand dealt close to a win) from the difference, which the plain
"value seat minus the greedy seats' mean in one game" keeps (that one is printed too, for
comparison: since every hand is zero-sum it equals ``4/3 · net_A(seat)``). Hands are single
hands (dealer the first seat, floor 1, no previous hand), so neither run's results leak into
the next hand. The interval is mean ± 1.96 · sd / √N over the N independent hands.

Speed: hands per CPU second (``time.process_time``, this process and finished workers) of
four value bots on one ruleset, measured separately (``--speed N``).

    python benchmarks/value_vs_greedy.py [--rules nanchang] [-n 20000] [--seed 1] [--workers 2]
                                         [--speed 200] [--json]

Measured (nanchang, seed 1, ``-n 20000 --workers 2``): paired Δ +0.282 子 per hand, 95 % interval
[+0.152, +0.411] (in-game +0.455, [+0.178, +0.732]); four value bots 77.4 hands per CPU second,
four greedy bots 249 (both measured while other jobs shared the 2 cores; the value bot is faster
since, benchmarks/loop.py gives the ratio). The run before the value model took the scorer's
figures (payment weights per role, no-win fans) and counted live tiles for the best three
discards only: +0.387, [+0.262, +0.513]. Before the live-tile count and the claim rule the value
bot was at −0.036, [−0.166, +0.093].
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time

from engine.core.scoring import Scorer
from engine.lang.compiler import compile_ruleset
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import hand_seed, play_hand
from engine.tools.runner import run_blocks

BLOCK = 100
_CACHE: dict = {}


def _setup(rules: str):
    if rules not in _CACHE:
        rs = compile_ruleset(rules, {})
        _CACHE[rules] = (rs, Scorer(rs))
    return _CACHE[rules]


def _play(rs, scorer, seed: int, kinds: list[str]) -> dict[str, int]:
    g = Game(rs, seed, scorer=scorer)
    bots = {s: BOTS[k](hand_seed(seed, j)) for j, (s, k) in enumerate(zip(g.seats, kinds))}
    play_hand(g, bots)
    return g.result.net(g.seats)


def _block(args) -> list[tuple[float, float]]:
    """(paired Δ, in-game Δ) for hands ``start … start+count-1``."""
    rules, seed, start, count = args
    rs, scorer = _setup(rules)
    seats = [str(v) for v in rs.table["seats"].values]
    out = []
    for i in range(start, start + count):
        s = hand_seed(seed, i)
        k = i % len(seats)
        kinds = ["greedy"] * len(seats)
        kinds[k] = "value"
        a = _play(rs, scorer, s, kinds)
        b = _play(rs, scorer, s, ["greedy"] * len(seats))
        others = [a[x] for j, x in enumerate(seats) if j != k]
        out.append((a[seats[k]] - b[seats[k]], a[seats[k]] - sum(others) / len(others)))
    return out


def interval(xs: list[float]) -> tuple[float, float, float]:
    """(mean, low, high) of a 95 % normal interval for the mean."""
    n = len(xs)
    mean = sum(xs) / n
    sd = math.sqrt(sum((x - mean) ** 2 for x in xs) / (n - 1)) if n > 1 else 0.0
    half = 1.96 * sd / math.sqrt(n)
    return mean, mean - half, mean + half


def cpu() -> float:
    """CPU seconds of this process and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def speed(rules: str, hands: int, seed: int, kind: str = "value") -> float:
    """Hands per CPU second of four ``kind`` bots (one process, after one warm-up hand)."""
    rs, scorer = _setup(rules)
    seats = [str(v) for v in rs.table["seats"].values]
    _play(rs, scorer, hand_seed(seed, -1), [kind] * len(seats))
    start = time.process_time()
    for i in range(hands):
        _play(rs, scorer, hand_seed(seed, i), [kind] * len(seats))
    return hands / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="nanchang")
    ap.add_argument("-n", "--hands", type=int, default=20_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--speed", type=int, default=200, metavar="N", help="hands for the speed figure (0: skip)")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    out: dict = {"rules": a.rules, "hands": a.hands, "seed": a.seed, "value_seat": "rotated: hand i at seat i mod 4"}
    if a.speed:
        out["value_hands_per_cpu_s"] = round(speed(a.rules, a.speed, a.seed), 1)
        out["greedy_hands_per_cpu_s"] = round(speed(a.rules, a.speed, a.seed, "greedy"), 1)
    blocks = [(a.rules, a.seed, b, min(BLOCK, a.hands - b)) for b in range(0, a.hands, BLOCK)]
    start = cpu()
    paired, ingame = [], []
    for res in run_blocks(_block, blocks, a.workers):
        for p, q in res:
            paired.append(p)
            ingame.append(q)
        print(f"\r{len(paired)} hands", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    out["cpu_s"] = round(cpu() - start, 1)
    m, lo, hi = interval(paired)
    out["paired_delta_zi_per_hand"] = {"mean": round(m, 3), "ci95": [round(lo, 3), round(hi, 3)]}
    m2, lo2, hi2 = interval(ingame)
    out["in_game_delta_zi_per_hand"] = {"mean": round(m2, 3), "ci95": [round(lo2, 3), round(hi2, 3)]}
    if a.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return
    for k, v in out.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
