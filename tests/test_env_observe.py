"""The observation is the seat's view, cell for cell (issue 29's speed point): the environment
encodes from :func:`engine.table.view.seat_parts` with its own caches; here an encoding written
plainly from :func:`seat_view`'s JSON, the form the rooms and the table page send, is compared
with it for every seat (not only the one to act) at every step of real hands — concealed kongs,
a hidden 下精, 随精 picks and 发电 flips among them — so a cache that kept another seat's tiles,
or a stale row, is caught (a planted one is, below)."""
from __future__ import annotations

import random

import pytest

from .conftest import ROOT
from .extras import need_extra

need_extra("pettingzoo", "rl")

import numpy as np  # noqa: E402  (the rl extra's)

from engine.env import mjrules_env  # noqa: E402
from engine.env.observe import HIGH, NUMBER_COLUMNS, PHASES  # noqa: E402
from engine.table.view import MAIN  # noqa: E402

CASES = [("nanchang", {}), ("nanchang-app", {"随精": "是"}), ("nanchang-app", {"发电": "是"}), ("ganzhou-app", {}),
         (str(ROOT / "docs" / "house-rules" / "buried-lower.rules"), {})]


def plain(env, seat):
    """The observation of ``seat`` written from its seat_view JSON, one cell at a time."""
    lay, view = env.layout, env.view(seat)
    n = len(lay.seats)
    rel = {s: (lay.seats.index(s) - lay.seats.index(seat)) % n for s in lay.seats}
    out = np.zeros(lay.shape, np.int64)
    col = lay.column
    for c in view["hand"] or []:
        out[lay.HAND, col[c]] += 1
    if view["drawn"] is not None:
        out[lay.HAND, col[view["drawn"]]] += 1
        out[lay.DRAWN, col[view["drawn"]]] += 1
    facedown = [0] * n
    for s, melds in view["melds"].items():
        for m in melds:
            if m["tiles"] is None:
                facedown[rel[s]] += 1
            for c in m["tiles"] or []:
                out[lay.MELDS + rel[s], col[c]] += 1
    for s, tiles in view["discards"].items():
        for c in tiles:
            out[lay.DISCARDS + rel[s], col[c]] += 1
    if view["last_discard"] is not None:
        out[lay.LAST_DISCARD, col[view["last_discard"]["tile"]]] = 1
    offered = {a["claims"]["tile"] for a in view["legal"] if a["claims"]}
    for c in offered:
        out[lay.ON_OFFER, col[c]] = 1
    for c, mark in view["jing"].items():
        out[lay.MAIN_JING if mark == MAIN else lay.NEXT_JING, col[c]] = 1
    for c in view["indicators"].values():
        out[lay.INDICATORS, col[c]] += 1
    out[lay.PHASE, PHASES.index(view["phase"])] = 1
    last = view["last_discard"]
    numbers = [min(view["live_wall"], HIGH), min(view["wall"], HIGH), min(view["floor"], HIGH), rel[view["dealer"]],
               rel[view["current"]], rel[last["seat"]] if last else n]
    numbers += [view["hand_sizes"][s] for s in sorted(lay.seats, key=rel.get)] + facedown
    out[lay.NUMBERS, :NUMBER_COLUMNS + 2 * n] = numbers
    return out


def mismatches(env, seen) -> int:
    """Cells of every seat's observation now that differ from :func:`plain`'s (``seen``: which
    rows were ever non-zero, to show the test reaches them)."""
    bad = 0
    for seat in env.possible_agents:
        got, want = env.observe(seat)["observation"], plain(env, seat)
        assert got.dtype == np.int16 and got.shape == want.shape
        bad += int((got != want).sum())
        seen |= {r for r in range(want.shape[0]) if want[r].any()}
    return bad


def play(rules, options, hands, check):
    rng = random.Random(7)
    env = mjrules_env(rules, options, seed=3)
    for h in range(hands):
        env.reset(seed=None if h else 3)
        while not env.game.over:
            check(env)
            agent = env.agent_selection
            legal = env.legal(agent)
            kongs = [i for i, a in legal.items() if a.kind == "concealed_kong"]  # to see them face down
            env.step(kongs[0] if kongs else rng.choice(list(legal)))
        check(env)


@pytest.mark.parametrize("rules,options", CASES)
def test_every_seats_observation_is_its_seat_view_at_every_step(rules, options):
    bad, seen, steps = [], set(), [0]

    def check(env):
        steps[0] += 1
        if (n := mismatches(env, seen)):
            bad.append(f"step {steps[0]}: {n} cells differ")

    play(rules, options, 6, check)
    assert not bad, bad[:5]
    lay = mjrules_env(rules, options, seed=3).layout
    assert {lay.HAND, lay.DRAWN, lay.DISCARDS, lay.LAST_DISCARD, lay.ON_OFFER, lay.MAIN_JING, lay.PHASE} <= seen
    assert steps[0] > 300


def test_the_check_catches_a_cache_that_shows_another_seats_concealed_kong(monkeypatch):
    """A planted leak: the encoder is handed the table as the kong's owner sees it, whoever asks
    (a per-table cache of the views would do that); the comparison must fail."""
    from engine.table import view as view_module

    real = view_module.seat_parts
    caught, kongs = [], [0]

    def leaky(snap, seat, *, reveal=False):
        owners = [s for s, ms in snap.melds.items() if any(m.concealed for m in ms)]
        if owners and not snap.over:
            kongs[0] += 1
            return real(snap, owners[0], reveal=reveal)._replace(seat=seat)
        return real(snap, seat, reveal=reveal)

    monkeypatch.setattr("engine.env.aec.seat_parts", leaky)
    play("nanchang", {}, 12, lambda env: caught.append(mismatches(env, set())))
    assert kongs[0] > 0 and sum(caught) > 0
