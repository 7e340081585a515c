"""Bots: a random-legal player and a greedy one that plays sensibly with 精 wilds.

A bot is a callable ``choose(game, seat) -> Action`` over :meth:`Game.legal_actions`; it sees
the game only through the facts its seat may see (:func:`engine.table.view.seat_view`: its own
tiles, melds, the wild kinds, what is public). Each bot has its own random generator, separate from the game's, so a
record replays without the bots.
"""
from __future__ import annotations

import random
import weakref
from collections import Counter
from collections.abc import Callable

from engine.core.scoring import Scorer
from engine.core.shanten import Shanten
from engine.table.game import Action, Game
from engine.table.match import Bot
from engine.table.picks import likely_pick
from engine.table.searchbot import MAX_PLAYOUTS, SearchBot
from engine.table.valuebot import ValueBot


class RandomBot:
    """A uniformly random legal action — except that it always takes a win when offered."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def __call__(self, game: Game, seat: str) -> Action:
        acts = game.legal_actions(seat)
        wins = [a for a in acts if a.kind == "win"]
        return wins[0] if wins else self.rng.choice(acts)


class GreedyBot:
    """Greedy play by shanten with wilds: wins when it can, keeps its 精, claims and declares
    kongs when that does not move it away from a win, and discards the tile whose loss leaves
    the fewest tiles to go (ties: the least connected tile)."""

    name = "greedy"

    def __init__(self, seed: int | None = None):
        self.rng = random.Random(seed)

    def _sh(self, game: Game) -> Shanten:
        sh = _SHANTEN.get(game.scorer)
        if sh is None:  # one per scorer, shared by every bot and hand that scorer plays (memoised)
            sh = _SHANTEN[game.scorer] = Shanten(game.scorer.hands)
        return sh

    def __call__(self, game: Game, seat: str) -> Action:
        by_kind = game.actions_by_kind(seat)
        now = game.taken_at_once(by_kind)
        if now is not None:
            return now
        sh = self._sh(game)
        hand = game.hands[seat]
        if "pick" in by_kind:  # each seat's own 精 (picks.py): the kind the hand counts most
            return by_kind["pick"][likely_pick(game.scorer, sh, hand.concealed, game.wild)]
        wild = game.wilds[seat]
        if "discard" in by_kind:
            shanten: int | None = None  # the hand's shanten, needed only to weigh a kong
            for kind in ("concealed_kong", "added_kong"):
                for a in by_kind.get(kind, []):
                    kong_tile = _tile_of(a)
                    if shanten is None:
                        shanten = sh.of(hand.concealed, len(hand.melds), wild)
                    rest = [t for t in hand.concealed if t != kong_tile] if kind == "concealed_kong" else \
                        _minus(hand.concealed, [kong_tile])
                    if kong_tile not in wild and \
                            sh.of(rest, len(hand.melds) + (kind == "concealed_kong"), wild) <= shanten:
                        return a
            return self._discard(game, seat, by_kind["discard"], sh)
        # a claim: take it when it brings the hand closer to a win
        current = sh.of(hand.concealed, len(hand.melds), wild)
        best, best_gain = by_kind["pass"][0], 0
        tile = game.last_discard[1] if game.last_discard else None
        for kind in ("kong", "pung", "chow"):
            for a in by_kind.get(kind, []):
                if tile is None or tile in wild:
                    continue
                if kind == "chow":
                    used = list(a.tiles)
                else:
                    size = game.meld_size[kind]
                    assert size is not None, f"a {kind} is offered only when the ruleset sizes it"
                    used = [tile] * (size - 1)
                rest = _minus(hand.concealed, used)
                after = min(sh.of_each_discard(rest, len(hand.melds) + 1, wild, list(set(rest))), default=current)
                gain = current - after if kind != "kong" else current - sh.of(rest, len(hand.melds) + 1, wild)
                if gain > best_gain or (kind == "kong" and gain >= 0 and best_gain == 0):
                    best, best_gain = a, gain
        return best

    def _discard(self, game: Game, seat: str, options: list[Action], sh: Shanten) -> Action:
        hand = game.hands[seat]
        wild = game.wilds[seat]
        counts = Counter(hand.concealed)
        plain = [a for a in options if a.tile not in wild] or options
        scored: list[tuple[int, int, float, Action]] = []
        each = sh.of_each_discard(hand.concealed, len(hand.melds), wild, [_tile_of(a) for a in plain])
        for s, a in zip(each, plain):
            scored.append((s, _connectivity(game, counts, _tile_of(a)), self.rng.random(), a))
        scored.sort(key=lambda x: x[:3])
        return scored[0][3]


def _tile_of(action: Action) -> int:
    """The tile of a discard or a kong declaration (actions that always name one)."""
    assert action.tile is not None, f"a {action.kind} names its tile"
    return action.tile


def _minus(tiles: list[int], remove: list[int]) -> list[int]:
    out = list(tiles)
    for t in remove:
        out.remove(t)
    return out


def _connectivity(game: Game, counts: Counter[int], tile: int) -> int:
    """How much a tile is worth keeping: copies held, and neighbours in its suit."""
    k = game.tiles.kinds[tile]
    score = 2 * (counts[tile] - 1)
    if k.is_suit:
        g = game.tiles.groups[k.group].kinds
        for d in (-2, -1, 1, 2):
            j = k.position + d
            if 0 <= j < len(g) and counts[g[j]]:
                score += 1
    return score


_SHANTEN: weakref.WeakKeyDictionary[Scorer, Shanten] = weakref.WeakKeyDictionary()

BOTS: dict[str, Callable[[int | None], Bot]] = {"random": RandomBot, "greedy": GreedyBot, "value": ValueBot,
                                                "search": SearchBot}
BUDGETED = ("search",)  # the kinds that take a budget: ``search:N``, N playouts per decision
# the kinds a live table offers (the server's table, the rooms): a decision in milliseconds; a
# search bot's decision is a second or more of CPU (docs/game.md), for simulate, impact and play
LIVE_BOTS: dict[str, Callable[[int | None], Bot]] = {k: v for k, v in BOTS.items() if k not in BUDGETED}


def kind_error(kind: str) -> str | None:
    """Why ``kind`` names no bot (None: it names one): a :data:`BOTS` name, or ``search:N`` with
    N a whole number 1 … :data:`~engine.table.searchbot.MAX_PLAYOUTS` (playouts per decision)."""
    name, colon, budget = kind.partition(":")
    if name not in BOTS:
        return f"{kind!r}: no such bot"
    if not colon:
        return None
    if name not in BUDGETED:
        return f"{kind!r}: only {', '.join(BUDGETED)} takes a budget (NAME:N)"
    if not (budget.isascii() and budget.isdigit() and 1 <= int(budget) <= MAX_PLAYOUTS):
        return f"{kind!r}: the budget is a whole number of playouts per decision, 1 … {MAX_PLAYOUTS:,}"
    return None


def make_bot(kind: str, seed: int | None) -> Bot:
    """A bot of ``kind`` (checked by :func:`kind_error`) seeded ``seed``: ``search:N`` is a
    :class:`SearchBot` of N playouts per decision. Raises ``ValueError`` for a kind that names no bot."""
    problem = kind_error(kind)
    if problem is not None:
        raise ValueError(problem)
    name, _, budget = kind.partition(":")
    if budget:
        return SearchBot(seed, int(budget))
    return BOTS[name](seed)


def with_budget(kinds: list[str], playouts: int | None) -> list[str]:
    """``kinds`` with each plain budgeted kind (``search``) given ``playouts`` per decision
    (None: as they are)."""
    if playouts is None:
        return list(kinds)
    return [f"{k}:{playouts}" if k in BUDGETED else k for k in kinds]
