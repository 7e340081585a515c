"""What happened at the table, in the order it happened: the events a game logs.

:attr:`engine.table.game.Game.events` is a list of :class:`Event`: ``n`` (its place) and
``event`` (its kind) always, and the fields its kind has. Every value is JSON-ready (tiles by
code, nets in 子 by seat), so an event is written to a record or a page as it is; what a seat
may see of one is :func:`engine.table.view.public_event`'s.
"""
from __future__ import annotations

from typing import TypedDict


class EventFields(TypedDict, total=False):
    """The fields an event may have, by kind: ``break`` (rolls, stack), ``deal`` (hands: seat →
    tiles), ``indicator`` (name, tile, position, previous, stopped_by), ``flip`` (name, tile,
    position, dice), ``settle`` and ``follow_first`` (part or tile, net), ``pick``, ``draw``
    (seat, tile, tail, position), ``discard``, a claim (seat, tile, source), ``concealed_kong``,
    ``added_kong``, ``pass_lock`` (seat, tile), ``end`` (winner, by, fans, net)."""

    rolls: list[list[int]]
    stack: int
    hands: dict[str, str]
    name: str
    tile: str | None
    position: int
    previous: bool
    stopped_by: str
    dice: list[int]
    part: str
    net: dict[str, int]
    seat: str
    tail: bool
    source: str
    winner: str | None
    by: str
    fans: list[str]


class Event(EventFields):
    """One event: its place ``n``, its kind ``event`` and its fields (:class:`EventFields`)."""

    n: int
    event: str
