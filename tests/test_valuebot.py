"""The value bot (engine/table/valuebot.py): deterministic, legal, reads its values from the IR."""
from __future__ import annotations

from pathlib import Path

import pytest

from engine import compile_ruleset
from engine.core.scoring import Scorer
from engine.table.bots import BOTS, GreedyBot, RandomBot
from engine.table.game import Game
from engine.table.match import Match, play_hand
from engine.table.valuebot import ValueBot
from engine.table.valuemodel import ValueModel

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in (ROOT / "rulesets").glob("*.rules"))
RS = compile_ruleset("nanchang")


def _rules(tmp_path: Path, body: str) -> Path:
    p = tmp_path / "variant.rules"
    p.write_text('ruleset variant "a variant"\nextends nanchang\n' + body, encoding="utf-8")
    return p


def _position(rs, hand: str, indicator: str) -> tuple[Game, str]:
    """A game whose dealer holds ``hand`` (14 tiles) before its first discard, with the wild
    indicator ``indicator``."""
    g = Game(rs, seed=5)
    seat = g.dealer
    g.set_concealed(seat, g.tiles.parse(hand))
    g.set_indicators({name: g.tiles.parse_one(indicator) for name in g.indicators})
    g.last_drawn = None
    return g, seat


def _actions(rs, seed: int, kinds: list[str], hands: int) -> list[str]:
    m = Match(rs, seed)
    played: list[str] = []
    bots = {s: BOTS[k](seed + i) for i, (s, k) in enumerate(zip(m.seats, kinds))}
    m.play(bots, hands, on_action=lambda g: played.append(g.actions[-1].text(g.scorer)) if g.actions else None)
    return played


def test_simulate_with_value_bots_plays_what_value_bots_play(tmp_path):
    """``mjrules simulate --bots value``: its record is the hand four ValueBots play, seeded as
    simulate seeds each seat (engine/tools/simulate.py: hand_seed of the block's seed, seat i)."""
    from engine.lang.yamlio import load_text
    from engine.table.match import hand_seed
    from engine.tools.simulate import simulate

    simulate("nanchang", {}, 1, 7, ["value"], records_dir=tmp_path)
    record = load_text((tmp_path / "hand-000001.yaml").read_text(encoding="utf-8"), "hand-000001.yaml")
    match = Match(RS, hand_seed(7, 0))
    bots = {s: ValueBot(hand_seed(hand_seed(7, 0), i)) for i, s in enumerate(match.seats)}
    game = match.deal()
    play_hand(game, bots)
    assert record["actions"] == [a.text(game.scorer) for a in game.actions]
    assert len(game.actions) > 10  # a hand was played


def test_value_bot_is_deterministic_for_a_seed():
    a = _actions(RS, 11, ["value"] * 4, 3)
    assert a == _actions(RS, 11, ["value"] * 4, 3)
    assert len(a) > 40


@pytest.mark.parametrize("rules", BUNDLED)
def test_value_bot_plays_only_legal_actions(rules):
    rs = compile_ruleset(rules)
    scorer = Scorer(rs)
    ended = 0
    for seed in range(6):
        g = Game(rs, seed, scorer=scorer)
        kinds = [ValueBot(seed), GreedyBot(seed), ValueBot(seed + 1), RandomBot(seed)]

        def checked(bot):
            def choose(game, seat):
                a = bot(game, seat)
                assert a in game.legal_actions(seat), (rules, seed, a)
                return a
            return choose

        play_hand(g, {s: checked(b) for s, b in zip(g.seats, kinds)})
        ended += g.over
    assert ended == 6


def test_pattern_values_come_from_the_rule_file(tmp_path: Path):
    """A pattern's value is what its fans pay in *this* ruleset: ×4 on 大七对 doubles the ×2 value."""
    base = ValueModel(Scorer(RS))
    raised = ValueModel(Scorer(compile_ruleset(_rules(tmp_path, "override fan 大七对 = x4 when pattern 大七对\n"))))
    assert raised.value["大七对"][0] == 2 * base.value["大七对"][0]  # with 精 used: fans multiply only
    assert raised.value["大七对"][1] > base.value["大七对"][1]  # without: 德国's +5 adds after the multipliers
    assert raised.value["平胡"] == base.value["平胡"]
    # the fan on not wilds_used (德国): a win without 精 used pays more than one with them
    wild, natural = base.value["平胡"]
    assert natural > wild > 0


def test_raising_a_patterns_multiplier_makes_the_bot_chase_it(tmp_path: Path):
    """Three pairs and a pung-less hand: at ×2 the bot breaks a pair for the sets-and-pair hand
    (the faster one: more live tiles), at ×8 it keeps the pairs for the all-pungs pattern and
    lets a single go."""
    hand, indicator = "57m2257p599s东东南西中", "7s"  # 7s/8s wild: none held
    g, seat = _position(RS, hand, indicator)
    plain = ValueBot(0)(g, seat)
    big = compile_ruleset(_rules(tmp_path, "override fan 大七对 = x8 when pattern 大七对\n"))
    g2, seat2 = _position(big, hand, indicator)
    chase = ValueBot(0)(g2, seat2)
    held = g.hands[seat].concealed
    assert plain.kind == chase.kind == "discard"
    assert held.count(plain.tile) == 2  # breaks a pair
    assert held.count(chase.tile) == 1  # keeps every pair
    m = ValueModel(Scorer(big))
    def after(t):
        rest = [x for x in held if x != t] + [t] * (held.count(t) - 1)
        return m.any_shanten.plans_of(rest, 0, g.wild, ["大七对"])["大七对"]
    assert after(chase.tile) < after(plain.tile)


@pytest.mark.parametrize("seed", range(8))
def test_value_bot_keeps_its_jing(seed):
    """With a 精 in hand and other tiles to let go, the discard is never a 精."""
    g = Game(RS, seed)
    seat = g.dealer
    wild = sorted(g.wild)
    hand = g.hands[seat].concealed
    if not any(t in g.wild for t in hand):  # give the dealer a 精 in place of its first tile
        g.set_concealed(seat, [wild[0], *hand[1:]])
    a = ValueBot(seed)(g, seat)
    assert a.kind != "discard" or a.tile not in g.wild


def test_value_bot_discards_a_jing_only_when_it_holds_nothing_else():
    g, seat = _position(RS, "1111222233334m", "1m")  # 1m/2m wild; 3m 4m are not
    a = ValueBot(0)(g, seat)
    assert a.kind == "discard" and a.tile not in g.wild


def test_feeding_the_liability_rule_is_read_from_the_ruleset(tmp_path: Path):
    """The cost of feeding a 精 into another seat's liability rule is that rule's score at its
    threshold from each payer (nanchang: n·(n−3) from n ≥ 5, so 10 × 3 payers), and nothing
    when the rule file has no liability."""
    assert ValueModel(Scorer(RS)).liability == 30
    none = compile_ruleset(_rules(tmp_path, "remove jing 包冲关\n"))
    assert ValueModel(Scorer(none)).liability == 0


@pytest.mark.parametrize("rules", BUNDLED)
def test_helping_kinds_match_the_reference_shanten(rules):
    """``helping_kinds`` (the live-tile count's kinds) agrees with :class:`ShantenOracle`: a kind
    is useful exactly when one more of it lowers the hand's shanten."""
    import random

    from engine.core.shanten import Shanten
    from engine.core.shanten_oracle import ShantenOracle

    ev = Scorer(compile_ruleset(rules)).hands
    fast, ref = Shanten(ev), ShantenOracle(ev)
    rng = random.Random(7)
    n = len(ev.tiles)
    pool = [k for k in range(n) for _ in range(4)]
    for _ in range(200):
        melds = rng.randint(0, 2)
        held = rng.sample(pool, 13 - 3 * melds - rng.randint(0, 1))
        wilds = rng.randint(0, 2)
        nat = [0] * n
        for t in held:
            nat[t] += 1
        kinds = [k for k in range(n) if nat[k] < 4]
        now = ref.of_counts(tuple(nat), wilds, melds)
        helping = fast.helping_kinds(tuple(nat), wilds, melds)
        assert helping <= set(range(n))
        for k in kinds:
            useful = k in helping
            after = list(nat)
            after[k] += 1
            assert useful == (ref.of_counts(tuple(after), wilds, melds) < now), (held, wilds, melds, k)


@pytest.mark.parametrize("rules", BUNDLED)
def test_helping_after_discards_reads_the_whole_hands_rows_exactly(rules):
    """``helping_after_discards`` (the value bot's live-tile count: the hand less each discard,
    its distances read from the whole hand's ``plans_each_discard`` rows where they exist and
    bounded by the whole hand's own where they do not) agrees with :class:`ShantenOracle` on the
    hand less that tile, whichever plans the rows measured (none, some, all)."""
    import random

    from engine.core.shanten import Shanten
    from engine.core.shanten_oracle import ShantenOracle

    ev = Scorer(compile_ruleset(rules)).hands
    ref = ShantenOracle(ev)
    rng = random.Random(11)
    n = len(ev.tiles)
    pool = [k for k in range(n) for _ in range(4)]
    names = list(ev.plans)
    for case in range(150):
        fast = Shanten(ev)  # fresh memos: the rows are only what this case measured
        melds = rng.randint(0, 2)
        held = rng.sample(pool, 14 - 3 * melds)
        wild = frozenset(rng.sample(range(n), rng.randint(0, 2)))
        measured = rng.sample(names, case % (len(names) + 1))
        discards = sorted(set(held))
        if measured:
            fast.plans_each_discard(held, melds, wild, discards, measured)
        kinds = [k for k in range(n) if k not in wild]
        got = fast.helping_after_discards(held, melds, wild, discards)
        assert len(got) == len(discards)
        for d, helping in zip(discards, got):
            useful = [k in helping for k in kinds]
            rest = list(held)
            rest.remove(d)
            nat, w = ref.natural_counts(rest, wild)
            now = ref.of_counts(tuple(nat), w, melds)
            for k, u in zip(kinds, useful):
                after = list(nat)
                after[k] += 1
                assert u == (ref.of_counts(tuple(after), w, melds) < now), (held, sorted(wild), melds, measured, d, k)


def test_a_lone_jing_wait_finds_every_draw_useful():
    """A 13-tile hand already at -1 (four sets and a lone 精: 精钓) is clamped to 0: every draw
    completes it, so every kind is a live useful tile (a review found 26 of 32 counted)."""
    from engine.core.shanten import Shanten
    from engine.core.shanten_oracle import ShantenOracle

    sc = Scorer(RS)
    t = sc.tiles
    hand = t.parse("123m456m789m111s3p")
    wild = frozenset({t.parse_one("3p"), t.parse_one("4p")})
    fast, ref = Shanten(sc.hands), ShantenOracle(sc.hands)
    nat, w = fast.natural_counts(hand, wild)
    kinds = [k for k in range(len(t)) if k not in wild]
    now = ref.of_counts(tuple(nat), w, 0)
    want = []
    for k in kinds:
        after = list(nat)
        after[k] += 1
        want.append(ref.of_counts(tuple(after), w, 0) < now)
    assert all(want) and set(kinds) <= fast.helping_kinds(tuple(nat), w, 0)


def test_value_bots_play_a_two_seat_table(tmp_path: Path):
    """A ruleset of two seats (the smallest check allows) builds its value model and plays."""
    from tests.test_playable import TINY

    f = tmp_path / "tiny.rules"
    f.write_text(TINY, encoding="utf-8")
    rs = compile_ruleset(str(f))
    m = Match(rs, 3)
    m.play({s: ValueBot(i) for i, s in enumerate(m.seats)}, 3)
    assert len(m.games) == 3 and all(g.over for g in m.games)


def test_worth_rows_are_the_documented_formula():
    """``worth_rows`` holds, per distance index, P(d)·V_wild and P(d_n)·V_natural + (P(d) − P(d_n))⁺·V_wild
    with the dealer's values for a dealer: the memo changes no figure."""
    from engine.table.valuemodel import reach

    m = ValueModel(Scorer(RS))
    for p in m.patterns:
        for draws, dealer, most in ((1, False, 14), (4, True, 3), (9, False, 14), (20, False, 14)):
            wild_row, both = m.worth_rows(p, draws, most, as_dealer=dealer)
            vw, vn = (m.value_as_dealer if dealer else m.value)[p]
            assert len(wild_row) == len(both) >= most + 2
            for i, d in enumerate(range(-1, most + 1)):
                pw = reach(d, draws, m.chance[p])
                assert wild_row[i] == pw * vw
                for j, dn in enumerate(range(-1, most + 1)):
                    pn = reach(dn, draws, m.chance[p])
                    assert both[i][j] == pytest.approx(pn * vn + max(pw - pn, 0.0) * vw)
            assert wild_row[0] == vw  # a complete hand
            assert draws >= most or wild_row[most + 1] == 0.0  # out of reach
    assert m.worth_rows("平胡", 4, 14, as_dealer=True) is m.worth_rows("平胡", 4, 14, as_dealer=True)


def test_jing_of_is_the_scorers_count_per_kind():
    """``ValueModel.jing_of``: for the revealed indicator, each 正精 and 副精 kind with what one
    tile of it adds to n (Scorer.jing.count), nothing else; memoised per indicator."""
    sc = Scorer(RS)
    m = ValueModel(sc)
    name = m.end_indicators[0]
    tile = sc.tiles.parse_one("5m")
    main, nxt = sc.rules.jing_kinds(tile)
    got = m.jing_of({name: tile})
    assert dict(got) == {k: sc.jing.count([k], main, nxt) for k in (main, nxt) if k is not None}
    assert set(got) == {main, nxt} and all(v > 0 for v in got.values())
    assert m.jing_of({name: tile}) is got
    assert dict(m.jing_of({})) == {}


@pytest.mark.parametrize("rules", ["nanchang-app", "ganzhou-app", "ganzhou"])
def test_a_kongs_worth_does_not_read_a_hidden_indicator(rules):
    """A hidden indicator (下精 under 埋雷, RULES.md §2) is not shown till the hand ends: two
    positions that differ in it alone give every kong the same worth. (Before, the 杠精 of any
    indicator counted the hidden one's 精 too: 0 and 8 were extra kinds under nanchang-app.)"""
    rs = compile_ruleset(rules)
    hidden = [n for n, ind in rs.indicators.items() if ind.hidden]
    assert hidden, f"{rules} hides an indicator"
    base = Game(rs, seed=3)
    seat = base.dealer
    bot = ValueBot(1)
    kinds = range(len(base.tiles.kinds))
    changed = 0
    for value in kinds:
        twin = Game(rs, seed=3)
        twin.set_indicators({**base.indicators, **dict.fromkeys(hidden, value)})
        if twin.indicators == base.indicators:
            continue
        changed += 1
        for tile in kinds:
            for how in ("concealed", "added", "exposed"):
                assert (bot.kong_points(bot.turn(twin, seat), twin, tile, how)
                        == bot.kong_points(bot.turn(base, seat), base, tile, how)), (value, tile, how)
    assert changed


@pytest.mark.parametrize("rules", ["nanchang", "ganzhou", "jian"])
def test_the_unseen_count_leaves_out_the_face_up_tiles_on_the_wall(rules):
    """The value bot counts live tiles (ukeire, danger) from what the seat sees: a face-up
    indicator still on the wall is seen by every seat, so its copy is not live. The count is
    view.unseen_counts, the search bot's redeal's too. (Before, the bot kept its own count and
    took a face-up indicator's copy for a tile still to be drawn.)"""
    from engine.table.view import public_wall, unseen_counts

    g = Game(compile_ruleset(rules), seed=3)
    bots = {s: RandomBot(1) for s in g.seats}
    while g.phase in ("pick", "flip"):
        s = g.to_act()[0]
        g.apply(bots[s](g, s))
    face_up = public_wall(g)
    assert face_up, f"{rules} shows an indicator on the wall"
    for seat in g.seats:
        unseen = ValueBot(1).turn(g, seat).unseen
        assert unseen == unseen_counts(g, seat)
        total = sum(k.copies for k in g.tiles.kinds)
        assert sum(unseen) == total - len(g.hands[seat].concealed) - len(face_up)
        for p in face_up:
            t = g.wall.tiles[p]
            assert unseen[t] == g.tiles.kinds[t].copies - g.hands[seat].concealed.count(t) \
                - sum(g.wall.tiles[q] == t for q in face_up)
