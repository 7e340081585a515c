"""What a seat, or a spectator, may see of a hand: the one builder of every view of a table.

:func:`snapshot` freezes a :class:`~engine.table.game.Game` into a :class:`TableSnapshot`
(codes, tuples and read-only mappings: nothing in it changes when the game goes on), and
:func:`seat_view` builds the JSON-ready view of one seat (or of a spectator, ``seat=None``)
from it. The table page, the rooms, ``mjrules play`` and the replay of a record all use these
two, so what may be seen is decided here and nowhere else:

- a seat's own concealed tiles (the tile it just drew apart, as ``drawn``), and nobody
  else's until the hand is over (``hands[s]`` is None, ``hand_sizes[s]`` the count);
- every meld, another seat's concealed kong (暗杠) face down (``tiles`` None) until the end;
- the discards, the wall counts, whose turn it is;
- the indicators that are face up (a hidden one, 下精 say, only once the hand is over), and
  the 正精/副精 they make by tile code (``jing``); a seat's own 随精 pick, to it alone;
- the seat's legal actions in one structured form, :class:`ActionView`: ``kind``, the tiles it
  names, the claimed tile and whose it was, the text to send (:meth:`Action.text`) and the
  catalogue key of its label (``act.KIND``). No page parses the text.

Tiles are codes (SCENARIOS.md Tiles: ``5p``, an honour's declared name); :func:`tile_set`
gives every kind's group, label and rank once, for a page to draw and name them.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypedDict

from engine.table.actions import ACT, FLIP

if TYPE_CHECKING:
    from engine.table.game import Game

JSON = dict[str, object]


class ActionJson(TypedDict):
    """:meth:`ActionView.to_json`."""

    kind: str
    text: str
    tiles: list[str]
    label: str
    claims: dict[str, str] | None


class MeldJson(TypedDict):
    """A meld in a view: ``tiles`` None for another seat's concealed kong while the hand is played."""

    kind: str
    concealed: bool
    tiles: list[str] | None


class SeatView(TypedDict):
    """:func:`seat_view`: one viewer's view of the table (its docstring says what each holds)."""

    seat: str | None
    seats: list[str]
    dealer: str
    floor: int
    phase: str
    current: str
    to_act: list[str]
    over: bool
    hand: list[str] | None
    drawn: str | None
    hands: dict[str, list[str] | None]
    drawn_by: dict[str, str]
    hand_sizes: dict[str, int]
    melds: dict[str, list[MeldJson]]
    discards: dict[str, list[str]]
    indicators: dict[str, str]
    jing: dict[str, str]
    wall: int
    live_wall: int
    last_discard: dict[str, str] | None
    legal: list[ActionJson]
    flip: dict[str, object] | None
    pick: str | None
MAIN, NEXT = "正精", "副精"  # the marks of a wild indicator's kinds (RULES.md §2)
CLAIM_KINDS = frozenset({"pung", "kong", "win", "chow"})  # kinds that take the claimed (or robbed) tile


@dataclass(frozen=True, slots=True)
class ActionView:
    """A legal action as a page shows it: ``kind`` (``discard``, ``chow`` …), ``tiles`` (the
    codes it names: a discard's tile, a chow's two from the hand), ``claims`` (seat, code) of the
    tile it takes from another seat, ``text`` to send back (``S chow 46m``)."""

    kind: str
    text: str
    tiles: tuple[str, ...]
    claims: tuple[str, str] | None

    def to_json(self) -> ActionJson:
        """``{"kind", "text", "tiles": [code], "claims": {"seat", "tile"} | None, "label": "act.KIND"}``."""
        return {"kind": self.kind, "text": self.text, "tiles": list(self.tiles), "label": f"act.{self.kind}",
                "claims": {"seat": self.claims[0], "tile": self.claims[1]} if self.claims else None}


@dataclass(frozen=True, slots=True)
class MeldView:
    """A meld as its owner sees it: ``kind`` (``pung``, ``kong``, ``chow``), ``concealed`` (暗杠)
    and its tiles' codes."""

    kind: str
    concealed: bool
    tiles: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class TableSnapshot:
    """A hand frozen at one moment, everything any viewer may be shown (see :func:`seat_view`,
    which decides who sees what). Built by :func:`snapshot`; every field is immutable."""

    seats: tuple[str, ...]
    dealer: str
    floor: int
    phase: str
    current: str
    to_act: tuple[str, ...]
    over: bool
    concealed: Mapping[str, tuple[str, ...]]  # seat -> its concealed tiles, sorted, the drawn one apart
    drawn: Mapping[str, str]  # the seat that just drew -> that tile
    melds: Mapping[str, tuple[MeldView, ...]]
    discards: Mapping[str, tuple[str, ...]]
    indicators: Mapping[str, str]  # every indicator set so far: name -> code
    hidden: frozenset[str]  # indicators hidden until the hand ends (RULES.md §2: 下精 under 埋雷)
    marks: Mapping[str | None, Mapping[str, str]]  # viewer (None: a spectator) -> code -> 正精/副精
    picks: Mapping[str, str]  # seat -> its own 随精 pick
    wall: int
    live_wall: int
    last_discard: tuple[str, str] | None
    legal: Mapping[str, tuple[ActionView, ...]]  # each seat to act -> its legal actions
    flip: Mapping[str, object] | None  # 发电: the flips while a seat is asked


def jing_marks(game: Game, viewer: str | None) -> dict[int, str]:
    """正精 / 副精 by tile kind of every wild indicator ``viewer`` sees: the face-up ones, every one
    once the hand is over, and of the picked one (随精) the viewer's own pick while the hand is
    played (a spectator's: none). Raises nothing."""
    marks: dict[int, str] = {}
    picked = game.picked if not game.over else None
    for name, ind in game.rs.indicators.items():
        if not ind.wild:
            continue
        if picked is not None and name == picked.name:
            tile = picked.chosen.get(viewer) if viewer is not None else None
        elif game.over or not ind.hidden:
            tile = game.indicators.get(name)
        else:
            tile = None
        if tile is not None:
            main, nxt = game.scorer.jing_kinds(tile)
            marks.setdefault(main, MAIN)
            if nxt is not None:
                marks.setdefault(nxt, NEXT)
    return marks


def _drawn(game: Game) -> tuple[str, int] | None:
    """The seat that has just drawn (or the dealer before its first discard) and that tile."""
    s = game.current
    if game.over or game.phase != ACT or game.last_drawn is None or game.last_drawn not in game.hands[s].concealed:
        return None
    last = game.actions[-1] if game.actions else None
    if (last is not None and last.kind == "draw" and last.seat == s) or (last is None and s == game.dealer):
        return s, game.last_drawn
    return None


def snapshot(game: Game) -> TableSnapshot:
    """``game`` frozen now (see :class:`TableSnapshot`). Costs one pass over the table and the
    legal actions of the seats to act."""
    code = game.tiles.code
    drawn = _drawn(game)
    concealed: dict[str, tuple[str, ...]] = {}
    for s in game.seats:
        kinds = sorted(game.hands[s].concealed)
        if drawn is not None and drawn[0] == s:
            kinds.remove(drawn[1])
        concealed[s] = tuple(code(k) for k in kinds)
    claimed = game.robbed or game.last_discard if game.phase in ("claim", "rob") else None
    legal: dict[str, tuple[ActionView, ...]] = {}
    to_act = tuple(game.to_act())
    for s in to_act:
        legal[s] = tuple(
            ActionView(a.kind, a.text(game.scorer),
                       tuple(code(k) for k in a.tiles) if a.tiles else ((code(a.tile),) if a.tile is not None and
                                                                          a.kind not in CLAIM_KINDS else ()),
                       (claimed[0], code(claimed[1])) if claimed and a.kind in CLAIM_KINDS else None)
            for a in game.legal_actions(s))
    viewers: list[str | None] = [None, *game.seats]
    picks = game.picked.chosen if game.picked is not None else {}
    return TableSnapshot(
        seats=tuple(game.seats), dealer=game.dealer, floor=game.floor, phase=game.phase, current=game.current,
        to_act=to_act, over=game.over,
        concealed=MappingProxyType(concealed),
        drawn=MappingProxyType({drawn[0]: code(drawn[1])} if drawn else {}),
        melds=MappingProxyType({s: tuple(MeldView(m.meld_kind, bool(m.concealed), tuple(code(k) for k in m.tiles))
                                         for m in h.melds) for s, h in game.hands.items()}),
        discards=MappingProxyType({s: tuple(code(k) for k in d) for s, d in game.discards.items()}),
        indicators=MappingProxyType({n: code(t) for n, t in game.indicators.items()}),
        hidden=frozenset(n for n, ind in game.rs.indicators.items() if ind.hidden),
        marks=MappingProxyType({v: MappingProxyType({code(k): m for k, m in jing_marks(game, v).items()})
                                for v in viewers}),
        picks=MappingProxyType({s: code(k) for s, k in picks.items()}),
        wall=game.wall.remaining, live_wall=game.live_remaining,
        last_discard=(game.last_discard[0], code(game.last_discard[1])) if game.last_discard else None,
        legal=MappingProxyType(legal),
        flip=MappingProxyType(game.flips.shown(code)) if game.flips is not None and game.phase == FLIP else None,
    )


def seat_view(snap: TableSnapshot, seat: str | None, *, reveal: bool = False) -> SeatView:
    """The table as ``seat`` may see it (None: a spectator), JSON-ready::

        {"seat", "seats", "dealer", "floor", "phase", "current", "to_act", "over",
         "hand": [code] | None, "drawn": code | None, "hands": {seat: [code] | None},
         "drawn_by": {seat: code},
         "hand_sizes": {seat: n}, "melds": {seat: [{"kind", "concealed", "tiles": [code] | None}]},
         "discards": {seat: [code]}, "indicators": {name: code}, "jing": {code: "正精" | "副精"},
         "wall", "live_wall", "last_discard": {"seat", "tile"} | None,
         "legal": [ActionView.to_json()], "flip": {...} | None, "pick": code | None}

    ``hand``/``drawn`` are the seat's own (the tile it just drew apart from the rest); ``hands``
    and ``drawn_by`` (seat -> the tile it just drew) show only the seat's own until the hand is
    over, then every seat's. ``reveal`` shows every hand as at the end (a finished record's
    replay; 随精 picks stay each seat's). Raises ``KeyError`` for a seat not at the table."""
    if seat is not None and seat not in snap.seats:
        raise KeyError(seat)
    open_all = reveal or snap.over
    hands: dict[str, list[str] | None] = {s: list(snap.concealed[s]) if open_all or s == seat else None
                                          for s in snap.seats}
    melds = {s: [MeldJson(kind=m.kind, concealed=m.concealed,
                          tiles=list(m.tiles) if (not m.concealed or s == seat or open_all) else None)
                 for m in ms] for s, ms in snap.melds.items()}
    shown = {n: c for n, c in snap.indicators.items() if open_all or n not in snap.hidden}
    marks = snap.marks[seat]
    drawn = snap.drawn.get(seat) if seat is not None else None
    return SeatView(
        seat=seat, seats=list(snap.seats), dealer=snap.dealer, floor=snap.floor, phase=snap.phase,
        current=snap.current, to_act=list(snap.to_act), over=snap.over,
        hand=list(snap.concealed[seat]) if seat is not None else None, drawn=drawn,
        hands=hands, drawn_by={s: c for s, c in snap.drawn.items() if open_all or s == seat},
        hand_sizes={s: len(snap.concealed[s]) + (s in snap.drawn) for s in snap.seats},
        melds=melds, discards={s: list(d) for s, d in snap.discards.items()},
        indicators=shown, jing=dict(marks), wall=snap.wall, live_wall=snap.live_wall,
        last_discard={"seat": snap.last_discard[0], "tile": snap.last_discard[1]} if snap.last_discard else None,
        legal=[a.to_json() for a in snap.legal.get(seat, ())] if seat is not None else [],
        flip=dict(snap.flip) if snap.flip is not None else None,
        pick=snap.picks.get(seat) if seat is not None else None,
    )


def view_of(game: Game, seat: str | None, *, reveal: bool = False) -> SeatView:
    """:func:`seat_view` of :func:`snapshot` of ``game`` now (one viewer's view, at once)."""
    return seat_view(snapshot(game), seat, reveal=reveal)


def public_event(e: Mapping[str, Any], viewer: str | None) -> dict[str, Any] | None:
    """An event of :attr:`Game.events` as ``viewer`` may see it (the one place events are hidden) (None: every seat's view): another
    seat's drawn tile, its concealed kong's tile and its dealt hand left out; None for the
    ``end`` event (the hand's result tells it). A new dict; ``e`` is not changed."""
    kind, seat = e["event"], e.get("seat")
    if kind == "end":
        return None
    hide = viewer is not None and seat is not None and seat != viewer
    out = dict(e)
    if kind == "deal" and viewer is not None:
        out["hands"] = {viewer: e["hands"][viewer]}
    if kind in ("draw", "concealed_kong") and hide:
        out["tile"] = None
    return out


def tile_set(game: Game) -> dict[str, JSON]:
    """Every tile kind by code: ``{"code", "group", "label", "suit", "rank"}`` (``label`` the
    group's as the rule file declares it, ``万``, ``风``: the page names tiles from it, 六条,
    南风; ``rank`` None for an honour)."""
    out: dict[str, JSON] = {}
    for k in game.tiles.kinds:
        out[k.code] = {"code": k.code, "group": k.group, "label": game.tiles.groups[k.group].label,
                       "suit": k.is_suit, "rank": k.rank if k.is_suit else None}
    return out
