"""Where indicators are placed after the deal (RULES.md §1 精; docs/language.md `indicator`):
those turned when the hand ends (``next draw N``) and those placed beside an indicator whose
tile is chosen during the hand (under / left of / right of a ``flips`` indicator, once a seat
stopped the flips). Pure functions of the ruleset and the wall; the game applies them.
"""
from __future__ import annotations

from engine.lang.ruleset import Ruleset
from engine.table.wall import Wall

RELATIVE = ("under", "left", "right")


def next_draw_positions(rs: Ruleset, wall: Wall, skip: set[int]) -> dict[str, int]:
    """Indicator → wall position of each ``next draw N``: the N-th tile a head draw would take
    now, passing over ``skip`` (the indicators on the wall); one past the wall's end is left out."""
    out: dict[str, int] = {}
    for name, ind in rs.indicators.items():
        if ind.position.type == "next_draw" and ind.position.count is not None:
            p = wall.next_draw(ind.position.count, skip)
            if p is not None:
                out[name] = p
    return out


def relative_positions(rs: Ruleset, wall: Wall, placed: dict[str, int]) -> dict[str, int]:
    """Indicator → wall position of each indicator placed under, left of or right of one in
    ``placed`` (indicator → position), or of one placed so here (in declaration order), that
    ``placed`` does not hold yet. One under the bottom tile of its stack is left out."""
    out: dict[str, int] = {}
    for name, ind in rs.indicators.items():
        pos = ind.position
        if name in placed or pos.type not in RELATIVE or pos.ref is None:
            continue
        ref = placed.get(pos.ref, out.get(pos.ref))
        if ref is None or (pos.type == "under" and ref % wall.height + 1 >= wall.height):
            continue
        p = wall.locate(pos.type, None, ref, tuple)
        if p is not None:
            out[name] = p
    return out
