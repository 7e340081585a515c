"""One bot against three others: the 子 it gains per hand, paired, with a 95 % interval and a p-value.

Design (paired by hand, a counterfactual): every hand ``i`` is played twice from the same seed —
the same wall, dice and 精, the same bot seeds per seat —

- **A**: the ``--bot`` at seat ``i mod 4`` (the seat rotates, so it is the dealer in a quarter
  of the hands), ``--against`` bots at the other three;
- **B**: four ``--against`` bots.

The hand's figure is ``Δ = net_A(seat) − net_B(seat)``: what replacing that seat's bot changed
for that seat, everything else equal. The pairing removes most of the luck of the deal (the 精,
a hand dealt close to a win) from the difference, which the plain "bot seat minus the other
seats' mean in one game" keeps (that one is printed too, for comparison: since every hand is
zero-sum it equals ``4/3 · net_A(seat)``). Hands are single hands (dealer the first seat,
floor 1, no previous hand), so neither run's results leak into the next hand. The interval is
mean ± 1.96 · sd / √N over the N independent hands; the p-value is the two-sided normal one of
the mean against 0. A bot seeded as the bot it replaces (a search bot's value bot too) plays
the same as it until its first different choice (a search bot draws its own order's tie-breaks
apart: it plays a value bot's choices until the search overrules one).

Cost: CPU seconds of the A side per hand (``--bot`` and the others), and for a search bot its
searched decisions and playouts per hand (``bot_cost``). Speed: hands per CPU second
(``time.process_time``) of four ``--bot`` and four ``--against`` bots, measured separately
(``--speed N``; 0 skips it, as a slow bot should).

    python benchmarks/paired_bots.py [--rules nanchang] [--bot value] [--against greedy] [-n 20000]
                                     [--seed 1] [--workers 2] [--speed 200] [--json]

``--bot search:N`` is a search bot of N playouts a decision (``search``: its default).

Measured, value against greedy (nanchang, seed 1, ``-n 20000 --workers 2``): paired Δ +0.282 子
per hand, 95 % interval [+0.152, +0.411] (in-game +0.455, [+0.178, +0.732]); four value bots
77.4 hands per CPU second, four greedy bots 249 (both measured while other jobs shared the 2
cores; the value bot is faster since, benchmarks/loop.py gives the ratio). The run before the
value model took the scorer's figures (payment weights per role, no-win fans) and counted live
tiles for the best three discards only: +0.387, [+0.262, +0.513]. Before the live-tile count
and the claim rule the value bot was at −0.036, [−0.166, +0.093]. The search bot against value
bots: docs/game.md (run it with ``--speed 0``: four search bots for the speed figure take long).
"""
from __future__ import annotations

import argparse
import json
import math
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout's engine, not another installed one

from engine.core.scoring import Scorer  # noqa: E402
from engine.lang.compiler import compile_ruleset  # noqa: E402
from engine.table.bots import kind_error, make_bot  # noqa: E402
from engine.table.game import Game  # noqa: E402
from engine.table.match import hand_seed, play_hand  # noqa: E402
from engine.tools.runner import run_blocks  # noqa: E402
from engine.tools.stats import Dist  # noqa: E402

BLOCK = 100
_CACHE: dict = {}


def _setup(rules: str):
    if rules not in _CACHE:
        rs = compile_ruleset(rules, {})
        _CACHE[rules] = (rs, Scorer(rs))
    return _CACHE[rules]


def _play(rs, scorer, seed: int, kinds: list[str]) -> tuple[dict[str, int], dict]:
    """The seats' nets of one hand, and the bots that played it."""
    g = Game(rs, seed, scorer=scorer)
    bots = {s: make_bot(k, hand_seed(seed, j)) for j, (s, k) in enumerate(zip(g.seats, kinds))}
    play_hand(g, bots)
    return g.result.net(g.seats), bots


def _block(args) -> list[tuple[int, int, float, int, int]]:
    """(paired Δ, in-game Δ times the other seats' number (a whole number), CPU s of the A side, the bot's searched decisions and playouts)
    for hands ``start … start+count-1``."""
    rules, bot, against, seed, start, count = args
    rs, scorer = _setup(rules)
    seats = [str(v) for v in rs.table["seats"].values]
    out = []
    for i in range(start, start + count):
        s = hand_seed(seed, i)
        k = i % len(seats)
        kinds = [against] * len(seats)
        kinds[k] = bot
        t = time.process_time()
        a, bots = _play(rs, scorer, s, kinds)
        spent = time.process_time() - t
        b, _ = _play(rs, scorer, s, [against] * len(seats))
        others = [a[x] for j, x in enumerate(seats) if j != k]
        me = bots[seats[k]]
        out.append((a[seats[k]] - b[seats[k]], len(others) * a[seats[k]] - sum(others), spent,
                    getattr(me, "searched", 0), getattr(me, "played", 0)))
    return out


def p_value(d: Dist) -> float:
    """Two-sided p-value of the mean of ``d`` against 0 (normal approximation)."""
    if d.sd == 0:
        return 1.0 if d.mean == 0 else 0.0
    return math.erfc(abs(d.mean) / (d.sd / math.sqrt(d.n)) / math.sqrt(2))


def dist(xs: list[int]) -> Dist:
    """The whole numbers ``xs`` as a :class:`Dist` (its mean, sd and 95 % interval)."""
    d = Dist()
    for x in xs:
        d.add(x)
    return d


def cpu() -> float:
    """CPU seconds of this process and its finished children."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def speed(rules: str, hands: int, seed: int, kind: str = "value") -> float:
    """Hands per CPU second of four ``kind`` bots (one process, after one warm-up hand)."""
    rs, scorer = _setup(rules)
    seats = [str(v) for v in rs.table["seats"].values]
    _play(rs, scorer, hand_seed(seed, -1), [kind] * len(seats))  # warm-up
    start = time.process_time()
    for i in range(hands):
        _play(rs, scorer, hand_seed(seed, i), [kind] * len(seats))
    return hands / (time.process_time() - start)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rules", default="nanchang", help="a bundled rule file's name or a path (default nanchang)")
    ap.add_argument("--bot", default="value", help="the bot at the rotating seat (search:N: N playouts a decision)")
    ap.add_argument("--against", default="greedy", help="the bots at the other seats, and at every seat in B")
    ap.add_argument("-n", "--hands", type=int, default=20_000, help="paired hands (each played twice; default 20,000)")
    ap.add_argument("--seed", type=int, default=1, help="hand i is dealt from hand_seed(seed, i) (default 1)")
    ap.add_argument("--workers", type=int, default=1, help="processes playing blocks of 100 hands (the figures do not depend on it)")
    ap.add_argument("--speed", type=int, default=200, metavar="N", help="hands for the speed figure (0: skip)")
    ap.add_argument("--json", action="store_true", help="the report as JSON")
    a = ap.parse_args()
    for kind in (a.bot, a.against):
        if kind_error(kind):
            ap.error(kind_error(kind))
    out: dict = {"rules": a.rules, "bot": a.bot, "against": a.against, "hands": a.hands, "seed": a.seed,
                 "bot_seat": "rotated: hand i at seat i mod 4"}
    if a.speed:
        out[f"{a.bot}_hands_per_cpu_s"] = round(speed(a.rules, a.speed, a.seed, a.bot), 1)
        out[f"{a.against}_hands_per_cpu_s"] = round(speed(a.rules, a.speed, a.seed, a.against), 1)
    blocks = [(a.rules, a.bot, a.against, a.seed, b, min(BLOCK, a.hands - b)) for b in range(0, a.hands, BLOCK)]
    start = cpu()
    rows = []
    for res in run_blocks(_block, blocks, a.workers):
        rows += res
        print(f"\r{len(rows)} hands", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    out["cpu_s"] = round(cpu() - start, 1)
    paired = dist([r[0] for r in rows])
    lo, hi = paired.ci95()
    out["paired_delta_zi_per_hand"] = {"mean": round(paired.mean, 3), "ci95": [round(lo, 3), round(hi, 3)],
                                       "p": float(f"{p_value(paired):.3g}"),
                                       "hands_changed": sum(c for v, c in paired.counts.items() if v)}
    others = len(compile_ruleset(a.rules, {}).table["seats"].values) - 1
    scaled = dist([r[1] for r in rows])  # times `others`: the others' mean is a sum over them
    lo, hi = scaled.ci95()
    out["in_game_delta_zi_per_hand"] = {"mean": round(scaled.mean / others, 3),
                                        "ci95": [round(lo / others, 3), round(hi / others, 3)]}
    decisions, playouts, spent = sum(r[3] for r in rows), sum(r[4] for r in rows), sum(r[2] for r in rows)
    out["bot_cost"] = {"a_side_cpu_s_per_hand": round(spent / len(rows), 3),
                       "searched_decisions_per_hand": round(decisions / len(rows), 2),
                       "playouts_per_hand": round(playouts / len(rows), 1),
                       "cpu_ms_per_playout": round(1000 * spent / playouts, 2) if playouts else None}
    if a.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return
    for k, v in out.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
