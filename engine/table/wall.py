"""The wall: stacks (墩) of tiles, broken by the dice, drawn from the head, replaced from the tail.

Geometry (RULES.md §1 Wall, 精): each seat builds ``stacks_per_seat`` stacks of ``stack_height``
tiles in front of it (the same number for every seat, or one number per seat); the seats'
walls form a ring, one after another in seat order. The dice choose a stack where the wall is broken (``break_wall``); from
there the ring is read in draw order, the *linear* wall: stack 0 is the head, the last stack is
the tail. Position ``p = stack·height + level`` (level 0 is the top tile).

- head draws take positions 0, 1, 2 … (a stack's top, then the tile under it);
- tail draws (kong replacements) take the last stack's top, then the tile under it, then the
  stack before it …;
- the 上精 indicator is the top of the stack the dice count from the tail (the tail stack is 1);
  it stays in the wall, and a replacement draw may take it (000, 002).
"""
from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from engine.errors import IllegalAction, MjError
from engine.lang.playable import DIE_FACES  # the compiler checks the dice against the wall with it


def roll(rng: random.Random, dice: int) -> tuple[int, ...]:
    """One throw of ``dice`` dice."""
    return tuple(rng.randint(1, DIE_FACES) for _ in range(dice))


def break_position(method: str, rolls: list[tuple[int, ...]], dealer_index: int,
                   seat_stacks: list[int]) -> tuple[int, int]:
    """(ring stack where the head starts, how many throws were used) for a break method.
    ``seat_stacks``: the stacks in front of each seat, in seat order (the ring is their walls
    one after another).

    two_rolls (000, 002): the dealer's throw counts seats from the dealer to the roller; the
    roller's throw counts stacks along its wall. one_roll (001): one throw picks the wall by its
    sum and the stack by its smallest die.
    """
    first = rolls[0]
    roller = (dealer_index + sum(first) - 1) % len(seat_stacks)
    start, own = sum(seat_stacks[:roller]), seat_stacks[roller]
    if method == "two_rolls":
        return start + (sum(rolls[1]) - 1) % own, 2
    return start + min(first) % own, 1


@dataclass
class Wall:
    """The linear wall (head → tail) and which positions have been drawn."""

    tiles: list[int]
    height: int
    taken: set[int] = field(default_factory=set)
    _head: int = 0
    _tail: int = 0  # index into tail_order()

    @property
    def stacks(self) -> int:
        """How many stacks the wall has."""
        return len(self.tiles) // self.height

    def tail_order(self) -> list[int]:
        """Positions in the order kong replacements take them (the tail stack's top first)."""
        return [s * self.height + lv for s in range(self.stacks - 1, -1, -1) for lv in range(self.height)]

    @property
    def remaining(self) -> int:
        """Tiles not yet drawn (the face-up indicator included)."""
        return len(self.tiles) - len(self.taken)

    def draw_head(self) -> tuple[int, int]:
        """(tile, position) from the head. Raises :class:`IllegalAction` when the wall is empty."""
        while self._head < len(self.tiles) and self._head in self.taken:
            self._head += 1
        if self._head >= len(self.tiles):
            raise IllegalAction("the wall is empty")
        p = self._head
        self.taken.add(p)
        return self.tiles[p], p

    def draw_tail(self) -> tuple[int, int]:
        """(tile, position) from the tail, for a kong replacement."""
        order = self.tail_order()
        while self._tail < len(order) and order[self._tail] in self.taken:
            self._tail += 1
        if self._tail >= len(order):
            raise IllegalAction("the wall is empty")
        p = order[self._tail]
        self.taken.add(p)
        return self.tiles[p], p

    def stack_from_tail(self, count: int) -> int:
        """The stack ``count`` stacks from the tail (the tail stack is 1)."""
        return (self.stacks - count) % self.stacks

    def stack_from_head(self, count: int) -> int:
        """The stack ``count`` stacks from the head (the head stack is 1)."""
        return (count - 1) % self.stacks

    def position(self, stack: int, level: int) -> int:
        """The position of a stack's tile at ``level`` (0 is the top); stacks wrap around."""
        return (stack % self.stacks) * self.height + level

    def next_draw(self, count: int, skip: set[int]) -> int | None:
        """The position of the ``count``-th tile (1 is the next) that a head draw would take now,
        passing over the positions ``skip`` (the indicators on the wall); None past the wall's end."""
        seen = 0
        for p in range(self._head, len(self.tiles)):
            if p in self.taken or p in skip:
                continue
            seen += 1
            if seen == count:
                return p
        return None

    def copy(self) -> Wall:
        """An independent copy (for looking ahead without drawing)."""
        return Wall(list(self.tiles), self.height, set(self.taken), self._head, self._tail)

    def locate(self, kind: str, end: str | None, ref_position: int | None,
               throw: Callable[[], tuple[int, ...]]) -> int | None:
        """The wall position of an indicator (RULES.md §1 精, §2 上下左右翻).

        ``kind``: ``stack_top`` (the top of the stack ``throw()`` counts from ``end``),
        ``under`` (the tile below ``ref_position``), ``left`` / ``right`` (the tile at the same
        level in the stack before / after it). None when a relative one has no reference.
        """
        if kind == "next_draw":  # placed when the hand ends: :meth:`next_draw`
            return None
        if kind == "stack_top":
            d = sum(throw())
            stack = self.stack_from_tail(d) if end == "tail" else self.stack_from_head(d)
            return self.position(stack, 0)
        if ref_position is None:
            return None
        stack, level = divmod(ref_position, self.height)
        if kind == "under":
            return self.position(stack, level + 1)
        return self.position(stack + (-1 if kind == "left" else 1), level)


@dataclass
class Broken:
    """A wall built for a hand: the linear ``wall``; the shuffled ``ring`` it was broken from
    (None for a scripted linear wall), the break's dice ``rolls`` and ring ``stack``."""

    wall: Wall
    ring: list[int] | None = None
    rolls: list[tuple[int, ...]] = field(default_factory=list)
    stack: int = 0


def build_wall(tiles: list[int], height: int, *, ring: list[int] | None, linear: list[int] | None,
               shuffle: Callable[[list[int]], None], throw: Callable[[], tuple[int, ...]], method: str,
               dealer_index: int, seat_stacks: list[int]) -> Broken:
    """The wall of a hand holding ``tiles`` (each kind's copies), stacks of ``height``: a
    scripted ``linear`` wall as given; else a ``ring`` (a record's, or ``tiles`` shuffled by
    ``shuffle``) broken where the dice (``throw``, once or twice by ``method``:
    :func:`break_position`) say. Raises :class:`MjError` when the given wall is not ``tiles``."""
    want = Counter(tiles)
    if linear is not None:
        if Counter(linear) != want:
            raise MjError("a scripted wall must hold exactly the ruleset's tiles")
        return Broken(Wall(list(linear), height))
    if ring is None:
        ring = list(tiles)
        shuffle(ring)
    elif Counter(ring) != want:
        raise MjError("a recorded wall must hold exactly the ruleset's tiles")
    stacks = [ring[i:i + height] for i in range(0, len(ring), height)]
    rolls = [throw() for _ in range(2 if method == "two_rolls" else 1)]
    start, _ = break_position(method, rolls, dealer_index, seat_stacks)
    ordered = stacks[start:] + stacks[:start]
    return Broken(Wall([t for st in ordered for t in st], height), list(ring), rolls, start)
