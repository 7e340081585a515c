"""A match: hands in a row, the deal passing by the ruleset's ``dealer`` policy (连庄), the
dealer's floor climbing by its ``floor`` policy (爬楼), 抄庄 passing the deal, and each hand
given the previous hand's indicators (for indicators declared ``previous …``).
"""
from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.core.scoring import Scorer
from engine.lang import flow as FLOW
from engine.lang.ruleset import Ruleset
from engine.lang.seeds import SEED_SPACE
from engine.table.game import Action, Game, HandResult

Bot = Callable[[Game, str], Action]


def play_hand(game: Game, bots: dict[str, Bot], on_action: Callable[[Game], None] | None = None) -> HandResult:
    """Drive a game to its end with one bot per seat; ``on_action`` is called after each action."""
    while not game.over:
        for seat in game.to_act():
            game.apply(bots[seat](game, seat))
            if on_action:
                on_action(game)
            if game.over:
                break
    assert game.result is not None, "a game that is over has its result"
    return game.result


def play_until_person(game: Game, bot_for: Callable[[str], Bot | None], limit: int) -> list[tuple[Action, bool]]:
    """Bots play ``game`` until a seat with no bot must choose, the hand ends, or ``limit``
    actions: each turn the first seat to act whose ``bot_for(seat)`` is a bot plays it; a
    seat's lone ``draw`` is taken for it (``mjrules play`` does the same). ``bot_for`` is asked
    right before each choice (None: a person plays that seat now). Returns the actions applied,
    in order, each with whether a bot chose it (False: a lone draw). Bounded by ``limit``."""
    done: list[tuple[Action, bool]] = []
    while not game.over and len(done) < limit:
        for seat in game.to_act():
            legal = game.legal_actions(seat)
            if len(legal) == 1 and legal[0].kind == "draw":
                action, chosen = legal[0], False
            else:
                bot = bot_for(seat)
                if bot is None:
                    continue
                action, chosen = bot(game, seat), True
            game.apply(action)
            done.append((action, chosen))
            break
        else:
            break  # every seat to act is a person's choice
    return done


def next_deal(rs: Ruleset, seats: list[str], result: HandResult, dealer: str, floor: int) -> tuple[str, int]:
    """(dealer, floor) of the next hand (RULES.md §1 Dealer; §2 爬楼; 001 抄庄)."""
    keeps = (FLOW.policy(rs, "dealer") or {"keeps": ()})["keeps"]
    climbs = (FLOW.policy(rs, "floor") or {"climbs": ()})["climbs"]
    follow = FLOW.policy(rs, "follow_first_discard")
    dealer_won = result.winner == dealer
    keep = (dealer_won and "dealer_win" in keeps) or (result.winner is None and "exhaustive" in keeps)
    if result.follow_first and follow and follow["passes_deal"][0] == "yes":
        keep = False
    if not keep:
        falls = (FLOW.policy(rs, "floor") or {"falls": ("reset",)})["falls"][0]
        return seats[(seats.index(dealer) + 1) % len(seats)], max(floor - 1, 1) if falls == "step" else 1
    return dealer, floor + 1 if dealer_won and "dealer_win" in climbs else floor


@dataclass
class Match:
    """Hands in a row under one ruleset; ``seed`` derives each hand's seed."""

    ruleset: Ruleset
    seed: int
    dealer: str | None = None
    floor: int = 1
    scorer: Scorer | None = None
    previous: dict[str, int] = field(default_factory=dict)
    games: list[Game] = field(default_factory=list)
    keep: bool = True  # keep each finished hand in ``games`` (a long-lived room keeps only the count)
    played: int = 0  # hands finished

    def __post_init__(self) -> None:
        self.scorer = self.scorer or Scorer(self.ruleset)
        self.seats = [str(v) for v in self.ruleset.table["seats"].values]
        self.dealer = self.dealer or self.seats[0]

    def play(self, bots: dict[str, Bot], hands: int, on_hand: Callable[[Game], None] | None = None,
             on_action: Callable[[Game], None] | None = None) -> list[Game]:
        """Play ``hands`` hands; ``on_hand`` is called after each one (progress, records) and
        ``on_action`` after every action."""
        for _ in range(hands):
            g = self.deal()
            if on_action:
                on_action(g)  # the deal and the 精 flip
            play_hand(g, bots, on_action)
            self.finish(g)
            if on_hand:
                on_hand(g)
        return self.games

    def deal(self) -> Game:
        """The match's next hand, dealt: its seed is :func:`hand_seed` of the match's seed and the
        hand's index, so a match seeded ``seed`` deals the same tiles wherever it is played
        (``mjrules play --seed``, the browser's table). Play it, then :meth:`finish` it."""
        return Game(self.ruleset, hand_seed(self.seed, self.played), dealer=self.dealer, floor=self.floor,
                    previous_indicators=self.previous, scorer=self.scorer)

    def finish(self, game: Game) -> None:
        """Count a hand :meth:`deal` gave, now over: the next hand's dealer, floor and previous
        indicators follow from it. Raises :class:`ValueError` for a hand not over."""
        if game.result is None:
            raise ValueError("the hand is not over")
        if self.keep:
            self.games.append(game)
        self.played += 1
        self.previous = dict(game.indicators)
        assert self.dealer is not None, "__post_init__ chose the first dealer"
        self.dealer, self.floor = next_deal(self.ruleset, self.seats, game.result, self.dealer, self.floor)


PLAIN_SEEDS = SEED_SPACE  # seeds below: what `mjrules play --seed` takes; from here on, secret ones


def hand_seed(seed: int, index: int) -> int:
    """A distinct, reproducible seed (0 … ``SEED_SPACE`` − 1) for hand ``index`` of a match seeded ``seed``.

    A seed below :data:`PLAIN_SEEDS` (what ``mjrules play --seed`` takes) derives it by plain
    arithmetic, which one hand's seed gives away (the match's seed and every other hand follow
    from it): the seed's holder may know every hand. A larger seed is a secret key (a server
    draws one of 62 bits or more for a room it seeds itself): the hand's seed is a keyed hash of
    the index (BLAKE2b), so a finished hand's record, which carries its seed, tells nothing of
    the hands still to come."""
    if seed < PLAIN_SEEDS:
        return (seed * 1_000_003 + index) % PLAIN_SEEDS
    digest = hashlib.blake2b(index.to_bytes(8, "big", signed=True), key=seed.to_bytes(16, "big"), digest_size=8)
    return int.from_bytes(digest.digest(), "big") % PLAIN_SEEDS
