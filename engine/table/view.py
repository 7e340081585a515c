"""What a seat, or a spectator, may see of a hand: the one builder of every view of a table.

:func:`snapshot` freezes a :class:`~engine.table.game.Game` into a :class:`TableSnapshot`
(codes, tuples and read-only mappings: nothing in it changes when the game goes on), and
:func:`seat_view` builds the JSON-ready view of one seat (or of a spectator, ``seat=None``)
from it. The table page, the rooms, ``mjrules play`` and the replay of a record all use these
two, so what may be seen is decided here and nowhere else:

- a seat's own concealed tiles (the tile it just drew apart, as ``drawn``), and nobody
  else's until the hand is over (``hands[s]`` is None, ``hand_sizes[s]`` the count);
- every meld, another seat's concealed kong (暗杠) face down (``tiles`` None) until the end;
- the discards, the wall counts, whose turn it is (while a discard waits for claims, only
  whether the viewer itself may claim: who else may would tell what they hold);
- the indicators that are face up (a hidden one, 下精 say, only once the hand is over), and
  the 正精/副精 they make by tile code (``jing``); a seat's own 随精 pick, to it alone;
- the seat's legal actions in one structured form, :class:`ActionView`: ``kind``, the tiles it
  names, the claimed tile and whose it was, the text to send (:meth:`Action.text`) and the
  catalogue key of its label (``act.KIND``). No page parses the text.

Tiles are codes (SCENARIOS.md Tiles: ``5p``, an honour's declared name); :func:`tile_set`
gives every kind's group, label and rank once, for a page to draw and name them.
"""
from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, NamedTuple, TypedDict, cast

from engine.core.handparts import MeldTiles
from engine.table.actions import ACT, FLIP, ROB, SECRET_TURNS, TAKES_OFFERED
from engine.table.events import Event

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


class ActionView(NamedTuple):
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


class MeldView(NamedTuple):
    """A meld: ``kind`` (``pung``, ``kong``, ``chow``), ``concealed`` (暗杠) and its tiles' codes
    (None: face down, another seat's concealed kong as :func:`seat_parts` shows it)."""

    kind: str
    concealed: bool
    tiles: tuple[str, ...] | None


class TableSnapshot(NamedTuple):
    """A hand frozen at one moment, everything any viewer may be shown (see :func:`seat_parts`,
    which decides who sees what). Built by :func:`snapshot`; every field is immutable (a
    NamedTuple: built in a fraction of a frozen dataclass's time)."""

    seats: tuple[str, ...]
    dealer: str
    floor: int
    phase: str
    current: str
    to_act: tuple[str, ...]
    over: bool
    concealed: Mapping[str, tuple[str, ...]]  # seat -> its concealed tiles, sorted, the drawn one apart
    drawn: Mapping[str, str]  # the seat that just drew -> that tile
    melds: Mapping[str, tuple[MeldView, ...]]  # every tile shown
    face_down: Mapping[str, tuple[MeldView, ...]]  # the same melds, a concealed kong's tiles None
    hand_sizes: Mapping[str, int]  # seat -> its concealed tiles' count, the drawn one included
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


def _marks(game: Game, viewers: Iterable[str | None]) -> dict[str | None, dict[int, str]]:
    """正精 / 副精 by tile kind that each viewer sees: of the face-up wild indicators (every one
    once the hand is over), and of the picked one (随精) the viewer's own pick while the hand is
    played (a spectator's: none). :func:`snapshot` memoises it, code-keyed, per table state."""
    picked = game.picked if not game.over else None
    shared: list[int] = []  # the wild indicators' tiles every viewer sees, in declared order
    picked_at = -1  # where the picked indicator stands in that order
    for name, ind in game.rs.indicators.items():
        if not ind.wild:
            continue
        if picked is not None and name == picked.name:
            picked_at = len(shared)
        elif game.over or not ind.hidden:
            tile = game.indicators.get(name)
            if tile is not None:
                shared.append(tile)
    out: dict[str | None, dict[int, str]] = {}
    for v in viewers:
        tiles = list(shared)
        own = picked.chosen.get(v) if picked is not None and v is not None else None
        if own is not None:
            tiles.insert(picked_at, own)
        marks: dict[int, str] = {}
        for tile in tiles:
            main, nxt = game.scorer.rules.jing_kinds(tile)
            marks.setdefault(main, MAIN)
            if nxt is not None:
                marks.setdefault(nxt, NEXT)
        out[v] = marks
    return out


def _drawn(game: Game) -> tuple[str, int] | None:
    """The seat that has just drawn (or the dealer before its first discard) and that tile."""
    s = game.current
    if game.over or game.phase != ACT or game.last_drawn is None or game.last_drawn not in game.hands[s].concealed:
        return None
    last = game.actions[-1] if game.actions else None
    if (last is not None and last.kind == "draw" and last.seat == s) or (last is None and s == game.dealer):
        return s, game.last_drawn
    return None


MEMO_LIMIT = 4096  # action views and mark sets kept per tile set: a bound on memory


class _Memo:
    """What :func:`snapshot` keeps per tile set (one per ruleset): the kinds' codes, each legal
    action's view by (action, claimed tile), the 精 marks by table state, rows of tiles (a hand,
    a seat's discards) and melds as codes; each bounded by :data:`MEMO_LIMIT`."""

    def __init__(self, game: Game):
        self.codes = [k.code for k in game.tiles.kinds]
        # (id of an action, claimed tile) -> (that action, its view): the action is kept, so its
        # id stays its own while the entry lives (and an id is hashed faster than a dataclass)
        self.actions: dict[tuple[int, tuple[str, str] | None], tuple[object, ActionView]] = {}
        self.marks: dict[tuple[object, ...], Mapping[str | None, Mapping[str, str]]] = {}
        self.rows: dict[tuple[int, ...], tuple[str, ...]] = {}
        self.melds: dict[tuple[MeldTiles, ...], tuple[MeldView, ...]] = {}
        self.face_down: dict[tuple[MeldView, ...], tuple[MeldView, ...]] = {}
        self.hidden = frozenset(n for n, ind in game.rs.indicators.items() if ind.hidden)

    def row(self, kinds: tuple[int, ...]) -> tuple[str, ...]:
        """``kinds`` as codes, kept (a table changes a row or two between snapshots)."""
        got = self.rows.get(kinds)
        if got is None:
            if len(self.rows) >= MEMO_LIMIT:
                self.rows.clear()
            codes = self.codes
            got = self.rows[kinds] = tuple([codes[k] for k in kinds])
        return got

    def meld_views(self, melds: tuple[MeldTiles, ...]) -> tuple[MeldView, ...]:
        """A seat's melds as :class:`MeldView`, kept."""
        got = self.melds.get(melds)
        if got is None:
            if len(self.melds) >= MEMO_LIMIT:
                self.melds.clear()
            got = self.melds[melds] = tuple([MeldView(m.meld_kind, bool(m.concealed), self.row(m.tiles)) for m in melds])
        return got

    def faced_down(self, views: tuple[MeldView, ...]) -> tuple[MeldView, ...]:
        """``views`` as another seat sees them while the hand is played: a concealed kong's tiles None, kept."""
        got = self.face_down.get(views)
        if got is None:
            if len(self.face_down) >= MEMO_LIMIT:
                self.face_down.clear()
            got = self.face_down[views] = tuple([m._replace(tiles=None) if m.concealed else m for m in views])
        return got


_MEMOS: weakref.WeakKeyDictionary[object, _Memo] = weakref.WeakKeyDictionary()


def _memo(game: Game) -> _Memo:
    memo = _MEMOS.get(game.scorer)
    if memo is None:
        memo = _MEMOS[game.scorer] = _Memo(game)
    return memo


def shown_indicators(game: Game) -> dict[str, int]:
    """The indicators every seat sees now, name → tile kind: a hidden one (下精 under 埋雷,
    RULES.md §2) only once the hand is over; what :func:`seat_parts` shows of them, for a
    reader of the game itself (a bot)."""
    if game.over:
        return dict(game.indicators)
    hidden = _memo(game).hidden
    return {n: c for n, c in game.indicators.items() if n not in hidden}


def public_wall(game: Game) -> set[int]:
    """The undrawn wall positions whose tiles every seat sees: the face-up indicators (not
    hidden, not a 随精 anchor) and the tiles the flips turned (发电)."""
    out = set(game.flips.turned) if game.flips is not None else set()
    for name in shown_indicators(game):
        p = game.indicator_positions.get(name)
        if p is not None and not game.rs.indicators[name].picked:
            out.add(p)
    return out - game.wall.taken


def unseen_counts(game: Game, seat: str) -> list[int]:
    """For each tile kind (by index), the copies ``seat`` cannot locate: every copy less the
    seat's own concealed tiles and melds, the other seats' melds but their concealed kongs, every
    discard, the face-up tiles on the wall (:func:`public_wall`) and, while an added kong may be
    robbed, the kong's tile (it is known to be in the declarer's hand). Read from what the seat
    sees alone; the one count the bots (value, search) read. Raises ``ValueError`` for a seat not
    at the table."""
    if seat not in game.seats:
        raise ValueError(f"no seat {seat!r} at this table")
    left = [k.copies for k in game.tiles.kinds]
    for t in game.hands[seat].concealed:
        left[t] -= 1
    for s in game.seats:
        for t in game.discards[s]:
            left[t] -= 1
        for m in game.hands[s].melds:
            if s == seat or not m.concealed:
                for t in m.tiles:
                    left[t] -= 1
    tiles = game.wall.tiles
    for p in public_wall(game):
        left[tiles[p]] -= 1
    if game.phase == ROB and game.robbed is not None and game.robbed[0] != seat:
        left[game.robbed[1]] -= 1
    return left


def snapshot(game: Game) -> TableSnapshot:
    """``game`` frozen now (see :class:`TableSnapshot`). Costs one pass over the table and the
    legal actions of the seats to act."""
    memo = _memo(game)
    codes = memo.codes
    drawn = _drawn(game)
    concealed: dict[str, tuple[str, ...]] = {}
    for s in game.seats:
        kinds = sorted(game.hands[s].concealed)
        if drawn is not None and drawn[0] == s:
            kinds.remove(drawn[1])
        concealed[s] = memo.row(tuple(kinds))
    claimed = game.robbed or game.last_discard if game.phase in ("claim", "rob") else None
    claims = (claimed[0], codes[claimed[1]]) if claimed else None
    legal: dict[str, tuple[ActionView, ...]] = {}
    to_act = tuple(game.to_act())
    known = memo.actions
    for s in to_act:
        views = []
        for a in game.legal_actions(s):
            got = known.get((id(a), claims))
            if got is not None and got[0] is a:
                view = got[1]
            else:
                claim = a.kind in TAKES_OFFERED
                tiles = tuple([codes[k] for k in a.tiles]) if a.tiles else \
                    ((codes[a.tile],) if a.tile is not None and not claim else ())
                view = ActionView(a.kind, a.text(game.scorer), tiles, claims if claim else None)
                if len(known) >= MEMO_LIMIT:
                    known.clear()
                known[(id(a), claims)] = (a, view)
            views.append(view)
        legal[s] = tuple(views)
    viewers: list[str | None] = [None, *game.seats]
    picks = game.picked.chosen if game.picked is not None else {}
    key = (game.over, tuple(game.indicators.items()), tuple(picks.items()), tuple(game.seats))
    coded = memo.marks.get(key)
    if coded is None:
        marks = _marks(game, viewers)
        coded = MappingProxyType({v: MappingProxyType({codes[k]: m for k, m in marks[v].items()}) for v in viewers})
        memo.marks = memo.marks if len(memo.marks) < MEMO_LIMIT else {}
        memo.marks[key] = coded
    melds = {s: memo.meld_views(tuple(h.melds)) for s, h in game.hands.items()}
    return TableSnapshot(
        seats=tuple(game.seats), dealer=game.dealer, floor=game.floor, phase=game.phase, current=game.current,
        to_act=to_act, over=game.over,
        concealed=MappingProxyType(concealed),
        drawn=MappingProxyType({drawn[0]: codes[drawn[1]]} if drawn else {}),
        melds=MappingProxyType(melds),
        face_down=MappingProxyType({s: memo.faced_down(ms) for s, ms in melds.items()}),
        hand_sizes=MappingProxyType({s: len(game.hands[s].concealed) for s in game.seats}),
        discards=MappingProxyType({s: memo.row(tuple(d)) for s, d in game.discards.items()}),
        indicators=MappingProxyType({n: codes[t] for n, t in game.indicators.items()}),
        hidden=memo.hidden,
        marks=coded,
        picks=MappingProxyType({s: codes[k] for s, k in picks.items()}),
        wall=game.wall.remaining, live_wall=game.live_remaining,
        last_discard=(game.last_discard[0], codes[game.last_discard[1]]) if game.last_discard else None,
        legal=MappingProxyType(legal),
        flip=MappingProxyType(game.flips.shown(game.tiles.code)) if game.flips is not None and game.phase == FLIP else None,
    )


PRIVATE = ("seat", "to_act", "hand", "drawn", "hands", "drawn_by", "melds", "jing", "legal", "pick")  # per-viewer fields


class SeatParts(NamedTuple):
    """What one viewer may see of a :class:`TableSnapshot`, as the snapshot's own immutable
    parts (tuples of codes, shared, not copied): :func:`seat_parts` builds it, deciding what is
    shown; :func:`seat_view` is its JSON form, field for field; the environment's observation is
    encoded from it (engine/env/observe.py). ``hands[s]``/``hand`` None: not shown; a face-down
    meld's ``tiles`` None; ``last_discard`` (seat, code); ``legal`` the viewer's :class:`ActionView` s."""

    seat: str | None
    seats: tuple[str, ...]
    dealer: str
    floor: int
    phase: str
    current: str
    to_act: tuple[str, ...]
    over: bool
    hand: tuple[str, ...] | None
    drawn: str | None
    hands: dict[str, tuple[str, ...] | None]
    drawn_by: dict[str, str]
    hand_sizes: Mapping[str, int]
    melds: dict[str, tuple[MeldView, ...]]
    discards: Mapping[str, tuple[str, ...]]
    indicators: dict[str, str]
    jing: Mapping[str, str]
    wall: int
    live_wall: int
    last_discard: tuple[str, str] | None
    legal: tuple[ActionView, ...]
    flip: Mapping[str, object] | None
    pick: str | None


def seat_parts(snap: TableSnapshot, seat: str | None, *, reveal: bool = False) -> SeatParts:
    """``snap`` as ``seat`` may see it (None: a spectator): the one place that decides it (see
    :func:`seat_view` for what is shown to whom). Costs a few small dicts, no copy of the
    snapshot's tiles. Raises ``KeyError`` for a seat not at the table."""
    if seat is not None and seat not in snap.seats:
        raise KeyError(seat)
    open_all = reveal or snap.over
    concealed, melds = snap.concealed, snap.melds
    if open_all:
        hands: dict[str, tuple[str, ...] | None] = dict(concealed)
        shown_melds, drawn_by = dict(melds), dict(snap.drawn)
        indicators = dict(snap.indicators)
    else:
        hands = {s: concealed[s] if s == seat else None for s in snap.seats}
        face_down = snap.face_down
        shown_melds = {s: melds[s] if s == seat else face_down[s] for s in snap.seats}
        drawn_by = {seat: snap.drawn[seat]} if seat is not None and seat in snap.drawn else {}
        hidden = snap.hidden
        indicators = {n: c for n, c in snap.indicators.items() if n not in hidden}
    to_act = snap.to_act
    if snap.phase in SECRET_TURNS and not reveal:
        to_act = (seat,) if seat in to_act else ()
    return SeatParts(
        seat, snap.seats, snap.dealer, snap.floor, snap.phase, snap.current, to_act, snap.over,
        hands[seat] if seat is not None else None, snap.drawn.get(seat) if seat is not None else None,
        hands, drawn_by, snap.hand_sizes, shown_melds, snap.discards, indicators, snap.marks[seat],
        snap.wall, snap.live_wall, snap.last_discard, snap.legal.get(seat, ()) if seat is not None else (),
        snap.flip, snap.picks.get(seat) if seat is not None else None)


def seat_view(snap: TableSnapshot, seat: str | None, *, reveal: bool = False) -> SeatView:
    """The table as ``seat`` may see it (None: a spectator), JSON-ready: :func:`seat_parts` as JSON::

        {"seat", "seats", "dealer", "floor", "phase", "current", "to_act", "over",
         "hand": [code] | None, "drawn": code | None, "hands": {seat: [code] | None},
         "drawn_by": {seat: code},
         "hand_sizes": {seat: n}, "melds": {seat: [{"kind", "concealed", "tiles": [code] | None}]},
         "discards": {seat: [code]}, "indicators": {name: code}, "jing": {code: "正精" | "副精"},
         "wall", "live_wall", "last_discard": {"seat", "tile"} | None,
         "legal": [ActionView.to_json()], "flip": {...} | None, "pick": code | None}

    ``to_act`` while a discard (or a kong to rob) waits for claims lists the viewer alone, if it
    may claim: who else may claim would tell what they hold. ``hand``/``drawn`` are the seat's
    own (the tile it just drew apart from the rest); ``hands``
    and ``drawn_by`` (seat -> the tile it just drew) show only the seat's own until the hand is
    over, then every seat's. Another seat's concealed kong (暗杠) is face down (``tiles`` None)
    until the end; a hidden indicator (下精 under 埋雷) is left out until then. ``reveal`` shows
    every hand as at the end (a finished record's replay; 随精 picks stay each seat's). A new
    dict each call. Raises ``KeyError`` for a seat not at the table. The fields in
    :data:`PRIVATE` depend on the viewer, the others do not (:class:`ViewText` encodes those
    once for every viewer)."""
    parts = seat_parts(snap, seat, reveal=reveal)
    return cast(SeatView, {**_private_json(parts), **_public_json(parts)})


def _public_json(p: SeatParts) -> dict[str, object]:
    return {
        "seats": list(p.seats), "dealer": p.dealer, "floor": p.floor, "phase": p.phase,
        "current": p.current, "over": p.over, "hand_sizes": dict(p.hand_sizes),
        "discards": {s: list(d) for s, d in p.discards.items()}, "indicators": p.indicators,
        "wall": p.wall, "live_wall": p.live_wall,
        "last_discard": {"seat": p.last_discard[0], "tile": p.last_discard[1]} if p.last_discard else None,
        "flip": dict(p.flip) if p.flip is not None else None,
    }


def _melds_json(p: SeatParts) -> dict[str, list[MeldJson]]:
    return {s: [MeldJson(kind=m.kind, concealed=m.concealed, tiles=list(m.tiles) if m.tiles is not None else None)
                for m in ms] for s, ms in p.melds.items()}


def _private_json(p: SeatParts, melds: bool = True, legal: bool = True) -> dict[str, object]:
    hands = {s: list(h) if h is not None else None for s, h in p.hands.items()}
    out: dict[str, object] = {
        "seat": p.seat, "to_act": list(p.to_act), "hand": hands[p.seat] if p.seat is not None else None,
        "drawn": p.drawn, "hands": hands, "drawn_by": p.drawn_by, "jing": dict(p.jing), "pick": p.pick,
    }
    if melds:
        out["melds"] = _melds_json(p)
    if legal:
        out["legal"] = [a.to_json() for a in p.legal]
    return out


def public_part(snap: TableSnapshot, reveal: bool = False) -> dict[str, object]:
    """The fields of :func:`seat_view` that every viewer of ``snap`` is shown alike."""
    return _public_json(seat_parts(snap, None, reveal=reveal))


def melds_part(snap: TableSnapshot, seat: str | None, reveal: bool = False) -> dict[str, list[MeldJson]]:
    """The ``melds`` of :func:`seat_view`: another seat's concealed kong (暗杠) face down until
    the hand is over."""
    return _melds_json(seat_parts(snap, seat, reveal=reveal))


def private_part(snap: TableSnapshot, seat: str | None, reveal: bool = False, *,
                 melds: bool = True, legal: bool = True) -> dict[str, object]:
    """The fields of :func:`seat_view` (:data:`PRIVATE`) that only ``seat`` is shown so
    (``melds``/``legal`` False: without those two). Raises ``KeyError`` for a seat not at the table."""
    return _private_json(seat_parts(snap, seat, reveal=reveal), melds, legal)


class ViewText:
    """:func:`seat_view` of one snapshot as JSON text, for every viewer asked: what every viewer
    shares (:func:`public_part`, and the melds while no seat holds a concealed one) encoded once,
    each viewer's own (:func:`private_part`) once per viewer, each legal action's JSON once a
    ruleset. ``dumps`` is the JSON encoder (object -> str); for every viewer ``json.loads(
    text(seat)) == seat_view(snap, seat)`` (tests/test_view_text.py)."""

    def __init__(self, snap: TableSnapshot, dumps: Callable[[object], str], memo: dict[ActionView, str] | None = None):
        self.snap, self.dumps = snap, dumps
        self.memo = memo if memo is not None else {}
        shared = public_part(snap)
        self.same_melds = snap.over or not any(m.concealed for ms in snap.melds.values() for m in ms)
        if self.same_melds:
            shared["melds"] = melds_part(snap, None)
        self.shared = dumps(shared)[1:-1]

    def _action(self, a: ActionView) -> str:
        text = self.memo.get(a)
        if text is None:
            if len(self.memo) >= MEMO_LIMIT:
                self.memo.clear()
            text = self.memo[a] = self.dumps(a.to_json())
        return text

    def text(self, seat: str | None) -> str:
        """``seat``'s view (None: a spectator's) as JSON. Raises ``KeyError`` for a seat not at the table."""
        own = self.dumps(private_part(self.snap, seat, melds=not self.same_melds, legal=False))
        legal = ",".join([self._action(a) for a in self.snap.legal.get(seat, ())]) if seat is not None else ""
        return f'{own[:-1]},"legal":[{legal}],{self.shared}}}'


def view_of(game: Game, seat: str | None, *, reveal: bool = False) -> SeatView:
    """:func:`seat_view` of :func:`snapshot` of ``game`` now (one viewer's view, at once)."""
    return seat_view(snapshot(game), seat, reveal=reveal)


def public_event(e: Event, viewer: str | None) -> Event | None:
    """An event of :attr:`Game.events` as ``viewer`` may see it (the one place events are hidden) (None: every seat's view): another
    seat's drawn tile, its concealed kong's tile and its dealt hand left out; None for the
    ``end`` event (the hand's result tells it). A new dict; ``e`` is not changed."""
    kind, seat = e["event"], e.get("seat")
    if kind == "end":
        return None
    hide = viewer is not None and seat is not None and seat != viewer
    out = e.copy()
    if kind == "deal" and viewer is not None:
        out["hands"] = {viewer: e.get("hands", {})[viewer]}
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
