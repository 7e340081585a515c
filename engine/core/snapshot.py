"""Build a :class:`~engine.core.scoring.Snapshot` from the scenario notation (SCENARIOS.md), which
``mjrules test`` and ``mjrules score`` share.

Hands: a tile string (concealed only) or ``{concealed: …, melds: [...]}``; melds are written
``chow 345m from N``, ``chow 678m from S claimed 6m``, ``pung 777p from W``,
``kong 8888m from W`` (明杠), ``kong 8888m added`` (加杠), ``kong 8888m concealed`` (暗杠).
Errors are :class:`~engine.errors.ScenarioError` (the caller adds file:line:col).
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping

from engine.core.hands import MeldTiles, check_hand_size
from engine.core.scoring import WIN_BY, Scorer, SeatHand, Snapshot, WinInfo
from engine.errors import IllegalAction, ScenarioError, did_you_mean


def parse_meld(scorer: Scorer, text: str, seats: list[str]) -> MeldTiles:
    """``"pung 777p from W"`` → :class:`MeldTiles`. Raises :class:`ScenarioError`."""
    words = str(text).split()
    if len(words) < 2 or words[0] not in ("chow", "pung", "kong"):
        raise ScenarioError(f"cannot read meld {text!r}",
                            hint="write e.g. `chow 345m from N`, `pung 777p from W`, `kong 8888m concealed`")
    kind, tiles = words[0], tuple(scorer.tiles.parse(words[1]))
    rest = words[2:]
    from_seat = claimed = None
    concealed = added = False
    i = 0
    while i < len(rest):
        w = rest[i]
        if w in ("from", "claimed") and i + 1 < len(rest):
            if w == "from":
                from_seat = rest[i + 1]
                if from_seat not in seats:
                    raise ScenarioError(f"meld {text!r}: no seat {from_seat!r}", hint=f"seats: {' '.join(seats)}")
            else:
                claimed = scorer.tiles.parse_one(rest[i + 1])
            i += 2
        elif w == "concealed" and kind == "kong":
            concealed, i = True, i + 1
        elif w == "added" and kind == "kong":
            added, i = True, i + 1
        else:
            raise ScenarioError(f"meld {text!r}: cannot read {w!r}",
                                hint="after the tiles: `from SEAT`, `claimed TILE`, or for a kong `added`/`concealed`")
    if kind in ("chow", "pung") and from_seat is None:
        raise ScenarioError(f"meld {text!r} needs `from SEAT`: a {kind} is made from a discard")
    if kind == "kong" and not (concealed or added or from_seat):
        raise ScenarioError(f"kong {text!r}: say how it was made",
                            hint="`from SEAT` (明杠), `added` (加杠) or `concealed` (暗杠)")
    if from_seat is not None and claimed is None:
        claimed = min(tiles, key=lambda k: notation_key(scorer, k))
    if claimed is not None and claimed not in tiles:
        raise ScenarioError(f"meld {text!r}: the claimed tile is not in the meld")
    return MeldTiles(kind, tiles, concealed=concealed, added=added, from_seat=from_seat, claimed=claimed)


def notation_key(scorer: Scorer, kind: int) -> tuple[str, int]:
    """Where a kind stands in the notation order of its group: rank for a suit, the digit code
    for an honour (``1z…7z`` = 东南西北白发中, SCENARIOS.md Tiles) — so the default claimed
    tile of ``chow 白发中`` is 白. Honours without a digit code keep their declared order."""
    k = scorer.tiles.kinds[kind]
    return (k.alias or "", kind) if not k.is_suit else ("", kind)


def parse_hand(scorer: Scorer, value: object, seats: list[str]) -> SeatHand:
    """A seat's hand from a tile string or a ``{concealed, melds, discards}`` mapping (``discards``
    is read by :func:`build_snapshot`)."""
    if value is None:
        return SeatHand()
    if isinstance(value, str):
        return SeatHand(scorer.tiles.parse(value), [])
    if isinstance(value, dict):
        unknown = set(value) - {"concealed", "melds", "discards"}
        if unknown:
            raise ScenarioError(f"unknown hand key {sorted(unknown)[0]!r}",
                                hint="a hand has `concealed`, `melds` and `discards`")
        melds = value.get("melds") or []
        if not isinstance(melds, list):
            raise ScenarioError("`melds` is a list, e.g. [pung 777p from W]")
        return SeatHand(scorer.tiles.parse(str(value.get("concealed") or "")),
                        [parse_meld(scorer, m, seats) for m in melds])
    raise ScenarioError(f"a hand is a tile string or a mapping, not {type(value).__name__}")


def parse_win(scorer: Scorer, value: object, seats: list[str]) -> WinInfo:
    """``{seat, tile, by, from, first_turn}`` → :class:`WinInfo`."""
    if not isinstance(value, dict):
        raise ScenarioError("`win` is a mapping: {seat: S, tile: 4p, by: discard, from: W}", at=("win",))
    unknown = set(value) - {"seat", "tile", "by", "from", "first_turn"}
    if unknown:
        key = sorted(unknown)[0]
        raise ScenarioError(f"unknown win key {key!r}", hint="win keys: seat, tile, by, from, first_turn",
                            at=("win", key))
    seat = value.get("seat")
    if seat not in seats:
        raise ScenarioError(f"win.seat {seat!r} is not a seat", hint=f"seats: {' '.join(seats)}",
                            at=("win", "seat") if "seat" in value else ("win",))
    by = value.get("by")
    if by not in WIN_BY:
        close = did_you_mean(str(by), list(WIN_BY)) if by is not None else None
        raise ScenarioError(f"win.by {by!r} is not one of {', '.join(WIN_BY)}", hint=close,
                            at=("win", "by") if "by" in value else ("win",))
    frm = value.get("from")
    if by in ("discard", "rob_kong") and frm is None:
        raise ScenarioError(f"a {by.replace('_', '-')} win needs `from`: the seat whose tile was taken",
                            hint=f"seats: {' '.join(seats)}", at=("win",))
    if by in ("discard", "rob_kong") and frm not in seats:
        raise ScenarioError(f"win.from {frm!r} is not a seat", hint=f"seats: {' '.join(seats)}", at=("win", "from"))
    if by in ("self_draw", "kong_draw") and frm is not None:
        raise ScenarioError(f"a {by} win takes no `from`: the winning tile is the winner's own draw",
                            hint="leave out `from`, or use `by: discard` / `by: rob_kong`", at=("win", "from"))
    if "tile" not in value:
        raise ScenarioError("win needs `tile`: the winning tile", at=("win",))
    first = value.get("first_turn", False)
    if not isinstance(first, bool):
        raise ScenarioError(f"win.first_turn is true or false, not {first!r}", at=("win", "first_turn"))
    try:
        tile = scorer.tiles.parse_one(str(value["tile"]))
    except ScenarioError as exc:
        exc.at = exc.at or ("win", "tile")
        raise
    return WinInfo(seat, tile, by, frm, first)


def wild_indicator(scorer: Scorer) -> str | None:
    """The indicator the scenario key ``jing`` sets: the first wild one (上精)."""
    return next((n for n, i in scorer.rs.indicators.items() if i.wild), None)


def lower_indicator(scorer: Scorer) -> str | None:
    """The indicator the scenario key ``lower`` sets: the one under the wild indicator (下精)."""
    up = wild_indicator(scorer)
    return next((n for n, i in scorer.rs.indicators.items()
                 if i.position.type == "under" and i.position.ref == up), None)


def seats_of(scorer: Scorer) -> list[str]:
    """The ruleset's seats in play order; :class:`ScenarioError` if it declares none."""
    p = scorer.rs.table.get("seats")
    if p is None:
        raise ScenarioError("the ruleset declares no `table seats = …`")
    return [str(v) for v in p.values]


def build_snapshot(scorer: Scorer, *, hands: Mapping[str, object], jing: str | None = None,
                   lower: str | None = None, dealer: str | None = None, floor: int = 1,
                   win: Mapping[str, object] | None = None,
                   indicators: Mapping[str, object] | None = None,
                   picks: Mapping[str, object] | None = None) -> Snapshot:
    """A checked snapshot: seats exist, no tile has more copies than the set, melds parse.
    ``picks``: seat → the kind it picked for the ``picked by each seat`` indicator; that
    indicator's tile is then the winner's pick (none on a 荒庄).

    Raises :class:`ScenarioError` with what is wrong.
    """
    seats = seats_of(scorer)
    dealer = dealer or seats[0]
    if dealer not in seats:
        raise ScenarioError(f"dealer {dealer!r} is not a seat", hint=f"seats: {' '.join(seats)}", at=("dealer",))
    if not isinstance(floor, int) or floor < 1:
        raise ScenarioError(f"floor must be a whole number ≥ 1, not {floor!r}", at=("floor",))
    if not isinstance(hands, dict):
        raise ScenarioError("`hands` is a mapping seat → hand", at=("hands",))
    parsed = {}
    for seat, value in hands.items():
        if seat not in seats:
            raise ScenarioError(f"no seat {seat!r}", hint=f"seats: {' '.join(seats)}", at=("hands", seat))
        try:
            parsed[seat] = parse_hand(scorer, value, seats)
        except ScenarioError as exc:
            exc.at = exc.at or ("hands", seat)
            raise
    for s in seats:
        parsed.setdefault(s, SeatHand())
    discards = {seat: scorer.tiles.parse(str(value.get("discards") or "")) for seat, value in hands.items()
                if isinstance(value, dict) and value.get("discards")}
    indicators_dict: dict[str, int] = {}
    if jing is not None:
        name = wild_indicator(scorer)
        if name is None:
            raise ScenarioError("`jing` is given but the ruleset declares no wild indicator", at=("jing",))
        indicators_dict[name] = _tile_at(scorer, jing, ("jing",))
    if lower is not None:
        name = lower_indicator(scorer)
        if name is None:
            raise ScenarioError("`lower` is given but the ruleset declares no indicator `under` the wild one",
                                at=("lower",))
        indicators_dict[name] = _tile_at(scorer, lower, ("lower",))
    if indicators is not None:
        if not isinstance(indicators, dict):
            raise ScenarioError("`indicators` is a mapping indicator name → tile", at=("indicators",))
        for name, tile in indicators.items():
            if name not in scorer.rs.indicators:
                close = did_you_mean(str(name), list(scorer.rs.indicators))
                raise ScenarioError(f"the ruleset declares no indicator {name!r}",
                                    hint=close or "indicators: " + ", ".join(scorer.rs.indicators),
                                    at=("indicators", name))
            if name in indicators_dict:
                raise ScenarioError(f"indicator {name!r} is given twice (by `jing`/`lower` and by `indicators`)",
                                    at=("indicators", name))
            indicators_dict[name] = _tile_at(scorer, tile, ("indicators", name))
    w = parse_win(scorer, win, seats) if win is not None else None
    chosen = parse_picks(scorer, picks, seats, indicators_dict, w) if picks is not None else {}
    snap = Snapshot(seats, dealer, floor, indicators_dict, parsed, w, discards, chosen)
    check_copies(scorer, snap)
    if w is not None:
        h = parsed[w.seat]
        try:
            check_hand_size(scorer.tiles, h.concealed + [w.tile], h.melds, scorer.rules.complete_hand,
                            scorer.hands.set_size, f"winner {w.seat}")
        except IllegalAction as exc:  # here it is input to fix, not a move refused
            raise ScenarioError(exc.message, hint="the winner's concealed tiles exclude the winning tile") from None
    return snap


def parse_picks(scorer: Scorer, picks: object, seats: list[str], indicators: dict[str, int],
                win: WinInfo | None) -> dict[str, int]:
    """The ``picks`` key: seat → tile, each seat's pick of the ruleset's ``picked by each seat``
    indicator; with a win, the winner's pick becomes the indicator's tile in ``indicators``.
    Raises :class:`ScenarioError` (no such indicator, a seat unknown, the winner's pick missing,
    the indicator's tile given twice)."""
    name = scorer.rules.picked
    if name is None:
        raise ScenarioError("`picks` is given but no indicator of the ruleset is `picked by each seat`", at=("picks",))
    if not isinstance(picks, dict):
        raise ScenarioError("`picks` is a mapping seat → tile, e.g. {E: 3m, S: 5p}", at=("picks",))
    out = {}
    for seat, tile in picks.items():
        if seat not in seats:
            raise ScenarioError(f"picks: no seat {seat!r}", hint=f"seats: {' '.join(seats)}", at=("picks", seat))
        out[seat] = _tile_at(scorer, tile, ("picks", seat))
    if name in indicators:
        raise ScenarioError(f"indicator {name!r} is picked by each seat: give the picks, not its tile "
                            "(by `jing` or `indicators`)", at=("picks",))
    if win is not None:
        if win.seat not in out:
            raise ScenarioError(f"picks: the winner {win.seat} has no pick (the end settles the winner's)",
                                at=("picks",))
        indicators[name] = out[win.seat]
    return out


def _tile_at(scorer: Scorer, text: object, at: tuple[str | int, ...]) -> int:
    """One tile kind from scenario text; a :class:`ScenarioError` placed ``at`` those keys."""
    try:
        return scorer.tiles.parse_one(str(text))
    except ScenarioError as exc:
        exc.at = exc.at or at
        raise


def check_copies(scorer: Scorer, snap: Snapshot) -> None:
    """No kind appears more often than its copies (indicators count one copy each — except one
    carried over from the previous hand, ``previous upper``, and a seat's pick, ``picked by each
    seat``, which are no tiles of this wall)."""
    count: Counter[int] = Counter(t for n, t in snap.indicators.items()  # a pick is a kind, no tile of the wall
                                  if n not in scorer.rs.indicators or (scorer.rs.indicators[n].position.type != "previous"
                                                                       and not scorer.rs.indicators[n].picked))
    for d in snap.discards.values():
        count.update(d)
    for h in snap.hands.values():
        count.update(h.concealed)
        for m in h.melds:
            count.update(m.tiles)
    if snap.win:
        count[snap.win.tile] += 1
    for k, n in count.items():
        if n > scorer.tiles.kinds[k].copies:
            raise ScenarioError(f"tile {scorer.tiles.code(k)} is used {n} times; the set has "
                                f"{scorer.tiles.kinds[k].copies} (indicators count as one copy each)")
