"""``mjrules simulate``: many hands with bots, and what happened in them.

Hands are played in blocks of consecutive hands (a :class:`~engine.table.match.Match` each, so the
deal rotates and floors climb); block ``b`` is seeded from (seed, b) alone, so the summary is
the same whatever ``workers`` is, and two runs with the same seed print the same thing.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from engine.core.scoring import Scorer, indicator_of
from engine.errors import MjError
from engine.lang.compiler import compile_ruleset
from engine.lang.ruleset import Ruleset
from engine.table.bots import BOTS, kind_error, make_bot
from engine.table.game import Game
from engine.table.match import Match, hand_seed
from engine.tools.runner import run_blocks
from engine.tools.stats import Dist

if TYPE_CHECKING:
    from engine.table.records import Record

BLOCK = 25  # hands per block: the unit of work a worker takes
# a block's work: (ref, options, seed, block index, hands, bot kind per seat, whether to keep records)
BlockArgs = tuple[str, dict[str, str], int, int, int, list[str], bool]

# per process: (ref, options) -> (ruleset, scorer), compiled once and shared by every block the
# process plays (a Scorer is stateless per call, so sharing it changes nothing but speed)
_COMPILED: dict[tuple[str, tuple[tuple[str, str], ...]], tuple[Ruleset, Scorer]] = {}


def compiled(ref: str, options: dict[str, str]) -> tuple[Ruleset, Scorer]:
    """The ruleset and scorer of (ref, options), compiled once per process."""
    key = (ref, tuple(sorted(options.items())))
    if key not in _COMPILED:
        if len(_COMPILED) >= _COMPILED_KEEP:
            _COMPILED.clear()
        rs = compile_ruleset(ref, options)
        _COMPILED[key] = (rs, Scorer(rs))
    return _COMPILED[key]


_COMPILED_KEEP = 4  # rulesets a process keeps compiled (a long-lived process simulating many)


@dataclass
class Summary:
    """Counts over simulated hands. Rule names are the ruleset's own (fans, patterns, 精 rules)."""

    seats: list[str]
    hands: int = 0
    wins: Counter[str] = field(default_factory=Counter)
    dealer_hands: Counter[str] = field(default_factory=Counter)
    exhaustive: int = 0
    follow_first: int = 0
    by: Counter[str] = field(default_factory=Counter)
    patterns: Counter[str] = field(default_factory=Counter)
    fans: Counter[str] = field(default_factory=Counter)
    jing_rules: Counter[str] = field(default_factory=Counter)
    net: Counter[str] = field(default_factory=Counter)
    moved: int = 0  # 子 that changed hands, summed over hands
    max_floor: int = 1
    per_hand: dict[str, Dist] = field(default_factory=dict)  # seat -> Dist of its 子 per hand
    moved_per_hand: Dist = field(default_factory=Dist)  # 子 that changed hands, per hand
    live_left: Counter[int] = field(default_factory=Counter)  # live wall tiles left when a hand ended → hands
    # (live_left is for reports such as benchmarks/coverage.py; to_json leaves it out: its output is pinned)

    def add(self, g: Game) -> None:
        """Count one finished hand."""
        r = g.result
        assert r is not None, "a finished hand has its result"
        self.hands += 1
        self.dealer_hands[g.dealer] += 1
        self.max_floor = max(self.max_floor, g.floor)
        self.live_left[g.live_remaining] += 1
        if r.winner:
            assert r.win is not None and r.reading is not None, "a won hand has its win and reading"
            self.wins[r.winner] += 1
            self.by[r.win.by] += 1
            self.patterns[r.reading] += 1
            # in the hand's order, not a set's: ties print the same whatever PYTHONHASHSEED
            self.fans.update(list(dict.fromkeys(r.fans)))
        else:
            self.exhaustive += 1
        self.follow_first += r.follow_first
        jing_names = set(g.rs.jing)
        fired = list(dict.fromkeys(n for _, part, lg in r.parts if indicator_of(part) in g.rs.indicators
                                   for n in lg.fired if n in jing_names))
        self.jing_rules.update(fired)
        net = r.net(g.seats)
        self.net.update(net)
        moved = sum(v for v in net.values() if v > 0)
        self.moved += moved
        self.moved_per_hand.add(moved)
        for s, v in net.items():
            self.per_hand.setdefault(s, Dist()).add(v)

    def merge(self, o: Summary) -> None:
        """Add another summary's counts (blocks are merged in order)."""
        self.hands += o.hands
        self.moved += o.moved
        self.exhaustive += o.exhaustive
        self.follow_first += o.follow_first
        self.max_floor = max(self.max_floor, o.max_floor)
        for name in ("wins", "dealer_hands", "by", "patterns", "fans", "jing_rules", "net", "live_left"):
            getattr(self, name).update(getattr(o, name))
        self.moved_per_hand.merge(o.moved_per_hand)
        for s, d in o.per_hand.items():
            self.per_hand.setdefault(s, Dist()).merge(d)

    def to_json(self) -> dict[str, Any]:
        """The summary as JSON-ready numbers: counts, rates (share of hands), averages in 子, and
        ``spread``: each seat's 子 per hand and the 子 moved per hand as :meth:`Dist.to_json`
        (mean with its 95 % interval, p5/p95, worst and best hand; engine/tools/stats.py)."""
        n = self.hands or 1

        def rate(c: Counter[str]) -> dict[str, float]:
            return {k: round(v / n, 4) for k, v in c.most_common()}

        return {
            "hands": self.hands,
            "seats": {s: {"wins": self.wins[s], "win_rate": round(self.wins[s] / n, 4),
                          "dealer_hands": self.dealer_hands[s], "avg_zi_per_hand": round(self.net[s] / n, 3)}
                      for s in self.seats},
            "exhaustive_rate": round(self.exhaustive / n, 4),
            "follow_first_rate": round(self.follow_first / n, 4),
            "win_by": rate(self.by),
            "patterns": rate(self.patterns),
            "fans": rate(self.fans),
            "jing_rules": rate(self.jing_rules),
            "max_floor": self.max_floor,
            "avg_zi_moved_per_hand": round(self.moved / n, 3),
            "spread": {"seats": {s: self.per_hand.get(s, Dist()).to_json() for s in self.seats},
                       "zi_moved": self.moved_per_hand.to_json()},
        }


def play_block(args: BlockArgs) -> tuple[Summary, list[Record]]:
    """Play one block of a simulation: ``args`` is (ruleset, options, seed, block index, hands,
    one bot kind per seat, whether to keep records); returns the block's summary and its records
    (empty unless kept). Runs in a worker process or a Ray task (:func:`run_blocks`); raises
    :class:`MjError` as :func:`simulate` does."""
    ref, options, seed, block, count, bots, want_records = args
    from engine.table.records import game_record

    rs, scorer = compiled(ref, options)
    match = Match(rs, hand_seed(seed, block), scorer=scorer)
    players = {s: make_bot(kind, hand_seed(hand_seed(seed, block), i)) for i, (s, kind) in enumerate(zip(match.seats, bots))}
    summary = Summary(match.seats)
    records: list[Record] = []

    def on_hand(g: Game) -> None:
        summary.add(g)
        if want_records:
            records.append(game_record(g))

    match.play(players, count, on_hand)
    return summary, records


def seat_bots(bots: list[str], seats: list[str]) -> list[str]:
    """One bot kind per seat: ``bots`` as given (one per seat) or one kind for every seat.
    Raises :class:`MjError` for an unknown kind or the wrong number of kinds."""
    if len(bots) == 1:
        bots = bots * len(seats)
    unknown = [b for b in bots if kind_error(b) is not None]
    if unknown or len(bots) != len(seats):
        raise MjError(f"--bots {','.join(bots)!r}: give one kind, or one per seat in seat order "
                      f"({len(seats)}: {', '.join(seats)}), from: {', '.join(BOTS)} (search:N: N playouts a decision)",
                      hint="e.g. --bots greedy or --bots greedy,greedy,random,random")
    return bots


def simulate(ref: str, options: dict[str, str], hands: int, seed: int, bots: list[str], workers: int = 1,
             records_dir: Path | None = None, progress: Callable[[int], None] | None = None,
             backend: str = "local", address: str | None = None) -> Summary:
    """Simulate ``hands`` hands; ``bots`` names one bot kind per seat (see :data:`BOTS`; a
    budgeted kind as ``search:N``, :func:`~engine.table.bots.make_bot`).

    ``workers``, ``backend`` and ``address`` say where blocks run (:func:`run_blocks`); the
    summary does not depend on them. Raises :class:`MjError` for an unknown bot, a ruleset that
    cannot be compiled, or a backend that cannot run (see :func:`run_blocks`).
    """
    rs, _ = compiled(ref, options)
    seats = [str(v) for v in rs.table["seats"].values]
    bots = seat_bots(bots, seats)
    blocks: list[BlockArgs] = [(ref, options, seed, b, min(BLOCK, hands - b * BLOCK), bots, records_dir is not None)
              for b in range((hands + BLOCK - 1) // BLOCK)]
    total = Summary(seats)
    done = 0

    def take(result: tuple[Summary, list[dict[str, Any]]], block: int) -> None:
        nonlocal done
        summary, records = result
        total.merge(summary)
        if records_dir is not None:
            from engine.table.records import dump

            records_dir.mkdir(parents=True, exist_ok=True)
            for i, rec in enumerate(records):
                dump(rec, records_dir / f"hand-{block * BLOCK + i + 1:06d}.yaml")
        done += summary.hands
        if progress:
            progress(done)

    for i, result in enumerate(run_blocks(play_block, blocks, workers, backend, address)):
        take(result, i)
    return total

