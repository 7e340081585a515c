"""What one seat may see of a hand in play (:meth:`engine.table.game.Game.observation`): its own
tiles, everyone's melds (others' concealed kongs face down), the discards, the indicators shown,
the wall counts, whose turn it is, its legal actions and its own pick (随精). Tiles are given in the notation
(SCENARIOS.md Tiles); the dict is JSON-ready."""
from __future__ import annotations

from typing import Any

from engine.table.actions import FLIP


def observation(game: Any, seat: str) -> dict[str, Any]:
    """``seat``'s view of ``game`` (a :class:`~engine.table.game.Game`, not imported: it imports
    this module) now; see the module docstring for what it holds."""
    fmt = game.tiles.format
    picks = game.picked.chosen if game.picked is not None else {}
    melds: dict[str, list[str]] = {}
    for s, h in game.hands.items():
        melds[s] = [("kong ????" if (m.concealed and s != seat and not game.over) else
                     f"{m.meld_kind} {fmt(list(m.tiles))}") for m in h.melds]
    shown = {n: game.tiles.code(t) for n, t in game.indicators.items()
             if game.over or not game.rs.indicators[n].hidden}
    return {
        "seat": seat, "phase": game.phase, "current": game.current, "dealer": game.dealer, "floor": game.floor,
        "hand": fmt(game.hands[seat].concealed),
        "hand_sizes": {s: len(h.concealed) for s, h in game.hands.items()},
        "melds": melds, "discards": {s: [game.tiles.code(t) for t in d] for s, d in game.discards.items()},
        "indicators": shown, "wall": game.wall.remaining, "live_wall": game.live_remaining,
        "last_discard": (game.last_discard[0], game.tiles.code(game.last_discard[1])) if game.last_discard else None,
        "legal": [a.text(game.scorer) for a in game.legal_actions(seat)],
        "flip": game.flips.shown(game.tiles.code) if game.flips is not None and game.phase == FLIP else None,
        "pick": game.tiles.code(picks[seat]) if seat in picks else None,  # its own 精 (随精), seen by it alone
    }
