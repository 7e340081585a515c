"""Flow policies: the general primitives a rule file's ``flow`` declarations choose from.

``flow 弃先胡后 = pass_lock(until: own_turn, resets: kong/jing_discard)`` names a policy kind
(``pass_lock``) and its parameters. This table is the one place that lists them: the compiler
checks every ``flow`` declaration against it (unknown policy, parameter or value → an error
with a hint), the docs test checks the reference documents it, and the game core
(:mod:`engine.table.game`) reads each policy through :func:`policy`.

Each policy is a general way a hand can be played; which policies a variant uses, and with
which values, is the rule file's to say (RULES.md §1 Claims, 一 winner, 弃先胡后, Dealer).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from engine.lang.ruleset import Ruleset


@dataclass(frozen=True)
class Param:
    """A policy parameter: allowed words (or ``int``), whether several may be given (a/b/c),
    its default and what it means."""

    doc: str
    words: tuple[str, ...] = ()
    is_int: bool = False
    many: bool = False
    default: tuple[str | int, ...] = ()


@dataclass(frozen=True)
class Policy:
    """A flow policy kind: what it decides, and its parameters by name."""
    doc: str
    params: dict[str, Param] = field(default_factory=dict)


POLICIES: dict[str, Policy] = {
    "break_wall": Policy(
        "how the dice choose where the wall is broken (RULES.md §1 Wall)",
        {"method": Param("two_rolls: the dealer's roll picks who rolls again, that roll picks the stack; "
                         "one_roll: one roll picks the wall and the stack", ("two_rolls", "one_roll"),
                         default=("two_rolls",))},
    ),
    "chow": Policy(
        "whose discard may be chowed (吃)",
        {"from": Param("previous: only the discard of the seat before (上家); any: anyone's",
                       ("previous", "any"), default=("previous",))},
    ),
    "claim_priority": Policy(
        "which claim on a discard wins when several seats claim (001: win > pung/kong > chow)",
        {"order": Param("claim kinds, highest first", ("win", "kong", "pung", "chow"), many=True,
                        default=("win", "kong", "pung", "chow"))},
    ),
    "one_winner": Policy(
        "one winner per discard (截胡): the claimant nearest after the discarder in turn order",
        {"pick": Param("nearest: the first in turn order after the discarder", ("nearest",), default=("nearest",))},
    ),
    "rob_kong": Policy(
        "which kongs another player may rob with a win (抢杠)",
        {"on": Param("added: only an added kong (加杠)", ("added",), default=("added",))},
    ),
    "no_concealed_kong": Policy(
        "who may not declare a concealed kong (暗杠) on the starting hand (000 §10 注意)",
        {"who": Param("dealer or anyone", ("dealer", "anyone"), default=("dealer",))},
    ),
    "pass_lock": Policy(
        "弃先胡后: a seat that passes a win on a discard may not win on a later discard until its turn",
        {
            "until": Param("own_turn: its next draw or claim lifts the lock", ("own_turn",), default=("own_turn",)),
            "scope": Param("any: every later discard; same_tile: only the tile it passed", ("any", "same_tile"),
                           default=("any",)),
            "resets": Param("events that lift the lock early: a kong, a discarded 精, a win worth more than the "
                            "one passed, a claim that skips the seat's turn",
                            ("kong", "jing_discard", "higher_score", "skipped_turn"), many=True, default=()),
        },
    ),
    "jing_wait_discard": Policy(
        "may a seat whose hand is in 精钓 win on a discard (RULES.md §1 精钓)",
        {"win": Param("allow (scored as a plain discard win) or forbid", ("allow", "forbid"), default=("allow",)),
         "first_turn": Param("with win: forbid, whether a first-turn discard win (地胡) is forbidden too (forbid) "
                             "or still allowed (allow)", ("forbid", "allow"), default=("forbid",))},
    ),
    "follow_first_discard": Policy(
        "抄庄: in the first go-around all three others discard the dealer's first tile",
        {
            "pays": Param("子 the dealer pays each other seat", is_int=True, default=(0,)),
            "passes_deal": Param("the deal passes to the next seat after the hand", ("yes", "no"), default=("yes",)),
            "needs_win": Param("yes: paid only when the hand is won (void on a drawn hand); no: always",
                               ("yes", "no"), default=("no",)),
        },
    ),
    "stop_penalty": Policy(
        "a seat that stopped an indicator's flips (发电) and does not win pays each other seat",
        {"pays": Param("子 the stopper pays each other seat when it does not win", is_int=True, default=(0,))},
    ),
    "last_discard": Policy(
        "what may be claimed on a discard made when no live tile is left to draw (the last tile)",
        {"claims": Param("win: only a win (no chow, pung or kong); any: every claim", ("win", "any"),
                         default=("any",))},
    ),
    "dealer": Policy(
        "when the dealer keeps the deal (连庄); otherwise the next seat deals",
        {"keeps": Param("dealer_win, exhaustive (a drawn hand)", ("dealer_win", "exhaustive"), many=True,
                        default=("dealer_win", "exhaustive"))},
    ),
    "floor": Policy(
        "爬楼: when the dealer's floor climbs, and how it falls when the deal passes",
        {"climbs": Param("dealer_win", ("dealer_win",), default=("dealer_win",)),
         "falls": Param("reset: back to 1; step: one floor down, to 1 at least", ("reset", "step"),
                        default=("reset",))},
    ),
    "dead_wall": Policy(
        "the dead wall grows with the kongs declared: table dead_wall + per_kong stacks for each kong",
        {"per_kong": Param("stacks added to the dead wall for each kong on the table", is_int=True, default=(0,))},
    ),
}


def check(policy_name: str, params: Mapping[str, Sequence[str | int]]) -> tuple[str, str | None] | None:
    """None if ``policy_name(params)`` is valid, else (what is wrong, the parameter at fault or
    None for the policy itself) — for the compiler's error."""
    spec = POLICIES.get(policy_name)
    if spec is None:
        return f"unknown flow policy {policy_name!r}", None
    for key, values in params.items():
        p = spec.params.get(key)
        if p is None:
            return f"policy {policy_name} has no parameter {key!r} (it has: {', '.join(spec.params) or 'none'})", key
        if len(values) > 1 and not p.many:
            return f"{policy_name}({key}: …) takes one value", key
        for v in values:
            if p.is_int and not isinstance(v, int):
                return f"{policy_name}({key}: …) takes a number, not {v!r}", key
            if p.words and v not in p.words:
                return f"{policy_name}({key}: …) takes {' / '.join(p.words)}, not {v!r}", key
    return None


def policy(rs: Ruleset, policy_name: str) -> dict[str, tuple[str | int, ...]] | None:
    """The parameters of the first ``flow`` declaration using ``policy_name``, defaults filled
    in; None when the ruleset does not declare that policy."""
    for f in rs.flow.values():
        if f.policy == policy_name:
            spec = POLICIES[policy_name]
            return {k: tuple(f.params.get(k, p.default)) for k, p in spec.params.items()}
    return None
