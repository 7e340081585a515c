"""The ``search`` bot: which action wins the seat the most 子, played out over the hands it cannot
tell from this one? Determinised Monte Carlo over the engine's own game.

At a decision with a real choice (its own turn with a discard to make, or a claim on a
discard) the bot takes a few candidates — the value bot's choice, the value bot's next best
discards (:meth:`~engine.table.valuebot.ValueBot.discard_order`, the best ``top``), every
kong, every claim — and scores each by playouts: the hidden tiles are dealt again as the seat
may imagine them (:func:`engine.table.redeal.redealt`: from its view alone), the candidate is
applied on a copy, and four value bots play the hand to its end; the candidate's score is the
seat's net 子 in the hand's ledger (:meth:`HandResult.net`, the scorer's own settlement, nothing
restated). Every candidate is played on the same redeals with the same playout bots (common
random numbers: the difference between two candidates is not drowned by the luck of the
deal), in a race against the value bot's choice: a candidate leaves it once it is worse beyond
doubt or has played the same in every redeal (:func:`still_racing`), and one that beats the
value bot's choice by :data:`Z` standard errors over at least :data:`MIN_PAIRS` redeals is
chosen (the largest such margin); else the value bot's choice stands. One seat's net over a
playout varies by about ten 子 between redeals under the bundled rulesets (docs/game.md), so
only large gains are found at small budgets. So it sees every rule the scorer sees, because
it plays the rule file's own game.

Trivial decisions take no search: a win (always taken), a draw, a lone legal action; the 随精
pick and the 发电 stop are the value bot's. The budget is ``playouts`` per decision, shared by
the candidates as the race goes, and never passed; it limits the candidates to ``playouts //
MIN_PAIRS`` (below ``2 · MIN_PAIRS`` nothing is searched). ``cpu_seconds`` optionally stops
starting new redeals once that much CPU time is spent on a decision (then the choice depends on
the machine's speed: leave it None for a seeded, reproducible bot). The same seed and the same
game give the same choices; its choices are a value bot's of the same seed until the search
overrules one (its own order of discards draws its own tie-breaks). Cost and strength:
benchmarks/paired_bots.py, docs/game.md.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.table.actions import ACT, CLAIM
from engine.table.game import Action, Game
from engine.table.match import Bot, play_hand
from engine.table.redeal import copy_game, redealt
from engine.table.valuebot import ValueBot

PLAYOUTS = 48  # playouts per decision at most, by default (docs/game.md: its cost and its edge at this budget)
TOP = 3  # discards searched: the value bot's best few
BATCH = 4  # redeals played between two looks at the race
Z = 2.0  # standard errors a candidate's gain must clear to be chosen over the value bot's choice
DROP = 1.0  # a candidate leaves the race once its mean gain + DROP standard errors is not above 0
MIN_PAIRS = 4  # redeals a candidate needs before it may be chosen
MAX_PLAYOUTS = 10_000  # a bound on the work of one decision

Redeal = Callable[[Game, str, random.Random], Game]


@dataclass
class Search:
    """One searched decision: the ``candidates`` (the value bot's choice first), the seat's net
    子 of each playout of each (``nets[i]``, one per redeal while it stayed in the race: the
    redeals are the same for every candidate), the ``playouts`` played and the one ``chosen``."""

    candidates: list[Action]
    nets: list[list[int]] = field(default_factory=list)
    playouts: int = 0
    chosen: Action | None = None

    def gain(self, i: int) -> tuple[float, float]:
        """(mean, standard error) of candidate ``i``'s net less the value bot's choice's, over
        the redeals both were played on (0, 0 before two)."""
        d = [a - b for a, b in zip(self.nets[i], self.nets[0])]
        n = len(d)
        if n < 2:
            return 0.0, 0.0
        mean = sum(d) / n
        return mean, math.sqrt(sum((x - mean) ** 2 for x in d) / (n - 1) / n)


class SearchBot:
    """Determinised Monte Carlo with value-bot playouts (the module docstring says how).

    ``seed`` seeds its redeals, its playout bots and its value bot's tie-breaks; ``playouts``
    (1 … :data:`MAX_PLAYOUTS`) bounds the playouts of one decision; ``top`` the discards
    searched; ``cpu_seconds`` (None: no limit) the CPU time of one decision, checked between
    batches. ``redeal`` deals the hidden tiles again (default :func:`redealt`; a test plants a
    leaky one). Raises ``ValueError`` for a budget out of range. After each searched decision
    ``last`` holds its :class:`Search`; ``searched`` and ``played`` count decisions and playouts."""

    name = "search"

    def __init__(self, seed: int | None = None, playouts: int = PLAYOUTS, *, top: int = TOP,
                 cpu_seconds: float | None = None, redeal: Redeal = redealt):
        if not 1 <= playouts <= MAX_PLAYOUTS:
            raise ValueError(f"playouts must be 1 … {MAX_PLAYOUTS}, not {playouts}")
        if top < 1:
            raise ValueError(f"top must be at least 1, not {top}")
        if cpu_seconds is not None and not cpu_seconds > 0:
            raise ValueError(f"cpu_seconds must be positive, not {cpu_seconds}")
        self.rng = random.Random(None if seed is None else f"search:{seed}")
        self.value = ValueBot(seed)  # its choices, in step with a value bot of the same seed
        self.ranker = ValueBot(None if seed is None else seed + 1)  # its order of discards (draws its own tie-breaks)
        self.playouts, self.top, self.cpu_seconds, self.redeal = playouts, top, cpu_seconds, redeal
        self.last: Search | None = None
        self.searched = 0
        self.played = 0

    def candidates(self, game: Game, seat: str) -> list[Action]:
        """The actions searched at this decision, the value bot's choice first: on its own turn the
        best ``top`` discards by the value bot's order and every kong; on a claim every answer."""
        by_kind = game.actions_by_kind(seat)
        first = self.value(game, seat)
        out = [first]
        if game.phase == ACT:
            more = self.ranker.discard_order(game, seat)[:self.top]
            more += by_kind.get("concealed_kong", []) + by_kind.get("added_kong", [])
        else:
            more = game.legal_actions(seat)
        out += [a for a in more if a != first]
        return list(dict.fromkeys(out))

    def __call__(self, game: Game, seat: str) -> Action:
        by_kind = game.actions_by_kind(seat)
        now = game.taken_at_once(by_kind)
        if now is not None:
            return now
        if game.phase not in (ACT, CLAIM):  # the picks and flips before play: the value bot's
            return self.value(game, seat)
        cands = self.candidates(game, seat)[:max(1, self.playouts // MIN_PAIRS)]  # each can be played enough
        if len(cands) == 1:
            return cands[0]
        return self.search(game, seat, cands).chosen or cands[0]

    def search(self, game: Game, seat: str, cands: list[Action]) -> Search:
        """Race ``cands`` (legal actions of ``seat``, the value bot's choice first) against the
        first on the same redeals, :data:`BATCH` redeals at a time: after each batch a candidate
        that is no longer :func:`still_racing` leaves; the race ends when none is left or the
        budget would be passed. ``chosen``: among the candidates played on at least
        :data:`MIN_PAIRS` redeals, the one whose gain is largest ``Z`` standard errors below its
        mean, if that is above 0; else the first."""
        found = Search(cands, [[] for _ in cands])
        racing = list(range(1, len(cands)))
        key = self.rng.random()
        start = time.process_time()
        j = 0
        while racing:
            batch = min(BATCH, (self.playouts - found.playouts) // (1 + len(racing)))
            if batch < 1 or (self.cpu_seconds is not None and j and time.process_time() - start > self.cpu_seconds):
                break
            for _ in range(batch):
                self._round(game, seat, found, [0, *racing], f"{key}:{j}")
                j += 1
            racing = [i for i in racing if still_racing(*found.gain(i))]
        best, best_bound = 0, 0.0
        for i in range(1, len(cands)):
            mean, se = found.gain(i)
            if len(found.nets[i]) >= MIN_PAIRS and mean - Z * se > best_bound:
                best, best_bound = i, mean - Z * se
        found.chosen = cands[best]
        self.searched += 1
        self.last = found
        return found

    def _round(self, game: Game, seat: str, found: Search, which: list[int], key: str) -> None:
        """One redeal (seeded by ``key``), each candidate of ``which`` played out on it by the
        same value bots; the seat's nets appended to ``found.nets``."""
        world_rng = random.Random(key)
        world = self.redeal(game, seat, world_rng)
        seeds = [hash_seed(world_rng.random()) for _ in world.seats]
        for i in which:
            g = copy_game(world)
            g.apply(found.candidates[i])
            bots: dict[str, Bot] = {s: ValueBot(x) for s, x in zip(g.seats, seeds)}
            found.nets[i].append(play_hand(g, bots).net(g.seats)[seat])
            found.playouts += 1
            self.played += 1


def still_racing(mean: float, se: float) -> bool:
    """Whether a candidate of mean gain ``mean`` (standard error ``se``) over the value bot's
    choice may yet be better: not when ``mean + DROP·se`` is 0 or below (worse beyond doubt, or
    the same in every playout so far)."""
    return mean + DROP * se > 0


def hash_seed(x: float) -> int:
    """A bot's integer seed from a generator's float (the bots take ints)."""
    return int(x * (1 << 31))
