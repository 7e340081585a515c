"""The shapes a win check takes and gives: a declared meld (:class:`MeldTiles`) and one
reading of a winning hand (:class:`Reading`).

Their own module so that the recursive evaluator, the win tables and the scorer share them
without importing one another (RULES.md §1 Winning hands, 精, 德国, 精钓; §2 Liability).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple


@dataclass(frozen=True)
class MeldTiles:
    """A declared meld in a hand: its claim kind, its tiles (kinds), and how it was made.

    ``concealed`` marks an 暗杠, ``added`` a 加杠; ``from_seat`` is whose discard was claimed and
    ``claimed`` the claimed tile kind (for liability, RULES.md §2 Liability).
    """

    meld_kind: str
    tiles: tuple[int, ...]
    concealed: bool = False
    added: bool = False
    from_seat: str | None = None
    claimed: int | None = None

    def __deepcopy__(self, memo: dict[int, object]) -> MeldTiles:
        """Itself: a meld never changes (a copied game shares its melds)."""
        return self


class Reading(NamedTuple):
    """One way to read a winning hand: the pattern and the facts the score depends on
    (a named tuple: cheap to make, immutable). ``wilds``: 精 standing as wilds; ``jing_wait``:
    the 精钓 reading (RULES.md §1)."""

    pattern: str
    wilds: int
    jing_wait: bool
