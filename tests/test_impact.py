"""`mjrules impact A B` and `diff --impact`: paired hands, the scoring and play effects, coverage
(engine/tools/impact.py, docs/impact.md). Small N: each 25-hand block plays twice and re-scores twice."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import MAX_HANDS, app
from engine.core.scoring import Scorer
from engine.table.bots import GreedyBot
from engine.table.game import Game
from engine.tools.impact import EFFECTS, ROLES, Scored, play_block
from engine.tools.impact_view import SECTION_TITLES
from engine.tools.simulate import Summary, compiled
from engine.tools.stats import Dist

runner = CliRunner()
DOC = Path(__file__).resolve().parent.parent / "docs" / "impact.md"


def _json(*args: str) -> dict:
    r = runner.invoke(app, ["impact", *args, "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_ruleset_against_itself_changes_nothing_exactly():
    # chongguan: a `previous` indicator (回头) and after-deal settlements; nanchang: 抄庄 and 下精;
    # the app rulesets: discarded 精 that count (`count discarded`: the re-scored snapshot keeps
    # the discards), kong rules, a net cap (jian)
    for rules in ("nanchang", "chongguan", "nanchang-app", "ganzhou-app", "jian"):
        j = _json(rules, rules, "-n", "25", "--seed", "4")
        assert j["coverage"] == [] and j["warnings"] == []
        assert j["not_scorable"] == {"a_hands_under_b": {}, "b_hands_under_a": {}}
        for name in EFFECTS:  # every hand re-scored by the same rules gives back its own nets
            e = j["effects"][name]
            assert e["hands"] == 25
            for role in ROLES:
                assert e[role]["min"] == e[role]["max"] == 0 and e[role]["ci95"] == [0.0, 0.0], (rules, name, role)
        assert j["sides"]["a"] == j["sides"]["b"]


def test_paired_hands_share_seeds_walls_and_dice():
    rs_a, sc_a = compiled("nanchang", {})
    rs_b, sc_b = compiled("chongguan", {})
    bots = ["greedy"] * 4
    a = play_block(rs_a, sc_a, 7, 3, 6, bots, None, Summary(["E", "S", "W", "N"]))
    b = play_block(rs_b, sc_b, 7, 3, 6, bots, None, Summary(["E", "S", "W", "N"]))
    walls_a, walls_b = [h.deal for h in a], [h.deal for h in b]
    assert walls_a == walls_b and len({w[0] for w in walls_a}) == 6  # six hands, six seeds, the same under both
    assert all(len(w[1]) == 136 for w in walls_a)


# Scripted hands (engine/tools/scripted.py) for the rules nanchang-table changes (RULES.md §3:
# 大七对 x2→x4, 天胡 20→32, 地胡 20→16 with 庄家). Nobody holds the 上精 (9p, 副 1p); S, W and N
# hold no honours, so no discard of the 大七对 hand can be claimed.
S13, W13, N13 = "2m3m5m6m8m2s6s7s8s4p5p6p7p", "2m4m6m7m3p5p8p2s6s8s3m5m7m", "4m6m8m3p4p8p2s7s8s9s6p7p9s"
SCRIPTED = {
    # 天胡 at floor 2 (爬楼 applies after a fixed fan): (32 - 20) x 3 payers x 2 = +72 for the dealer
    "fan.天胡": ({"dealer": "E", "floor": 2, "jing": "9p", "lower": "9m",
                 "hands": {"E": "123m456m789m234s55s", "S": S13, "W": W13, "N": N13}}, ["E win"], 72, 72),
    # 地胡 on the dealer's discard: the dealer pays 16 x2 (庄家) instead of 20: -12; 3 x 16 + 16 - 60 = +4 moved
    "fan.地胡": ({"dealer": "E", "jing": "9p", "lower": "9m",
                 "hands": {"E": "1m2m4m7m3p6p8p1s4s7s9s东北5s", "S": "123m456m789m234s5s", "W": W13,
                           "N": "4m6m8m3p4p8p2s7s8s2p6p7p9s"}}, ["E discard 5s", "S win"], -12, 4),
    # 大七对 self-drawn by the dealer after a go-around: x4 instead of x2 doubles its multiplied score of 96
    "fan.大七对": ({"dealer": "E", "jing": "9p", "lower": "9m", "draws": ["北", "西", "南", "5s"],
                  "hands": {"E": "111m222p333s44s55s东", "S": S13, "W": W13, "N": N13}},
                 ["E discard 东", "S draw", "S discard 北", "W draw", "W discard 西", "N draw", "N discard 南", "E draw",
                  "E win"], 96, 96),
}


def _scripted(scorer: Scorer, spec: dict, actions: list[str]) -> Game:
    from engine.table.game import Action
    from engine.tools.scripted import build_game

    g = build_game(scorer, spec)
    for text in actions:
        seat, kind, *tile = text.split()
        g.apply(Action(seat, kind, scorer.tiles.parse_one(tile[0]) if tile else None))
    assert g.over and g.result.winner, actions
    return g


@pytest.mark.parametrize("path", sorted(SCRIPTED))
def test_scoring_effect_is_attributed_to_the_changed_rule_that_fired(path):
    """Each scripted hand, played under one side and re-scored by the other: only the changed
    rule it was scripted for fires (on both sides), and the nets move as the rule text says."""
    from engine.tools.diff import diff
    from engine.tools.impact import rescore, scored_as_played

    spec, actions, dealer, moved = SCRIPTED[path]
    a, b = compiled("nanchang", {}), compiled("nanchang-table", {})
    changed = frozenset(c.path for c in diff(a[0], b[0]))
    assert changed == {"fan.大七对", "fan.天胡", "fan.地胡", "jing.杠精"}
    for (rs, scorer), (other_rs, other_scorer), sign in ((a, b, 1), (b, a, -1)):
        g = _scripted(scorer, spec, actions)
        own = scored_as_played(g)
        re = rescore(g, other_rs, other_scorer, {})
        other, why, msg = re.scored, re.reason, re.message
        assert (why, msg) == ("", ""), msg
        assert own.fired & changed == other.fired & changed == {path}, (rs.name, own.fired, other.fired)
        d = own.dealer
        assert (other.net[d] - own.net[d], other.moved - own.moved) == (sign * dealer, sign * moved), rs.name
        assert sum(other.net) == sum(own.net) == 0
    if path == "fan.大七对":  # the multiplied win score doubles, 96 → 192; 德国's +5 from each (15) comes after
        # the multipliers (nanchang.rules), and the 精 settlements are the same on both sides
        seats = ["E", "S", "W", "N"]
        wins = [next(lg for _, part, lg in _scripted(sc, spec, actions).result.parts if part == "hand").net(seats)["E"]
                for _, sc in (a, b)]
        assert wins == [96 + 15, 192 + 15]


def test_a_changed_rule_that_never_fires_is_warned_about():
    j = _json("nanchang", "nanchang-table", "-n", "25", "--seed", "2")
    kong = next(c for c in j["coverage"] if c["path"] == "jing.杠精")
    assert (kong["a"], kong["b"], kong["a_hands_by_b"], kong["b_hands_by_a"]) == (0, 0, 0, 0)
    assert "jing.杠精 not exercised in 25 hands: raise N or use `--bots value`" in j["warnings"]
    r = runner.invoke(app, ["impact", "nanchang", "nanchang-table", "-n", "25", "--seed", "2"])
    assert r.exit_code == 0 and "jing.杠精 not exercised in 25 hands" in r.stdout


def test_with_value_bots_the_warning_only_says_to_raise_n():
    j = _json("nanchang", "nanchang-table", "-n", "25", "--seed", "2", "--bots", "value")
    warned = [w for w in j["warnings"] if w.startswith("jing.杠精 not exercised")]
    assert warned == ["jing.杠精 not exercised in 25 hands: raise N"]


def test_json_keys():
    j = _json("nanchang", "chongguan", "-n", "25")
    assert list(j) == ["a", "b", "hands", "seed", "bots", "scoring_effect", "why_no_scoring_effect", "effects",
                       "coverage", "by_rule", "attribution", "not_scorable", "sides", "warnings", "rows"]
    assert (j["a"], j["b"], j["hands"], j["seed"], j["bots"]) == ("nanchang", "chongguan", 25, 1, ["greedy"] * 4)
    assert list(j["effects"]) == list(EFFECTS)
    assert list(j["effects"]["total"]) == ["hands", *ROLES]
    assert list(j["effects"]["total"]["dealer"]) == ["n", "mean", "sd", "ci95", "p5", "p95", "min", "max"]
    assert set(j["sides"]["a"]) >= {"win_rate", "dealer_win_rate", "exhaustive_rate", "zi_moved_per_hand",
                                    "jing_zi_moved_per_hand", "patterns", "fans", "jing_rules", "spread"}
    kinds = {c["path"]: c["kind"] for c in j["coverage"]}
    assert kinds["table.dead_wall"] == "always" and kinds["flow.弃先胡后"] == "flow" and kinds["indicator.回头"] == "scoring"
    # chongguan settles 回头 on B's hands only; A's scoring never has it
    hui = next(c for c in j["coverage"] if c["path"] == "indicator.回头")
    assert hui["a"] == 0 and hui["b"] == 24 and hui["a_hands_by_b"] == 24
    # total = scoring on A's hands + play scored by B, hand by hand, so in the means too
    e = j["effects"]
    for role in ROLES:
        assert abs(e["total"][role]["mean"] - e["scoring_on_a_hands"][role]["mean"]
                   - e["play_scored_by_b"][role]["mean"]) < 0.002


def test_markdown_report_and_the_docs_report_have_the_renderers_headings():
    r = runner.invoke(app, ["impact", "nanchang", "chongguan", "-n", "25", "--format", "markdown"])
    assert r.exit_code == 0, r.output
    md = r.stdout
    assert md.startswith("## Impact of chongguan over nanchang: 25 paired hands\n")
    assert "`mjrules impact nanchang chongguan -n 25 --seed 1 --bots greedy`" in md
    assert re.findall(r"^### (.+)$", md, re.M) == list(SECTION_TITLES)
    assert "| total | dealer |" in md and "| indicator.回头 | + | 0 | 24 | 48 |" in md
    doc = DOC.read_text(encoding="utf-8")
    assert re.findall(r"^### (.+)$", doc, re.M)[-len(SECTION_TITLES):] == list(SECTION_TITLES)
    assert "## Impact of chongguan over nanchang:" in doc


def test_diff_impact_shows_the_same_report_after_the_rule_diff():
    r = runner.invoke(app, ["diff", "nanchang", "nanchang-table", "--impact", "25", "--seed", "8", "--json"])
    assert r.exit_code == 1  # they differ
    j = json.loads(r.stdout)
    assert j["changed"] == 4 and j["impact"]["hands"] == 25
    assert next(x for x in j["impact"]["by_rule"] if x["path"] == "fan.天胡")["dealer"] == 144
    r = runner.invoke(app, ["diff", "nanchang", "nanchang-table", "--impact", "25"])
    text = r.stdout
    assert text.index("4 differences") < text.index("Impact of nanchang-table over nanchang: 25 paired hands")
    assert "Effects (Δ 子 per hand, B − A)" in text


@pytest.mark.parametrize("args, says", [
    (["nanchang", "chongguan", "-n", "5", "--bots", "nobot"], "error: --bots 'nobot': no such bot"),
    (["nanchang", "chongguan", "-n", "5", "--bots", "greedy,random"], "error: --bots 'greedy,random': give one kind, or one per seat in seat order (4: "),
    (["nanchang", "chongguan", "-n", str(MAX_HANDS + 1)], f"error: -n/--hands {MAX_HANDS + 1}: at most 1,000,000 paired hands"),
    (["nanchang", "no-such-rules", "-n", "5"], "no-such-rules"),
    (["nanchang", "chongguan", "-n", "5", "--format", "html"], "error: --format 'html': give table or markdown"),
    (["nanchang", "chongguan", "-n", "5", "--option", "nope=1"], "unknown option 'nope'"),
])
def test_bad_input_exits_2_with_a_clear_message(args, says):
    r = runner.invoke(app, ["impact", *args])
    assert r.exit_code == 2, r.output
    assert says in r.stderr and "Traceback" not in r.output


NO_WINDS = "extends nanchang\nremove meld 风顺\nremove honours winds\n"


def test_a_ruleset_with_other_seats_cannot_be_paired(tmp_path: Path):
    three = tmp_path / "three.rules"
    three.write_text('ruleset three "three seats"\n' + NO_WINDS + "override table seats = E S W\n"
                     "override table stacks_per_seat = 20\n", encoding="utf-8")
    r = runner.invoke(app, ["impact", "nanchang", str(three), "-n", "5"])
    assert r.exit_code == 2 and "error: A seats 4 players and B 3: hands cannot be paired" in r.stderr


def test_other_tiles_give_no_scoring_effect_and_say_why(tmp_path: Path):
    small = tmp_path / "small.rules"
    small.write_text('ruleset small "no winds"\n' + NO_WINDS + "override table stacks_per_seat = 15\n", encoding="utf-8")
    j = _json("nanchang", str(small), "-n", "5")
    assert j["scoring_effect"] is False and j["why_no_scoring_effect"] == "A and B have different tiles"
    assert "no scoring effect: A and B have different tiles" in j["warnings"]
    assert j["effects"]["total"]["hands"] == 5 and j["effects"]["scoring_on_a_hands"]["hands"] == 0


def test_dist_statistics_are_exact():
    d = Dist()
    for v in (-3, 0, 0, 1, 2, 10):
        d.add(v)
    assert (d.n, d.total, d.min, d.max, d.quantile(0.05), d.quantile(0.5), d.quantile(0.95)) == (6, 10, -3, 10, -3, 0, 10)
    lo, hi = d.ci95()
    assert abs((hi - lo) / 2 - 1.96 * d.sd / 6 ** 0.5) < 1e-12 and abs(d.mean - 10 / 6) < 1e-12
    e = Dist()
    e.merge(d)
    assert e.to_json() == d.to_json() and Dist().to_json()["n"] == 0


def test_scored_moved_counts_gains():
    assert Scored(0, (5, -3, -2, 0), frozenset()).moved == 5


def _follow_first_game(rs, scorer):
    """A nanchang hand whose four first discards are the same tile (抄庄), then played out by greedy bots."""
    from engine.table.game import Action

    for seed in range(1, 400):
        g = Game(rs, seed, scorer=scorer)
        common = set.intersection(*(set(h.concealed) for h in g.hands.values()))
        if not common:
            continue
        tile, discards = min(common), 0
        while discards < len(g.seats) and not g.over:
            for seat in g.to_act():
                legal = g.legal_actions(seat)
                if g.phase in ("claim", "rob"):
                    g.apply(Action(seat, "pass"))
                elif g.phase == "draw":
                    g.apply(legal[0])
                elif Action(seat, "discard", tile) in legal:
                    g.apply(Action(seat, "discard", tile))
                    discards += 1
                else:
                    break
            else:
                continue
            break
        if not g.follow_first:
            continue
        return _greedy_to_the_end(g)
    raise AssertionError("no seed gives four equal first discards")


def _greedy_to_the_end(g: Game) -> Game:
    """``g`` played on to its end by greedy bots (seeded by seat order)."""
    bots = {s: GreedyBot(i) for i, s in enumerate(g.seats)}
    while not g.over:
        for seat in g.to_act():
            g.apply(bots[seat](g, seat))
            if g.over:
                break
    return g


def test_rescoring_a_hand_by_its_own_rules_gives_its_own_nets_with_follow_first():
    from engine.tools.impact import rescore, scored_as_played

    rs, scorer = compiled("nanchang", {})
    g = _follow_first_game(rs, scorer)
    assert any(part == "follow_first" for _, part, _ in g.result.parts)
    own = scored_as_played(g)
    re = rescore(g, rs, scorer, {})
    again, why, msg = re.scored, re.reason, re.message
    assert (why, msg) == ("", "") and again == own
    assert "flow.抄庄" in own.fired and "indicator.lower" in own.fired
    # scored by a ruleset without 抄庄's payment, the dealer keeps what it paid (5 to each other seat)
    rs_b, scorer_b = compiled("nanchang", {})
    rs_b = rs_b.model_copy(update={"flow": {k: f for k, f in rs.flow.items() if f.policy != "follow_first_discard"}})
    re_b = rescore(g, rs_b, Scorer(rs_b), {})
    other, why = re_b.scored, re_b.reason
    d = g.seats.index(g.dealer)
    assert why == "" and "flow.抄庄" not in other.fired
    assert other.net[d] - own.net[d] == 5 * (len(g.seats) - 1)


def test_the_report_does_not_depend_on_workers():
    one = _json("nanchang", "chongguan", "-n", "30", "--seed", "5")
    two = _json("nanchang", "chongguan", "-n", "30", "--seed", "5", "--workers", "2")
    assert one == two and one["effects"]["total"]["hands"] == 30


def test_a_no_win_fan_is_counted_in_the_hands_it_refused():
    """飘精's `no win` fan (no wild before a 精 is discarded) never stands in a ledger: the hands of
    A it refuses when B re-scores them are its firings, and it is not warned about."""
    j = _json("nanchang-app", "nanchang-app", "--option-b", "飘精=是", "-n", "40")
    row = next(c for c in j["coverage"] if c["path"] == "fan.飘精无精")
    refused = j["not_scorable"]["a_hands_under_b"].get("no win", 0)
    assert row["a_hands_by_b"] == refused > 0 and row["warning"] is None


def test_rescoring_flipped_hands_by_their_own_rules_gives_their_own_nets():
    """发电 (nanchang-app's flips): the re-dealt hand is stopped by the seat and at the flip the
    played hand was, so its 上精 and after-deal settlements are the played ones, and a stopper
    that did not win pays its penalty (5 to each other seat: rulesets/nanchang-app.rules,
    发电罚分) in the rescore too."""
    from engine.tools.impact import rescore, scored_as_played

    rs, scorer = compiled("nanchang-app", {"发电": "是"})
    penalties = 0
    for seed in range(8):
        g = Game(rs, seed, scorer=scorer)
        _greedy_to_the_end(g)
        assert g.flips is not None and g.flips.stopper is not None  # greedy bots stop when asked
        penalty = next((lg for _, part, lg in g.result.parts if part == "stop_penalty"), None)
        if penalty is not None:
            penalties += 1
            assert penalty.net(g.seats)[g.flips.stopper] == -5 * (len(g.seats) - 1)
        re = rescore(g, rs, scorer, {})
        assert (re.reason, re.message) == ("", "") and re.scored == scored_as_played(g), seed
    assert penalties >= 2  # seeds 0 and 5: the stopper does not win
