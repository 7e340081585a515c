"""Nobody sees what they should not (issue 27; engine/table/view.py): every view of many real
bot games, every seat's and a spectator's after every action, checked against the game's
secrets at that moment (tests/privacy_support.py), and the check first shown to catch each kind
of leak planted in a copy of a real view.

The games are chosen so that every secret is on the table while views are taken: concealed
kongs (ganzhou-app with greedy bots declares them; the test asserts it did), hidden indicators
(the 下精 of ganzhou-app's 埋地雷 and nanchang-app's default 玩法, ganzhou's 下精 左精 右精),
each seat's own 精 (nanchang-app with 随精=是), and who may claim a discard."""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import pytest

from .privacy_support import PLANTS, hosts, leaks, plant, truth_of

# (ruleset, options, bot, hands, seed): hands of one match each, bots from engine.table.bots.BOTS
GAMES = [
    ("nanchang", {}, "greedy", 8, 1),
    ("ganzhou-app", {}, "greedy", 20, 25),  # 埋地雷: a hidden 下精; greedy declares 3 concealed kongs here
    ("ganzhou", {}, "random", 8, 2),  # three hidden indicators
    ("nanchang-app", {"随精": "是"}, "random", 8, 3),  # each seat picks its own 精; a hidden 下精
    ("nanchang-app", {"随精": "是"}, "greedy", 8, 4),
    ("nanchang-app", {"发电": "是"}, "value", 4, 5),  # flips shown while a seat is asked
]


@dataclass
class Played:
    views: int = 0
    leaked: list[str] = field(default_factory=list)
    situations: Counter[str] = field(default_factory=Counter)  # plant kind -> views that held that secret
    moments: dict[str, tuple[dict, object]] = field(default_factory=dict)  # plant kind -> (a real view, its truth)
    concealed_kongs: int = 0


@pytest.fixture(scope="module")
def played() -> Played:
    """Every game of :data:`GAMES`, each view checked after the deal and after every action."""
    from engine.lang.compiler import compile_ruleset
    from engine.table.bots import BOTS
    from engine.table.match import Match
    from engine.table.view import seat_view, snapshot

    out = Played()
    for name, options, bot, hands, seed in GAMES:
        match = Match(compile_ruleset(name, options), seed)
        for h in range(hands):
            game = match.deal()
            bots = {s: BOTS[bot](seed * 1000 + h * 10 + i) for i, s in enumerate(game.seats)}

            def check(where: str) -> None:
                truth, snap = truth_of(game), snapshot(game)
                for viewer in truth.viewers():
                    view = seat_view(snap, viewer)
                    out.views += 1
                    out.leaked += [f"{name} {options} hand {h + 1} {where}, {viewer}: {x}" for x in leaks(view, truth)]
                    for kind in hosts(view, truth):
                        out.situations[kind] += 1
                        out.moments.setdefault(kind, (view, truth))

            check("after the deal")
            while not game.over:
                seat = game.to_act()[0]
                action = bots[seat](game, seat)
                game.apply(action)
                out.concealed_kongs += action.kind == "concealed_kong"
                check(f"after {action.text(game.scorer)}")
            match.finish(game)
    return out


@pytest.mark.parametrize("kind", list(PLANTS))
def test_the_check_catches_each_kind_of_leak_planted_in_a_real_view(played, kind):
    view, truth = played.moments[kind]  # a real moment where this secret is on the table
    assert leaks(view, truth) == []
    found = leaks(plant(kind, view, truth), truth)
    assert any(PLANTS[kind] in x for x in found), (kind, found)


def test_every_view_of_many_real_games_shows_only_what_its_viewer_may_see(played):
    for kind in PLANTS:  # first: the check catches each kind of leak (as the test above, here too)
        view, truth = played.moments[kind]
        assert any(PLANTS[kind] in x for x in leaks(plant(kind, view, truth), truth)), kind
    assert played.concealed_kongs > 0, "no concealed kong was declared: play more hands of ganzhou-app"
    for kind in PLANTS:  # every secret was on the table while views were checked
        assert played.situations[kind] > 20, (kind, played.situations)
    assert played.views > 20_000
    assert played.leaked == [], f"{len(played.leaked)} leaks, the first: " + "\n".join(played.leaked[:10])


def test_a_spectator_sees_no_hand_no_pick_and_no_action(played):
    from engine.lang.compiler import compile_ruleset
    from engine.table.match import Match
    from engine.table.view import view_of

    game = Match(compile_ruleset("nanchang-app", {"随精": "是"}), 3).deal()
    while game.phase == "pick":  # every seat picks its own 精: a spectator sees none of them
        seat = game.to_act()[0]
        game.apply(game.legal_actions(seat)[game.seats.index(seat) * 5])
    truth = truth_of(game)
    view = view_of(game, None)
    assert len(set(truth.picks.values())) > 1 and leaks(view, truth) == []
    assert view["hand"] is None and view["pick"] is None and view["legal"] == [] and view["drawn"] is None
    assert all(h is None for h in view["hands"].values())
    assert leaks(plant("another seat's 随精 pick", view, truth), truth)
