"""Win evaluation with 精 wilds, built from the ruleset's ``meld`` and ``pattern`` declarations.

Question answered: given a winner's concealed tiles (the winning tile included), their
declared melds, the wild kinds (the 正/副精 of the wild indicators) and the winning tile,
which *readings* does the hand have? A reading is a pattern plus the facts that matter for
the score (RULES.md §1 Winning hands, 德国, 精钓):

- ``wilds``: the fewest 精 that must stand for another tile (0 means 德国 is possible);
- ``jing_wait``: the winning tile pairs with a lone 精 of the hand (精钓).

:class:`HandEvaluator` puts the parts together: the compiled patterns
(engine/core/patterns.py), the win tables that answer (engine/core/wintables/) and the
recursive search they fall back on and are tested against (engine/core/recursive.py).
"""
from __future__ import annotations

from collections import Counter
from typing import Protocol

from engine.core.handparts import MeldTiles, Reading
from engine.core.patterns import CompiledPatterns
from engine.core.recursive import RecursiveEvaluator
from engine.core.tiles import TileSet
from engine.core.wintables.checker import TableChecker
from engine.errors import IllegalAction
from engine.lang.ruleset import Meld, Ruleset

__all__ = ["HandEvaluator", "MeldTiles", "Reading", "ReadingsCheck", "WinCheck", "check_hand_size"]


class WinCheck(Protocol):
    """:attr:`HandEvaluator.is_win`: whether a hand has any reading."""

    def __call__(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int], win_tile: int,
                 win_tile_natural: bool = False) -> bool: ...


class ReadingsCheck(Protocol):
    """:attr:`HandEvaluator.readings`: every reading of a hand."""

    def __call__(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int], win_tile: int,
                 win_tile_natural: bool = False) -> list[Reading]: ...


class HandEvaluator:
    """Readings of winning hands under one ruleset (built once per ruleset).

    ``patterns``: the :class:`CompiledPatterns` every check reads; ``tables``: the table-driven
    checker (:class:`TableChecker`); ``recursive``: the recursive search (the tables' fallback
    and test oracle). ``is_win`` and ``readings`` are the table checker's own methods, bound
    once here (no call in between on the hot path):

    - ``readings(concealed, melds, wild_kinds, win_tile, win_tile_natural=False) -> list[Reading]``:
      all readings of a complete hand, one per (pattern, 精钓) with the fewest wilds.
      ``concealed`` holds the concealed tiles *with* the winning tile. A winning tile taken
      from another player (a discard, a robbed kong) is ``win_tile_natural``: a 精 counts only
      as its face then (RULES.md §1 精). [] when the hand is not a win.
    - ``is_win(...) -> bool`` (same arguments): whether the hand has any reading (faster than
      ``readings``, for legality checks).
    """

    is_win: WinCheck
    readings: ReadingsCheck

    def __init__(self, rs: Ruleset, tiles: TileSet, hand_size: int):
        """``hand_size``: tiles in a complete hand, melds counted as one set each (table hand +
        dealer_extra)."""
        self.rs = rs
        self.tiles = tiles
        self.hand_size = hand_size
        self.patterns = CompiledPatterns.compile(rs, tiles, hand_size)
        pats = self.patterns
        self.honour_kinds = pats.honour_kinds
        self.templates = pats.templates
        self.set_size = pats.set_size
        self.pair_size = pats.pair_size
        self.group_spans = pats.group_spans
        self.plans = pats.plans
        self.recursive = RecursiveEvaluator(pats)
        self.tables = TableChecker(pats, self.recursive)
        self.is_win = self.tables.is_win
        self.readings = self.tables.readings
        self._chow_partners: dict[int, list[tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]] = {}

    def concealed_shapes(self, meld: Meld) -> tuple[tuple[int, ...], ...]:
        """Templates of the meld's shapes that can be read from concealed tiles (not ``declared``)."""
        return self.patterns.concealed_shapes(meld)

    def meld_name(self, m: MeldTiles) -> str | None:
        """The declared meld a hand's meld is, or None if the ruleset has no such meld."""
        return self.patterns.meld_name(m)

    def chow_partners(self, tile: int) -> list[tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]:
        """The chows a claimed ``tile`` completes: (counts needed from the hand as (kind, n)
        pairs, the two tiles from the hand sorted), in the ruleset's meld and template order,
        each once. Memoised per evaluator (at most one entry per tile kind)."""
        got = self._chow_partners.get(tile)
        if got is None:
            got, seen = [], set()
            for meld in self.rs.melds.values():
                if meld.meld_kind != "chow":
                    continue
                for t in self.templates[meld.name]:
                    if tile not in t:
                        continue
                    rest = list(t)
                    rest.remove(tile)
                    if tuple(rest) not in seen:
                        seen.add(tuple(rest))
                        got.append((tuple(Counter(rest).items()), tuple(sorted(rest))))
            self._chow_partners[tile] = got
        return got

    def why_not(self, concealed: list[int], melds: list[MeldTiles]) -> str:
        """A short reason a hand is not a win (for ``win: false`` and error messages)."""
        names = ", ".join(self.plans)
        return f"{self.tiles.format(concealed)} with {len(melds)} meld(s) matches no pattern ({names})"


def check_hand_size(tiles: TileSet, concealed: list[int], melds: list[MeldTiles], expected: int,
                    set_size: int, who: str) -> None:
    """A winning hand has ``expected`` tiles counting each meld as one set (kongs included).

    Raises :class:`IllegalAction` with the count found.
    """
    n = len(concealed) + set_size * len(melds)
    if n != expected:
        raise IllegalAction(
            f"{who} holds {n} tiles counting each meld as {set_size} ({tiles.format(concealed)} + "
            f"{len(melds)} meld(s)); a complete hand has {expected}")
