"""Win evaluation with 精 wilds, built from the ruleset's ``meld`` and ``pattern`` declarations.

Question answered: given a winner's concealed tiles (the winning tile included), their
declared melds, the wild kinds (the 正/副精 of the wild indicators) and the winning tile,
which *readings* does the hand have? A reading is a pattern plus the facts that matter for
the score (RULES.md §1 Winning hands, 德国, 精钓):

- ``wilds``: the fewest 精 that must stand for another tile (0 means 德国 is possible);
- ``jing_wait``: the winning tile pairs with a lone 精 of the hand (精钓).

Method: a 精 may count as its own face or as a wild, so every split of the held 精 into
natural/wild is tried; for each split the pattern is checked on the natural count vector with
``w`` wilds. ``sets N + pair`` is checked group by group (shapes never cross groups) with a
memoised search for the fewest wilds that complete a group's tiles into sets (and the pair);
wilds left over form sets on their own. ``pairs N`` and ``rotten gap G`` are counted directly.
"""
from __future__ import annotations

import itertools
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache

from engine.errors import IllegalAction
from engine.lang.ruleset import Meld, Pattern, Ruleset
from engine.core.tables import Reading, TableChecker
from engine.core.tiles import TileSet

INF = 10**6
GROUP_MEMO_LIMIT = 50_000  # group results the recursive evaluator remembers (bounds memory)


@dataclass(frozen=True)
class MeldTiles:
    """A declared meld in a hand: its claim kind, its tiles (kinds), and how it was made.

    ``concealed`` marks an 暗杠, ``added`` a 加杠; ``from_seat`` is whose discard was claimed and
    ``claimed`` the claimed tile kind (for liability, RULES.md §2 Liability).
    """

    meld_kind: str
    tiles: tuple[int, ...]
    concealed: bool = False
    added: bool = False
    from_seat: str | None = None
    claimed: int | None = None


@dataclass
class _PatternPlan:
    pattern: Pattern
    set_templates: dict[str, tuple[tuple[int, ...], ...]] = field(default_factory=dict)  # group → templates
    allowed_melds: frozenset[str] = frozenset()
    pair_needed: bool = False
    sets: int = 0
    pairs: int = 0
    rotten_gap: int = 0
    spans: list | None = None  # filled on first use by HandEvaluator._spans


class HandEvaluator:
    """Readings of winning hands under one ruleset (built once per ruleset)."""

    def __init__(self, rs: Ruleset, tiles: TileSet, hand_size: int):
        """``hand_size``: tiles in a complete hand, melds counted as one set each (table hand +
        dealer_extra)."""
        self.rs = rs
        self.tiles = tiles
        self.hand_size = hand_size
        self.honour_kinds = frozenset(k.index for k in tiles.kinds if not k.is_suit)
        self.templates: dict[str, list[tuple[int, ...]]] = {m.name: self._templates(m) for m in rs.melds.values()}
        # sizes come from the declarations: a set (顺子/刻子) and the pair (将)
        set_sizes = [sh.size for m in rs.melds.values() if m.meld_kind != "pair"
                     for sh in m.shapes if not sh.declared]
        pair_sizes = [sh.size for m in rs.melds.values() if m.meld_kind == "pair" for sh in m.shapes]
        self.set_size = min(set_sizes) if set_sizes else 0
        self.pair_size = pair_sizes[0] if pair_sizes else 0
        self._template_ids: dict = {}
        self._templates_by_id: list[tuple[tuple[int, ...], ...]] = []
        self._group_memo: dict = {}
        self._meld_names: dict = {}
        self._chow_partners: dict[int, list] = {}
        # groups are contiguous ranges of kinds: (group, first kind, end) for slicing count vectors
        self.group_spans = [(g, g.kinds[0], g.kinds[-1] + 1) for g in tiles.groups.values()]
        self.plans = {p.name: self._plan(p) for p in rs.patterns.values()}
        self._tables: TableChecker | None = None

    # ---- meld shapes ------------------------------------------------------------------------
    def _templates(self, meld: Meld) -> list[tuple[int, ...]]:
        """Every tile multiset (sorted kinds) the meld's shapes allow."""
        out: set[tuple[int, ...]] = set()
        for sh in meld.shapes:
            if sh.type == "same":
                out |= {(k,) * sh.size for k in range(len(self.tiles))}
            elif sh.type == "run":
                for g in self.tiles.groups_named(sh.groups):
                    for i in range(len(g.kinds) - sh.size + 1):
                        out.add(tuple(g.kinds[i : i + sh.size]))
            else:
                for g in self.tiles.groups_named(sh.groups):
                    out |= set(itertools.combinations(g.kinds, sh.size))
        return sorted(out)

    def concealed_shapes(self, meld: Meld) -> list[tuple[int, ...]]:
        """Templates of the meld's shapes that can be read from concealed tiles (not ``declared``)."""
        if all(sh.declared for sh in meld.shapes):
            return []
        return self.templates[meld.name]

    def meld_name(self, m: MeldTiles) -> str | None:
        """The declared meld a hand's meld is, or None if the ruleset has no such meld."""
        key = (m.meld_kind, tuple(sorted(m.tiles)))
        if key not in self._meld_names:
            self._meld_names[key] = next((meld.name for meld in self.rs.melds.values()
                                          if meld.meld_kind == m.meld_kind and key[1] in self.templates[meld.name]), None)
        return self._meld_names[key]

    def chow_partners(self, tile: int) -> list[tuple[tuple[tuple[int, int], ...], tuple[int, ...]]]:
        """The chows a claimed ``tile`` completes: (counts needed from the hand as (kind, n)
        pairs, the two tiles from the hand sorted), in the ruleset's meld and template order,
        each once. Memoised per evaluator (at most one entry per tile kind)."""
        got = self._chow_partners.get(tile)
        if got is None:
            got, seen = [], set()
            for meld in self.rs.melds.values():
                if meld.meld_kind != "chow":
                    continue
                for t in self.templates[meld.name]:
                    if tile not in t:
                        continue
                    rest = list(t)
                    rest.remove(tile)
                    if tuple(rest) not in seen:
                        seen.add(tuple(rest))
                        got.append((tuple(Counter(rest).items()), tuple(sorted(rest))))
            self._chow_partners[tile] = got
        return got

    # ---- patterns -------------------------------------------------------------------------------
    def _plan(self, p: Pattern) -> _PatternPlan:
        plan = _PatternPlan(p)
        for c in p.components:
            if c.type == "sets":
                plan.sets = c.count
                names = set(c.of)
                allowed = [m for m in self.rs.melds.values() if m.meld_kind != "pair"
                           and (not names or m.name in names or m.meld_kind in names)]
                plan.allowed_melds = frozenset(m.name for m in allowed)
                by_group: dict[str, set] = {}
                for m in allowed:
                    for t in self.concealed_shapes(m):
                        by_group.setdefault(self.tiles.kinds[t[0]].group, set()).add(t)
                plan.set_templates = {g: tuple(sorted(ts)) for g, ts in by_group.items()}
            elif c.type == "pair":
                plan.pair_needed = True
            elif c.type == "pairs":
                plan.pairs = c.count
            elif c.type == "rotten":
                plan.rotten_gap = c.gap
        return plan

    @property
    def tables(self) -> TableChecker:
        """The table-driven checker (engine/core/tables.py), built on first use."""
        if self._tables is None:
            self._tables = TableChecker(self)
            self.is_win = self._tables.is_win  # later calls go straight to the tables
            self.readings = self._tables.readings
        return self._tables

    def readings(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                 win_tile: int, win_tile_natural: bool = False) -> list[Reading]:
        """All readings of a complete hand, one per (pattern, 精钓) with the fewest wilds.

        ``concealed`` holds the concealed tiles *with* the winning tile. A winning tile taken
        from another player (a discard, a robbed kong) is ``win_tile_natural``: a 精 counts only
        as its face then (RULES.md §1 精). Returns [] when the hand is not a win. Answered from
        the win tables (engine/core/tables.py); :meth:`_readings_recursive` is the oracle.
        """
        return (self._tables or self.tables).readings(concealed, melds, wild_kinds, win_tile, win_tile_natural)

    def _readings_recursive(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                            win_tile: int, win_tile_natural: bool = False) -> list[Reading]:
        """:meth:`readings` by the recursive search (the tables' fallback and test oracle)."""
        counts = self.tiles.counts(concealed)
        locked = {win_tile: 1} if win_tile_natural else {}
        out: list[Reading] = []
        for name, plan in self.plans.items():
            if not self._melds_fit(plan, melds):
                continue
            w = self._fewest_wilds(plan, counts, wild_kinds, len(melds), pair_removed=False, locked=locked)
            if w is not None:
                out.append(Reading(name, w, False))
            jw = self._jing_wait(plan, counts, melds, wild_kinds, win_tile)
            if jw is not None:
                out.append(Reading(name, jw, True))
        return out

    def is_win(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
               win_tile: int, win_tile_natural: bool = False) -> bool:
        """Whether the hand has any reading (faster than :meth:`readings`, for legality checks),
        from the win tables (engine/core/tables.py); :meth:`_is_win_recursive` is the oracle."""
        return (self._tables or self.tables).is_win(concealed, melds, wild_kinds, win_tile, win_tile_natural)

    def _is_win_recursive(self, concealed: list[int], melds: list[MeldTiles], wild_kinds: frozenset[int],
                          win_tile: int, win_tile_natural: bool = False) -> bool:
        """:meth:`is_win` by the recursive search.

        A 精 standing as a wild can be anything its face could be, so the split with every
        held 精 wild is enough — except for patterns that count natural honours, which try
        every split.
        """
        counts = self.tiles.counts(concealed)
        locked = {win_tile: 1} if win_tile_natural else {}
        splits = self._splits(counts, wild_kinds, locked)
        for plan in self.plans.values():
            if not self._melds_fit(plan, melds):
                continue
            tries = splits if (plan.pattern.honours_natural or plan.pattern.min_honours) else splits[-1:]
            if any(self._fits(plan, nat, w, len(melds), False) for w, nat in tries):
                return True
        return False

    def why_not(self, concealed: list[int], melds: list[MeldTiles]) -> str:
        """A short reason a hand is not a win (for ``win: false`` and error messages)."""
        names = ", ".join(self.plans)
        return f"{self.tiles.format(concealed)} with {len(melds)} meld(s) matches no pattern ({names})"

    def _melds_fit(self, plan: _PatternPlan, melds: list[MeldTiles]) -> bool:
        if not melds:
            return True
        p = plan.pattern
        if (p.concealed or plan.pairs or plan.rotten_gap) and melds:
            return False
        if plan.sets and len(melds) > plan.sets:
            return False
        for m in melds:
            if self.meld_name(m) not in plan.allowed_melds:
                return False
        return self._groups_fit(p, {self.tiles.kinds[t].group for m in melds for t in m.tiles})

    def _groups_fit(self, p: Pattern, groups: set[str]) -> bool:
        """The ``one of … [plus …]`` and ``only …`` constraints on the groups a hand uses."""
        if p.one_of:
            plus = {g.name for g in self.tiles.groups_named(p.one_of_plus)}
            if not any(groups <= {g.name} | plus for g in self.tiles.groups_named(p.one_of)):
                return False
        if p.only and not groups <= {g.name for g in self.tiles.groups_named(p.only)}:
            return False
        return True

    def _splits(self, counts: list[int], wild_kinds: frozenset[int], locked: dict[int, int]):
        """(natural counts, wilds) for every split of the held 精, fewest wilds first;
        ``locked`` tiles (kind → count) stay natural."""
        held = [(k, counts[k] - locked.get(k, 0)) for k in sorted(wild_kinds) if counts[k] - locked.get(k, 0) > 0]
        options = []
        for used in itertools.product(*[range(c + 1) for _, c in held]):
            nat = list(counts)
            for (k, _), u in zip(held, used):
                nat[k] -= u
            options.append((sum(used), tuple(nat)))
        options.sort(key=lambda o: o[0])
        return options

    def _fewest_wilds(self, plan: _PatternPlan, counts: list[int], wild_kinds: frozenset[int],
                      n_melds: int, pair_removed: bool, locked: dict[int, int] | None = None) -> int | None:
        for w, nat in self._splits(counts, wild_kinds, locked or {}):
            if self._fits(plan, nat, w, n_melds, pair_removed):
                return w
        return None

    def _jing_wait(self, plan: _PatternPlan, counts: list[int], melds: list[MeldTiles],
                   wild_kinds: frozenset[int], win_tile: int) -> int | None:
        """Fewest wilds of a reading whose pair is the winning tile plus a held 精 (精钓)."""
        if not (plan.pair_needed or plan.pairs):
            return None
        best = None
        rest = list(counts)
        rest[win_tile] -= 1
        for j in sorted(wild_kinds):
            if rest[j] < 1:
                continue
            rest2 = list(rest)
            rest2[j] -= 1
            as_wild = 0 if j == win_tile else 1
            w = self._fewest_wilds(plan, rest2, wild_kinds, len(melds), pair_removed=True)
            if w is not None and (best is None or w + as_wild < best):
                best = w + as_wild
        return best

    def _fits(self, plan: _PatternPlan, nat: tuple[int, ...], w: int, n_melds: int, pair_removed: bool) -> bool:
        p = plan.pattern
        if (p.one_of or p.only) and not self._groups_fit(p, {self.tiles.kinds[k].group for k, c in enumerate(nat) if c}):
            return False
        if p.min_honours and sum(1 for k in self.honour_kinds if nat[k]) < p.min_honours:
            return False
        if plan.rotten_gap:
            return self._rotten(plan, nat, w)
        if plan.pairs:
            return self._pairs(plan, nat, w, plan.pairs - (1 if pair_removed else 0))
        return self._sets(plan, nat, w, plan.sets - n_melds, plan.pair_needed and not pair_removed)

    # sets N + pair ---------------------------------------------------------------------------------
    def _sets(self, plan: _PatternPlan, nat: tuple[int, ...], w: int, k: int, pair: bool) -> bool:
        total = sum(nat) + w
        if k < 0 or total != self.set_size * k + (self.pair_size if pair else 0):
            return False
        memo, pair_size = self._group_memo, self.pair_size
        per_group: list[tuple[int, int]] = []  # fewest wilds per group: (without the pair, with it)
        for lo, hi, tid, cap in self._spans(plan):
            sub = nat[lo:hi]
            if not any(sub):
                continue
            a = memo.get((tid, sub, 0, cap))
            if a is None:
                a = self._group_min(tid, sub, 0, cap)
            if a >= INF and not pair:
                return False
            b = INF
            if pair:
                b = memo.get((tid, sub, pair_size, cap))
                if b is None:
                    b = self._group_min(tid, sub, pair_size, cap)
            if a >= INF and b >= INF:
                return False
            per_group.append((a, b))
        base = sum(a for a, _ in per_group)  # ≥ INF when some group needs the pair
        if not pair:
            return base <= w
        best = base + pair_size  # the pair made of wilds only
        for a, b in per_group:
            best = min(best, base - a + b)
        return best <= w

    def _spans(self, plan: _PatternPlan) -> list[tuple[int, int, int, int]]:
        """Per group: (first kind, end, template id, how many wilds it may use)."""
        if plan.spans is None:
            plan.spans = [(lo, hi, self._local_templates(plan, g),
                           0 if (plan.pattern.honours_natural and not g.is_suit) else INF)
                          for g, lo, hi in self.group_spans]
        return plan.spans

    def _local_templates(self, plan: _PatternPlan, g) -> int:
        """An id for the plan's set templates within group ``g`` (positions within the group)."""
        key = (plan.pattern.name, g.name)
        if key not in self._template_ids:
            pos = {k: i for i, k in enumerate(g.kinds)}
            local = tuple(tuple(pos[k] for k in t) for t in plan.set_templates.get(g.name, ()))
            self._template_ids[key] = len(self._templates_by_id)
            self._templates_by_id.append(local)
        return self._template_ids[key]

    def _group_min(self, tid: int, counts: tuple[int, ...], pair: int, cap: int) -> int:
        """Fewest wilds completing ``counts`` into sets of template set ``tid`` (and one pair of
        ``pair`` tiles if ``pair`` > 0); INF if none. Memoised per ruleset."""
        key = (tid, counts, pair, cap)
        got = self._group_memo.get(key)
        if got is None:
            if len(self._group_memo) >= GROUP_MEMO_LIMIT:
                self._group_memo.clear()
            got = self._group_memo[key] = self._group_search(self._templates_by_id[tid], tid, counts, pair, cap)
        return got

    def _group_search(self, templates, tid: int, counts: tuple[int, ...], pair: int, cap: int) -> int:
        i = next((j for j, c in enumerate(counts) if c), None)
        if i is None:
            return (pair if cap >= pair else INF) if pair else 0
        best = INF
        options = [t for t in templates if i in t]
        pair_t = (i,) * pair if pair else None
        if pair_t:
            options.append(pair_t)
        for t in options:
            c = list(counts)
            wild = 0
            for m in t:
                if c[m] > 0:
                    c[m] -= 1
                else:
                    wild += 1
            if wild > cap:
                continue
            is_pair = t is pair_t
            rest = self._group_min(tid, tuple(c), 0 if is_pair else pair, cap - wild if cap < INF else cap)
            if rest < INF:
                best = min(best, wild + rest)
        return best

    # pairs N ------------------------------------------------------------------------------------------
    def _pairs(self, plan: _PatternPlan, nat: tuple[int, ...], w: int, n: int) -> bool:
        size = self.pair_size
        if sum(nat) + w != size * n:
            return False
        singles = 0
        for k, c in enumerate(nat):
            if c > size and not plan.pattern.quads_as_pairs:
                return False
            if c % size:
                if plan.pattern.honours_natural and k in self.honour_kinds:
                    return False
                singles += size - c % size
        return singles <= w

    # rotten gap G ---------------------------------------------------------------------------------------
    def _rotten(self, plan: _PatternPlan, nat: tuple[int, ...], w: int) -> bool:
        if sum(nat) + w != self.hand_size or any(c > 1 for c in nat):
            return False
        gap = plan.rotten_gap
        room = 0
        for g in self.tiles.groups.values():
            held = tuple(i for i, k in enumerate(g.kinds) if nat[k])
            if g.is_suit:
                ranks = tuple(self.tiles.kinds[g.kinds[i]].rank for i in held)
                all_ranks = tuple(self.tiles.kinds[k].rank for k in g.kinds)
                most = _max_spread(all_ranks, ranks, gap)
                if most < 0:
                    return False
                room += most - len(ranks)
            elif not plan.pattern.honours_natural:
                room += len(g.kinds) - len(held)
        return w <= room


@lru_cache(maxsize=4096)
def _max_spread(all_ranks: tuple[int, ...], held: tuple[int, ...], gap: int) -> int:
    """Largest set of ranks containing ``held`` with every two at least ``gap`` apart; -1 if
    ``held`` itself breaks the gap (十三烂, RULES.md §1).

    Greedy, lowest rank first: a free rank is taken when it keeps the gap to the last rank
    taken and to the next held one (linear, whatever the number of ranks)."""
    hs = sorted(held)
    if any(b - a < gap for a, b in zip(hs, hs[1:])):
        return -1
    count, last, i = len(hs), None, 0
    for r in sorted(all_ranks):
        while i < len(hs) and hs[i] < r:
            last, i = hs[i], i + 1
        if i < len(hs) and hs[i] == r:
            last = r
            continue
        nxt = hs[i] if i < len(hs) else None
        if (last is None or r - last >= gap) and (nxt is None or nxt - r >= gap):
            count, last = count + 1, r
    return count


def check_hand_size(tiles: TileSet, concealed: list[int], melds: list[MeldTiles], expected: int,
                    set_size: int, who: str) -> None:
    """A winning hand has ``expected`` tiles counting each meld as one set (kongs included).

    Raises :class:`IllegalAction` with the count found.
    """
    n = len(concealed) + set_size * len(melds)
    if n != expected:
        raise IllegalAction(
            f"{who} holds {n} tiles counting each meld as {set_size} ({tiles.format(concealed)} + "
            f"{len(melds)} meld(s)); a complete hand has {expected}")
