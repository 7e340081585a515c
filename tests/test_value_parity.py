"""One scoring meaning: what the value bot's model expects a reading or a 精 count to pay is what
the scorer pays for it, on the final states of played hands under every bundled ruleset and every
docs/house-rules file with each value of each of its options."""
from __future__ import annotations

import itertools
import zlib
from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.core.scoring import Roles, SeatHand, Snapshot
from engine.errors import RuleError
from engine.table.bots import BOTS
from engine.table.match import Match
from engine.table.valuemodel import ValueModel

from .conftest import ROOT

BUNDLED = ["nanchang", "nanchang-table", "nanchang-app", "chongguan", "ganzhou", "ganzhou-app", "jian"]
# docs/house-rules files are pointers (`set`) to the bundled rulesets' options: each is checked
# at its own settings, and (fewer hands) with each other value of each option
HOUSE = sorted(str(p) for p in (ROOT / "docs" / "house-rules").glob("*.rules"))
HANDS = 24  # played hands per ruleset and option value
NOBODY_DEALS = {"sole": False, "floor": 1, "payer_is_dealer": False, "collector_is_dealer": False}  # floor 1, no dealer paid or paying


def variants() -> list[tuple[str, dict[str, str]]]:
    """(ruleset, options): each house file at its own settings; each bundled ruleset at its
    defaults, then each option at each other value that compiles."""
    out = [(ref, {}) for ref in HOUSE]
    for ref in BUNDLED:
        rs = compile_ruleset(ref)
        out.append((ref, {}))
        for name, info in rs.options.items():
            for v in info.choices:
                if v == info.default:
                    continue
                try:
                    compile_ruleset(ref, {name: v})
                except RuleError:
                    continue
                out.append((ref, {name: v}))
    return out


def _id(v) -> str:
    ref, opts = v
    return Path(ref).stem + "".join(f"-{k}={x}" for k, x in opts.items())


def final_states(rs, seed: int, hands: int = HANDS):
    """(scorer, snapshot) of the end of each of ``hands`` hands of a match of greedy bots."""
    match = Match(rs, seed)
    out = []

    def on_hand(g):
        hands = {s: SeatHand(list(h.concealed), list(h.melds)) for s, h in g.hands.items()}
        win = g.result.win
        if win is not None:
            hands[win.seat].concealed.remove(win.tile)
        disc = {s: list(d) for s, d in g.discards.items()}
        out.append(Snapshot(list(g.seats), g.dealer, g.floor, dict(g.indicators), hands, win, disc))

    players = {s: BOTS["greedy"](i) for i, s in enumerate(match.seats)}
    match.play(players, hands, on_hand)
    return match.scorer, out


def holdings(rs, scorer: Scorer, snap: Snapshot, name: str) -> dict[str, tuple[int, bool]]:
    """Each seat's (n, sole holder) for indicator ``name``, counted here from the tiles: concealed,
    melds and the winning tile count in n; kongs do not make a holder (RULES.md §2) unless the
    ruleset says `count kongs`."""
    main, nxt = scorer.rules.jing_kinds(snap.indicators[name])
    jing = {main, nxt} - {None}
    counted, outside = {}, {}
    for s in snap.seats:
        h = snap.hands[s]
        tiles = list(h.concealed) + ([snap.win.tile] if snap.win and snap.win.seat == s else [])
        thrown = [t for t in snap.discards.get(s, ()) if t in jing] if rs.jing_rules("discarded") else []
        counted[s] = scorer.jing.count(tiles + [t for m in h.melds for t in m.tiles] + thrown, main, nxt)
        kongs_hold = bool(rs.jing_rules("kongs_hold"))
        not_kongs = tiles + thrown + [t for m in h.melds if kongs_hold or m.meld_kind != "kong" for t in m.tiles]
        outside[s] = any(t in jing for t in not_kongs)
    holders = {s for s in snap.seats if outside[s]}
    return {s: (counted[s], holders == {s}) for s in snap.seats}


def kong_parity(rs, scorer: Scorer, snap: Snapshot, name: str, ledger, with_kongs: bool = True) -> int:
    """Each seat's kong points from each other seat in indicator ``name``'s settlement (one
    ``with kongs``, or another: its bonuses ``of each indicator``) are Scorer.kongs.paid of its
    melds (the figure the value model prices a kong at); a seat with an item its discarder pays
    for all is left out. Returns the (payer, holder) pairs checked."""
    jing = {k for k in scorer.rules.jing_kinds(snap.indicators[name]) if k is not None}
    any_jing = scorer.kongs.hand_kinds(snap.indicators)
    rules = {f"jing.{r.name}" for r in [*rs.jing_rules("kong"), *rs.jing_rules("kong_bonus")]}
    checked = 0
    for holder in snap.seats:
        melds = snap.hands[holder].melds
        if any(it.from_discarder for m in melds for it in scorer.kongs.items(m, jing, any_jing, with_kongs)):
            continue
        for payer in snap.seats:
            if payer == holder:
                continue
            paid = sum(t.amount for t in ledger.transfers if t.payer == payer and t.payee == holder and t.rule in rules)
            want = sum(scorer.kongs.paid(m, jing, any_jing, floor=snap.floor, payer_is_dealer=payer == snap.dealer,
                                        collector_is_dealer=holder == snap.dealer, drawn=snap.win is None,
                                        with_kongs=with_kongs) for m in melds)
            assert paid == want, (name, holder, payer, melds)
            checked += bool(want)
    return checked


def parity(rs, seed: int, hands: int = HANDS) -> tuple[int, int]:
    """Play ``hands`` hands of ``rs`` and assert, on each final state, that the value model's route
    pays what the scorer pays: every reading of a win, and every 精 settlement transfer (without
    a liable claim), every liable transfer and every kong's points. Returns (readings, 精
    transfers, liable and kong transfers checked)."""
    scorer, snaps = final_states(rs, seed, hands)
    model = ValueModel(scorer)
    readings = jing_checked = liable_checked = kongs_checked = 0
    for snap in snaps:
        if snap.win is not None:
            ws = scorer.score_win(snap)
            roles, sit = Roles.of(snap), scorer.rules.situation(snap)
            for reading, gain in ws.alternatives:
                # the model's own route (its facts from the reading, seating, floor and situation)
                env = model.facts(reading, roles, snap.floor, sit)
                assert env == scorer.rules.win_facts(snap, reading)
                assert model.pays(env, reading, roles) == gain, (reading, env)
                readings += 1
        for name, ind in rs.indicators.items():
            if ind.settle != "at_end" or name not in snap.indicators:
                continue
            ledger = scorer.settle_indicator(snap, name)
            held = holdings(rs, scorer, snap, name)
            kongs_checked += kong_parity(rs, scorer, snap, name, ledger, with_kongs=ind.with_kongs)
            if any(t.rule.endswith(".liability") for t in ledger.transfers):
                # a liable claim moves who pays: the liable discarder pays Scorer.liability.paid
                for t in ledger.transfers:
                    if t.rule.endswith(".liability"):
                        n, sole = held[t.payee]
                        assert t.amount == scorer.liability.paid(n, sole=sole, floor=snap.floor, payer_is_dealer=t.payer == snap.dealer,
                                                              collector_is_dealer=t.payee == snap.dealer), (name, t)
                        liable_checked += 1
                continue
            for payee, payer in itertools.permutations(snap.seats, 2):
                paid = sum(t.amount for t in ledger.transfers if t.payer == payer and t.payee == payee and t.rule == name)
                n, sole = held[payee]
                want = model.jing_pays(n, sole=sole, floor=snap.floor, payer_is_dealer=payer == snap.dealer,
                                        collector_is_dealer=payee == snap.dealer)
                assert want == paid, (name, payee, payer, n, sole)
                jing_checked += 1
    return readings, jing_checked, liable_checked + kongs_checked


@pytest.mark.parametrize("variant", variants(), ids=_id)
def test_the_value_model_pays_what_the_scorer_pays(variant):
    ref, opts = variant
    readings, jing_checked, _ = parity(compile_ruleset(ref, opts), seed=zlib.crc32(_id(variant).encode()) % 1000)
    assert readings > 0 and jing_checked > 0  # the states exercise both


COMBO_HANDS = 3  # hands per (house file, option value): the combinations are many


@pytest.mark.parametrize("path", HOUSE, ids=lambda p: Path(p).stem)
def test_each_house_file_with_each_option_value(path):
    """A house file's settings together with each other value of each option it inherits (霸王
    bonus with 封顶 300, say): the model's route still pays what the scorer pays."""
    base = compile_ruleset(path)
    checked = combos = 0
    for name, info in base.options.items():
        for v in info.choices:
            if v == info.default:
                continue  # the file's own settings: the test above
            try:
                rs = compile_ruleset(path, {name: v})
            except RuleError:
                continue
            r, _, _ = parity(rs, zlib.crc32(f"{path}{name}{v}".encode()) % 1000, COMBO_HANDS)
            checked, combos = checked + r, combos + 1
    assert combos > 1 and checked > 0


def test_overlord_bonus_is_seen_by_the_value_model():
    """霸王 = 精+10 (docs/house-rules/overlord-bonus.rules, nanchang-app's option): a sole holder with n = 3 scores
    3 + 10 = 13 from each payer — in the scorer and in the value model alike; ×2 gives 6."""
    path = str(ROOT / "docs" / "house-rules" / "overlord-bonus.rules")
    bonus = Scorer(compile_ruleset(path, {"霸王": "精+10"}))
    assert bonus.jing.score(3, True, 1).score == 13
    assert ValueModel(bonus).jing_score(3, sole=True) == 13
    assert ValueModel(bonus).jing_score(3, sole=False) == 3
    double = Scorer(compile_ruleset(path, {"霸王": "精x2"}))
    assert ValueModel(double).jing_score(3, sole=True) == double.jing.score(3, True, 1).score == 6


def test_the_model_values_a_pattern_by_the_house_files_fans(tmp_path):
    """A house rule that forbids a pattern's wins makes the model value that pattern at 0, and
    a payment weight of the dealer reaches the dealer's value (payment weights per role)."""
    base = ValueModel(Scorer(compile_ruleset("nanchang")))
    f = tmp_path / "h.rules"
    f.write_text("ruleset h\nextends nanchang\nfan 禁 = no win when pattern 平胡\n", encoding="utf-8")
    banned = ValueModel(Scorer(compile_ruleset(str(f))))
    assert base.value["平胡"][0] > 0 and banned.value["平胡"] == (0.0, 0.0)
    assert banned.value["小七对"] == base.value["小七对"]



def test_a_wins_value_is_the_scorers_worked_table():
    """平胡 with a 精 used (no fan), floor 1, RULES.md §2 (003's table): a 闲 winning on the
    dealer's discard collects 4 + 1 + 1 = 6, on a 闲's 2 + 2 + 1 = 5, self-drawn 4 + 2 + 2 = 8;
    the dealer on any discard 4 + 2 + 2 = 8, self-drawn 4 × 3 = 12. The model weighs a discard
    win (SHARE_DISCARD, each other seat alike) against a self-draw."""
    from engine.table.valuemodel import SHARE_DISCARD as D

    m = ValueModel(Scorer(compile_ruleset("nanchang")))
    assert m.value["平胡"][0] == pytest.approx(D * (6 + 5 + 5) / 3 + (1 - D) * 8)
    assert m.value_as_dealer["平胡"][0] == pytest.approx(D * 8 + (1 - D) * 12)


def test_the_models_typical_facts_are_the_scorers_facts():
    """ValueModel.facts names every win fact Scorer.rules.win_facts computes (a fact added to one and
    not the other would be 0 in the model's estimates without a word)."""
    from engine.core.handparts import Reading

    rs = compile_ruleset("nanchang")
    scorer, snaps = final_states(rs, seed=3)
    snap = next(s for s in snaps if s.win is not None)
    reading = scorer.score_win(snap).reading
    model = ValueModel(scorer)
    typical = model.facts(Reading(reading.pattern, 1, False), model.roles(None, winner_is_dealer=False))
    assert set(typical) == set(scorer.rules.win_facts(snap, reading))


def test_the_models_liability_is_what_the_liable_discarder_pays(tmp_path):
    """包冲关 (nanchang: ``liability 冲关``): the model's cost of feeding it is what the scorer has a
    liable discarder pay at 冲关's threshold — the holder's score for all three payers, then the
    jing factors of the settlement (a house ×2 on 精 doubles it; the model once left it out)."""
    base = Scorer(compile_ruleset("nanchang"))
    n = base.liability.threshold("冲关", 1, 64)
    assert n is not None and base.liability.fires("冲关", n, 1) and not base.liability.fires("冲关", n - 1, 1)
    assert ValueModel(base).liability == base.jing.score(n, False, 1).score * 3 > 0
    f = tmp_path / "double.rules"
    f.write_text("ruleset double\nextends nanchang\nfactor 精翻 = 2 on jing\n", encoding="utf-8")
    doubled = Scorer(compile_ruleset(str(f)))
    assert doubled.liability.paid(n, **NOBODY_DEALS) == 2 * base.liability.paid(n, **NOBODY_DEALS)
    assert ValueModel(doubled).liability == 2 * ValueModel(base).liability
    assert base.liability.threshold("no such rule", 1, 64) is None


@pytest.mark.parametrize("hands", [
    # RULES.md §2 Liability, tests/cases/nanchang_fidelity.yaml: 包冲关 for each claimant, and
    # one 冲关 by a claimed 精 beside one without (the second is not liable)
    {"S": {"concealed": "9s9s", "melds": ["chow 123s from E claimed 1s"]}, "N": {"concealed": "9s", "melds": ["pung 111s from W"]}},
    {"S": {"concealed": "9s9s", "melds": ["chow 123s from E claimed 1s"]}, "N": "111s9s"},
    {"E": {"concealed": "中发", "melds": ["chow 白发中 from N claimed 中"]}, "S": "发"},
], ids=["each-claimant", "one-liable", "chow-claimed-jing"])
def test_a_liable_claim_pays_what_liable_paid_says(hands):
    """The liable discarder's transfer in an end settlement is Scorer.liability.paid of the
    holder's (n, sole) — the figure the value model prices a fed 精 at (greedy matches rarely
    make one: none in 300 hands)."""
    from engine.core.snapshot import build_snapshot

    rs = compile_ruleset("nanchang")
    scorer = Scorer(rs)
    jing = "中" if "E" in hands else "9s"
    snap = build_snapshot(scorer, hands=hands, jing=jing)
    name = next(n for n, i in rs.indicators.items() if i.settle == "at_end" and n in snap.indicators)
    ledger = scorer.settle_indicator(snap, name)
    held = holdings(rs, scorer, snap, name)
    liable = [t for t in ledger.transfers if t.rule.endswith(".liability")]
    assert liable
    for t in liable:
        n, sole = held[t.payee]
        assert t.amount == scorer.liability.paid(n, sole=sole, floor=snap.floor, payer_is_dealer=t.payer == snap.dealer,
                                           collector_is_dealer=t.payee == snap.dealer) > 0
