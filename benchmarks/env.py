"""Cost of a step of the PettingZoo environment (engine/env/) against the bare game loop's, in
CPU time (``time.process_time``), measured in the same run (not a timed test).

The same hands on both sides (hand ``h`` of a round is the first hand of a match seeded
``seed + h``: ``Match(...).deal()`` for the loop, ``env.reset(seed=...)`` for the environment),
each seat taking a uniformly random legal action:

- ``loop``: ``Game.legal_actions`` then ``Game.apply`` — what ``simulate`` does with random bots;
- ``env``: ``env.last()`` (the seat's observation, from ``seat_view``, and its mask) then
  ``env.step(entry)``: what an agent being trained pays for each decision;
- ``env_no_obs``: ``env.last(observe=False)`` and ``env.action_mask(agent)``, without the
  observation: the environment's own bookkeeping (the mask, the entries, the AEC turns).

The sides are interleaved over ``--rounds`` rounds (a slow spell of a shared machine then falls
on every side); the report gives CPU µs per step of each and ``env / loop``, the issue's measure
(its goal: at most 1.3). Peer: RLCard's mahjong environment (``pip install rlcard``), steps per
CPU second with random legal actions, a different game (no 精, no payments); skipped with the
reason when it is not installed. riichienv is not measured here.

    python benchmarks/env.py [--rules nanchang] [--hands 100] [--rounds 3] [--seed 1] [--peer-hands 100] [--json]

CPU time on a shared machine is noisy; instruction counts are not. ``--side loop|env|env_no_obs``
plays ``--hands`` hands of that side alone and prints its steps, for callgrind: a side's
instructions a step are the difference of two runs' totals (say 20 and 60 hands) over the
difference of their steps (docs/env.md gives the commands)::

    valgrind --tool=callgrind --callgrind-out-file=cg.out python benchmarks/env.py --side env --hands 60
"""
from __future__ import annotations

import argparse
import json
import random
import time

import numpy as np

from engine.env import MahjongEnv, mjrules_env
from engine.table.match import Match


def loop(env: MahjongEnv, hands: int, seed: int) -> tuple[float, int]:
    """(CPU seconds, steps) of ``hands`` hands of the bare game loop with random legal actions."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for h in range(hands):
        game = Match(env.ruleset, seed + h, scorer=env.scorer, keep=False).deal()
        while not game.over:
            game.apply(rng.choice(game.legal_actions(game.to_act()[0])))
            steps += 1
    return time.process_time() - start, steps


def env_steps(env: MahjongEnv, hands: int, seed: int, observe: bool) -> tuple[float, int]:
    """(CPU seconds, steps) of ``hands`` hands through the AEC API with random masked entries
    (the terminated agents' final ``step(None)`` not counted as steps)."""
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for h in range(hands):
        env.reset(seed=seed + h)
        for agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last(observe)
            if term or trunc:
                env.step(None)
                continue
            mask = obs["action_mask"] if obs is not None else env.action_mask(agent)
            env.step(rng.choice(np.flatnonzero(mask).tolist()))
            steps += 1
    return time.process_time() - start, steps


def peer(hands: int, seed: int) -> tuple[float, int] | str:
    """(CPU seconds, steps) of RLCard's mahjong environment with random legal actions, or why not."""
    try:
        import rlcard
    except ImportError:
        return "rlcard not installed: pip install rlcard"
    env = rlcard.make("mahjong", config={"seed": seed})
    rng = random.Random(seed)
    steps = 0
    start = time.process_time()
    for _ in range(hands):
        state, _ = env.reset()
        while not env.is_over():
            state, _ = env.step(rng.choice(list(state["legal_actions"])))
            steps += 1
    return time.process_time() - start, steps


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rules", default="nanchang")
    ap.add_argument("--hands", type=int, default=100, help="hands per side per round")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--peer-hands", type=int, default=100, help="RLCard hands per round (0: skip)")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--side", choices=("loop", "env", "env_no_obs"), help="play this side alone, print its steps")
    a = ap.parse_args()
    env = mjrules_env(a.rules, seed=a.seed)
    loop(env, 5, a.seed + 10_000)  # warm: the parser built, the win tables read
    env_steps(env, 5, a.seed + 10_000, True)
    if a.side:
        played = loop(env, a.hands, a.seed) if a.side == "loop" else env_steps(env, a.hands, a.seed, a.side == "env")
        print(played[1])
        return
    sides = {"loop": [0.0, 0], "env": [0.0, 0], "env_no_obs": [0.0, 0], "rlcard": [0.0, 0]}
    rounds: list[dict[str, float]] = []
    why_no_peer = None
    for r in range(a.rounds):
        seed = a.seed + r * a.hands
        got = {"loop": loop(env, a.hands, seed), "env": env_steps(env, a.hands, seed, True),
               "env_no_obs": env_steps(env, a.hands, seed, False)}
        if a.peer_hands:
            p = peer(a.peer_hands, seed)
            if isinstance(p, str):
                why_no_peer = p
            else:
                got["rlcard"] = p
        for k, (cpu, steps) in got.items():
            sides[k][0] += cpu
            sides[k][1] += steps
        per = {k: cpu / steps * 1e6 for k, (cpu, steps) in got.items()}
        rounds.append({"env_to_loop": per["env"] / per["loop"], "env_no_obs_to_loop": per["env_no_obs"] / per["loop"]})
    us = {k: cpu / steps * 1e6 for k, (cpu, steps) in sides.items() if steps}
    out = {
        "rules": a.rules, "hands_per_round": a.hands, "rounds": a.rounds,
        "us_per_step": {k: round(v, 2) for k, v in us.items()},
        "steps_per_cpu_second": {k: round(1e6 / v) for k, v in us.items()},
        "env_to_loop": round(us["env"] / us["loop"], 2),
        "env_no_obs_to_loop": round(us["env_no_obs"] / us["loop"], 2),
        "per_round": [{k: round(v, 2) for k, v in r.items()} for r in rounds],
        "peer": why_no_peer or "rlcard mahjong, random legal actions",
    }
    if a.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    print(f"{a.rules}: {a.rounds} rounds of {a.hands} hands a side (CPU time)")
    for k, v in us.items():
        print(f"  {k:<11} {v:8.1f} µs a step   {1e6 / v:9.0f} steps per CPU second")
    print(f"  env / loop = {out['env_to_loop']}× (goal ≤ 1.3×); without the observation "
          f"{out['env_no_obs_to_loop']}×; per round: " + ", ".join(f"{r['env_to_loop']:.2f}" for r in rounds))
    if why_no_peer:
        print(f"  peer skipped: {why_no_peer}")


if __name__ == "__main__":
    main()
