"""Flips before play (发电; docs/language.md `indicator NAME = flips from END up to N stop when
EXPR`): after the deal, tiles are turned one at a time, each where a throw of the dice counts
along the wall from its ``END`` — the k-th throw of a sum s (each sum used at most ``at most M
per sum`` times, when the file says so) counts k·s tiles — and each is settled at once on the dealt hands as ``NAME@k``. The seats for which a
turned tile meets the stop condition are asked in play order from the dealer; the first that
stops makes that tile the indicator's. When N tiles are turned and nobody stopped, the hand is
drawn before play. The game (:class:`engine.table.game.Game`) drives this; here is the state.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.table.wall import Wall

# a throw of a sum already used twice is thrown again, at most this many times (then the least
# sum still free is taken): the throws are bounded whatever the dice give
MAX_RETHROWS = 1_000


@dataclass
class Flips:
    """The flips of one indicator: ``name``, the most tiles to turn (``count``), the wall end
    they count from; the throws' sums used, the positions turned, the tile now turned and the
    seats still to answer for it, and the seat that stopped (None until one does)."""

    name: str
    count: int
    end: str
    sums: tuple[int, ...]  # every sum the dice can make
    per_sum: int | None = None  # how many times one sum may be used (None: any)
    made: int = 0
    uses: Counter[int] = field(default_factory=Counter)
    turned: set[int] = field(default_factory=set)
    tile: int | None = None
    position: int | None = None
    asking: list[str] = field(default_factory=list)
    stopper: str | None = None

    @property
    def done(self) -> bool:
        """Whether every flip has been made."""
        return self.made >= self.count

    def turn(self, wall: Wall, throw: Callable[[], tuple[int, ...]]) -> tuple[int, int, tuple[int, ...]]:
        """Turn the next tile: (tile, wall position, the throw used). A throw of a sum used up
        (``per_sum`` times) is thrown again (at most :data:`MAX_RETHROWS` times); a position already turned moves
        on to the next tile along the wall."""
        def free(total: int) -> bool:
            return self.per_sum is None or self.uses[total] < self.per_sum

        dice: tuple[int, ...] = throw()
        for _ in range(MAX_RETHROWS):
            if free(sum(dice)):
                break
            dice = throw()
        s = sum(dice)
        if not free(s):
            s = min(x for x in self.sums if free(x))
        self.uses[s] += 1
        order = wall.tail_order() if self.end == "tail" else list(range(len(wall.tiles)))
        i = (self.uses[s] * s - 1) % len(order)
        while order[i] in self.turned:
            i = (i + 1) % len(order)
        self.made += 1
        self.position = order[i]
        self.turned.add(self.position)
        self.tile = wall.tiles[self.position]
        return self.tile, self.position, dice

    def stop(self, seat: str) -> tuple[int, int]:
        """``seat`` stops the flips: (the tile now turned, its wall position), the indicator's."""
        assert self.tile is not None and self.position is not None, "a stop answers a turned tile"
        self.stopper, self.asking = seat, []
        return self.tile, self.position

    def passed(self) -> str | None:
        """The seat asked first passed: the next seat to ask about this tile (None: no one)."""
        self.asking.pop(0)
        return self.asking[0] if self.asking else None

    def shown(self, code: Callable[[int], str]) -> dict[str, object]:
        """What every seat sees of the flips while a seat is asked: the indicator, the flips made,
        the most, and the tile now turned (by ``code``)."""
        return {"name": self.name, "made": self.made, "of": self.count,
                "tile": code(self.tile) if self.tile is not None else None}
