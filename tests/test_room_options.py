"""The room rulesets' primitives where a scenario cannot show them (docs/language.md): the last
discard of jian and ganzhou-app (``last_discard(claims: win)``) played to the wall's end, the 冲关 formula past
the text's table, and the per-hand net cap (``at most N on net``)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.errors import RuleError
from engine.table.game import Action
from engine.tools.scripted import build_game

RULES = Path(__file__).resolve().parent.parent / "rulesets"


def _variant(tmp_path: Path, name: str, text: str, options: dict[str, str]):
    f = tmp_path / "v.rules"
    f.write_text(f'extends "{RULES / (name + ".rules")}"\n{text}', encoding="utf-8")
    return compile_ruleset(str(f), options)


# Every seat discards what it draws; the last live draw is 5p. jian (71 live draws): N draws it;
# S waits on 5p alone (a 德国 平胡, no 精), W holds 5p5p (a pung) and E, N's 下家, 6p7p (a chow).
# ganzhou-app (49 live draws, 34 tiles stay): S draws it; N waits on it, W (S's 下家) holds
# 5p5p and 6p7p (a pung and a chow; with 吃 可吃).
LAST_DISCARD = {
    "jian": ({"E": "1m1m1m2m2m2m3m3m3m东南6p7p西", "S": "234s456s789m234p5p",
              "W": "5p5p2p8p西西西北北北白白白", "N": "4m4m4m5m5m5m6m6m6m中中中发"},
             {"last": "N", "win": "S", "pung": "W", "chow": "E"}, {}),
    "ganzhou-app": ({"E": "1m1m1m2m2m2m3m3m3m东南6p7p西", "S": "4m4m4m5m5m5m6m6m6m中中发发",
                     "W": "5p5p6p7p西西西北北白白东中", "N": "234s456s789m234p5p"},
                    {"last": "S", "win": "N", "pung": "W", "chow": "W"}, {"吃": "可吃"}),
}


def _last_discard_game(rs, hands: dict[str, str], last: str):
    scorer = Scorer(rs)
    used: Counter[int] = Counter()
    for h in hands.values():
        used.update(scorer.tiles.parse(h))
    used.update(scorer.tiles.parse("9s1p5p"))  # the 上精, the 下精 and the last draw
    left = [k for k in range(len(scorer.tiles.kinds)) for _ in range(4 - used[k])]
    useless = [scorer.tiles.code(k) for k in left if scorer.tiles.code(k) != "5p"]
    g = build_game(scorer, {"jing": "9s", "lower": "1p", "hands": dict(hands), "draws": ["5p"]})
    live = g.live_remaining
    assert len(useless) >= live - 1
    g = build_game(scorer, {"jing": "9s", "lower": "1p", "hands": dict(hands), "draws": [*useless[:live - 1], "5p"]})
    g.apply(Action.parse("E discard 西", scorer))
    while g.live_remaining > 0:  # draw and discard the drawn tile, passing every claim
        seat = g.to_act()[0]
        kinds = {a.kind: a for a in g.legal_actions(seat)}
        if "draw" in kinds:
            g.apply(kinds["draw"])
            if g.live_remaining == 0:
                break
            g.apply(next(a for a in g.legal_actions(seat) if a.kind == "discard" and a.tile == g.last_drawn))
        else:
            g.apply(kinds["pass"])
    assert g.current == last and g.last_drawn == scorer.tiles.parse("5p")[0]
    g.apply(next(a for a in g.legal_actions(last) if a.kind == "discard" and a.tile == g.last_drawn))
    return g


def _kinds(g, seat: str) -> set[str]:
    return {a.kind for a in g.legal_actions(seat)}


@pytest.mark.parametrize("name", sorted(LAST_DISCARD))
def test_the_last_discard_can_be_won_but_not_claimed(name):
    hands, who, options = LAST_DISCARD[name]
    g = _last_discard_game(compile_ruleset(str(RULES / f"{name}.rules"), options), hands, who["last"])
    assert not {"pung", "kong"} & _kinds(g, who["pung"])  # no pung of the last tile …
    assert "chow" not in _kinds(g, who["chow"])           # … nor a chow
    assert "win" in _kinds(g, who["win"])                 # but it can be won


@pytest.mark.parametrize("name", sorted(LAST_DISCARD))
def test_without_the_policy_the_last_discard_can_be_claimed(tmp_path, name):
    hands, who, options = LAST_DISCARD[name]
    g = _last_discard_game(_variant(tmp_path, name, "remove flow 最后一张\n", options), hands, who["last"])
    assert "pung" in _kinds(g, who["pung"])
    assert "chow" in _kinds(g, who["chow"])


@pytest.mark.parametrize("n, score", [(5, 10), (10, 70), (11, 77), (12, 84), (4, 4)])
def test_jian_chongguan_stays_at_x7_past_10(n, score):
    scorer = Scorer(compile_ruleset(str(RULES / "jian.rules")))
    assert scorer.jing.score(n, False, 1).score == score  # 计分公式 2: 12X7


def _ledger(nets: dict[str, int]):
    """One ledger with these nets: every loser pays the first winner, who pays the others."""
    from engine.core.ledger import Ledger, Transfer
    hub = next(s for s, v in nets.items() if v > 0)
    lg = Ledger()
    for s, v in nets.items():
        if s != hub and v:
            lg.transfers.append(Transfer(s, hub, -v, "hand", "x") if v < 0 else Transfer(hub, s, v, "hand", "x"))
    return lg


def _capped(tmp_path, nets: dict[str, int], text: str = "factor 封顶 = at most 300 on net\n") -> dict[str, int]:
    f = tmp_path / "c.rules"
    f.write_text("extends nanchang\n" + text, encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    seats = list(nets)
    lg = _ledger(nets)
    cap = scorer.caps.net_cap(seats, [lg])
    out = lg.net(seats)
    if cap is not None:
        assert {t.part for t in cap.transfers} == {scorer.NET_CAP_PART}
        for s, v in cap.net(seats).items():
            out[s] += v
    return out


def test_a_net_cap_shares_the_excess_by_the_losses_largest_remainder_first(tmp_path):
    # 25 over, shared 165 : 80 : 80 → 12.69, 6.15, 6.15: E takes the 子 left (docs/language.md)
    assert _capped(tmp_path, {"E": -165, "S": 325, "W": -80, "N": -80}) == {"E": -152, "S": 300, "W": -74, "N": -74}


def test_a_net_cap_on_the_losing_side_takes_back_from_the_gainers(tmp_path):
    # N loses 420 to three winners of 140: 120 over, given back 40 by each
    assert _capped(tmp_path, {"E": 140, "S": 140, "W": 140, "N": -420}) == {"E": 100, "S": 100, "W": 100, "N": -300}


def test_a_net_cap_on_both_sides_gains_first_then_losses(tmp_path):
    # 400 − 300 twice: 200 back to W and N by 700 : 100 → 175, 25 (W −525, N −75); then W's 225
    # past −300 back from E and S by 300 : 300 → 112.5 each: 112, 112 and the 子 left to E
    assert _capped(tmp_path, {"E": 400, "S": 400, "W": -700, "N": -100}) == {"E": 187, "S": 188, "W": -300, "N": -75}
    # 400 over, 500 : 150 : 50 of 700 → 285.71, 85.71, 28.57: the 2 子 left to S and W (the tie: S first)
    assert _capped(tmp_path, {"E": 700, "S": -500, "W": -150, "N": -50}) == {"E": 300, "S": -214, "W": -64, "N": -22}
    assert _capped(tmp_path, {"E": 200, "S": -200, "W": 0, "N": 0}) == {"E": 200, "S": -200, "W": 0, "N": 0}


def test_net_stands_alone(tmp_path):
    f = tmp_path / "c.rules"
    for text in ("factor 封顶 = at most 300 on win, net\n", "factor 封顶 = 2 on net\n",
                 "factor 封顶 = at most 300 on net when floor > 1\n"):
        f.write_text("extends nanchang\n" + text, encoding="utf-8")
        with pytest.raises(RuleError) as e:
            compile_ruleset(str(f))
        assert "`on net` is a cap alone" in e.value.message and e.value.location.line == 2


def test_a_factor_on_follow_multiplies_the_follow_payment(tmp_path):
    f = tmp_path / "c.rules"
    f.write_text("extends nanchang\nfactor 基本分 = 3 on follow\n", encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    lg = scorer.flow.follow_first([("E", 30), ("S", 30), ("W", 30), ("N", 30)], ["E", "S", "W", "N"], "E")
    assert lg is not None and lg.net(["E", "S", "W", "N"]) == {"E": -45, "S": 15, "W": 15, "N": 15}


def test_a_played_hand_keeps_every_net_within_the_cap(tmp_path):
    from engine.table.bots import BOTS
    from engine.table.game import Game
    from engine.table.match import play_hand
    f = tmp_path / "c.rules"
    f.write_text("extends nanchang\nfactor 封顶 = at most 5 on net\n", encoding="utf-8")
    rs = compile_ruleset(str(f))
    capped = 0
    for seed in range(20):
        g = Game(rs, seed)
        r = play_hand(g, {s: BOTS["random"](seed) for s in g.seats})
        net = r.net(g.seats)
        assert sum(net.values()) == 0 and all(abs(v) <= 5 for v in net.values()), net
        capped += any(part == "net_cap" for _, part, _ in r.parts)
    assert capped  # the cap bit in some hand (the 下精 after the deal included)


def test_a_transfer_is_between_two_seats():
    """A settlement that books a seat paying itself is wrong (its net hides it): Transfer refuses it."""
    from engine.core.ledger import Transfer

    assert Transfer("E", "S", 5, "stop_penalty", "flow.stop_penalty").payer == "E"
    with pytest.raises(ValueError, match="to itself"):
        Transfer("E", "E", 5, "stop_penalty", "flow.stop_penalty")
