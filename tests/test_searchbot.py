"""The search bot (engine/table/searchbot.py): seeded, legal, blind to what its seat cannot see,
within its budget; ``--bots search`` in simulate and impact (Ray: tests/test_ray_backend.py)."""
from __future__ import annotations

import random

import pytest
from typer.testing import CliRunner

from engine import compile_ruleset
from engine.cli import app
from engine.cli.inputs import budgeted_bots
from engine.table.bots import BOTS, kind_error, make_bot, with_budget
from engine.table.game import Game
from engine.table.match import play_hand
from engine.table.redeal import copy_game, redealt
from engine.table.searchbot import BATCH, MAX_PLAYOUTS, SearchBot
from engine.table.valuebot import ValueBot

from .test_redeal import RULES, decisions, keeps_true_hands, twin

runner = CliRunner()
RS = RULES["nanchang-app"]


def choices(rs, seed: int, playouts: int, hands: int = 1) -> tuple[list[str], SearchBot]:
    """The actions of hands where a search bot sits at the first seat, value bots at the others."""
    out: list[str] = []
    bot = SearchBot(seed, playouts)
    for h in range(hands):
        g = Game(rs, seed * 10 + h)
        bots = {s: ValueBot(seed + i) for i, s in enumerate(g.seats)}
        bots[g.seats[0]] = bot
        play_hand(g, bots)
        out += [a.text(g.scorer) for a in g.actions]
    return out, bot


def searched(rs, seed: int, every: int = 4) -> list[tuple[Game, str]]:
    """Positions (copied) where the seat has more than one action worth searching."""
    probe = SearchBot(0, 1)
    return [(copy_game(g), s) for g, s in decisions(rs, seed, every) if len(probe.candidates(g, s)) > 1]


def test_the_search_bot_is_registered_and_takes_a_budget():
    assert BOTS["search"] is SearchBot
    bot = make_bot("search:8", 3)
    assert isinstance(bot, SearchBot) and bot.playouts == 8
    assert kind_error("search:0") and kind_error("search:x") and kind_error(f"search:{MAX_PLAYOUTS + 1}")
    assert kind_error("value:8") and kind_error("seach") and kind_error("search") is None
    assert with_budget(["search", "value", "search:3"], 5) == ["search:5", "value", "search:3"]
    assert budgeted_bots("search:3,value,value,value", 5) == "search:3,value,value,value"  # it names a search bot
    assert budgeted_bots("search, value,value ,value", None) == "search,value,value,value"  # spaces as typed
    with pytest.raises(ValueError):
        SearchBot(1, 0)
    with pytest.raises(ValueError):
        make_bot("search:-1", 1)


def test_the_same_seed_and_game_give_the_same_choices():
    a, bot = choices(RS, 2, 8)
    b, _ = choices(RS, 2, 8)
    assert a == b and bot.searched > 0 and bot.played > 0
    for g, seat in searched(RS, 1)[:3]:
        x, y = SearchBot(5, 12), SearchBot(5, 12)
        assert x(g, seat) == y(g, seat)
        assert x.last is not None and y.last is not None and x.last.nets == y.last.nets


def test_it_only_ever_plays_legal_actions():
    for rs in RULES.values():
        for seed in range(2):
            g = Game(rs, seed)
            bots = {s: ValueBot(i) for i, s in enumerate(g.seats)}
            seat = g.seats[seed % len(g.seats)]
            bot = bots[seat] = SearchBot(seed, 12)
            while not g.over:
                s = g.to_act()[0]
                a = bots[s](g, s)
                if s == seat:
                    assert a in g.legal_actions(s)
                g.apply(a)
            assert bot.searched > 0


def test_it_cannot_see_what_its_seat_cannot():
    """For two games its seat cannot tell apart it plays the same playouts and makes the same
    choice; the same check catches a bot whose redeal keeps the true hands (a planted leak)."""
    positions = searched(RS, 0)
    assert len(positions) >= 4
    leaked = 0
    for k, (g, seat) in enumerate(positions[:6]):
        t = twin(g, seat, random.Random(k))
        a, b = SearchBot(k, 16), SearchBot(k, 16)
        assert a(g, seat) == b(t, seat)
        assert a.last is not None and b.last is not None and a.last.nets == b.last.nets
        c, d = SearchBot(k, 16, redeal=keeps_true_hands), SearchBot(k, 16, redeal=keeps_true_hands)
        c(g, seat), d(t, seat)
        assert c.last is not None and d.last is not None
        leaked += c.last.nets != d.last.nets
    assert leaked, "a search on the true hands is told apart"


def test_a_decision_stays_within_its_budget():
    for g, seat in searched(RS, 2)[:4]:
        for budget in (1, 5, 12, 30):
            bot = SearchBot(1, budget)
            bot(g, seat)
            assert bot.played <= budget
            if bot.last is not None:
                assert bot.last.playouts == bot.played <= budget
                n = len(bot.last.candidates)
                if budget < n:  # not one redeal of every candidate: no playout, the value bot's choice
                    assert bot.played == 0 and bot.last.chosen == bot.last.candidates[0]
        timed = SearchBot(1, MAX_PLAYOUTS, cpu_seconds=1e-9)  # stops after its first batch
        timed(g, seat)
        assert timed.last is not None and 0 < timed.played <= BATCH * len(timed.last.candidates)


def test_a_whole_hand_stays_within_the_budget_per_decision():
    _, bot = choices(RS, 4, 10)
    assert bot.searched > 0 and bot.played <= 10 * bot.searched


def test_trivial_decisions_take_no_search():
    g = Game(RS, 3)
    bot = SearchBot(1, 16)
    while not g.over:
        s = g.to_act()[0]
        legal = g.legal_actions(s)
        before = bot.searched
        a = bot(g, s)
        assert a in legal
        if len(legal) == 1 or any(x.kind == "win" for x in legal):
            assert bot.searched == before
            assert a.kind == "win" or a == legal[0]
        g.apply(a)


def test_its_first_candidate_is_the_value_bots_choice_and_a_redeal_is_its_world():
    for g, seat in searched(RS, 3)[:3]:
        bot = SearchBot(7, 8)
        assert bot.candidates(g, seat)[0] == ValueBot(7)(g, seat)
        seen = []
        spy = SearchBot(7, 8, redeal=lambda game, s, rng: seen.append(s) or redealt(game, s, rng))
        spy(g, seat)
        assert seen and set(seen) == {seat}


def test_simulate_and_impact_take_search_bots():
    r = runner.invoke(app, ["simulate", "nanchang-app", "-n", "1", "--bots", "search,value,value,value",
                            "--search-playouts", "4", "--json"])
    assert r.exit_code == 0, r.output
    assert '"bots": "search:4,value,value,value"' in r.stdout
    r = runner.invoke(app, ["impact", "nanchang-app", "ganzhou-app", "-n", "1", "--bots", "search:4,value,value,value",
                            "--json"])
    assert r.exit_code == 0, r.output
    assert '"search:4"' in r.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--bots", "value", "--search-playouts", "4"], "names none"),
    (["--bots", "search", "--search-playouts", str(MAX_PLAYOUTS + 1)], f"--search-playouts {MAX_PLAYOUTS + 1}: "),
    (["--bots", "search", "--search-playouts", "0"], "--search-playouts 0: "),
    (["--bots", "search:0"], "playouts per decision"),
    (["--bots", "greedy:3"], "only search takes a budget"),
])
def test_a_bad_budget_is_refused_with_exit_2(args, message):
    for command in (["simulate", "nanchang", "-n", "1"], ["impact", "nanchang", "nanchang-table", "-n", "1"]):
        r = runner.invoke(app, [*command, *args])
        assert r.exit_code == 2, r.output
        assert message in r.output
        assert "Traceback" not in r.output
        assert f"search:{MAX_PLAYOUTS + 1}" not in r.output  # no value the user never typed
        assert "'search:0': 'search:0'" not in r.output  # the kind named once


def test_its_help_names_the_budget():
    for command in ("simulate", "impact"):
        r = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200"})
        assert "--search-playouts" in r.output and "search" in r.output


def test_it_overrules_the_value_bot_where_the_playouts_say_so():
    """A discard that deals into a ready hand: the next seat waits on the very tile the
    dealer's value bot would throw, alone, and takes it (a win is always taken). Shown the true
    hands (a redeal that keeps them, as a test may plant), every playout of that discard pays
    the win, and the search throws another tile."""
    g = Game(compile_ruleset("nanchang"), seed=5)
    east, south = g.dealer, g.next_seat(g.dealer)
    g.set_indicators({name: g.tiles.parse_one("3s") for name in g.indicators})  # 精: 4s and 5s
    g.set_concealed(east, g.tiles.parse("1m2m3m4m5m6m7m8m2p3p6p7p9s东"))
    g.last_drawn = None
    first = ValueBot(1)(g, east)
    assert first.kind == "discard" and first.tile is not None
    g.set_concealed(south, [*g.tiles.parse("2s2s2s2p3p4p5p6p7p7s8s9s"), first.tile])  # waits on it alone
    assert ValueBot(1)(g, east) == first, "the next seat's hand does not change the value bot's choice"
    bot = SearchBot(1, 48, redeal=keeps_true_hands)
    chosen = bot(g, east)
    assert bot.last is not None and bot.last.candidates[0] == first
    assert chosen != first, [a.text(g.scorer) for a in bot.last.candidates]


def test_play_watches_search_bots_of_a_budget():
    r = runner.invoke(app, ["play", "nanchang", "--auto", "--bots", "search:8", "--seed", "1"])
    assert r.exit_code == 0, r.output
    assert "seed 1" in r.output
