"""How is a hand dealt, and which 精 does it show before play? The wall built and broken by the
dice, the tiles dealt, the indicators placed and settled on the dealt hands, and the two phases
that may come before the dealer's first discard: each seat picking its own 精 (``pick``,
picks.py) and the flips a seat may stop (``flip``, flips.py).

The functions change a :class:`DealState` (what they need of a :class:`~engine.table.game.Game`):
its fields, and its tiles, events, indicators and end through its public operations (``add``,
``log``, ``place_indicators``, ``end_hand``). The game calls :func:`break_wall` and
:func:`deal_hands` when it is made, and :func:`pick`, :func:`stop_flips` and :func:`pass_flip`
when such an action is applied (RULES.md §1 Wall, 精, 下精; §2 精 settlement, When;
docs/language.md `indicator`, `table`).
"""
from __future__ import annotations

import random
from typing import Protocol, Unpack

from engine.core.scoring import Scorer, SeatHand, Snapshot, WinInfo
from engine.core.tiles import TileSet
from engine.lang.playable import seat_stacks
from engine.lang.ruleset import Ruleset
from engine.table.actions import ACT, FLIP, PICK, Action
from engine.table.ending import Part
from engine.table.events import EventFields
from engine.table.flips import Flips
from engine.table.picks import Picks
from engine.table.placing import relative_positions
from engine.table.turn import Policies
from engine.table.wall import Wall, build_wall, roll


class DealState(Protocol):
    """What the deal and the flips read and change of a hand (a :class:`~engine.table.game.Game`)."""

    rs: Ruleset
    scorer: Scorer
    tiles: TileSet
    seats: list[str]  # in play order
    dealer: str
    rng: random.Random  # the wall's shuffle and the dice
    n_dice: int  # dice a throw uses (table ``dice``)
    dice_rolls: list[tuple[int, ...]]  # every throw of the hand, in order (given by a record, or thrown)
    dice_thrown: int  # how many of ``dice_rolls`` were used
    height: int  # tiles per stack (table ``stack_height``)
    deal_chunks: list[int]  # tiles per seat per round of the deal (table ``deal``)
    dealer_extra: int
    policies: Policies
    previous_indicators: dict[str, int]  # the previous hand's indicator tiles (``previous`` indicators)
    wall: Wall
    ring: list[int] | None
    hands: dict[str, SeatHand]
    last_drawn: int | None
    phase: str
    current: str
    parts: list[Part]  # the settlements made so far
    indicators: dict[str, int]  # indicator name → its tile kind
    indicator_positions: dict[str, int]  # indicator name → its wall position
    picked: Picks | None
    flips: Flips | None
    after: dict[str, list[str]]  # seat → the seats in play order from it
    wild: frozenset[int]
    wilds: dict[str, frozenset[int]]

    def log(self, kind: str, **data: Unpack[EventFields]) -> None: ...

    def add(self, seat: str, tile: int) -> None: ...

    def place_indicators(self, positions: dict[str, int]) -> None: ...

    def end_hand(self, win: WinInfo | None) -> None: ...

    def score_snapshot(self, win: WinInfo | None = None, hands: dict[str, SeatHand] | None = None) -> Snapshot: ...


def throw(g: DealState) -> tuple[int, ...]:
    """The hand's next throw of the dice: the recorded throws (``dice_rolls``) in order, then new
    ones, each kept in ``dice_rolls`` for the record."""
    if g.dice_thrown < len(g.dice_rolls):
        r = g.dice_rolls[g.dice_thrown]
    else:
        r = roll(g.rng, g.n_dice)
        g.dice_rolls.append(r)
    g.dice_thrown += 1
    return r


def break_wall(g: DealState, ring: list[int] | None, linear: list[int] | None) -> None:
    """Build the wall (``g.wall``, ``g.ring``): a scripted ``linear`` wall as given, else a ring
    (a record's, or shuffled) broken where the dice say (``break_wall`` policy; wall.py). Raises
    :class:`~engine.errors.MjError` for a given wall that is not the ruleset's tiles."""
    method = str((g.policies["break_wall"] or {"method": ("two_rolls",)})["method"][0])
    built = build_wall([k.index for k in g.tiles.kinds for _ in range(k.copies)], g.height, ring=ring,
                       linear=linear, shuffle=g.rng.shuffle, throw=lambda: throw(g), method=method,
                       dealer_index=g.seats.index(g.dealer), seat_stacks=seat_stacks(g.rs))
    g.wall, g.ring = built.wall, built.ring
    if built.ring is not None:
        g.log("break", rolls=[list(r) for r in built.rolls], stack=built.stack)


def deal_hands(g: DealState) -> None:
    """Deal from the head in chunks, seat by seat from the dealer (the dealer's extra tile last),
    place the indicators, fix the 精 and make the settlements on the dealt hands; then the dealer
    acts, unless the seats pick their 精 first (phase ``pick``) or the flips begin."""
    order = g.seats[g.seats.index(g.dealer):] + g.seats[: g.seats.index(g.dealer)]
    for chunk in g.deal_chunks:
        for seat in order:
            for _ in range(chunk):
                g.add(seat, g.wall.draw_head()[0])
    for _ in range(g.dealer_extra):
        t, _ = g.wall.draw_head()
        g.add(g.dealer, t)
        g.last_drawn = t
    g.log("deal", hands={s: g.tiles.format(h.concealed) for s, h in g.hands.items()})
    turn_indicators(g)
    set_wilds(g)
    for part, kind, lg in g.scorer.after_deal_parts(g.score_snapshot()):  # on the dealt hands
        if kind is not None:  # one the hands make (照镜子), a family's member
            g.log("indicator", name=part, tile=g.tiles.code(kind))
        g.parts.append(("after_deal", part, lg))
        g.log("settle", part=part, net=lg.net(g.seats))
    g.phase, g.current = ACT, g.dealer
    if g.picked is not None:  # each seat picks its own 精 first, in play order (picks.py)
        g.picked.asking, g.phase = list(g.after[g.dealer]), PICK
    elif g.flips is not None:
        flip(g)


def turn_indicators(g: DealState) -> None:
    """Place the indicators the wall shows at the deal, and take the previous hand's tile for a
    ``previous`` indicator; one made of the hands, flipped, or turned at the end waits."""
    for name, ind in g.rs.indicators.items():
        pos = ind.position
        if pos.type in ("each_tile", "flips"):  # not on the wall at the deal: made of the hands, or flipped
            continue
        if pos.type == "previous":
            if pos.ref in g.previous_indicators:
                g.indicators[name] = g.previous_indicators[pos.ref]
                g.log("indicator", name=name, tile=g.tiles.code(g.indicators[name]), previous=True)
            continue
        if pos.type == "next_draw":  # turned when the hand ends (placing.next_draw_positions)
            continue
        ref = g.indicator_positions.get(pos.ref) if pos.ref is not None else None
        p = g.wall.locate(pos.type, pos.end, ref, lambda: throw(g))
        if p is not None:
            g.place_indicators({name: p})


def set_wilds(g: DealState) -> None:
    """The wild kinds every seat shares (``wild``) and each seat's own (``wilds``; picks.py)."""
    g.wild, g.wilds = Picks.wilds(g.scorer, g.score_snapshot(), g.seats)


def pick(g: DealState, a: Action) -> None:
    """``a.seat`` (the seat asked) picks its 精 kind ``a.tile``; once every seat has, the 精 follow
    and the dealer acts (or the flips begin)."""
    assert a.tile is not None and g.picked is not None, "a pick names its tile (checked before)"
    g.log("pick", seat=a.seat)  # the kind stays the seat's own until the end
    g.current = g.picked.take(a.seat, a.tile) or g.dealer
    if not g.picked.asking:
        set_wilds(g)
        g.phase = ACT
        if g.flips is not None:
            flip(g)


def flip(g: DealState) -> None:
    """Turn and settle flips until a seat may stop one (phase ``flip``), else draw the hand (flips.py)."""
    fl = g.flips
    assert fl is not None, "only a ruleset with flips flips"
    while not fl.done:
        tile, position, dice = fl.turn(g.wall, lambda: throw(g))
        part, dealt = f"{fl.name}@{fl.made}", g.score_snapshot()
        g.log("flip", name=part, tile=g.tiles.code(tile), position=position, dice=list(dice))
        lg = g.scorer.settle_indicator(dealt, part, tile)
        g.parts.append(("after_deal", part, lg))
        g.log("settle", part=part, net=lg.net(g.seats))
        fl.asking = g.scorer.settlement.flip_stoppers(dealt, fl.name, tile)
        if fl.asking:
            g.phase, g.current = FLIP, fl.asking[0]
            return
    g.end_hand(None)


def stop_flips(g: DealState, a: Action) -> None:
    """``a.seat`` stops the flips: the tile turned is the indicator's; the indicators beside it are
    placed (those settled after the deal, settled now), the 精 follow and the dealer acts."""
    assert g.flips is not None, "a stop answers a flip"
    tile, position = g.flips.stop(a.seat)
    g.indicators[g.flips.name], g.indicator_positions[g.flips.name] = tile, position
    g.log("indicator", name=g.flips.name, tile=g.tiles.code(tile), position=position, stopped_by=a.seat)
    placed = relative_positions(g.rs, g.wall, g.indicator_positions)  # beside the stopped tile
    g.place_indicators(placed)
    for name in (n for n in placed if g.rs.indicators[n].settle == "after_deal"):
        g.parts.append(("after_deal", name, g.scorer.settle_indicator(g.score_snapshot(), name)))
    set_wilds(g)
    g.phase, g.current = ACT, g.dealer


def pass_flip(g: DealState) -> None:
    """The seat asked does not stop the flips: the next seat asked, or else the next flip."""
    assert g.flips is not None, "a flip phase has its flips"
    g.current = g.flips.passed() or g.current
    if not g.flips.asking:
        flip(g)
