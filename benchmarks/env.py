"""Cost of a step of the PettingZoo environment (engine/env/) against the bare game loop's, in
CPU time (``time.process_time``), measured in the same run (not a timed test).

The same hands on both sides (hand ``h`` of a round is the first hand of a match seeded
``seed + h``: ``Match(...).deal()`` for the loop, ``env.reset(seed=...)`` for the environment),
each seat taking a uniformly random legal action:

- ``loop``: ``Game.legal_actions`` then ``Game.apply`` — what ``simulate`` does with random bots;
- ``env``: ``env.last()`` (the seat's observation, from ``seat_view``, and its mask) then
  ``env.step(entry)``: what an agent being trained pays for each decision;
- ``env_no_obs``: ``env.last(observe=False)`` and ``env.action_mask(agent)``, without the
  observation: the environment's own bookkeeping (the mask, the entries, the AEC turns);
- ``floor``: the same agent loop over :class:`FloorEnv`, PettingZoo's AEC turns with no game and
  an observation that only copies an array of the real shape: what any environment of this API
  costs a step at the least. The report sets it against what the 1.3× goal allows over the loop.

The sides are interleaved over ``--rounds`` rounds (a slow spell of a shared machine then falls
on every side); the report gives CPU µs per step of each and ``env / loop``, the issue's measure
(its goal: at most 1.3). Peer: RLCard's mahjong environment (``pip install rlcard``), steps per
CPU second with random legal actions, a different game (no 精, no payments); skipped with the
reason when it is not installed. riichienv is not measured here.

    python benchmarks/env.py [--rules nanchang] [--hands 100] [--rounds 3] [--seed 1] [--peer-hands 100] [--json]

CPU time on a shared machine is noisy; instruction counts are not. ``--side loop|env|env_no_obs|floor``
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
from typing import ClassVar

import numpy as np
from pettingzoo import AECEnv

from engine.env import MahjongEnv, mjrules_env
from engine.env.aec import open_turns
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


def env_steps(env: MahjongEnv | FloorEnv, hands: int, seed: int, observe: bool) -> tuple[float, int]:
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


class FloorEnv(AECEnv):  # type: ignore[misc]  # pettingzoo has no types
    """The floor under any environment of this shape: PettingZoo's AEC turns with no game at all.
    Four agents take turns for ``length`` steps a hand; ``observe`` copies an array of the real
    observation's shape and marks one cell (what any observation costs at the least), the mask
    has the real action space's size with ``legal`` entries set. What it costs a step is what
    the API and the agent's loop cost before a single rule is played or a tile encoded."""

    metadata: ClassVar[dict[str, object]] = {"name": "floor_v0", "is_parallelizable": False}

    def __init__(self, like: MahjongEnv, length: int = 60, legal: int = 14) -> None:
        super().__init__()
        self.possible_agents = list(like.possible_agents)
        self.blank = np.zeros(like.layout.shape, np.int16)
        self.mask = np.zeros(like.space.n, np.int8)
        self.mask[:legal] = 1
        self.length, self.played = length, 0

    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:
        open_turns(self)
        self.agent_selection, self.played = self.agents[0], 0

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        planes = self.blank.copy()
        planes[0, self.played % planes.shape[1]] = 1
        return {"observation": planes, "action_mask": self.mask}

    def action_mask(self, agent: str) -> np.ndarray:
        return self.mask

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent]:
            for d in (self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos):
                del d[agent]
            self.agents.remove(agent)
            if self.agents:
                self.agent_selection = self.agents[0]
            return
        self.played += 1
        if self.played >= self.length:
            for a in self.agents:
                self.terminations[a] = True
        self.agent_selection = self.possible_agents[self.played % len(self.possible_agents)]


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
    ap.add_argument("--side", choices=("loop", "env", "env_no_obs", "floor"), help="play this side alone, print its steps")
    a = ap.parse_args()
    env = mjrules_env(a.rules, seed=a.seed)
    loop(env, 5, a.seed + 10_000)  # warm: the parser built, the win tables read
    env_steps(env, 5, a.seed + 10_000, True)
    if a.side:
        played = loop(env, a.hands, a.seed) if a.side == "loop" else \
            env_steps(FloorEnv(env) if a.side == "floor" else env, a.hands, a.seed, a.side != "env_no_obs")
        print(played[1])
        return
    floor = FloorEnv(env)
    sides = {"loop": [0.0, 0], "env": [0.0, 0], "env_no_obs": [0.0, 0], "floor": [0.0, 0], "rlcard": [0.0, 0]}
    rounds: list[dict[str, float]] = []
    why_no_peer = None
    for r in range(a.rounds):
        seed = a.seed + r * a.hands
        got = {"loop": loop(env, a.hands, seed), "env": env_steps(env, a.hands, seed, True),
               "env_no_obs": env_steps(env, a.hands, seed, False), "floor": env_steps(floor, a.hands, seed, True)}
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
        # what the 1.3× goal leaves an environment over the loop, and how much of it PettingZoo's turns take alone
        "goal_allowance_us": round(0.3 * us["loop"], 2),
        "floor_share_of_allowance": round(us["floor"] / (0.3 * us["loop"]), 2),
        "per_round": [{k: round(v, 2) for k, v in r.items()} for r in rounds],
        "peer": why_no_peer or "rlcard mahjong, random legal actions",
    }
    if a.json:
        print(json.dumps(out, indent=2, ensure_ascii=False))
        return
    print(f"{a.rules}: {a.rounds} round{'s' * (a.rounds != 1)} of {a.hands} hand{'s' * (a.hands != 1)} a side (CPU time)")
    for k, v in us.items():
        print(f"  {k:<11} {v:8.1f} µs a step   {1e6 / v:9.0f} steps per CPU second")
    print(f"  env / loop = {out['env_to_loop']}× (goal ≤ 1.3×); without the observation "
          f"{out['env_no_obs_to_loop']}×; per round: " + ", ".join(f"{r['env_to_loop']:.2f}" for r in rounds))
    print(f"  the goal leaves {out['goal_allowance_us']} µs a step over the loop; PettingZoo's turns with no game "
          f"(floor) take {us['floor']:.1f} µs of it ({out['floor_share_of_allowance']:.0%})")
    if why_no_peer:
        print(f"  peer skipped: {why_no_peer}")


if __name__ == "__main__":
    main()
