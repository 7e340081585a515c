"""What does a seat's observation hold, as numbers and as text? The environment's encoding of
what one seat may see (:func:`engine.table.view.seat_parts`, the one place that decides it, of
which :func:`~engine.table.view.seat_view` is the JSON form: nothing here reads the game) as a
2-D ``int16`` array, and the same view as text for people.

Tiles are columns: column ``k`` is the ruleset's ``k``-th tile kind (its ``tile`` declarations
in order; :attr:`Layout.codes`). Seats are taken relative to the viewer: relative seat 0 is the
viewer, 1 the next seat in play order (下家), and so on round the table. The rows, for a table
of ``S`` seats (``R = 10 + 2·S`` rows, ``W = max(K, 6 + 2·S, 7)`` columns, unused cells 0):

=====================  ==========================================================================
row                    what it holds
=====================  ==========================================================================
``HAND``               the viewer's concealed tiles, a count per kind (the tile just drawn included)
``DRAWN``              the tile the viewer just drew (1 in its column), none otherwise
``MELDS + r``          relative seat ``r``'s melds, a count per kind (another seat's concealed kong
                       is face down while the hand is played: counted in ``NUMBERS``, not here)
``DISCARDS + r``       relative seat ``r``'s discards still on the table, a count per kind
``LAST_DISCARD``       the last discarded tile (1), none before the first discard
``ON_OFFER``           the tile the viewer may claim now (a discard or a kong to rob), none otherwise
``MAIN_JING``          1 for each kind the viewer sees marked 正精 (face-up indicators only)
``NEXT_JING``          1 for each kind the viewer sees marked 副精
``INDICATORS``         the face-up indicator tiles, a count per kind
``PHASE``              1 in column ``i`` for the phase :data:`PHASES` ``[i]``
``NUMBERS``            column 0 live wall, 1 wall, 2 floor, 3 dealer, 4 seat to play, 5 the last
                       discarder (relative seats; ``S`` for none), then ``S`` columns of hand sizes
                       and ``S`` columns of face-down kongs, by relative seat
=====================  ==========================================================================

Every cell is 0 … :data:`HIGH` (an ``int16``'s largest value; a count past it is capped).
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from engine.table.actions import ACT, CLAIM, DRAW, FLIP, OVER, PICK, ROB
from engine.table.view import MAIN, NEXT, SeatParts, SeatView

PHASES = (DRAW, ACT, CLAIM, ROB, OVER, FLIP, PICK)  # the game's phases, in PHASE-row column order
HIGH = int(np.iinfo(np.int16).max)
SINGLE_ROWS = ("LAST_DISCARD", "ON_OFFER", "MAIN_JING", "NEXT_JING", "INDICATORS", "PHASE", "NUMBERS")  # after DISCARDS
NUMBER_COLUMNS = 6  # NUMBERS' columns before the per-seat ones: live wall … last discarder
Planes = npt.NDArray[np.int16]
CELLS_LIMIT = 4096  # rows of tiles whose cells Layout keeps: a bound on memory


class Layout:
    """The rows and columns of one ruleset's observations (the module's docstring says what
    each row holds). ``seats``: the table's seats in play order; ``codes``: its tile codes."""

    def __init__(self, seats: Sequence[str], codes: Sequence[str]) -> None:
        self.seats = tuple(seats)
        self.codes = tuple(codes)
        self.column = {c: i for i, c in enumerate(self.codes)}
        n = len(self.seats)
        self.HAND, self.DRAWN, self.MELDS = 0, 1, 2
        self.DISCARDS = self.MELDS + n
        (self.LAST_DISCARD, self.ON_OFFER, self.MAIN_JING, self.NEXT_JING, self.INDICATORS, self.PHASE,
         self.NUMBERS) = range(self.DISCARDS + n, self.DISCARDS + n + len(SINGLE_ROWS))
        self.rows = self.NUMBERS + 1
        self.width = max(len(self.codes), NUMBER_COLUMNS + 2 * n, len(PHASES))
        self.shape = (self.rows, self.width)
        # each viewer's seats in its relative order, and each seat's relative number to it
        self.relative = {v: {s: (j - i) % n for j, s in enumerate(self.seats)} for i, v in enumerate(self.seats)}
        self.phase_column = {p: i for i, p in enumerate(PHASES)}
        # row -> tile code -> its cell's index in the flattened array
        self.cell = [{c: r * self.width + k for k, c in enumerate(self.codes)} for r in range(self.rows)]
        self._cells: dict[tuple[int, tuple[str, ...]], list[int]] = {}

    def encode(self, view: SeatParts) -> Planes:
        """``view`` (a seat's :func:`~engine.table.view.seat_parts`: what it may see) as the
        ``shape`` array. Raises ``KeyError`` for a view of a seat or tile this layout does not have."""
        seat = view.seat
        assert seat is not None, "an observation is a seat's (a spectator has no actions)"
        rel = self.relative[seat]
        cell, cells_of = self.cell, self.cells_of
        hand = view.hand
        cells = cells_of(self.HAND, hand).copy() if hand else []  # flat indexes, one per tile counted
        drawn = view.drawn
        if drawn is not None:
            cells += (cell[self.HAND][drawn], cell[self.DRAWN][drawn])
        facedown = [0] * len(self.seats)
        for s, melds in view.melds.items():
            row = self.MELDS + rel[s]
            for m in melds:
                if m.tiles is None:
                    facedown[rel[s]] += 1
                else:
                    cells += cells_of(row, m.tiles)
        for s, tiles in view.discards.items():
            if tiles:
                cells += cells_of(self.DISCARDS + rel[s], tiles)
        last = view.last_discard
        if last is not None:
            cells.append(cell[self.LAST_DISCARD][last[1]])
        for a in view.legal:
            claims = a.claims
            if claims is not None:
                cells.append(cell[self.ON_OFFER][claims[1]])
                break  # every claim of a moment takes the same tile
        for code, mark in view.jing.items():
            cells.append(cell[self.MAIN_JING if mark == MAIN else self.NEXT_JING][code])
        shown = cell[self.INDICATORS]
        cells += [shown[c] for c in view.indicators.values()]
        cells.append(self.PHASE * self.width + self.phase_column[view.phase])
        flat = np.bincount(cells, minlength=self.rows * self.width)
        sizes = [0] * len(self.seats)
        for s, n in view.hand_sizes.items():
            sizes[rel[s]] = n
        at = self.NUMBERS * self.width
        flat[at:at + NUMBER_COLUMNS + 2 * len(self.seats)] = [
            min(view.live_wall, HIGH), min(view.wall, HIGH), min(view.floor, HIGH), rel[view.dealer],
            rel[view.current], rel[last[0]] if last is not None else len(self.seats), *sizes, *facedown]
        return flat.astype(np.int16).reshape(self.shape)

    def cells_of(self, row: int, codes: tuple[str, ...]) -> list[int]:
        """The flat indexes of ``codes`` in row ``row``, one per tile, kept per (row, codes): the
        snapshot's rows are few and shared (a hand or a seat's discards changes a tile at a
        time). Not to be changed by the caller; bounded by :data:`CELLS_LIMIT` entries."""
        key = (row, codes)
        got = self._cells.get(key)
        if got is None:
            if len(self._cells) >= CELLS_LIMIT:
                self._cells.clear()
            r = self.cell[row]
            got = self._cells[key] = [r[c] for c in codes]
        return got


def view_text(view: SeatView, legal: Mapping[int, str]) -> str:
    """``view`` as lines for people: the table, the seat's tiles with the 精 marked, every meld
    and discard, and its legal actions as ``[index] name`` (``legal``: entry → name)."""
    seat = view["seat"]
    jing = view["jing"]

    def tiles(codes: Sequence[str]) -> str:
        return " ".join(f"{c}{'*' if jing.get(c) == MAIN else '+' if jing.get(c) == NEXT else ''}" for c in codes)

    inds = ", ".join(f"{n} {c}" for n, c in view["indicators"].items()) or "none"
    marks = ", ".join(f"{c} {m}" for c, m in jing.items()) or "none"
    lines = [f"{seat}: phase {view['phase']}, dealer {view['dealer']} (floor {view['floor']}), "
             f"to play {view['current']}, wall {view['wall']} (live {view['live_wall']})",
             f"indicators: {inds}; 精: {marks} (* 正精, + 副精)",
             f"hand: {tiles(view['hand'] or [])}" + (f"  drew {view['drawn']}" if view["drawn"] else "")]
    for s in view["seats"]:
        melds = "  ".join(f"{m['kind']} {''.join(m['tiles'])}" if m["tiles"] is not None else f"{m['kind']} (face down)"
                          for m in view["melds"][s])
        lines.append(f"  {s}: {view['hand_sizes'][s]} tiles | melds: {melds or '-'} | discards: "
                     f"{' '.join(view['discards'][s]) or '-'}")
    if view["last_discard"] is not None:
        lines.append(f"last discard: {view['last_discard']['tile']} by {view['last_discard']['seat']}")
    lines.append("legal: " + (", ".join(f"[{i}] {name}" for i, name in sorted(legal.items())) or "none"))
    return "\n".join(lines)
