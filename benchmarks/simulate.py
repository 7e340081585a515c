"""Speed of mjrules, measured against a named peer in the same run (not a timed test).

1. Hands per second of `mjrules simulate`-style play: random bots and greedy bots.
2. Win checks per second: the engine's generic evaluator (engine.core.hands.HandEvaluator.is_win,
   compiled from the rule file's meld shapes) against the peer `mahjong.agari.Agari.is_agari`
   of MahjongRepository/mahjong (pip install mahjong; riichi rules: 4 sets + pair, 七对,
   国士), on the same random near-win hands, without wilds and with two 精 wilds.

    python benchmarks/simulate.py [--rules nanchang] [--hands 200] [--checks 20000] [--json]
"""
from __future__ import annotations

import argparse
import json
import random
import time

from engine import Scorer, compile_ruleset
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import play_hand


def hands_per_second(scorer: Scorer, bot: str, hands: int, seed: int) -> float:
    start = time.perf_counter()
    for i in range(hands):
        g = Game(scorer.rs, seed + i, scorer=scorer)
        play_hand(g, {s: BOTS[bot](seed + i * 7 + k) for k, s in enumerate(g.seats)})
    return hands / (time.perf_counter() - start)


def near_win_hands(scorer: Scorer, n: int, seed: int) -> list[list[int]]:
    """14-tile hands of suited tiles: four runs/pungs and a pair, then one tile in three changed
    (so about a third are wins) — the kind of hand a game asks about."""
    rng = random.Random(seed)
    suited = [k.index for k in scorer.tiles.kinds if k.is_suit]
    out = []
    while len(out) < n:
        tiles: list[int] = []
        for _ in range(4):
            t = rng.choice(suited)
            k = scorer.tiles.kinds[t]
            if rng.random() < 0.5 and k.position + 2 < len(scorer.tiles.groups[k.group].kinds):
                tiles += [t, t + 1, t + 2]
            else:
                tiles += [t, t, t]
        p = rng.choice(suited)
        tiles += [p, p]
        if rng.random() < 0.66:
            tiles[rng.randrange(14)] = rng.choice(suited)
        if max(tiles.count(x) for x in tiles) <= 4:
            out.append(tiles)
    return out


def checks_per_second(fn, hands) -> tuple[float, list[bool]]:
    start = time.perf_counter()
    answers = [fn(h) for h in hands]
    return len(hands) / (time.perf_counter() - start), answers


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="nanchang")
    ap.add_argument("--hands", type=int, default=200, help="hands per bot kind")
    ap.add_argument("--checks", type=int, default=20000, help="win checks per evaluator")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    scorer = Scorer(compile_ruleset(args.rules))
    report: dict = {"rules": args.rules}
    report["random_hands_per_s"] = round(hands_per_second(scorer, "random", args.hands, args.seed), 1)
    report["greedy_hands_per_s"] = round(hands_per_second(scorer, "greedy", args.hands, args.seed), 1)

    hands = near_win_hands(scorer, args.checks, args.seed)
    ev = scorer.hands
    none = frozenset()
    # two 精: the indicator 3p makes 3p and 4p wild; hands keep their tiles, so some now hold 精
    ind = scorer.tiles.parse_one("3p")
    wild = frozenset({ind, scorer.tiles.successor(ind)})
    ours, our_answers = checks_per_second(lambda h: ev.is_win(h, [], none, h[-1]), hands)
    ours_wild, _ = checks_per_second(lambda h: ev.is_win(h, [], wild, h[-1]), hands)
    report["engine_checks_per_s"] = round(ours)
    report["engine_checks_per_s_with_2_wild_kinds"] = round(ours_wild)
    try:
        from mahjong.agari import Agari
    except ImportError:
        report["peer"] = "mahjong (MahjongRepository) not installed: pip install mahjong"
    else:
        # the peer's 34-tile index: 0-8 m, 9-17 p, 18-26 s, then honours; ours is the rule
        # file's order, the same for suits m p s
        def to34(h):
            c = [0] * 34
            for t in h:
                c[t] += 1
            return c

        hands34 = [to34(h) for h in hands]
        peer, peer_answers = checks_per_second(Agari.is_agari, hands34)
        report["peer"] = "mahjong.agari.Agari.is_agari (MahjongRepository/mahjong)"
        report["peer_checks_per_s"] = round(peer)
        report["engine_to_peer_ratio"] = round(ours / peer, 3)
        report["agreement_on_these_hands"] = round(sum(a == b for a, b in zip(our_answers, peer_answers)) / len(hands), 4)
    if args.json:
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for k, v in report.items():
            print(f"{k:40s} {v}")


if __name__ == "__main__":
    main()
