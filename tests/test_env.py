"""The PettingZoo environment (engine/env/, issue 29): PettingZoo's own API and seed tests for
every bundled ruleset and two house-rule files, the parallel form, the mask against the game's
legal actions over 10,000 random steps, rewards against the ledger, and clear errors."""
from __future__ import annotations

import random
import warnings

import pytest

from .conftest import ROOT
from .extras import need_extra

need_extra("pettingzoo", "rl")

from pettingzoo.test import api_test, parallel_api_test, parallel_seed_test, seed_test  # noqa: E402

from engine.env import mjrules_env, mjrules_parallel_env  # noqa: E402
from engine.errors import IllegalAction, MjError, OptionError, RuleError  # noqa: E402
from engine.lang.resources import bundled_ruleset_names  # noqa: E402

HOUSE = [str(ROOT / "docs" / "house-rules" / "room.rules"), str(ROOT / "docs" / "house-rules" / "buried-lower.rules")]
RULES = [*bundled_ruleset_names(), *HOUSE]
# the phases only some options reach: each seat picks its 精 (随精), a seat may stop the flips (发电)
OPTIONED = [("nanchang-app", {"随精": "是"}), ("nanchang-app", {"发电": "是"})]


def test_the_bundled_rulesets_are_all_here():
    assert {"nanchang", "nanchang-app", "ganzhou", "ganzhou-app", "jian", "chongguan"} <= set(RULES)


@pytest.mark.parametrize("rules,options", [(r, {}) for r in RULES] + OPTIONED)
def test_pettingzoo_api_test_and_seed_test(rules, options):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # its advice (agent names like player_0, a Dict space) is not a failure
        api_test(mjrules_env(rules, options, seed=5), num_cycles=1000)
        seed_test(lambda: mjrules_env(rules, options), num_cycles=500)


@pytest.mark.parametrize("rules", ["nanchang", HOUSE[1]])
def test_parallel_api_test_and_seed_test(rules):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        parallel_api_test(mjrules_parallel_env(rules, seed=3), num_cycles=1000)
        parallel_seed_test(lambda: mjrules_parallel_env(rules), num_cycles=500)


def test_a_parallel_step_is_every_seat_the_game_asks():
    """Over a few hands, a parallel step applies an action of each seat the game asked (several
    answer one discard), and a hand's rewards are its ledger's net."""
    env = mjrules_parallel_env("nanchang", seed=1)
    rng = random.Random(2)
    several = 0
    for hand in range(6):
        obs, _ = env.reset(seed=hand)
        totals = dict.fromkeys(env.possible_agents, 0.0)
        while env.agents:
            asked = env.acting
            several += len(asked) > 1
            assert [a for a in env.agents if obs[a]["action_mask"].any()] == asked
            game = env.aec.game
            before = len(game.actions)
            actions = {a: rng.choice([int(i) for i in obs[a]["action_mask"].nonzero()[0]]) for a in asked}
            obs, rewards, *_ = env.step(actions)
            assert len(game.actions) - before == len(asked)
            for a, r in rewards.items():
                totals[a] += r
        assert totals == {s: float(v) for s, v in game.result.net(game.seats).items()}
    assert several > 0, "no discard was claimable by two seats: the test saw no claim moment"


def mask_mismatches(env, agent) -> list[str]:
    """Where the environment's mask and the game's legal actions for ``agent`` disagree."""
    game = env.game
    legal = game.legal_actions(agent)
    mask = env.observe(agent)["action_mask"]
    wanted = sorted(env.space.index(a) for a in legal)
    got = [int(i) for i in mask.nonzero()[0]]
    out = []
    if got != sorted(set(wanted)) or len(set(wanted)) != len(legal):
        out.append(f"{agent}: mask {got} != legal {wanted}")
    out += [f"{agent}: entry {i} applies {env.legal(agent).get(i)} not {a}" for a in legal
            for i in [env.space.index(a)] if env.legal(agent).get(i) != a]
    return out


def test_the_mask_is_the_games_legal_actions_over_10000_random_steps():
    rng = random.Random(29)
    steps, bad, kinds = 0, [], set()
    rules = [(r, {}) for r in RULES] + OPTIONED
    hand = 0
    while steps < 10_000:
        r, opts = rules[hand % len(rules)]
        env = mjrules_env(r, opts, seed=hand)
        env.reset()
        hand += 1
        while not env.game.over:
            agent = env.agent_selection
            assert agent == env.game.to_act()[0]
            for seat in env.possible_agents:  # every seat's mask, not only the one to act
                bad += mask_mismatches(env, seat)
            entries = [int(i) for i in env.observe(agent)["action_mask"].nonzero()[0]]
            choice = rng.choice(entries)
            kinds.add(env.space.kind_of(choice))
            env.step(choice)
            steps += 1
    assert not bad, "\n".join(bad[:20])
    assert {"draw", "discard", "pass", "pung", "chow", "win", "pick", "stop"} <= kinds


def test_the_mask_check_can_fail():
    env = mjrules_env("nanchang", seed=1)
    env.reset()
    agent = env.agent_selection
    assert not mask_mismatches(env, agent)
    legal = dict(env.legal(agent))
    legal.pop(next(iter(legal)))  # a mask that leaves one legal action out
    env.legal = lambda seat: legal
    assert mask_mismatches(env, agent)


@pytest.mark.parametrize("rules,options", [(r, {}) for r in RULES] + OPTIONED)
def test_a_hands_rewards_sum_to_its_ledgers_net(rules, options):
    """Played to the end with random legal actions, each seat's rewards over a hand sum to the
    net of every ledger the hand settled (HandResult.parts); several hands of one match."""
    env = mjrules_env(rules, options, seed=11)
    rng = random.Random(5)
    for _ in range(4):
        env.reset()
        got = dict.fromkeys(env.possible_agents, 0.0)
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            got[agent] += reward
            env.step(None if term else rng.choice([int(i) for i in obs["action_mask"].nonzero()[0]]))
        net = dict.fromkeys(env.possible_agents, 0)
        for _, _, ledger in env.game.result.parts:
            for s, v in ledger.net(env.possible_agents).items():
                net[s] += v
        assert got == {s: float(v) for s, v in net.items()}
        assert not env.agents


def test_the_observation_is_the_seats_own_view():
    """The hand row counts the seat's own tiles, the 精 rows the marks its view shows (a hidden
    下精 under 埋地雷 marks nothing until the end), and other seats' hands are not in it."""
    env = mjrules_env(HOUSE[1], seed=2)
    env.reset()
    lay = env.layout
    for _ in range(60):
        agent = env.agent_selection
        planes = env.observe(agent)["observation"]
        assert list(planes[lay.HAND][:len(lay.codes)]) == env.game.counts[agent]
        view = env.view(agent)
        marked = {lay.codes[k] for k in planes[lay.MAIN_JING].nonzero()[0]} | \
            {lay.codes[k] for k in planes[lay.NEXT_JING].nonzero()[0]}
        assert marked == set(view["jing"])
        assert len(view["indicators"]) < len(env.game.indicators)  # the hidden one is not shown
        env.step(int(env.observe(agent)["action_mask"].nonzero()[0][0]))
    assert "hand:" in env.text(env.agent_selection) and "legal: [" in env.text(env.agent_selection)


def test_bad_input_is_a_clear_error():
    with pytest.raises(RuleError):
        mjrules_env("no-such-ruleset")
    with pytest.raises(OptionError):
        mjrules_env("nanchang-app", {"no-such-option": "x"})
    with pytest.raises(MjError):
        mjrules_env("nanchang", {"飘精": 1})
    with pytest.raises(MjError):
        mjrules_env(42)
    with pytest.raises(MjError):
        mjrules_env("nanchang", render_mode="human")
    env = mjrules_env("nanchang", seed=1)
    with pytest.raises(MjError, match="no hand"):
        env.step(0)
    env.reset()
    moment = env.moment
    illegal = next(i for i in range(env.space.n) if i not in env.legal(env.agent_selection))
    for bad in (env.space.n, -1, "3", 2.0, True, None, illegal):
        with pytest.raises(IllegalAction):
            env.step(bad)
    assert env.moment == moment and not env.game.actions  # nothing changed
    with pytest.raises(MjError):
        env.reset(seed="x")


def python_blocks(path) -> list[str]:
    """The ```python blocks of a markdown file, in order."""
    blocks, block = [], None
    for line in path.read_text(encoding="utf-8").splitlines():
        if block is None and line.strip() == "```python":
            block = []
        elif block is not None and line.strip() == "```":
            blocks.append("\n".join(block) + "\n")
            block = None
        elif block is not None:
            block.append(line)
    return blocks


def test_the_examples_of_docs_env_md_run(capsys, monkeypatch):
    """Every ```python block of docs/env.md runs (from the repository's root): the random agent
    ends a hand, the training run prints its summary."""
    monkeypatch.chdir(ROOT)
    blocks = python_blocks(ROOT / "docs" / "env.md")
    assert len(blocks) == 3
    for block in blocks:
        exec(compile(block, "docs/env.md", "exec"), {})
    out = capsys.readouterr().out
    assert "seat-hands, mean 子" in out and out.count("\n") >= 6


# nanchang-app with 发电 at two seats: this match's first hand ends in the deal (no seat may stop
# any flip: the flips' settlements are booked and the hand is drawn). Found by a review: the
# environment left every agent live with an all-zero mask, and nothing paid.
DEAL_ENDS = ("nanchang-app", {"发电": "是", "人数": "2"}, (200 * pow(1_000_003, -1, 2**31)) % 2**31)


def test_a_hand_the_deal_ends_is_paid_and_terminated_at_reset():
    rules, options, seed = DEAL_ENDS
    env = mjrules_env(rules, options, seed=seed)
    env.reset(seed=seed)
    assert env.game.over
    net = env.game.result.net(env.game.seats)
    assert any(net.values()) and sum(net.values()) == 0  # the flips' money moved
    assert env.terminations == dict.fromkeys(env.agents, True)
    assert env.rewards == {a: float(net[a]) for a in env.agents}
    got = {}
    for agent in env.agent_iter(max_iter=10):
        _, reward, term, _, _ = env.last()
        assert term
        got[agent] = reward
        env.step(None)
    assert got == {a: float(net[a]) for a in net} and env.agents == []


def test_the_parallel_form_pays_a_hand_the_deal_ends_at_its_first_step():
    rules, options, seed = DEAL_ENDS
    env = mjrules_parallel_env(rules, options, seed=seed)
    env.reset(seed=seed)
    net = env.aec.game.result.net(env.aec.game.seats)
    assert env.acting == []
    _, rewards, terms, _, _ = env.step({})
    assert rewards == {a: float(net[a]) for a in net} and all(terms.values()) and env.agents == []
