"""Which declared patterns and fans four bots actually produce, per bundled ruleset.

For each rule file in ``rulesets/`` (or those named), ``simulate`` plays N seeded hands with four
bots (``value`` by default) and this prints the share of hands each declared pattern and each
fan fired in, the 荒庄 (exhaustive draw) rate, the 精 rules' shares, and every declared pattern or
fan that never fired. The hands are ``simulate``'s: matches of 25 hands seeded from the seed
alone, so the figures do not depend on ``--workers``.

    python benchmarks/coverage.py [-n 10000] [--seed 1] [--bots value] [--workers 2] [--json] [RULES …]

Measured (10,000 hands, seed 1, four value bots): every declared pattern and fan fires in
ganzhou and nanchang-table (大七对 0.26 % in both, 抢杠 0.07 %), and in nanchang
(大七对 0.14 %: ×2 there against ×4 in nanchang-table) and chongguan (抢杠 0.06 %, 包冲关 1.26 %).
荒庄 occurs only in chongguan (its 17-stack dead wall): under the dealer-wall files the hand
ends with a median of 70 of the 83 live tiles still in the wall (the fewest seen: 44 in 400
hands), since with 精 wilds and 十三烂 some seat is always ready within a few turns; folding
(the value bot's FOLD_REACH) does not change that, so 荒庄 there stays out of reach of bots
that always take a win.
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
            pct = lambda d: ", ".join(f"{k} {100 * v:.2f}%" for k, v in d.items())
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
