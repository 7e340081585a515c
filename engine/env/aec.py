"""How does a hand of any rule file play as a PettingZoo AEC environment? :class:`MahjongEnv`
maps the game's turns onto AEC's one agent at a time, its views onto observations and its
ledger onto rewards.

- **Agents** are the seats the rule file declares (``E S W N``), in play order.
- **Turns**: ``agent_selection`` is the first seat :meth:`Game.to_act` names. On its own turn a
  seat draws, then discards, declares a kong or wins; after a discard every seat that may claim
  it answers (win, kong, pung, chow or pass), one after another in play order from the
  discarder — the game keeps each answer unseen by the others and takes the claim the ruleset's
  priority picks once all have answered, exactly as at a table. A seat with nothing to claim is
  not asked. 精 picks (``pick``) and stopping flips (``stop``/``pass``) are turns the same way.
- **Actions**: a fixed ``Discrete(N)`` space (:mod:`engine.env.actions`); the mask of the legal
  ones is built from :meth:`Game.legal_actions`, and the chosen entry is applied with
  :meth:`Game.apply`. An entry not legal now raises :class:`~engine.errors.IllegalAction`
  (nothing changes): the environment never guesses what a policy meant.
- **Observations**: ``{"observation": int16 array (engine/env/observe.py), "action_mask": int8
  array of N}``, from what the seat may see only (:func:`~engine.table.view.seat_parts`, whose
  JSON form is :func:`~engine.table.view.seat_view`); :meth:`text` is the
  same view as text. A seat that is not to act has an all-zero mask.
- **Rewards**: 0 until the hand ends; at the step that ends it (or at :meth:`reset`, when the
  deal itself ends it: 发电's flips that no seat may stop), each seat's net 子 over every
  settlement of the hand (:meth:`HandResult.net` of the scorer's ledgers: the win or 荒庄, the
  精 settled after the deal and at the end, a 抄庄, a cap). Then every agent is terminated and
  steps once with ``None`` to leave, in play order (PettingZoo's convention).
- **Episodes** are hands of a :class:`~engine.table.match.Match`: ``reset(seed=s)`` starts a
  match seeded ``s`` (its first hand is the one ``mjrules play --seed s`` deals);
  ``reset()`` deals the match's next hand once the last one is over (the deal passing, floors
  climbing and indicators carried over as the ruleset says), or starts a fresh match when a
  hand was left unfinished.
"""
from __future__ import annotations

import random
from typing import ClassVar, NamedTuple

import gymnasium
import numpy as np
import numpy.typing as npt
from pettingzoo import AECEnv

from engine.core.scoring import Scorer
from engine.env.actions import ActionSpace
from engine.env.observe import HIGH, Layout, Planes, view_text
from engine.errors import IllegalAction, MjError
from engine.lang.ruleset import Ruleset
from engine.lang.seeds import SEED_SPACE
from engine.table.actions import Action
from engine.table.game import Game
from engine.table.match import Match, hand_seed
from engine.table.view import SeatView, TableSnapshot, seat_parts, seat_view, snapshot

Observation = dict[str, npt.NDArray[np.int16] | npt.NDArray[np.int8]]
class Snap(NamedTuple):
    """The table frozen at ``moment`` (:func:`~engine.table.view.snapshot`), kept for every seat's view of it."""

    moment: int
    table: TableSnapshot


class Legal(NamedTuple):
    """``seat``'s legal actions at ``moment``, by entry of the action space."""

    moment: int
    seat: str
    actions: dict[int, Action]


class MahjongEnv(AECEnv[str, Observation, int | None]):  # type: ignore[misc]  # pettingzoo has no types
    """A PettingZoo AEC environment of one ruleset (the module's docstring says how it plays).

    ``ruleset``: a compiled :class:`~engine.lang.ruleset.Ruleset` (:func:`engine.env.mjrules_env`
    compiles one from a name or a path); ``seed``: the seed of the first match (None: drawn from
    the system's randomness); ``render_mode``: ``"ansi"`` (:meth:`render` returns the text of the
    seat to act) or None. Raises :class:`~engine.errors.MjError` for a seed that is not a whole
    number or an unknown render mode."""

    metadata: ClassVar[dict[str, object]] = {"name": "mjrules_v0", "render_modes": ["ansi"], "is_parallelizable": False}

    def __init__(self, ruleset: Ruleset, seed: int | None = None, render_mode: str | None = None,
                 scorer: Scorer | None = None) -> None:
        super().__init__()
        if render_mode is not None and render_mode not in ("ansi",):
            raise MjError(f"unknown render_mode {render_mode!r:.40}", hint="render_mode: 'ansi' or None")
        self.render_mode = render_mode
        self.ruleset = ruleset
        self.scorer = scorer or Scorer(ruleset)
        self.seed = _seed(seed) if seed is not None else random.SystemRandom().randrange(SEED_SPACE)
        self.possible_agents: list[str] = [str(v) for v in ruleset.table["seats"].values]
        self.space = ActionSpace(self.scorer)
        self.layout = Layout(self.possible_agents, [k.code for k in self.scorer.tiles.kinds])
        obs_space = gymnasium.spaces.Dict({
            "observation": gymnasium.spaces.Box(0, HIGH, self.layout.shape, np.int16),
            "action_mask": gymnasium.spaces.Box(0, 1, (self.space.n,), np.int8),
        })
        self.observation_spaces = dict.fromkeys(self.possible_agents, obs_space)
        self.action_spaces = {a: gymnasium.spaces.Discrete(self.space.n) for a in self.possible_agents}
        self.match: Match | None = None
        self.game: Game | None = None
        self.agents: list[str] = []
        self.moment = 0  # applied actions since the env was made: the caches below key on it
        self._snap: Snap | None = None
        self._legal: Legal | None = None

    # ---- spaces ----------------------------------------------------------------------------------
    def observation_space(self, agent: str) -> gymnasium.spaces.Dict:
        """The space of ``agent``'s observations (the same object every call)."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Discrete:
        """``Discrete(N)``, the fixed action space (the same object every call)."""
        return self.action_spaces[agent]

    # ---- the episode -------------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, object] | None = None) -> None:
        """Deal a hand: the first of a match seeded ``seed``, or (``seed`` None) the next hand of
        the match being played (see the module's docstring). ``options`` is PettingZoo's and is
        not read: a ruleset's options are chosen when the environment is made. Raises
        :class:`~engine.errors.MjError` for a seed that is not a whole number."""
        if seed is not None:
            self.seed = _seed(seed)
            self.match = None
        game = self.game
        if self.match is None:
            self.match = Match(self.ruleset, self.seed, scorer=self.scorer, keep=False)
        elif game is not None and game.over:
            self.match.finish(game)
        else:  # a hand left unfinished: a fresh match, seeded from the old one and its hands
            self.match = Match(self.ruleset, hand_seed(self.match.seed, -1 - self.match.played),
                               scorer=self.scorer, keep=False)
        self.game = self.match.deal()
        self.moment += 1
        open_turns(self)
        self._pay_if_over(self.game)  # the deal itself may end the hand (发电 with no seat to stop the flips)
        self._select()

    def step(self, action: int | None) -> None:
        """Apply ``action`` (an entry of the action space, legal now) for ``agent_selection``;
        ``None`` for an agent that has been terminated (it leaves). Raises
        :class:`~engine.errors.IllegalAction` for an entry that is not a whole number in
        0 … N-1 or not legal now, and :class:`~engine.errors.MjError` when no hand is dealt
        or every agent has left (call :meth:`reset`); nothing changes then."""
        if not self.agents:
            raise MjError("no hand is being played", hint="call reset() first (again after every hand)")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._leave(agent, action)
            return
        chosen = self.legal(agent).get(self._entry(action))
        if chosen is None:
            raise IllegalAction(f"action {action} ({self.space.name(self._entry(action))}) is not legal for {agent} now",
                                hint="legal now: " + ", ".join(f"{i} {self.space.name(i)}" for i in self.legal(agent)))
        game = self._game()
        self._cumulative_rewards[agent] = 0.0
        for a in self.rewards:
            self.rewards[a] = 0.0
        game.apply(chosen)
        self.moment += 1
        self._pay_if_over(game)
        self._select()

    def _pay_if_over(self, game: Game) -> None:
        """When ``game`` is over: each agent's reward is its net 子 in the hand's ledgers, and
        every agent is terminated."""
        if game.over:
            assert game.result is not None, "a hand that is over has its result"
            net = game.result.net(game.seats)
            for a in self.agents:
                self.rewards[a] = float(net[a])
                self._cumulative_rewards[a] += self.rewards[a]
                self.terminations[a] = True

    def _leave(self, agent: str, action: int | None) -> None:
        """A terminated agent's step: it leaves the agents; the next terminated one is selected."""
        if action is not None:
            raise IllegalAction(f"{agent}'s hand is over: its only action is None", hint="step(None)")
        for d in (self.rewards, self._cumulative_rewards, self.terminations, self.truncations, self.infos):
            del d[agent]
        self.agents.remove(agent)
        for a in self.rewards:
            self.rewards[a] = 0.0
        self._select()

    def _select(self) -> None:
        """Point ``agent_selection`` at the seat to act (or the first agent left, at the end)."""
        game = self._game()
        if game.over:
            if self.agents:
                self.agent_selection = self.agents[0]
        else:
            self.agent_selection = game.to_act()[0]

    def _game(self) -> Game:
        if self.game is None:
            raise MjError("no hand is being played", hint="call reset() first")
        return self.game

    def _entry(self, action: object) -> int:
        """``action`` as an entry of the action space; :class:`IllegalAction` otherwise."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalAction(f"action {action!r:.40} is not an entry of the action space",
                                hint=f"a whole number 0 … {self.space.n - 1} whose action_mask entry is 1")
        i = int(action)
        if not 0 <= i < self.space.n:
            raise IllegalAction(f"action {i} is not in the action space 0 … {self.space.n - 1}")
        return i

    # ---- what a seat sees ------------------------------------------------------------------------------
    def legal(self, agent: str) -> dict[int, Action]:
        """``agent``'s legal actions now, by entry (:meth:`Game.legal_actions`; {} when it has
        none). Raises :class:`~engine.errors.MjError` before :meth:`reset`."""
        cached = self._legal
        if cached is not None and cached.moment == self.moment and cached.seat == agent:
            return cached.actions
        entry = self.space.entry
        legal = {entry(a): a for a in self._game().legal_actions(agent)}
        self._legal = Legal(self.moment, agent, legal)
        return legal

    def view(self, agent: str) -> SeatView:
        """What ``agent`` may see now: :func:`~engine.table.view.seat_view` of the table. Raises
        ``KeyError`` for an agent not at the table, :class:`~engine.errors.MjError` before :meth:`reset`."""
        return seat_view(self._table(), agent)

    def _table(self) -> TableSnapshot:
        """The table frozen now (:func:`~engine.table.view.snapshot`), once a moment."""
        cached = self._snap
        if cached is None or cached.moment != self.moment:
            cached = self._snap = Snap(self.moment, snapshot(self._game()))
        return cached.table

    def action_mask(self, agent: str) -> npt.NDArray[np.int8]:
        """1 at each entry ``agent`` may take now, 0 elsewhere (all 0 for a seat not to act)."""
        cells = bytearray(self.space.n)  # zeros; a few cells set here beat numpy's fancy indexing
        for i in self.legal(agent):
            cells[i] = 1
        return np.frombuffer(cells, np.int8)

    def observe(self, agent: str) -> Observation:
        """``{"observation": the seat's view encoded (engine/env/observe.py), "action_mask": …}``."""
        planes: Planes = self.layout.encode(seat_parts(self._table(), agent))
        return {"observation": planes, "action_mask": self.action_mask(agent)}

    def text(self, agent: str) -> str:
        """``agent``'s view as text for people, with its legal actions by entry."""
        return view_text(self.view(agent), {i: self.space.name(i) for i in self.legal(agent)})

    def render(self) -> str | None:
        """The text of the seat to act (``render_mode="ansi"``); None without a render mode."""
        if self.render_mode is None or not self.agents:
            return None
        return self.text(self.agent_selection)

    def close(self) -> None:
        """Nothing to release (no window, no process)."""


def open_turns(env: AECEnv) -> None:
    """PettingZoo's bookkeeping of an episode's start: every possible agent live, with no
    reward, termination, truncation or info yet (an AEC environment's ``reset`` does this)."""
    env.agents = list(env.possible_agents)
    env.rewards = dict.fromkeys(env.agents, 0.0)
    env._cumulative_rewards = dict.fromkeys(env.agents, 0.0)
    env.terminations = dict.fromkeys(env.agents, False)
    env.truncations = dict.fromkeys(env.agents, False)
    env.infos = {a: {} for a in env.agents}


def _seed(seed: object) -> int:
    """``seed`` as a whole number (numpy integers too); :class:`MjError` otherwise."""
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer):
        raise MjError(f"seed must be a whole number, not {seed!r:.40}")
    return int(seed)
