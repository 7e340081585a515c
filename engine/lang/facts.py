"""The facts the core computes, which rule-file conditions and formulas may name.

One table, read by the compiler (to reject unknown names with a hint), by the scorer (which
must supply each of them) and by the docs test. A context is where an expression is used:

- ``win``: a fan, a payment or a win-score factor, evaluated once per reading of the win;
- ``transfer``: a factor, evaluated per payer (adds the payer/collector facts);
- ``jing``: a 精 multiplier or formula, evaluated per player and indicator;
- ``settle``: a factor that also applies to 精 or 荒庄 transfers (``on jing``, ``on exhaustive``):
  only the facts every settlement has.
"""
from __future__ import annotations

WIN = "win"
TRANSFER = "transfer"
JING = "jing"
SETTLE = "settle"

FACTS: dict[str, tuple[frozenset[str], str]] = {
    # how the hand was won (RULES.md §1 Winning hands, SCENARIOS.md win.by)
    "self_drawn": (frozenset({WIN, TRANSFER}), "the winner drew the winning tile (自摸, 杠开 too)"),
    "discard": (frozenset({WIN, TRANSFER}), "the win is on another player's discard (点炮)"),
    "robbed_kong": (frozenset({WIN, TRANSFER}), "the win robs an added kong (抢杠)"),
    "after_kong": (frozenset({WIN, TRANSFER}), "the winning tile is a kong replacement (杠开)"),
    "first_turn": (frozenset({WIN, TRANSFER}), "天胡 / 地胡 timing: the dealer's deal or first discard"),
    "dealer_wins": (frozenset({WIN, TRANSFER}), "the winner is the dealer (庄)"),
    "discarder_is_dealer": (frozenset({WIN, TRANSFER}), "the discard came from the dealer"),
    # the reading of the hand (RULES.md §1 德国, 精钓)
    "wilds_used": (frozenset({WIN, TRANSFER}), "some 精 stands for another tile in this reading"),
    "wilds": (frozenset({WIN, TRANSFER}), "how many 精 stand for other tiles in this reading"),
    "anyone_holds_wild": (
        frozenset({WIN, TRANSFER}),
        "some player holds a wild-indicator 精 outside a kong (德中德 test)",
    ),
    # the other seats (RULES.md §1 德国: 德中德 variants look at them)
    "others_wilds_concealed": (frozenset({WIN, TRANSFER}),
                               "how many wild 精 the other seats hold concealed (not in melds or kongs)"),
    "others_wilds": (frozenset({WIN, TRANSFER}),
                     "how many wild 精 the other seats hold: concealed, in melds and in kongs"),
    "jing_wait": (
        frozenset({WIN, TRANSFER}),
        "精钓: the winning tile pairs with a lone 精 of the hand in this reading",
    ),
    "concealed_hand": (frozenset({WIN, TRANSFER}), "the winner has no claimed melds"),
    "floor": (frozenset({WIN, TRANSFER, JING, SETTLE}), "the dealer's 爬楼 floor (1, 2, 3 …)"),
    "keeps": (frozenset({WIN, TRANSFER, JING, SETTLE}),
              "how many hands in a row the dealer has kept the deal by winning: floor − 1 (0, 1, 2 …; "
              "with `falls: step` one less for each pass, at least 0)"),
    "wilds_held": (frozenset({WIN, TRANSFER}),
                   "how many wild 精 the winner holds concealed (a self-drawn winning tile too; not a discard won on)"),
    "discarded_main": (frozenset({WIN, TRANSFER}),
                       "how many 正精 of the wild indicators the winner discarded (not claimed by anyone)"),
    "discarded_next": (frozenset({WIN, TRANSFER}),
                       "how many 副精 of the wild indicators the winner discarded (not claimed by anyone)"),
    # per transfer
    "payer_is_dealer": (frozenset({TRANSFER, SETTLE}), "the paying seat is the dealer"),
    "collector_is_dealer": (frozenset({TRANSFER, SETTLE}), "the collecting seat is the dealer"),
    "drawn": (frozenset({SETTLE}), "the hand is a drawn hand (荒庄): nobody won"),
    # 精 settlement (RULES.md §2 精 settlement)
    "n": (frozenset({JING}), "the player's 精 count: 正 and 副 tiles by their values"),
    "sole_holder": (
        frozenset({JING}),
        "the player is the only one holding this indicator's 精 outside kongs (霸王)",
    ),
}


def facts_for(context: str) -> list[str]:
    """Names usable in ``context`` (``win``, ``transfer`` or ``jing``)."""
    return [name for name, (ctxs, _) in FACTS.items() if context in ctxs]


# Facts settled together by one choice among several: a win is made in exactly one way
# (SCENARIOS.md win.by), and exactly one seat is the dealer. Each kind maps its values to the
# facts that hold under that value; the kind's other facts are false then. The linter
# (engine/lang/lint.py) reads this to find conditions that can never hold (`self_drawn and discard`).
KINDS: dict[str, dict[str, frozenset[str]]] = {
    "by": {
        "discard": frozenset({"discard"}),
        "self_draw": frozenset({"self_drawn"}),
        "kong_draw": frozenset({"self_drawn", "after_kong"}),
        "rob_kong": frozenset({"robbed_kong"}),
    },
    "dealer": {
        "winner": frozenset({"dealer_wins"}),
        "discarder": frozenset({"discarder_is_dealer"}),
        "another seat": frozenset(),
    },
}

# How a win is made → every fact of the kind ``by``: true the ones it fixes, false the others.
# The one reading of KINDS["by"] the scorer (engine/core/reader.py facts_of) and `check`'s
# payment cases (engine/lang/playable.py) both use.
BY_FACTS: dict[str, dict[str, bool]] = {
    by: {f: f in held for f in sorted(set().union(*KINDS["by"].values()))} for by, held in KINDS["by"].items()
}

# A fact that can hold only when another does (the dealer discarded only if the win is on a discard).
REQUIRES: dict[str, str] = {"discarder_is_dealer": "discard"}

# Facts that are counts rather than yes/no, with their least value (the others are 0 or 1).
COUNTS: dict[str, int] = {"others_wilds_concealed": 0, "others_wilds": 0, "wilds": 0, "floor": 1, "keeps": 0, "n": 0, "wilds_held": 0, "discarded_main": 0, "discarded_next": 0}
