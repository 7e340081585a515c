"""Which number is which action? The environment's fixed action space: every action a seat
could ever take under a ruleset, numbered once, so that a policy's output layer has one size
for the whole game and a mask says which entries are legal now.

The layout follows the game's action kinds (:data:`engine.table.actions.KINDS`) in their order;
``K`` is the ruleset's number of tile kinds (its ``tile`` declarations, in their order):

- a kind that names one tile (:data:`engine.table.actions.TILE_KINDS`: ``discard``,
  ``concealed_kong``, ``added_kong``, ``pick``) takes ``K`` entries, one per tile kind;
- ``chow`` takes one entry per pair of tiles a chow can take from the hand (the two tiles
  besides the claimed one, of every ``chow`` meld the ruleset declares, each pair once, in
  tile order: ``scorer.hands.chow_partners``);
- every other kind (``draw``, ``win``, ``pung``, ``kong``, ``pass``, ``stop``) takes one entry
  (a claimed pung, kong or win names no tile: it takes the tile on offer).

A ruleset of 34 tile kinds whose chows take 54 pairs (wind chows among them) has
``N = 4·34 + 54 + 6 = 196``.
The seat is not part of an entry: each seat reads the same numbers as its own actions.
"""
from __future__ import annotations

from engine.core.scoring import Scorer
from engine.errors import IllegalAction
from engine.table.actions import KINDS, TILE_KINDS, Action

ENTRIES_LIMIT = 4096  # actions whose entries are kept: a bound on memory


class ActionSpace:
    """The numbering of one ruleset's actions (see the module's docstring for the layout).

    ``n`` is the number of entries; :meth:`index` maps a game's :class:`Action` to its entry,
    :meth:`name` an entry to a readable name (``discard 5p``, ``chow 46m``, ``win``)."""

    def __init__(self, scorer: Scorer) -> None:
        self.tiles = scorer.tiles
        k = len(scorer.tiles.kinds)
        pairs: list[tuple[int, ...]] = []
        for tile in range(k):
            for _, rest in scorer.hands.chow_partners(tile):
                if rest not in pairs:
                    pairs.append(rest)
        self.chows: dict[tuple[int, ...], int] = {rest: i for i, rest in enumerate(pairs)}
        self.base: dict[str, int] = {}
        self.size: dict[str, int] = {}
        at = 0
        for kind in KINDS:
            self.base[kind] = at
            self.size[kind] = k if kind in TILE_KINDS else len(pairs) if kind == "chow" else 1
            at += self.size[kind]
        self.n = at
        self.tile_kinds = frozenset(TILE_KINDS)
        self.chow_base = self.base["chow"]
        self.names = tuple(self._name(i) for i in range(self.n))
        self._entries: dict[int, tuple[Action, int]] = {}  # id(action) -> (action, its entry)

    def index(self, action: Action) -> int:
        """The entry of ``action`` (a game's action of any seat). Raises :class:`IllegalAction`
        for a chow of two tiles no chow of this ruleset takes."""
        kind = action.kind
        if kind in self.tile_kinds:
            assert action.tile is not None, "a tile kind's action names its tile (Game checks it)"
            return self.base[kind] + action.tile
        if kind == "chow":
            i = self.chows.get(action.tiles)
            if i is None:
                raise IllegalAction(f"no chow of this ruleset takes {self.tiles.format(list(action.tiles))} from the hand")
            return self.chow_base + i
        return self.base[kind]

    def entry(self, action: Action) -> int:
        """:meth:`index`, kept per action object (a game's actions are shared objects: the same
        ones come back turn after turn); the entry holds the action, so its id stays its own.
        Raises as :meth:`index`."""
        got = self._entries.get(id(action))
        if got is not None and got[0] is action:
            return got[1]
        i = self.index(action)
        if len(self._entries) >= ENTRIES_LIMIT:
            self._entries.clear()
        self._entries[id(action)] = (action, i)
        return i

    def kind_of(self, index: int) -> str:
        """The action kind of entry ``index`` (0 ≤ index < n; else :class:`IllegalAction`)."""
        if not 0 <= index < self.n:
            raise IllegalAction(f"action {index} is not in the action space 0 … {self.n - 1}")
        for kind in reversed(KINDS):
            if index >= self.base[kind] and self.size[kind]:
                return kind
        raise AssertionError("the kinds cover 0 … n-1")

    def name(self, index: int) -> str:
        """A readable name of entry ``index``: ``discard 5p``, ``chow 46m``, ``pass``. Raises
        :class:`IllegalAction` for an index outside 0 … n-1."""
        if not 0 <= index < self.n:
            raise IllegalAction(f"action {index} is not in the action space 0 … {self.n - 1}")
        return self.names[index]

    def _name(self, index: int) -> str:
        kind = self.kind_of(index)
        offset = index - self.base[kind]
        if kind in self.tile_kinds:
            return f"{kind} {self.tiles.code(offset)}"
        if kind == "chow":
            rest = next(r for r, i in self.chows.items() if i == offset)
            return f"chow {self.tiles.format(list(rest))}"
        return kind
