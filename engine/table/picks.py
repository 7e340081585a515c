"""Each seat's own 精 (docs/language.md `indicator`, attribute ``picked by each seat``): after
the deal, before the dealer's first discard, every seat in play order from the dealer picks a
tile kind (``E pick 3m``: any kind of the ruleset); its 正精 and successor 副精 are that seat's
own wilds, and the indicator's tile at the end is the winner's pick (none on a 荒庄). The game
(:class:`engine.table.game.Game`) drives the phase; here is its state."""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.core.scoring import Scorer, Snapshot, WinInfo
from engine.core.shanten import Shanten
from engine.table.actions import Action


@dataclass
class Picks:
    """The picks of indicator ``name``: ``chosen`` (seat → kind), the seats still to pick
    (``asking``, in play order) and the pick actions each seat is offered (every kind, built once)."""

    name: str
    seats: list[str]
    kinds: int
    chosen: dict[str, int] = field(default_factory=dict)
    asking: list[str] = field(default_factory=list)
    offers: dict[str, list[Action]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.offers = {x: [Action(x, "pick", k) for k in range(self.kinds)] for x in self.seats}

    def take(self, seat: str, kind: int) -> str | None:
        """``seat`` (the one asked) picks ``kind``: the next seat to ask (None: every seat has picked)."""
        self.chosen[seat] = kind
        self.asking.pop(0)
        return self.asking[0] if self.asking else None

    def indicators(self, indicators: dict[str, int], win: WinInfo | None) -> dict[str, int]:
        """``indicators`` as a snapshot of ``win`` sees them: the picked one is the winner's pick."""
        out = dict(indicators)
        if win is not None and win.seat in self.chosen:
            out[self.name] = self.chosen[win.seat]
        return out

    @staticmethod
    def wilds(scorer: Scorer, snap: Snapshot, seats: list[str]) -> tuple[frozenset[int], dict[str, frozenset[int]]]:
        """The wild kinds every seat shares and each seat's own: the same set object for every
        seat unless the snapshot holds picks (so a check by identity stays cheap)."""
        shared = scorer.rules.wild_kinds(snap)
        if not snap.picks:
            return shared, dict.fromkeys(seats, shared)
        return shared, {x: scorer.rules.wild_kinds(snap, x) for x in seats}


def likely_pick(scorer: Scorer, shanten: Shanten, concealed: list[int], shared: frozenset[int]) -> int:
    """The pick every bot that weighs its hand makes (greedy and value): the kind whose 精 the
    hand counts most (the scorer's :meth:`~engine.core.jingscore.JingScores.count`: the file's
    values, e.g. 2 for each 正 and 1 for each 副), ties broken by the fewest tiles to go
    with the kind's 正精 and 副精 as wilds besides ``shared`` (the other wild indicators'), then
    by the lowest kind."""
    held = set(concealed)
    counted = {k: scorer.jing.count(concealed, *scorer.rules.jing_kinds(k)) for k in range(len(scorer.tiles))
               if k in held or scorer.tiles.successor(k) in held} or {0: 0}
    most = max(counted.values())

    def to_go(kind: int) -> int:
        return shanten.of(concealed, 0, shared | {k for k in scorer.rules.jing_kinds(kind) if k is not None})

    return min((k for k, n in counted.items() if n == most), key=lambda k: (to_go(k), k))
