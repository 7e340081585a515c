"""The room rulesets' primitives where a scenario cannot show them (docs/language.md): the last
discard of jian (``last_discard(claims: win)``) played to the wall's end, the 冲关 formula past
the text's table, and the per-hand net cap (``at most N on net``)."""
from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.tools.scripted import build_game

RULES = Path(__file__).resolve().parent.parent / "rulesets"


def _jian_variant(tmp_path: Path, text: str):
    f = tmp_path / "v.rules"
    f.write_text(f'extends "{RULES / "jian.rules"}"\n{text}', encoding="utf-8")
    return compile_ruleset(str(f))


# S waits on 5p alone (a 德国 平胡, no 精); W holds 5p5p (a pung of 5p) and E, N's 下家, 6p7p (a
# chow). Every seat discards what it draws; the 71st and last live draw is 5p, drawn by N.
HANDS = {"E": "1m1m1m2m2m2m3m3m3m东南6p7p西", "S": "234s456s789m234p5p",
         "W": "5p5p2p8p西西西北北北白白白", "N": "4m4m4m5m5m5m6m6m6m中中中发"}


def _last_discard_game(rs):
    scorer = Scorer(rs)
    used = Counter()
    for h in HANDS.values():
        used.update(scorer.tiles.parse(h))
    used.update(scorer.tiles.parse("9s1p5p"))  # the 上精, the 下精 and the last draw
    left = [k for k in range(len(scorer.tiles.kinds)) for _ in range(4 - used[k])]
    useless = [k for k in left if scorer.tiles.code(k) != "5p"]
    assert len(useless) >= 70
    g = build_game(scorer, {"jing": "9s", "lower": "1p", "hands": dict(HANDS), "draws": [
        *(scorer.tiles.code(k) for k in useless[:70]), "5p"]})
    g.apply(g.legal_actions("E")[0].__class__.parse("E discard 西", scorer))
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
    assert g.current == "N" and g.last_drawn == scorer.tiles.parse("5p")[0]
    g.apply(next(a for a in g.legal_actions("N") if a.kind == "discard" and a.tile == g.last_drawn))
    return g, scorer


def test_the_last_discard_can_be_won_but_not_punged(tmp_path):
    g, scorer = _last_discard_game(compile_ruleset(str(RULES / "jian.rules")))
    assert not {"pung", "kong"} & {a.kind for a in g.legal_actions("W")}  # no pung of the last tile …
    assert "chow" not in {a.kind for a in g.legal_actions("E")}           # … nor a chow
    assert "win" in {a.kind for a in g.legal_actions("S")}     # but it can be won


def test_without_the_policy_the_last_discard_can_be_punged(tmp_path):
    g, _ = _last_discard_game(_jian_variant(tmp_path, "remove flow 最后一张\n"))
    assert "pung" in {a.kind for a in g.legal_actions("W")}
    assert "chow" in {a.kind for a in g.legal_actions("E")}


@pytest.mark.parametrize("n, score", [(5, 10), (10, 70), (11, 77), (12, 84), (4, 4)])
def test_jian_chongguan_stays_at_x7_past_10(n, score):
    scorer = Scorer(compile_ruleset(str(RULES / "jian.rules")))
    assert scorer.jing_score(n, False, 1).score == score  # 计分公式 2: 12X7
