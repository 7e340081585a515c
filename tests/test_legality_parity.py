"""One legality check serves the game and the scorer: for every snapshot a game reaches,
the win the game offers is exactly the win the scorer (``mjrules score`` / ``test``) accepts.

Only the state-only rules are compared; 弃先胡后 (pass_lock) depends on what happened before and
stays in the game, so a seat under a lock is left out.
"""
from __future__ import annotations

import pytest

from engine import Scorer, compile_ruleset
from engine.core.scoring import SeatHand, Snapshot
from engine.errors import IllegalAction
from engine.table.bots import GreedyBot
from engine.table.game import CLAIM, Action, Game
from engine.tools.scripted import build_game

SCORERS = {
    "nanchang": Scorer(compile_ruleset("nanchang")),
    "chongguan": Scorer(compile_ruleset("chongguan")),
    "ganzhou": Scorer(compile_ruleset("ganzhou")),
    "ganzhou 精钓点炮=yes": Scorer(compile_ruleset("ganzhou", {"精钓点炮": "yes"})),
}


def scorer_verdict(scorer: Scorer, game: Game, seat: str, tile: int, by: str, frm: str | None) -> str | None:
    """None if the scorer accepts the win on the game's state, else its reason."""
    hands = dict(game.hands)
    if by in ("self_draw", "kong_draw"):  # the snapshot's winner holds its tiles without the winning one
        rest = list(hands[seat].concealed)
        rest.remove(tile)
        hands[seat] = SeatHand(rest, hands[seat].melds)
    info = game.wins.info(seat, tile, by, frm)
    try:
        game.scorer.legal.check_win_hand(Snapshot(game.seats, game.dealer, game.floor, dict(game.indicators), hands, info))
    except IllegalAction as exc:
        return exc.message
    return None


def compare_after(game: Game, action: Action, seen: dict) -> None:
    """After ``action``: every win the game offers (or not) matches the scorer's verdict."""
    if action.kind == "discard" and game.last_discard is not None:
        frm, tile = game.last_discard
        for seat in game.seats:
            if seat == frm or seat in game.locks:
                continue
            offered = game.phase == CLAIM and Action(seat, "win") in game.legal_actions(seat)
            why = scorer_verdict(game.scorer, game, seat, tile, "discard", frm)
            assert offered == (why is None), (seat, game.tiles.code(tile), why)
            seen[offered] += 1
    elif action.kind == "draw" and game.phase == "act":
        seat, tile = game.current, game.last_drawn
        offered = Action(seat, "win") in game.legal_actions(seat)
        why = scorer_verdict(game.scorer, game, seat, tile, "kong_draw" if game.from_tail else "self_draw", None)
        assert offered == (why is None), (seat, game.tiles.code(tile), why)
        seen[offered] += 1


@pytest.mark.parametrize("name", sorted(SCORERS))
def test_random_hands_agree(name):
    """Greedy bots play whole hands; at every discard and draw the game and the scorer agree."""
    scorer = SCORERS[name]
    seen = {True: 0, False: 0}
    for seed in range(12):
        g = Game(scorer.rs, seed, scorer=scorer)
        bots = {s: GreedyBot(seed * 7 + i) for i, s in enumerate(g.seats)}
        while not g.over:
            seat = g.to_act()[0]
            a = bots[seat](g, seat)
            g.apply(a)
            compare_after(g, a, seen)
    assert seen[True] >= 3 and seen[False] > 100, seen  # both verdicts were compared


DEALER = "5m5m7m3p5p7p2s4s8s东北中发白"  # E's dealt 14: each of its kinds is discarded in turn
WAITS = [
    "123m456m789s东南西1p",  # 精钓 on a lone 副精 (jing 9p): any tile wins
    "123m456m789s东南西9p",  # 精钓 on a lone 正精
    "11m22m33m44m66m99s1p",  # six pairs and a lone 精: 小七对 精钓
    "123m456m789s东南1p5p",  # a 精 as a wild in a chow, waiting on 5p: not 精钓
    "123m456m789s东南西中",  # a natural single wait on 中
    "123m456m东南中中1p78s",  # waits on 6s / 9s, the 精 in a chow
]


@pytest.mark.parametrize("name", sorted(SCORERS))
@pytest.mark.parametrize("hand", WAITS)
def test_jing_wait_hands_agree_on_every_discard(name, hand):
    """S holds a 精钓 (or an ordinary) wait; E discards each of its kinds as its first discard
    (a 地胡 chance). The game offers S the win exactly when the scorer accepts it, and when the
    game refuses `S win` it gives the scorer's reason."""
    scorer = SCORERS[name]
    offered_any = refused_any = False
    for code in sorted({scorer.tiles.format([t]) for t in scorer.tiles.parse(DEALER)}):
        g = build_game(scorer, {"jing": "9p", "hands": {"E": DEALER, "S": hand}, "seed": 3})
        tile = scorer.tiles.parse_one(code)
        a = Action("E", "discard", tile)
        g.apply(a)
        offered = g.phase == CLAIM and Action("S", "win") in g.legal_actions("S")
        why = scorer_verdict(scorer, g, "S", tile, "discard", "E")
        assert offered == (why is None), (code, why)
        if not offered and g.wins.completes("S", tile, True):  # a complete hand, refused by a policy
            with pytest.raises(IllegalAction) as exc:
                g.apply(Action("S", "win"))
            assert why in exc.value.message
            refused_any = True
        offered_any |= offered
    jing_wait = hand in WAITS[:3]
    forbid = name == "ganzhou"
    assert refused_any == (jing_wait and forbid)
    assert offered_any == (not (jing_wait and forbid)) or hand == WAITS[5]
