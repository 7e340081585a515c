"""How does the hand play as a PettingZoo parallel environment? :class:`MahjongParallelEnv`
steps, at once, every seat the game asks at one moment.

PettingZoo's ``aec_to_parallel`` is not valid for this game: it needs every agent to act once
per cycle, in a fixed order (``metadata["is_parallelizable"]``), while a hand asks one seat
at a time except when a discard (or a kong to rob) waits for claims; and its turn-based
converter steps one agent per parallel step. Here one parallel step is one moment of the
table: the seats :meth:`Game.to_act` names (the seat to play, or every seat that may claim the
discard) each give an entry of the action space, applied through the AEC environment in its
order (the answers to a claim are unseen by one another until all are in, so this order is
no information). Actions given for seats that are not asked are not read: their masks are all
0, :attr:`MahjongParallelEnv.acting` names the seats asked.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import gymnasium
from pettingzoo import ParallelEnv

from engine.env.aec import MahjongEnv, Observation
from engine.errors import MjError

Step = tuple[dict[str, Observation], dict[str, float], dict[str, bool], dict[str, bool], dict[str, dict[str, object]]]


class MahjongParallelEnv(ParallelEnv[str, Observation, int | None]):  # type: ignore[misc]  # pettingzoo has no types
    """The parallel form of a :class:`MahjongEnv` (``aec``): the same hands, observations, masks
    and rewards; one :meth:`step` per moment of the table (the module's docstring)."""

    metadata: ClassVar[dict[str, object]] = {"name": "mjrules_parallel_v0", "render_modes": ["ansi"]}

    def __init__(self, aec: MahjongEnv) -> None:
        self.aec = aec
        self.possible_agents = list(aec.possible_agents)
        self.render_mode = aec.render_mode
        self.agents: list[str] = []

    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """As :meth:`MahjongEnv.observation_space`."""
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """As :meth:`MahjongEnv.action_space`."""
        return self.aec.action_space(agent)

    @property
    def acting(self) -> list[str]:
        """The seats asked now (the game's :meth:`~engine.table.game.Game.to_act`); [] between hands."""
        game = self.aec.game
        return game.to_act() if game is not None and self.agents else []

    def reset(self, seed: int | None = None,
              options: dict[str, object] | None = None) -> tuple[dict[str, Observation], dict[str, dict[str, object]]]:
        """As :meth:`MahjongEnv.reset`; returns every seat's observation and info. When the deal
        itself ends the hand (发电's flips that no seat may stop) no seat is asked: the next
        :meth:`step` (``{}``) returns the rewards with every seat terminated."""
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        return {a: self.aec.observe(a) for a in self.agents}, {a: dict(self.aec.infos[a]) for a in self.agents}

    def step(self, actions: Mapping[str, int | None]) -> Step:
        """Apply the actions of the seats asked now (:attr:`acting`), each an entry legal for it.
        Returns (observations, rewards, terminations, truncations, infos) of every agent that
        was live before the step; at the hand's end every one is terminated and :attr:`agents`
        is empty. Raises :class:`~engine.errors.MjError` for a seat asked that has no action in
        ``actions``, :class:`~engine.errors.IllegalAction` for one not legal (the seats before
        it in the moment have acted)."""
        if not self.agents:
            raise MjError("no hand is being played", hint="call reset() first (again after every hand)")
        aec = self.aec
        live = list(self.agents)
        rewards = dict.fromkeys(live, 0.0)
        if all(aec.terminations[a] for a in live):  # the deal ended the hand: no seat is asked, reset paid
            rewards = {a: aec.rewards[a] for a in live}
        for seat in self.acting:
            if aec.agent_selection != seat or aec.terminations[seat]:
                break  # the moment is over (the claims resolved, or the hand ended)
            if seat not in actions:
                raise MjError(f"no action for {seat}, which is asked now", hint=f"seats asked: {' '.join(self.acting)}")
            aec.step(actions[seat])
            for a, r in aec.rewards.items():
                rewards[a] += r
        out: Step = ({a: aec.observe(a) for a in live}, rewards, {a: aec.terminations[a] for a in live},
                     {a: aec.truncations[a] for a in live}, {a: dict(aec.infos[a]) for a in live})
        while aec.agents and aec.terminations[aec.agent_selection]:
            aec.step(None)
        self.agents = list(aec.agents)
        return out

    def render(self) -> str | None:
        """As :meth:`MahjongEnv.render`."""
        return self.aec.render()

    def close(self) -> None:
        """As :meth:`MahjongEnv.close`."""
        self.aec.close()
