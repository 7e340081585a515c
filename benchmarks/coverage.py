"""Which declared patterns and fans four bots actually produce, per bundled ruleset.

For each rule file in ``rulesets/`` (or those named), ``simulate`` plays N seeded hands with four
bots (``value`` by default) and this prints the share of hands each declared pattern and each
fan fired in, the 荒庄 (exhaustive draw) rate, the 精 rules' shares, and every declared pattern or
fan that never fired. The hands are ``simulate``'s: matches of 25 hands seeded from the seed
alone, so the figures do not depend on ``--workers``.

    python benchmarks/coverage.py [-n 10000] [--seed 1] [--bots value] [--workers 2] [--json] [RULES …]

Measured (10,000 hands a file, seed 1, four value bots, ``--workers 2``): every declared pattern
and fan fires under all four bundled files (大七对 0.14 % in nanchang, where it pays ×2, against
0.26 % in nanchang-table and ganzhou and 0.20 % in chongguan, where it pays ×4; 精钓 0.03–0.07 %,
抢杠 0.03–0.07 %, 天胡 0.13–0.18 %). 荒庄 occurs in chongguan only (0.10 %: its 17-stack dead wall
leaves 49 live tiles, a median of 36 of them still there when the hand ends). Under nanchang,
nanchang-table and ganzhou (no dead wall, 83 live tiles after the deal) no hand came near it: a
median of 70 live tiles were left when the hand ended, the fewest 34–36, and 4–5 hands in
10,000 ended with 40 or fewer. Eight 精 wilds and 十三烂 make some seat ready within a few
turns, and a seat that is ready wins on a discard or its own draw; folding (the value bot's
FOLD_REACH) does not stop self-drawn wins. So the rarity of 荒庄 there is the rules' (played to
win, hands end long before the wall does), and the hands these bots play cannot show it.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from engine.lang.compiler import compile_ruleset
from engine.tools.simulate import simulate

RULESETS = Path(__file__).resolve().parent.parent / "rulesets"


def coverage(rules: str, hands: int, seed: int, bots: str, workers: int) -> dict:
    """Shares of hands per declared pattern and fan (0 for those that never fired), the 荒庄
    rate, 精 rules, and the names that never fired."""
    rs = compile_ruleset(rules, {})
    start = time.process_time()
    summary = simulate(rules, {}, hands, seed, bots.split(","), workers)
    s = summary.to_json()
    left = sorted(summary.live_left.elements())  # live wall tiles left when each hand ended
    pats = {p: s["patterns"].get(p, 0.0) for p in rs.patterns}
    fans = {f: s["fans"].get(f, 0.0) for f in rs.fans}
    return {"rules": rules, "hands": hands, "seed": seed, "bots": bots,
            "exhaustive_rate": s["exhaustive_rate"], "patterns": pats, "fans": fans,
            "jing_rules": s["jing_rules"], "win_by": s["win_by"],
            "live_left": {"fewest": left[0], "median": left[len(left) // 2], "most": left[-1],
                          "hands_ending_with_at_most": {n: sum(1 for x in left if x <= n) for n in (0, 10, 20, 30, 40)}},
            "never_fired": [f"pattern {p}" for p, v in pats.items() if not v] + [f"fan {f}" for f, v in fans.items() if not v],
            "cpu_s_parent": round(time.process_time() - start, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("rules", nargs="*")
    ap.add_argument("-n", "--hands", type=int, default=10_000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--bots", default="value")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    names = a.rules or sorted(p.stem for p in RULESETS.glob("*.rules"))
    out = []
    for name in names:
        c = coverage(name, a.hands, a.seed, a.bots, a.workers)
        out.append(c)
        if not a.json:
            def pct(d):
                return ", ".join(f"{k} {100 * v:.2f}%" for k, v in d.items())
            print(f"{name}: {a.hands} hands, bots {a.bots}, 荒庄 {100 * c['exhaustive_rate']:.2f}%")
            print(f"  patterns: {pct(c['patterns'])}")
            print(f"  fans: {pct(c['fans'])}")
            print(f"  精 rules: {pct(c['jing_rules'])}")
            print(f"  never fired: {', '.join(c['never_fired']) or 'none'}")
            w = c["live_left"]
            print(f"  live wall left when the hand ended: median {w['median']}, fewest {w['fewest']}; hands ending with "
                  + ", ".join(f"≤ {n}: {k}" for n, k in w["hands_ending_with_at_most"].items()))
            sys.stdout.flush()
    if a.json:
        print(json.dumps(out, ensure_ascii=False, indent=2))


if __name__ == "__main__":
    main()
