"""What a seat does and how a hand ends: :class:`Action` (with its text form, ``S discard 5p``),
a seat's :class:`Claim` on a discard, the 弃先胡后 :class:`Lock` and the :class:`HandResult` of a finished hand (engine/table/game.py
plays them)."""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import NamedTuple

from engine.core.scoring import Ledger, Scorer, WinInfo
from engine.errors import IllegalAction

DRAW, ACT, CLAIM, ROB, OVER, FLIP, PICK = "draw", "act", "claim", "rob", "over", "flip", "pick"
KINDS = ("draw", "discard", "win", "pung", "kong", "chow", "concealed_kong", "added_kong", "pass", "stop", "pick")
TILE_KINDS = ("discard", "concealed_kong", "added_kong", "pick")  # the kinds that name one tile
TAKES_OFFERED = frozenset({"win", "pung", "kong", "chow"})  # answers that take the claimed (or robbed) tile
ANSWERS = TAKES_OFFERED | {"pass"}  # what a seat asked to claim (or rob) may answer
SECRET_TURNS = frozenset({CLAIM, ROB})  # phases whose seats' answers are each one's own secret until all are in
MEMO_LIMIT = 4096  # shared actions kept (seat names and tiles come from rule files): a bound on memory


@dataclass(frozen=True)
class Action:
    """What a seat does: ``kind`` (see :data:`KINDS`), the tile it concerns (a discard, a kong's
    kind, the tile a chow takes) and, for a chow, the two tiles from the hand."""

    seat: str
    kind: str
    tile: int | None = None
    tiles: tuple[int, ...] = ()

    def __deepcopy__(self, memo: dict[int, object]) -> Action:
        """Itself: an action never changes (a copied game shares its actions, engine/table/redeal.py)."""
        return self

    def text(self, scorer: Scorer) -> str:
        """``S discard 5p``, ``W pung``, ``N chow 46m``, ``E concealed_kong 8m``, ``E pick 3m``."""
        out = f"{self.seat} {self.kind}"
        if self.kind == "chow":
            return f"{out} {scorer.tiles.format(list(self.tiles))}"
        if self.tile is not None and self.kind in TILE_KINDS:
            return f"{out} {scorer.tiles.code(self.tile)}"
        return out

    @staticmethod
    def parse(text: str, scorer: Scorer) -> Action:
        """The inverse of :meth:`text`; raises :class:`IllegalAction` naming what is wrong."""
        words = str(text).split()
        if len(words) < 2 or words[1] not in KINDS:
            raise IllegalAction(f"cannot read action {text!r}",
                                hint="write SEAT KIND [TILE], e.g. `S discard 5p`, `W pung`, `N chow 46m`; "
                                     f"kinds: {', '.join(KINDS)}")
        seat, kind = words[0], words[1]
        if kind == "chow":
            if len(words) != 3:
                raise IllegalAction(f"{text!r}: a chow names the two tiles from the hand, e.g. `N chow 46m`")
            return Action(seat, kind, None, tuple(sorted(scorer.tiles.parse(words[2]))))
        if kind in TILE_KINDS:
            if len(words) != 3:
                raise IllegalAction(f"{text!r}: say which tile, e.g. `{seat} {kind} 5p`")
            return Action(seat, kind, scorer.tiles.parse_one(words[2]))
        if len(words) != 2:
            raise IllegalAction(f"{text!r}: `{kind}` takes no tile")
        return Action(seat, kind)



class SeatActions(NamedTuple):
    """The tile-less actions of one seat, built once per seat name (:func:`seat_actions`) and
    shared by every game: an :class:`Action` is immutable, and :meth:`Game.apply` knows an
    offered one by identity."""

    draw: Action
    win: Action
    pung: Action
    kong: Action
    pass_: Action
    stop: Action


@lru_cache(maxsize=MEMO_LIMIT)
def seat_actions(seat: str) -> SeatActions:
    """The :class:`SeatActions` of ``seat`` (memoised)."""
    return SeatActions(*(Action(seat, kind) for kind in ("draw", "win", "pung", "kong", "pass", "stop")))


@lru_cache(maxsize=MEMO_LIMIT)
def tile_actions(seat: str, kind: str, n_tiles: int) -> tuple[Action, ...]:
    """``seat``'s actions of ``kind`` (one of :data:`TILE_KINDS`) on each of ``n_tiles`` tile
    kinds, indexed by kind (memoised and shared, as :func:`seat_actions`)."""
    return tuple(Action(seat, kind, k) for k in range(n_tiles))


@lru_cache(maxsize=MEMO_LIMIT)
def chow_action(seat: str, tiles: tuple[int, ...]) -> Action:
    """``seat``'s chow taking ``tiles`` from its hand (memoised, as :func:`seat_actions`)."""
    return Action(seat, "chow", None, tiles)


def check_shape(action: object, seats: list[str], n_tiles: int) -> None:
    """Refuse, with :class:`IllegalAction` and before anything changes, an action that is not
    an :class:`Action` of a game with ``seats`` and ``n_tiles`` tile kinds: a seat that does not
    sit there, an unknown kind, or a tile that is not a tile index (an ``int`` in
    ``0 … n_tiles-1``: not ``3.0``, ``True``, ``-1`` or a string), or ``tiles`` that is not a
    tuple of such indexes."""
    if not isinstance(action, Action):
        raise IllegalAction(f"not an action: {type(action).__name__} {action!r:.80}",
                            hint="an Action(seat, kind, tile, tiles) or its text, e.g. `S discard 5p`")
    if not isinstance(action.seat, str) or action.seat not in seats:
        raise IllegalAction(f"action names no seat of this table: {action.seat!r:.80}",
                            hint=f"seats: {' '.join(seats)}")
    if not isinstance(action.kind, str) or action.kind not in KINDS:
        raise IllegalAction(f"unknown action kind {action.kind!r:.80}", hint=f"kinds: {', '.join(KINDS)}")

    def is_tile(t: object) -> bool:
        return type(t) is int and 0 <= t < n_tiles

    if not (action.tile is None or is_tile(action.tile)) or not (
            isinstance(action.tiles, tuple) and all(is_tile(t) for t in action.tiles)):
        raise IllegalAction(f"action {action.kind} names a tile this ruleset does not have: "
                            f"{action.tile if action.tile is not None else action.tiles!r:.80}",
                            hint=f"a tile is a whole number, a tile kind 0 … {n_tiles - 1}")


@dataclass
class Claim:
    """A seat's claim on a discard or a robbed kong: what it may do, and its answer once given.
    ``legal`` is ``options`` and a pass, built once (the same objects each time they are offered)."""

    options: list[Action]
    answer: Action | None = None
    legal: list[Action] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.legal = self.options + [seat_actions(self.options[0].seat).pass_]


@dataclass
class Lock:
    """弃先胡后: a seat passed a win on ``tile`` worth ``value`` 子 to it."""

    tile: int
    value: int


@dataclass
class HandResult:
    """How the hand ended and every settlement made, by part, in the order made."""

    winner: str | None
    win: WinInfo | None
    reading: str | None
    fans: list[str]
    parts: list[tuple[str, str, Ledger]]  # (when, part, ledger): after_deal / during / end
    follow_first: bool = False

    def net(self, seats: list[str]) -> dict[str, int]:
        """Net 子 per seat over every settlement of the hand."""
        out = dict.fromkeys(seats, 0)
        for _, _, lg in self.parts:
            for s, v in lg.net(seats).items():
                out[s] += v
        return out
