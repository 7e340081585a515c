"""Memory stays bounded when value bots play many hands: every memo they fill (engine/core/shanten.py,
engine/table/valuemodel.py) stays within its named limit, checked after every action, and the
limits change no decision. Sizes are read from the data structures (never RSS, never a timer)."""
from __future__ import annotations

import random
from collections.abc import Sized

from engine import compile_ruleset
from engine.core import shanten, shanten_base, shanten_blocks
from engine.core.scoring import Scorer
from engine.core.shanten import Shanten
from engine.core.shanten_blocks import block_options
from engine.table import valuemodel
from engine.table.bots import BOTS
from engine.table.match import Match
from engine.table.valuemodel import model_of, reach

RS = compile_ruleset("nanchang")
HANDS = 6
SEED = 21
MEMO_LIMIT = shanten.MEMO_LIMIT  # before the test lowers it (the lru_cache took it at import)
WHOLE_HAND = ("state_memo", "plan_memo", "discard_memo", "useful_memo", "fold_memo")  # per hand state
# Shanten.memos() names every memo it fills: those of a hand state are bounded by STATE_LIMIT, the
# others (per group) by MEMO_LIMIT


def _memos(m: valuemodel.ValueModel) -> list[tuple[str, Sized, int]]:
    """(name, memo, its limit) for every memo of a value model (each shared memo once)."""
    out, seen = [], set()
    for name, sh in [("any", m.any_shanten)]:
        memos = sh.memos()
        assert set(WHOLE_HAND) <= set(memos), sorted(memos)
        for attr, d in memos.items():
            if attr in WHOLE_HAND:
                out.append((f"{name}.{attr}", d, shanten_base.STATE_LIMIT))
            elif id(d) not in seen:
                seen.add(id(d))
                out.append((f"{name}.{attr}", d, shanten.MEMO_LIMIT))
    for tid, tables in enumerate(dict.fromkeys(m.any_shanten.group_tables)):  # the group tables it reads
        out.append((f"tables{tid}", tables.memo, shanten_blocks.MEMO_LIMIT))
    out += [("fit_memo", m.fit_memo, valuemodel.CACHE), ("worth_memo", m.worth_memo, valuemodel.CACHE),
            ("rows_memo", m.rows_memo, valuemodel.CACHE), ("jing_memo", m.jing_memo, valuemodel.CACHE)]
    return out


def _play(check=None) -> list[str]:
    """Four value bots play HANDS hands with a scorer of their own (a fresh value model); returns
    every action's text; ``check(model)`` runs after each action."""
    match = Match(RS, SEED, scorer=Scorer(RS))
    bots = {s: BOTS["value"](SEED + i) for i, s in enumerate(match.seats)}
    played: list[str] = []

    def on_action(g):
        if g.actions:
            played.append(g.actions[-1].text(g.scorer))
        if check:
            check(model_of(g.scorer))

    match.play(bots, HANDS, on_action=on_action)
    return played


def test_memos_never_exceed_their_limits_and_change_no_decision(monkeypatch):
    reference = _play()  # the default limits
    monkeypatch.setattr(shanten_base, "STATE_LIMIT", 60)  # the whole-hand memos (remember)
    monkeypatch.setattr(shanten, "MEMO_LIMIT", 150)
    monkeypatch.setattr(shanten_base, "MEMO_LIMIT", 150)  # the group tables' memos
    monkeypatch.setattr(shanten_blocks, "MEMO_LIMIT", 150)
    shanten_blocks.group_tables.cache_clear()  # the group tables start empty (other tests filled them)
    monkeypatch.setattr(valuemodel, "CACHE", 3)
    last: dict[str, int] = {}
    cleared: set[str] = set()

    def check(m):
        for name, memo, limit in _memos(m):
            assert len(memo) <= limit, (name, len(memo), limit)
            if len(memo) < last.get(name, 0):
                cleared.add(name)  # a memo only shrinks when it reached its limit and started again
            last[name] = len(memo)

    assert _play(check) == reference
    # the limits were reached and the memos started again, not merely never approached
    # (the value model keeps no block options: those are the reference ShantenOracle's)
    assert {"any.state_memo", "any.plan_memo", "any.fold_memo", "any.tables", "any.steps", "fit_memo",
            "tables0", "rows_memo"} <= cleared
    assert block_options.cache_info().currsize <= block_options.cache_info().maxsize == MEMO_LIMIT
    assert reach.cache_info().currsize <= reach.cache_info().maxsize


def test_every_patterns_distance_comes_from_one_count_of_the_hand():
    """plans_of / plans_each_discard give, pattern by pattern, what a Shanten of that pattern
    alone gives (one whole-hand memo and one set of per-group memos serve every pattern)."""
    import random

    m = valuemodel.ValueModel(Scorer(RS))
    ev = m.ev
    alone = {p: Shanten(ev.patterns.only(p)) for p in m.patterns}
    rng = random.Random(5)
    pool = [k for k in range(len(ev.tiles)) for _ in range(4)]
    for _ in range(150):
        melds = rng.randint(0, 2)
        held = rng.sample(pool, 14 - 3 * melds)
        wild = frozenset(rng.sample(range(len(ev.tiles)), 2))
        discards = sorted(set(held))
        each = m.any_shanten.plans_each_discard(held, melds, wild, discards, list(m.patterns))
        now = m.any_shanten.plans_of(held, melds, wild, list(m.patterns))
        for p, sh in alone.items():
            assert each[p] == sh.of_each_discard(held, melds, wild, discards), (p, held, melds)
            assert now[p] == sh.of(held, melds, wild)



def test_the_scorers_memos_are_bounded_and_change_no_amount():
    """Scorer memoises jing_score and settled (pure functions of the rules): with its limit
    lowered to 3, so that entries are dropped and computed again all the time, every amount and
    trail is what a scorer that computes every call gives, neither memo grows past the limit,
    and a caller changing the trail it got changes nothing kept."""
    roomy = Scorer(RS, memo_limit=0)  # the reference: it keeps only the last entry, and no key comes twice in a row
    sc = Scorer(RS, memo_limit=3)
    calls = [(n, sole, floor, dealer) for n in range(12) for sole in (False, True) for floor in (1, 2, 3)
             for dealer in (False, True)]
    random.Random(5).shuffle(calls)  # keys alike but for one fact come near each other
    for n, sole, floor, dealer in calls * 2:  # the second time the small memos hold some keys, not others
        assert sc.jing.score(n, sole, floor) == roomy.jing.score(n, sole, floor)
        env = sc.caps.env(floor, dealer, not dealer)
        got = sc.caps.settled("jing", n, env, ["before"])
        assert got == roomy.caps.settled("jing", n, env, ["before"]) and got[1][0] == "before"
        got[1].append("changed by the caller")
        assert "changed by the caller" not in sc.caps.settled("jing", n, env, [])[1]
        assert all(n <= 3 for n in sc.memo_sizes().values()), sc.memo_sizes()
    assert sc.jing.score(5, True, 1).score > sc.jing.score(5, False, 1).score  # 霸王 (nanchang)
