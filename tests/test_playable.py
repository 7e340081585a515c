"""`check` proves the table can be played (engine/lang/playable.py): each refusal is a RuleError
with its message, the line and column of the declaration at fault, and a hint.

The files are either `extends nanchang` plus a few lines (the fault on a line of this file), or
TINY, a whole small ruleset (36 tiles, two seats), with one line changed.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.errors import RuleError
from engine.lang.compiler import compile_text
from engine.lang.playable import check_playable
from engine.lang.resources import rulesets_dir
from engine.table.bots import RandomBot
from engine.table.match import Match

from .conftest import ROOT

PARENT = "extends nanchang\n"

TINY = """ruleset tiny
suit m "万" ranks 1..9 cyclic copies 4
table seats = E W
table hand = 7
table dealer_extra = 1
table deal = 4 3
table stack_height = 2
table stacks_per_seat = 9
table dead_wall = 0
table dice = 1
meld 顺子 chow = run 3 in m
meld 刻子 pung = same 3
meld 杠 kong = same 4 declared
meld 将 pair = same 2
pattern 平胡 = sets 2 + pair
payment base = 1
payment 点炮 = discarder x1 when discard
payment 自摸 = each x1 when self_drawn or robbed_kong
flow 抢杠 = rob_kong(on: added)
"""


def refuse(tmp_path, text: str) -> RuleError:
    with pytest.raises(RuleError) as info:
        compile_text(text, str(tmp_path / "bad.rules"), base_dir=rulesets_dir())
    return info.value


def line_of(text: str, start: str) -> int:
    return next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith(start))


def tiny(old: str, new: str) -> str:
    assert old in TINY
    return TINY.replace(old, new)


def at(err: RuleError, tmp_path, line: int, column: int = 1) -> None:
    assert err.location is not None, err
    assert (err.location.file, err.location.line, err.location.column) == (str(tmp_path / "bad.rules"), line, column), err


# ---- what passes ------------------------------------------------------------------------------


def test_tiny_is_playable(tmp_path):
    """TINY passes check and plays (the base every test below breaks one line of)."""
    rs = compile_text(TINY, str(tmp_path / "tiny.rules"))
    games = Match(rs, 3).play({s: RandomBot(i) for i, s in enumerate(("E", "W"))}, 10)
    assert len(games) == 10 and all(g.over for g in games)


@pytest.mark.parametrize("name", ["nanchang", "chongguan", "ganzhou", "nanchang-table"])
def test_bundled_rulesets_pass(name):
    from engine.lang.compiler import compile_ruleset

    check_playable(compile_ruleset(name))


# ---- seats ---------------------------------------------------------------------------------------


def test_no_seats(tmp_path):
    err = refuse(tmp_path, PARENT + "remove table seats\n")
    assert err.message == "the ruleset declares no `table seats`"
    at(err, tmp_path, 1, 1)
    assert err.hint == "add `table seats = E S W N`"


def test_one_seat(tmp_path):
    err = refuse(tmp_path, PARENT + "override table seats = E\n")
    assert err.message == "table seats names 1 seat(s); a table needs at least 2"
    at(err, tmp_path, 2, 1)


def test_a_seat_twice(tmp_path):
    err = refuse(tmp_path, PARENT + "override table seats = E S E N\n")
    assert err.message == "table seats names seat E twice"
    at(err, tmp_path, 2, 1)


# ---- table numbers and the deal ----------------------------------------------------------------------


def test_missing_table_number(tmp_path):
    err = refuse(tmp_path, PARENT + "remove table dice\n")
    assert err.message == "the ruleset declares no `table dice` (dice in a throw)"
    at(err, tmp_path, 1, 1)
    assert err.hint == "add `table dice = N`"


def test_table_number_not_a_number(tmp_path):
    err = refuse(tmp_path, PARENT + "override table hand = thirteen\n")
    assert err.message == "table hand must be one whole number (the tiles each seat holds after the deal)"
    at(err, tmp_path, 2, 1)


def test_table_number_too_small(tmp_path):
    err = refuse(tmp_path, PARENT + "override table stack_height = 0\n")
    assert err.message == "table stack_height = 0: it must be at least 1 (tiles in a stack (墩))"
    at(err, tmp_path, 2, 1)


@pytest.mark.parametrize("extra", [0, 2])
def test_dealer_extra_is_the_one_drawn_tile(tmp_path, extra):
    """dealer_extra = 0 once made legal_actions offer a discard that left the dealer short."""
    err = refuse(tmp_path, PARENT + f"override table dealer_extra = {extra}\n")
    assert err.message == (f"table dealer_extra = {extra}: the dealer must start with one tile more than the "
                           "others, the tile each other seat draws on its turn")
    at(err, tmp_path, 2, 1)
    assert "`table dealer_extra = 1`" in err.hint


def test_deal_does_not_add_up(tmp_path):
    err = refuse(tmp_path, PARENT + "override table deal = 4 4 4 2\n")
    assert err.message == "table deal 4 4 4 2 adds up to 14, not table hand = 13"
    at(err, tmp_path, 2, 1)
    assert err.hint == "make the rounds add up to the hand, e.g. `table deal = 4 4 4 1`"
    assert err.related and err.related[0][1].file.endswith("nanchang.rules")


def test_deal_not_numbers(tmp_path):
    err = refuse(tmp_path, PARENT + "override table deal = 4 4 four 1\n")
    assert err.message == "table deal must be whole numbers (tiles per seat per round)"
    at(err, tmp_path, 2, 1)


# ---- the wall --------------------------------------------------------------------------------------------


def test_wall_does_not_hold_the_tiles(tmp_path):
    err = refuse(tmp_path, PARENT + "override table stacks_per_seat = 16\n")
    assert err.message == "the wall is 4 seats × 16 stacks × 2 tiles = 128 tiles, but the suits and honours make 136"
    at(err, tmp_path, 2, 1)
    assert err.hint == "write `table stacks_per_seat = 17`"


def test_more_tiles_than_the_wall(tmp_path):
    """A new honours group adds tiles the wall has no stacks for; the fault is the wall line."""
    err = refuse(tmp_path, PARENT + 'honours flowers = 春 "1f", 夏 "2f" copies 1\n')
    assert err.message == "the wall is 4 seats × 17 stacks × 2 tiles = 136 tiles, but the suits and honours make 138"
    assert err.location.file.endswith("nanchang.rules")


def test_deal_bigger_than_the_wall(tmp_path):
    err = refuse(tmp_path, PARENT + "override table hand = 40\noverride table deal = 40\n")
    assert err.message == "the deal takes 161 tiles (4 seats × 40 + 1), but the wall has 136"
    at(err, tmp_path, 2, 1)


def test_dead_wall_leaves_nothing_to_draw(tmp_path):
    err = refuse(tmp_path, PARENT + "override table dead_wall = 42\n")
    assert err.message == ("the deal (53 tiles) and the dead wall (42 stacks = 84 tiles) leave no tile to draw "
                           "from a wall of 136")
    at(err, tmp_path, 2, 1)
    assert err.hint == "keep the dead wall below 41 stacks"


# ---- the dice ------------------------------------------------------------------------------------------------


def test_dice_count_past_a_seats_wall(tmp_path):
    err = refuse(tmp_path, PARENT + "override table dice = 3\n")
    assert err.message == "the two_rolls break counts up to 18 stacks along a seat's wall, but a seat has 17 (table stacks_per_seat)"
    at(err, tmp_path, 2, 1)


def test_one_roll_counts_one_die(tmp_path):
    """one_roll picks the stack by the smallest die, so three dice reach no further than one;
    two_rolls counts the whole throw along the wall."""
    three = tiny("table dice = 1", "table dice = 3")
    compile_text(three.replace("flow 抢杠", "flow 开 = break_wall(method: one_roll)\nflow 抢杠"),
                 str(tmp_path / "ok.rules"))
    err = refuse(tmp_path, three)
    assert err.message == ("the two_rolls break counts up to 18 stacks along a seat's wall, but a seat has 9 "
                           "(table stacks_per_seat)")
    at(err, tmp_path, line_of(three, "table dice"), 1)


def test_indicator_counted_into_the_deal(tmp_path):
    """The 上精 is counted from the tail; a deal that leaves fewer stacks than the dice reach is refused."""
    text = (PARENT + "override table hand = 29\noverride table deal = 29\n"
            "override pattern 平胡 = sets 10 + pair\n")
    err = refuse(tmp_path, text)
    assert err.message == "indicator upper: the dice count up to 12 stacks from the tail, but only 9 stacks are left after the deal"
    assert err.location.file.endswith("nanchang.rules")
    assert err.location.line == line_of((rulesets_dir() / "nanchang.rules").read_text(encoding="utf-8"),
                                        "indicator upper")


# ---- indicators -----------------------------------------------------------------------------------------------


def test_indicator_under_the_bottom(tmp_path):
    text = (PARENT + "override table stack_height = 1\noverride table stacks_per_seat = 34\n"
            'override indicator lower "下精" = under upper, settle after deal\n')
    err = refuse(tmp_path, text)
    assert err.message == "indicator lower is under upper, below the bottom of a stack of 1 tile(s)"
    at(err, tmp_path, 4, 1)


def test_indicator_placed_before_its_reference(tmp_path):
    text = PARENT + "indicator a = left of b, settle at end\nindicator b = right of lower, settle at end\n"
    err = refuse(tmp_path, text)
    assert err.message == "indicator a is placed left b, which is not placed before it"
    at(err, tmp_path, 2, 1)
    assert err.hint == "declare indicator b on the wall before a"


def test_indicator_relative_to_the_previous_hand(tmp_path):
    text = PARENT + "indicator back = previous upper, settle after deal\nindicator z = under back, settle at end\n"
    err = refuse(tmp_path, text)
    assert err.message == ("indicator z is placed under back, which is not on this hand's wall (it is the "
                           "previous hand's)")
    at(err, tmp_path, 3, 1)


def test_indicator_right_of_the_tail_stack(tmp_path):
    text = PARENT + "override table dice = 1\nindicator r = right of upper, settle at end\n"
    err = refuse(tmp_path, text)
    assert err.message.startswith("indicator r is right of upper, which can be the tail stack")
    at(err, tmp_path, 3, 1)


# ---- melds and patterns ------------------------------------------------------------------------------------------


def test_chow_of_another_size(tmp_path):
    err = refuse(tmp_path, PARENT + "override meld 顺子 chow = run 4 in suits\n")
    assert err.message == "meld 顺子: a chow of 4 tiles, but a set has 3"
    at(err, tmp_path, 2, 1)


def test_kong_not_a_set_plus_one(tmp_path):
    err = refuse(tmp_path, PARENT + "override meld 杠 kong = same 5 declared\n")
    assert err.message.startswith("meld 杠: a kong of 5 tiles, but a set has 3")
    assert err.hint == "write `same 4 declared`"
    at(err, tmp_path, 2, 1)


def test_meld_with_too_many_tile_sets(tmp_path):
    text = ("ruleset big\n"
            + "".join(f"suit {s} ranks 1..36 copies 1\n" for s in "mps")
            + 'honours z = 东 "1z", 南 "2z", 西 "3z", 北 "4z", 中 "7z", 发 "6z", 白 "5z" copies 4\n'
            + TINY.split("\n", 2)[2].replace("table seats = E W", "table seats = E S W N")
            .replace("hand = 7", "hand = 13").replace("deal = 4 3", "deal = 4 4 4 1")
            .replace("stacks_per_seat = 9", "stacks_per_seat = 17").replace("dice = 1", "dice = 2")
            .replace("sets 2 + pair", "sets 4 + pair").replace("run 3 in m", "distinct 3 in m + p + s"))
    err = refuse(tmp_path, text)
    assert err.message == "meld 顺子 makes 21420 tile sets; at most 20000"
    at(err, tmp_path, line_of(text, "meld 顺子"), 1)


def test_pattern_that_never_fits(tmp_path):
    err = refuse(tmp_path, PARENT + "override pattern 大七对 = sets 3 of pung/kong + pair\n")
    assert err.message == "pattern 大七对 never fits a complete hand of 14 tiles"
    assert err.hint == "pattern 大七对 makes 11 tiles (sets × set size + pairs × pair size)"
    at(err, tmp_path, 2, 1)


def test_no_pattern_fits_the_hand(tmp_path):
    text = tiny("table hand = 7", "table hand = 6").replace("deal = 4 3", "deal = 3 3")
    err = refuse(tmp_path, text)
    assert err.message == "no pattern makes a complete hand of 7 tiles (table hand 6 + dealer_extra 1)"
    at(err, tmp_path, line_of(text, "table hand"), 1)
    assert err.related[0][0] == "pattern 平胡 is declared here"


def test_hand_of_whole_sets(tmp_path):
    """A complete hand of whole sets: a seat that claims its last set would have nothing to discard."""
    text = tiny("table hand = 7", "table hand = 8").replace("deal = 4 3", "deal = 4 4").replace(
        "sets 2 + pair", "sets 3").replace("dice = 1", "dice = 1")
    err = refuse(tmp_path, text)
    assert err.message == ("a complete hand of 9 tiles is 3 whole sets of 3: a seat that claims its last set "
                           "has no tile left to discard")
    at(err, tmp_path, line_of(text, "table hand"), 1)


# ---- payments ---------------------------------------------------------------------------------------------------------


def test_no_payment_for_a_discard_win(tmp_path):
    text = TINY.replace("payment 点炮 = discarder x1 when discard\n", "")
    err = refuse(tmp_path, text)
    assert err.message == "no payment applies to a discard win"
    at(err, tmp_path, line_of(text, "payment 自摸"), 1)
    assert err.hint == "add a payment for it, e.g. `payment NAME = each x1 when discard`"


def test_no_payment_for_a_robbed_kong(tmp_path):
    text = tiny("when self_drawn or robbed_kong", "when self_drawn")
    err = refuse(tmp_path, text)
    assert err.message == "no payment applies to a rob-kong win"
    at(err, tmp_path, line_of(text, "payment 自摸"), 1)


def test_no_payment_for_a_dealer_discard(tmp_path):
    """The check tries every value of the facts the payment conditions test."""
    text = tiny("when discard\n", "when discard and not discarder_is_dealer\n")
    err = refuse(tmp_path, text)
    assert err.message == "no payment applies to a discard win when discarder_is_dealer = True"
    at(err, tmp_path, line_of(text, "payment 自摸"), 1)


def test_payments_split_by_pattern_cover(tmp_path):
    """Payments that split a kind of win by pattern are fine when together they cover it."""
    text = tiny("payment 点炮 = discarder x1 when discard\n",
                "payment a = discarder x1 when discard and pattern 平胡\n"
                "payment b = discarder x2 when discard and not pattern 平胡\n")
    compile_text(text, str(tmp_path / "ok.rules"))


def test_drawn_hand_paid_by_the_discarder(tmp_path):
    err = refuse(tmp_path, PARENT + "override exhaustive 荒庄 = discarder pays 5 each\n")
    assert err.message == "exhaustive 荒庄: a drawn hand has no discarder to pay"
    at(err, tmp_path, 2, 1)


def test_indicator_left_into_the_deal(tmp_path):
    """Each `left of` moves one stack further from the tail; past the undealt stacks it is refused."""
    text = (PARENT + "override table hand = 27\noverride table deal = 27\n"
            "indicator a = left of upper, settle at end\nindicator b = left of a, settle at end\n")
    err = refuse(tmp_path, text)
    assert err.message == "indicator b can be 14 stacks from the tail, but only 13 stacks are left after the deal"
    at(err, tmp_path, 5, 1)


def test_a_parent_line_error_names_the_childs_own_override_and_remove(tmp_path):
    """Found by the fresh-clone review: `override suit m … copies 16` was reported only at the
    parent's wall line; the child's own override (and remove) lines are now notes."""
    from engine.lang.compiler import compile_ruleset

    f = tmp_path / "cp.rules"
    f.write_text('ruleset h "x"\nextends nanchang\noverride suit m "万" ranks 1..9 cyclic copies 16\n', encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert e.value.message.startswith("the wall is 4 seats × 17 stacks × 2 tiles = 136 tiles")
    assert e.value.location.file.endswith("nanchang.rules")
    assert [(w, (loc.file, loc.line, loc.column)) for w, loc in e.value.related] == [
        ("suit.m is overridden here", (str(f), 3, 1))]
    f.write_text('ruleset h "x"\nextends nanchang\nremove payment 点炮\n', encoding="utf-8")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert e.value.message == "no payment applies to a discard win"
    assert [(w, loc.line) for w, loc in e.value.related] == [("payment.点炮 is removed here", 3)]


# ---- the win tables' size (issue 16): every file `check` accepts builds and plays in bounded time


def _extra_suit(ranks: int, copies: int) -> str:
    """nanchang plus a suit q of ``ranks`` ranks, the wall resized to hold it."""
    return (PARENT + f'suit q "Q" ranks 1..{ranks} copies {copies}\n'
            + f"override table stacks_per_seat = {(136 + ranks * copies) // 8}\n")


def test_a_suit_whose_win_tables_are_too_big_is_refused_at_the_suit(tmp_path):
    """Found in issue 16: 24 ranks × 2 copies passed `check`; `simulate -n 12` then ran for
    minutes building a win table of ~10**10 count vectors."""
    from engine.lang.limits import MAX_TABLE_VECTORS

    err = refuse(tmp_path, _extra_suit(24, 2))
    assert err.message.startswith("the win tables would visit 19,376,947,029 count vectors; "
                                  f"at most {MAX_TABLE_VECTORS:,} (suit q: 24 ranks, ")
    assert err.hint.startswith("give suit q at most 10 ranks, or deal a smaller hand")
    at(err, tmp_path, 2, 1)
    err = refuse(tmp_path, _extra_suit(12, 4))  # the next size past the hint's that the wall allows
    assert err.message.startswith("the win tables would visit ") and "(suit q: 12 ranks" in err.message


def test_check_exits_2_on_the_table_limit(tmp_path):
    f = tmp_path / "big.rules"
    f.write_text(_extra_suit(24, 2), encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "engine", "check", str(f)], capture_output=True, text=True,
                         timeout=120, cwd=ROOT, env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 2, run.stdout + run.stderr
    assert f"{f}:2:1: error: the win tables would visit" in run.stdout + run.stderr
    assert "Traceback" not in run.stdout + run.stderr


def test_a_suit_just_under_the_table_limit_builds_and_plays(tmp_path):
    """10 ranks × 4 copies (the most the hint above allows) is accepted near the limit, and 12
    hands of it are played to the end (a guard against a hang, not a timing: benchmarks/
    measure speed)."""
    from engine.lang.limits import MAX_TABLE_VECTORS
    from engine.lang.playable import group_tables

    text = _extra_suit(10, 4)
    rs = compile_text(text, str(tmp_path / "ok.rules"), base_dir=rulesets_dir())
    groups = group_tables(rs, 14)
    assert [(g.path, g.kinds) for g in groups] == [("suit.m", 9), ("suit.q", 10), ("honours.winds", 4),
                                                    ("honours.dragons", 3)]  # suits p and s share m's tables
    assert MAX_TABLE_VECTORS * 3 // 4 < sum(g.vectors for g in groups) <= MAX_TABLE_VECTORS  # near the limit
    f = tmp_path / "ok.rules"
    f.write_text(text, encoding="utf-8")
    run = subprocess.run([sys.executable, "-m", "engine", "simulate", str(f), "-n", "12", "--json"],
                         capture_output=True, text=True, timeout=300, cwd=ROOT,
                         env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert run.returncode == 0, run.stdout + run.stderr
    assert json.loads(run.stdout)["hands"] == 12
