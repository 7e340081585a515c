"""What a seat may not see, as a test checks it (issue 27; docs/serve.md "Nobody sees what they
should not"): :func:`truth_of` records a real :class:`~engine.table.game.Game`'s secrets at one
moment, and :func:`leaks` lists what a view, or a room's state frame, shows of them.

The secrets, read from the game itself (never from :mod:`engine.table.view`, the code under
test): every seat's concealed tiles, which melds are concealed (暗杠) and their tiles, the tiles
the wall gives next (a head draw and a kong's replacement from the tail), the hidden indicators
(下精 under 埋地雷 …) and their tiles while the hand is played, each seat's 随精 pick, and, while a
discard (or a kong to rob) waits for claims, who may claim it (it tells what they hold).

:func:`leaks` checks every field of a view against what its viewer may be shown (a seat: its
own tiles, everything public; a spectator: only what is public; everyone: every hand once the
hand is over, but never another seat's pick), so a secret cannot hide in a field the checker
does not read: a field it does not know is itself reported. It returns the leaks as sentences
(empty: nothing leaked); a test first plants each kind of leak in a copy of a real view and
sees it reported, then checks the real views.
"""
from __future__ import annotations

import copy
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.errors import IllegalAction
from engine.table.view import SeatView

VIEW_KEYS = frozenset(SeatView.__annotations__)  # the view's contract (engine/table/view.py)
CLAIM_PHASES = frozenset({"claim", "rob"})  # a discard (or a kong to rob) waits for claims
FRAME_KEYS = frozenset({"type", "seat", "version", "hand", "hands", "totals", "view", "last", "finished",
                        "players", "away"})  # a room's state frame (docs/serve.md "The contract")


@dataclass(frozen=True)
class Meld:
    kind: str
    concealed: bool
    tiles: tuple[str, ...]


@dataclass(frozen=True)
class Truth:
    """One moment of a real game, secrets and public facts, as codes (see the module docstring)."""

    seats: tuple[str, ...]
    over: bool
    phase: str
    current: str
    to_act: tuple[str, ...]  # the seats to act now (while a discard waits for claims: who may claim, a secret)
    concealed: dict[str, Counter[str]]  # seat -> its concealed tiles, the one just drawn included
    melds: dict[str, tuple[Meld, ...]]
    wall_next: dict[str, str]  # "head" / "tail" -> the tile that end of the wall gives next
    hidden: dict[str, str]  # the hidden indicators set, while the hand is played: name -> code
    shown: dict[str, str]  # the indicators every seat sees: name -> code (every one once over)
    picks: dict[str, str]  # seat -> its 随精 pick (each seat's own; the winner's becomes public)
    picked: str | None  # the 随精 indicator's name
    marks: dict[str | None, frozenset[str]]  # viewer -> the codes its view may mark 正精/副精
    legal: dict[str, frozenset[str]]  # seat -> the texts of its legal actions now
    discards: dict[str, list[str]]
    last_discard: tuple[str, str] | None
    claimed: str | None  # the tile a claim (or a robbed kong) would take now
    wall: int
    live_wall: int
    flip: dict[str, object] | None

    def viewers(self) -> list[str | None]:
        return [None, *self.seats]


def truth_of(game: Any) -> Truth:
    """The secrets and public facts of ``game`` now (a :class:`~engine.table.game.Game`)."""
    code = game.tiles.code
    over = game.over
    ahead: dict[str, str] = {}
    for end in ("head", "tail"):
        try:
            tile, _ = getattr(game.wall.copy(), f"draw_{end}")()  # a copy: the real wall is not touched
        except IllegalAction:
            continue
        ahead[end] = code(tile)
    hidden = {n: code(t) for n, t in game.indicators.items() if game.rs.indicators[n].hidden and not over}
    shown = {n: code(t) for n, t in game.indicators.items() if n not in hidden}
    picked = game.picked.name if game.picked is not None else None
    picks = {s: code(k) for s, k in game.picked.chosen.items()} if game.picked is not None else {}

    chosen = dict(game.picked.chosen) if game.picked is not None else {}

    def marks(viewer: str | None) -> frozenset[str]:  # what a face-up wild indicator, or the viewer's own pick, makes 精
        out: set[str] = set()
        for name, ind in game.rs.indicators.items():
            if not ind.wild:
                continue
            if name == picked and not over:
                tile = chosen.get(viewer) if viewer is not None else None
            else:
                tile = game.indicators.get(name) if name in shown else None
            if tile is not None:
                out.update(code(k) for k in game.scorer.rules.jing_kinds(tile) if k is not None)
        return frozenset(out)

    claimed = game.robbed or game.last_discard if game.phase in ("claim", "rob") else None
    return Truth(
        seats=tuple(game.seats), over=over, phase=game.phase, current=game.current, to_act=tuple(game.to_act()),
        concealed={s: Counter(code(k) for k in game.hands[s].concealed) for s in game.seats},
        melds={s: tuple(Meld(m.meld_kind, bool(m.concealed), tuple(code(k) for k in m.tiles)) for m in game.hands[s].melds)
               for s in game.seats},
        wall_next=ahead, hidden=hidden, shown=shown, picks=picks, picked=picked,
        marks={v: marks(v) for v in [None, *game.seats]},
        legal={s: frozenset(a.text(game.scorer) for a in game.legal_actions(s)) for s in game.to_act()},
        discards={s: [code(k) for k in d] for s, d in game.discards.items()},
        last_discard=(game.last_discard[0], code(game.last_discard[1])) if game.last_discard else None,
        claimed=code(claimed[1]) if claimed else None,
        wall=game.wall.remaining, live_wall=game.live_remaining,
        flip=dict(game.flips.shown(code)) if game.flips is not None and game.phase == "flip" else None,
    )


def _whose(code: str, truth: Truth, viewer: str | None) -> str:
    """What a tile a viewer should not have been shown may be: another seat's, the wall's next."""
    said = [f"the wall's next tile from the {end}" for end, c in truth.wall_next.items() if c == code]
    said += [f"{s}'s tile" for s in truth.seats if s != viewer and truth.concealed[s][code]]
    return f" ({', '.join(said)})" if said else ""


def _extra(shown: list[str], allowed: Counter[str]) -> list[str]:
    """The tiles of ``shown`` beyond ``allowed`` (a multiset difference)."""
    return sorted((Counter(shown) - allowed).elements())


def leaks(shown: dict[str, Any], truth: Truth) -> list[str]:
    """What ``shown`` (a :class:`~engine.table.view.SeatView`, or a room's ``state`` frame whose
    ``view`` is one) shows that its viewer may not see at the moment ``truth`` was taken: one
    sentence each (empty: nothing leaked)."""
    out: list[str] = []
    if shown.get("type") == "state":
        out += [f"frame field {k!r} is not in the contract (what it holds is unchecked)" for k in sorted(set(shown) - FRAME_KEYS)]
        view = shown.get("view")
        if view is None:
            return out
        if view.get("seat") != shown.get("seat"):
            out.append(f"the frame of {shown.get('seat')} carries the view of {view.get('seat')}")
    else:
        view = shown
    seat: str | None = view.get("seat")
    who = seat or "a spectator"
    if seat is not None and seat not in truth.seats:
        return out + [f"a view of {seat!r}, not a seat at this table"]
    out += [f"view field {k!r} is not in the contract (what it holds is unchecked)" for k in sorted(set(view) - VIEW_KEYS)]
    open_all = truth.over
    own = truth.concealed[seat] if seat is not None else Counter()

    # the viewer's own tiles: the hand and the tile just drawn are its concealed tiles, no other
    hand, drawn = view.get("hand"), view.get("drawn")
    if seat is None:
        for c in list(hand or []) + ([drawn] if drawn is not None else []):
            out.append(f"a spectator is shown a tile in hand: {c}{_whose(c, truth, seat)}")
    else:
        mine = list(hand or []) + ([drawn] if drawn is not None else [])
        for c in _extra(mine, own):
            out.append(f"{who}'s hand shows {c}, not one of its tiles{_whose(c, truth, seat)}")
    for s, tiles in (view.get("hands") or {}).items():
        if tiles is None:
            continue
        if s not in truth.seats:
            out.append(f"hands: {s!r} is no seat")
        elif s != seat and not open_all:
            out.append(f"{who} is shown {s}'s concealed hand {' '.join(tiles)} before the end")
        else:
            for c in _extra(tiles, truth.concealed[s]):
                out.append(f"hands[{s}] shows {c}, not one of {s}'s tiles{_whose(c, truth, seat)}")
    for s, c in (view.get("drawn_by") or {}).items():
        if s != seat and not open_all:
            out.append(f"{who} is shown the tile {s} just drew ({c})")
        elif s in truth.concealed and not truth.concealed[s][c]:
            out.append(f"drawn_by[{s}] is {c}, not one of {s}'s tiles{_whose(c, truth, seat)}")
    for s, n in (view.get("hand_sizes") or {}).items():
        if s not in truth.concealed or n != sum(truth.concealed[s].values()):
            out.append(f"hand_sizes[{s}] is {n!r}, not the count of {s}'s tiles")

    # melds: another seat's concealed kong face down until the end; the rest as the table has them
    melds = view.get("melds") or {}
    for s in truth.seats:
        real, seen = truth.melds[s], melds.get(s, [])
        if len(seen) != len(real):
            out.append(f"{s} has {len(real)} melds, {who} is shown {len(seen)}")
        for m, v in zip(real, seen):
            tiles = v.get("tiles")
            if m.concealed and s != seat and not open_all:
                if tiles is not None:
                    out.append(f"{who} is shown {s}'s concealed kong {' '.join(tiles)}")
                if v.get("concealed") is not True:
                    out.append(f"{who} is shown {s}'s concealed kong as an exposed meld")
            elif tiles is not None and tuple(tiles) != m.tiles:
                out.append(f"{s}'s meld {' '.join(m.tiles)} is shown as {' '.join(tiles)}")

    # indicators: the face-up ones; a hidden one only once the hand is over; 精 only from those
    for name, c in (view.get("indicators") or {}).items():
        if name in truth.hidden:
            out.append(f"{who} is shown the hidden indicator {name} ({c}) before the end")
        elif truth.shown.get(name) != c:
            picked = [s for s, p in truth.picks.items() if p == c and s != seat] if name == truth.picked else []
            out.append(f"{who} is shown indicator {name} as {c}, not a face-up indicator"
                       + (f" ({', '.join(picked)}'s 随精 pick)" if picked else ""))
    for c in sorted(set(view.get("jing") or {}) - truth.marks[seat]):
        why = [f"the hidden indicator {n}" for n, t in truth.hidden.items() if t == c]
        why += [f"{s}'s 随精 pick" for s, p in truth.picks.items() if s != seat and p == c]
        out.append(f"{who}'s view marks {c} 精, which no face-up indicator or own pick makes"
                   + (f" ({', '.join(why)})" if why else ""))
    pick = view.get("pick")
    if pick is not None and (seat is None or truth.picks.get(seat) != pick):
        others = [s for s, p in truth.picks.items() if p == pick and s != seat]
        out.append(f"{who} is shown the pick {pick}, not its own" + (f" ({', '.join(others)}'s 随精 pick)" if others else ""))

    # actions: the viewer's own, naming its own tiles; a spectator has none
    for a in view.get("legal") or []:
        if seat is None or a.get("text") not in truth.legal.get(seat, frozenset()):
            out.append(f"{who} is offered {a.get('text')!r}, not one of its actions now")
        elif a.get("kind") != "pick":
            claimed = (a.get("claims") or {}).get("tile")
            if claimed is not None and claimed != truth.claimed:
                out.append(f"{a.get('text')!r} claims {claimed}, not the tile on the table")
            for c in _extra(a.get("tiles") or [], own):
                out.append(f"{a.get('text')!r} names {c}, not one of {who}'s tiles{_whose(c, truth, seat)}")

    # whose turn: while a discard (or a kong to rob) waits for claims, who may claim is each one's own
    to_act = list(view.get("to_act") or [])
    if truth.phase in CLAIM_PHASES and not open_all:
        others = [s for s in to_act if s != seat]
        if others:
            out.append(f"{who} is told that {', '.join(others)} may claim (who else may claim)")
        if to_act and seat not in truth.to_act:
            out.append(f"{who} is told it may claim, and it may not")
    elif to_act != list(truth.to_act):
        out.append(f"to_act shown {to_act} is not the table's {list(truth.to_act)}")

    # the rest is public: it must be the table's, and the wall only a count
    for key, real in (("wall", truth.wall), ("live_wall", truth.live_wall)):
        if type(view.get(key)) is not int or view.get(key) != real:
            out.append(f"{key} is {view.get(key)!r}, not the count {real}")
    if (view.get("discards") or {}) != truth.discards:
        out.append(f"discards shown {view.get('discards')} are not the table's")
    ld = view.get("last_discard")
    if (None if ld is None else (ld.get("seat"), ld.get("tile"))) != truth.last_discard:
        out.append(f"last_discard shown {ld} is not the table's")
    if view.get("flip") != truth.flip:
        out.append(f"flip shown {view.get('flip')} is not the table's")
    return out


# ---- planted leaks: a copy of a real view (or frame) with one secret put in -------------------------
PLANTS = {  # kind -> what the checker must say of it
    "concealed kong": "concealed kong",
    "another seat's hand": "concealed hand",
    "the wall's next tile": "the wall's next tile",
    "a hidden indicator": "hidden indicator",
    "another seat's 随精 pick": "随精 pick",
    "who else may claim": "who else may claim",
}


def _inner(shown: dict[str, Any]) -> dict[str, Any]:
    return shown["view"] if shown.get("type") == "state" else shown


def _other_kong(view: dict[str, Any], truth: Truth) -> tuple[str, int] | None:
    for s in truth.seats:
        for i, m in enumerate(truth.melds[s]):
            if m.concealed and s != view["seat"]:
                return s, i
    return None


def _other_pick(view: dict[str, Any], truth: Truth) -> str | None:
    own = truth.picks.get(view["seat"]) if view["seat"] is not None else None
    return next((s for s, p in truth.picks.items() if s != view["seat"] and p != own), None)


def hosts(shown: dict[str, Any], truth: Truth) -> set[str]:
    """The kinds of :data:`PLANTS` a real view (or frame) at ``truth`` can have planted in it: the
    secret is on the table and this viewer may not see it."""
    view = shown.get("view") if shown.get("type") == "state" else shown
    if view is None or truth.over:
        return set()
    out = {"another seat's hand"}
    if _other_kong(view, truth) is not None:
        out.add("concealed kong")
    if "head" in truth.wall_next:
        out.add("the wall's next tile")
    if truth.hidden:
        out.add("a hidden indicator")
    if _other_pick(view, truth) is not None:
        out.add("another seat's 随精 pick")
    if truth.phase in CLAIM_PHASES and any(s != view["seat"] for s in truth.to_act):
        out.add("who else may claim")
    return out


def plant(kind: str, shown: dict[str, Any], truth: Truth) -> dict[str, Any]:
    """A deep copy of ``shown`` (a real view or frame that :func:`hosts` ``kind``) with that
    secret put where a careless builder would put it."""
    out = copy.deepcopy(shown)
    view = _inner(out)
    seat = view["seat"]
    if kind == "concealed kong":  # its tiles face up, as the owner sees them
        s, i = _other_kong(view, truth) or ("", 0)
        view["melds"][s][i]["tiles"] = list(truth.melds[s][i].tiles)
    elif kind == "another seat's hand":
        s = next(x for x in truth.seats if x != seat)
        view["hands"][s] = sorted(truth.concealed[s].elements())
    elif kind == "the wall's next tile":  # the next draw shown before it is made
        if view["drawn"] is None:
            view["drawn"] = truth.wall_next["head"]
        else:
            view["hand"].append(truth.wall_next["head"])
    elif kind == "a hidden indicator":
        name, c = next(iter(truth.hidden.items()))
        view["indicators"][name] = c
    elif kind == "another seat's 随精 pick":
        view["pick"] = truth.picks[_other_pick(view, truth) or ""]
    elif kind == "who else may claim":  # every seat that may answer the discard, as the game lists them
        view["to_act"] = list(truth.to_act)
    else:
        raise KeyError(kind)
    return out
