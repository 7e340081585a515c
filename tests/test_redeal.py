"""A copy of a hand, and a copy with what one seat cannot see dealt again (engine/table/redeal.py).

The privacy check (:func:`leaks`) is shown first to catch planted leaks — a "determiniser"
that keeps the true hands, and one that keeps the true wall — before it is trusted to pass the
real one: two games the seat cannot tell apart (the same view, other hidden tiles) must give
the same copy for the same generator."""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Iterator

import pytest

from engine import compile_ruleset
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.match import play_hand
from engine.table.redeal import copy_game, redealt, unseen_tiles
from engine.table.view import public_wall, view_of

Redeal = Callable[[Game, str, random.Random], Game]
RULES = {name: compile_ruleset(name) for name in ("nanchang-app", "ganzhou-app")}
PICKS = compile_ruleset("nanchang-app", {"随精": "是"})


def decisions(rs, seed: int, every: int = 5) -> Iterator[tuple[Game, str]]:
    """(game, seat) at every ``every``-th choice (more than one legal action) of a hand four
    value bots play; the game goes on after each is yielded (copy it to keep it)."""
    g = Game(rs, seed)
    bots = {s: BOTS["value"](seed + i) for i, s in enumerate(g.seats)}
    n = 0
    while not g.over:
        seat = g.to_act()[0]
        if g.phase not in ("pick", "flip") and len(g.legal_actions(seat)) > 1:
            if n % every == 0:
                yield g, seat
            n += 1
        g.apply(bots[seat](g, seat))


def hidden(g: Game, seat: str) -> tuple[object, ...]:
    """What ``seat`` cannot see of ``g``: the other seats' concealed tiles and melds, the wall's
    undrawn face-down tiles, the indicators, the picks."""
    others = tuple((s, tuple(sorted(g.hands[s].concealed)), tuple(g.hands[s].melds)) for s in g.seats if s != seat)
    face_up = public_wall(g)
    wall = tuple(t for p, t in enumerate(g.wall.tiles) if p not in g.wall.taken and p not in face_up)
    picks = tuple(sorted(g.picked.chosen.items())) if g.picked else ()
    return others, wall, tuple(sorted(g.indicators.items())), picks


def twin(g: Game, seat: str, rng: random.Random) -> Game:
    """A game ``seat`` cannot tell from ``g``: a tile of another seat's hand swapped with a
    face-down undrawn wall tile of another kind (no indicator's place)."""
    t = copy_game(g)
    anchors = set(t.indicator_positions.values()) | public_wall(t)
    other = rng.choice([s for s in t.seats if s != seat and t.hands[s].concealed])
    hand = list(t.hands[other].concealed)
    i = rng.randrange(len(hand))
    places = [p for p in range(len(t.wall.tiles)) if p not in t.wall.taken and p not in anchors
              and t.wall.tiles[p] != hand[i]]
    p = rng.choice(places)
    hand[i], t.wall.tiles[p] = t.wall.tiles[p], hand[i]
    t.set_concealed(other, hand)
    return t


def hidden_twin(g: Game, seat: str, rng: random.Random) -> Game | None:
    """A game ``seat`` cannot tell from ``g``: a hidden indicator's undrawn tile (下精 under 埋雷)
    swapped with a tile of another kind from another seat's hand; None when no hidden
    indicator lies undrawn."""
    t = copy_game(g)
    spots = sorted((n, p) for n, p in t.indicator_positions.items()
                   if t.rs.indicators[n].hidden and not t.rs.indicators[n].picked and p not in t.wall.taken)
    if not spots:
        return None
    name, p = spots[rng.randrange(len(spots))]
    here = t.wall.tiles[p]
    swaps = [(s, i) for s in t.seats if s != seat for i, x in enumerate(t.hands[s].concealed) if x != here]
    other, i = swaps[rng.randrange(len(swaps))]
    hand = list(t.hands[other].concealed)
    hand[i], t.wall.tiles[p] = here, hand[i]
    t.set_concealed(other, hand)
    t.set_indicators({**t.indicators, name: t.wall.tiles[p]})
    return t


def pick_twin(g: Game, seat: str, rng: random.Random) -> Game | None:
    """A game ``seat`` cannot tell from ``g``: another seat's 随精 pick (its own 精, shown at the
    end) is another kind; None without picks made by another seat."""
    t = copy_game(g)
    if t.picked is None:
        return None
    others = sorted(s for s in t.picked.chosen if s != seat)
    if not others:
        return None
    other = others[rng.randrange(len(others))]
    kinds = [k for k in range(len(t.tiles.kinds)) if k != t.picked.chosen[other]]
    t.picked.chosen[other] = kinds[rng.randrange(len(kinds))]
    t.set_indicators(dict(t.indicators))  # each seat's own 精 follows its pick
    return t


def keeps_true_picks(g: Game, seat: str, rng: random.Random) -> Game:
    """A planted leak: a real redeal, then the other seats' true picks put back."""
    r = redealt(g, seat, rng)
    if g.picked is not None and r.picked is not None:
        r.picked.chosen.update({s: k for s, k in g.picked.chosen.items() if s != seat})
        r.set_indicators(dict(r.indicators))
    return r


def keeps_true_hidden_indicator(g: Game, seat: str, rng: random.Random) -> Game:
    """A planted leak: a real redeal, then the hidden indicators' true tiles put back."""
    r = redealt(g, seat, rng)
    hidden_names = [n for n in g.indicators if g.rs.indicators[n].hidden]
    r.set_indicators({**r.indicators, **{n: g.indicators[n] for n in hidden_names}})
    return r


def leaks(redeal: Redeal, positions: list[tuple[Game, str]], make_twin=twin) -> list[str]:
    """The positions where ``redeal`` tells two games apart that the seat cannot (the copy of the
    twin, made by ``make_twin``, differs from the copy of the game for the same generator); []
    when it never does."""
    out = []
    for k, (g, seat) in enumerate(positions):
        t = make_twin(g, seat, random.Random(k))
        if t is None:
            continue
        assert view_of(t, seat) == view_of(g, seat), "the twin looks the same to the seat"
        assert hidden(t, seat) != hidden(g, seat), "and differs in what it cannot see"
        if hidden(redeal(g, seat, random.Random(k)), seat) != hidden(redeal(t, seat, random.Random(k)), seat):
            out.append(f"position {k}, seat {seat}")
    return out


def positions(rs, hands: int = 2) -> list[tuple[Game, str]]:
    return [(copy_game(g), s) for seed in range(hands) for g, s in decisions(rs, seed)]


def keeps_true_hands(g: Game, seat: str, rng: random.Random) -> Game:
    """A planted leak: the wall's face-down tiles shuffled, the other seats' true tiles kept."""
    r = copy_game(g)
    face_up = public_wall(g)
    places = [p for p in range(len(r.wall.tiles)) if p not in r.wall.taken and p not in face_up]
    tiles = sorted(r.wall.tiles[p] for p in places)
    rng.shuffle(tiles)
    for p, t in zip(places, tiles):
        r.wall.tiles[p] = t
    return r


def keeps_true_wall(g: Game, seat: str, rng: random.Random) -> Game:
    """A planted leak: the other seats' tiles shuffled among them, the wall's left as it is."""
    r = copy_game(g)
    others = [s for s in g.seats if s != seat]
    pool = sorted(t for s in others for t in g.hands[s].concealed)
    rng.shuffle(pool)
    for s in others:
        r.set_concealed(s, [pool.pop() for _ in g.hands[s].concealed])
    return r


@pytest.mark.parametrize("leaky", [keeps_true_hands, keeps_true_wall, lambda g, seat, rng: copy_game(g)])
def test_the_privacy_check_catches_a_planted_leak(leaky):
    found = leaks(leaky, positions(RULES["nanchang-app"], 1))
    assert found, "a determiniser that keeps hidden truth is caught"


def test_the_privacy_check_catches_a_kept_hidden_indicator():
    rs = RULES["nanchang-app"]
    assert leaks(redealt, positions(rs), hidden_twin) == []  # the real one passes the same check
    assert leaks(keeps_true_hidden_indicator, positions(rs), hidden_twin), "a kept 下精 is caught"


def test_the_privacy_check_catches_kept_picks():
    places = positions(PICKS, 4)
    assert leaks(redealt, places, pick_twin) == []  # the real one passes the same check
    assert leaks(keeps_true_picks, places, pick_twin), "another seat's kept 随精 pick is caught"


@pytest.mark.parametrize("name", sorted(RULES))
def test_a_redeal_depends_on_the_seats_view_alone(name):
    assert leaks(redealt, positions(RULES[name])) == []


def test_a_redeal_with_picks_depends_on_the_seats_view_alone():
    assert leaks(redealt, positions(PICKS)) == []


@pytest.mark.parametrize("rs", [*RULES.values(), PICKS], ids=[*RULES, "随精"])
def test_a_redeal_keeps_the_view_and_the_counts_and_changes_the_truth(rs):
    changed = kept = 0
    for k, (g, seat) in enumerate(positions(rs)):
        r = redealt(g, seat, random.Random(k))
        assert view_of(r, seat) == view_of(g, seat)  # the same view, the same legal actions
        assert r.legal_actions(seat) == g.legal_actions(seat)
        assert sorted(unseen_tiles(r, seat)) == sorted(unseen_tiles(g, seat))
        for s in g.seats:
            assert len(r.hands[s].concealed) == len(g.hands[s].concealed)
            assert [(m.meld_kind, m.concealed) for m in r.hands[s].melds] == \
                [(m.meld_kind, m.concealed) for m in g.hands[s].melds]
        every = Counter(t for h in r.hands.values() for t in h.concealed + [x for m in h.melds for x in m.tiles])
        every += Counter(t for d in r.discards.values() for t in d)
        every += Counter(t for p, t in enumerate(r.wall.tiles) if p not in r.wall.taken)
        assert every == Counter({k.index: k.copies for k in r.tiles.kinds})  # every tile once, somewhere
        for s in g.seats:
            if s != seat:
                if Counter(r.hands[s].concealed) != Counter(g.hands[s].concealed):
                    changed += 1
                else:
                    kept += 1
        play_hand(r, {s: BOTS["value"](i) for i, s in enumerate(r.seats)})  # a copy plays to its end
    assert changed and kept <= changed // 20  # another seat's hand is almost never dealt back as it was


def test_a_redeal_is_a_function_of_its_generator():
    g, seat = positions(RULES["ganzhou-app"], 1)[3]
    assert hidden(redealt(g, seat, random.Random(4)), seat) == hidden(redealt(g, seat, random.Random(4)), seat)
    assert hidden(redealt(g, seat, random.Random(4)), seat) != hidden(redealt(g, seat, random.Random(5)), seat)


def test_a_copy_plays_as_the_game_and_leaves_it_unchanged():
    rs = RULES["nanchang-app"]
    for g, _ in decisions(rs, 3, every=7):
        before = (g.actions[:], {s: list(h.concealed) for s, h in g.hands.items()}, len(g.wall.taken), g.phase)
        a, b = copy_game(g), copy_game(g)
        play_hand(a, {s: BOTS["value"](i) for i, s in enumerate(g.seats)})
        play_hand(b, {s: BOTS["value"](i) for i, s in enumerate(g.seats)})
        assert a.actions == b.actions and a.result is not None and b.result is not None
        assert a.result.net(a.seats) == b.result.net(b.seats)
        assert before == (g.actions, {s: list(h.concealed) for s, h in g.hands.items()}, len(g.wall.taken), g.phase)


def test_no_redeal_outside_play():
    g = Game(RULES["nanchang-app"], 1)
    with pytest.raises(ValueError, match="no seat"):
        redealt(g, "X", random.Random(1))
    with pytest.raises(ValueError, match="no seat"):
        unseen_tiles(g, "X")
    play_hand(g, {s: BOTS["random"](i) for i, s in enumerate(g.seats)})
    with pytest.raises(ValueError, match="phase 'over'"):
        redealt(g, g.seats[0], random.Random(1))


def test_a_redeal_keeps_no_answer_of_another_seat_to_a_claim():
    """While a discard waits for claims, the seats asked answer one after another, each unseen by
    the others until all are in: a redeal for a seat asked after another must not carry that
    seat's answer (it kept the game's last action, which was that answer; found by a review)."""
    found = 0
    for seed in range(40):
        g = Game(RULES["nanchang-app"], seed)
        bots = {s: BOTS["value"](seed + i) for i, s in enumerate(g.seats)}
        while not g.over and found < 5:
            asked = g.to_act()
            if g.phase == "claim" and len(asked) == 1 and g.actions and g.actions[-1].kind in ("pass", "pung", "chow"):
                seat, answered = asked[0], g.actions[-1]
                if answered.seat != seat and answered.seat in g.pending:
                    r = redealt(g, seat, random.Random(seed))
                    assert all(a.seat == seat or a.kind not in ("pass", "pung", "chow", "kong", "win") for a in r.actions)
                    found += 1
            g.apply(bots[asked[0]](g, asked[0]))
    assert found == 5, "positions where a seat answers after another were found"
