"""A ruleset's ``meld`` and ``pattern`` declarations compiled once into the shapes every win
and distance check reads: :class:`CompiledPatterns`.

Question answered: for one ruleset, which tile multisets each meld allows (templates), how a
pattern splits over the tile groups (per group: its kinds, its set templates as positions
within the group, how many wilds it may use) and which declared melds and groups a pattern
admits (RULES.md §1 Winning hands). The recursive evaluator (engine/core/recursive.py), the
win tables (engine/core/wintables/), :class:`~engine.core.shanten.Shanten` and the value bot
all take this one frozen object; none reaches into another's internals.
"""
from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import TypeAlias

from engine.core.handparts import MeldTiles
from engine.core.tiles import Group, TileSet
from engine.lang.ruleset import Meld, Pattern, Ruleset

INF = 10**6  # "no bound" for a group's wild cap, and "cannot" in the recursive search


@dataclass(frozen=True, slots=True)
class GroupSpan:
    """One tile group as a pattern sees it: its kinds ``lo`` up to ``hi`` (a contiguous range
    of a count vector), ``templates`` the id of its set templates in
    :attr:`CompiledPatterns.templates_by_id`, ``cap`` the most wilds it may use (0 for natural
    honours, else :data:`INF`). A dataclass, not a named tuple: read by attribute in the
    distance and recursive loops (a named tuple unpacks slower than a plain one)."""

    lo: int
    hi: int
    templates: int
    cap: int


@dataclass(frozen=True)
class PatternPlan:
    """One pattern compiled: its declaration, the set templates it allows per group (kinds),
    the declared melds it admits, its components (``sets``/``pair``, ``pairs``, ``rotten gap``)
    and its per-group :class:`GroupSpan` s."""

    pattern: Pattern
    set_templates: Mapping[str, tuple[tuple[int, ...], ...]]
    allowed_melds: frozenset[str]
    pair_needed: bool
    sets: int
    pairs: int
    rotten_gap: int
    spans: tuple[GroupSpan, ...]


@dataclass(frozen=True)
class CompiledPatterns:
    """The compiled ``meld`` and ``pattern`` declarations of one ruleset (build with
    :meth:`compile`). Read-only: ``plans``, ``templates`` and ``meld_names`` are mapping proxies, the rest
    tuples and frozensets; :meth:`only` gives a view with one pattern that shares the rest.

    ``group_spans``: per tile group (group, first kind, end); ``templates_by_id``: set templates
    as positions within a group, indexed by :attr:`GroupSpan.templates`; ``set_size`` and
    ``pair_size``: tiles in a set and in the pair; ``hand_size``: tiles in a complete hand;
    ``meld_names``: (meld kind, template tiles) → the first declared meld of that kind with them."""

    tiles: TileSet
    hand_size: int
    melds: Mapping[str, Meld]
    honour_kinds: frozenset[int]
    templates: Mapping[str, tuple[tuple[int, ...], ...]]
    set_size: int
    pair_size: int
    group_spans: tuple[tuple[Group, int, int], ...]
    templates_by_id: tuple[tuple[tuple[int, ...], ...], ...]
    plans: Mapping[str, PatternPlan]
    # (meld kind, a template's tiles) → the first declared meld of that kind with that template
    meld_names: Mapping[tuple[str, tuple[int, ...]], str]

    @classmethod
    def compile(cls, rs: Ruleset, tiles: TileSet, hand_size: int) -> CompiledPatterns:
        """Compile ``rs``'s melds and patterns over ``tiles``; ``hand_size``: tiles in a complete
        hand, melds counted as one set each (table hand + dealer_extra)."""
        templates = {m.name: tuple(_templates(m, tiles)) for m in rs.melds.values()}
        # sizes come from the declarations: a set (顺子/刻子) and the pair (将)
        set_sizes = [sh.size for m in rs.melds.values() if m.meld_kind != "pair"
                     for sh in m.shapes if not sh.declared]
        pair_sizes = [sh.size for m in rs.melds.values() if m.meld_kind == "pair" for sh in m.shapes]
        group_spans = tuple((g, g.kinds[0], g.kinds[-1] + 1) for g in tiles.groups.values())
        by_id: list[tuple[tuple[int, ...], ...]] = []
        ids: dict[tuple[str, str], int] = {}
        plans: dict[str, PatternPlan] = {}
        for p in rs.patterns.values():
            plans[p.name] = _plan(p, rs, tiles, templates, group_spans, by_id, ids)
        meld_names: dict[tuple[str, tuple[int, ...]], str] = {}
        for m in rs.melds.values():
            for t in templates[m.name]:
                meld_names.setdefault((m.meld_kind, t), m.name)
        return cls(tiles, hand_size, MappingProxyType(dict(rs.melds)),
                   frozenset(k.index for k in tiles.kinds if not k.is_suit), MappingProxyType(templates),
                   min(set_sizes) if set_sizes else 0, pair_sizes[0] if pair_sizes else 0,
                   group_spans, tuple(by_id), MappingProxyType(plans), MappingProxyType(meld_names))

    def only(self, name: str) -> CompiledPatterns:
        """The same patterns seen with the single pattern ``name`` (the value bot's distance to
        one pattern); groups and templates are the same objects. Raises KeyError for an
        undeclared pattern."""
        return dataclasses.replace(self, plans=MappingProxyType({name: self.plans[name]}))

    def concealed_shapes(self, meld: Meld) -> tuple[tuple[int, ...], ...]:
        """Templates of the meld's shapes that can be read from concealed tiles (not ``declared``)."""
        return _concealed_shapes(meld, self.templates)

    def meld_name(self, m: MeldTiles) -> str | None:
        """The declared meld a hand's meld is, or None if the ruleset has no such meld."""
        return self.meld_names.get((m.meld_kind, tuple(sorted(m.tiles))))

    def melds_fit(self, plan: PatternPlan, melds: list[MeldTiles]) -> bool:
        """Whether declared ``melds`` can be part of a hand of ``plan``'s pattern (a concealed,
        pairs or rotten pattern takes none; each meld one of its sets; its groups allowed)."""
        if not melds:
            return True
        p = plan.pattern
        if p.concealed or plan.pairs or plan.rotten_gap:
            return False
        if plan.sets and len(melds) > plan.sets:
            return False
        for m in melds:
            if self.meld_name(m) not in plan.allowed_melds:
                return False
        return self.groups_fit(p, {self.tiles.kinds[t].group for m in melds for t in m.tiles})

    def groups_fit(self, p: Pattern, groups: set[str]) -> bool:
        """The ``one of … [plus …]`` and ``only …`` constraints on the groups (names) a hand uses."""
        if p.one_of:
            plus = {g.name for g in self.tiles.groups_named(p.one_of_plus)}
            if not any(groups <= {g.name} | plus for g in self.tiles.groups_named(p.one_of)):
                return False
        return not (p.only and not groups <= {g.name for g in self.tiles.groups_named(p.only)})


def _templates(meld: Meld, tiles: TileSet) -> list[tuple[int, ...]]:
    """Every tile multiset (sorted kinds) the meld's shapes allow."""
    out: set[tuple[int, ...]] = set()
    for sh in meld.shapes:
        if sh.type == "same":
            out |= {(k,) * sh.size for k in range(len(tiles))}
        elif sh.type == "run":
            for g in tiles.groups_named(sh.groups):
                for i in range(len(g.kinds) - sh.size + 1):
                    out.add(tuple(g.kinds[i : i + sh.size]))
        else:
            for g in tiles.groups_named(sh.groups):
                out |= set(itertools.combinations(g.kinds, sh.size))
    return sorted(out)


Templates: TypeAlias = tuple[tuple[int, ...], ...]  # tile multisets, each as its sorted kinds


def _concealed_shapes(meld: Meld, templates: Mapping[str, Templates]) -> Templates:
    if all(sh.declared for sh in meld.shapes):
        return ()
    return templates[meld.name]


def _plan(p: Pattern, rs: Ruleset, tiles: TileSet, templates: Mapping[str, Templates],
          group_spans: tuple[tuple[Group, int, int], ...], by_id: list[Templates],
          ids: dict[tuple[str, str], int]) -> PatternPlan:
    """``p`` compiled; its groups' local templates get ids in ``by_id`` (one per pattern and group)."""
    sets = pairs = gap = 0
    pair_needed = False
    allowed: frozenset[str] = frozenset()
    set_templates: dict[str, Templates] = {}
    for c in p.components:
        if c.type == "sets":
            sets = c.count
            names = set(c.of)
            melds = [m for m in rs.melds.values() if m.meld_kind != "pair"
                     and (not names or m.name in names or m.meld_kind in names)]
            allowed = frozenset(m.name for m in melds)
            by_group: dict[str, set[tuple[int, ...]]] = {}
            for m in melds:
                for t in _concealed_shapes(m, templates):
                    by_group.setdefault(tiles.kinds[t[0]].group, set()).add(t)
            set_templates = {g: tuple(sorted(ts)) for g, ts in by_group.items()}
        elif c.type == "pair":
            pair_needed = True
        elif c.type == "pairs":
            pairs = c.count
        elif c.type == "rotten":
            gap = c.gap
    spans: list[GroupSpan] = []
    for g, lo, hi in group_spans:
        key = (p.name, g.name)
        if key not in ids:
            pos = {k: i for i, k in enumerate(g.kinds)}
            ids[key] = len(by_id)
            by_id.append(tuple(tuple(pos[k] for k in t) for t in set_templates.get(g.name, ())))
        spans.append(GroupSpan(lo, hi, ids[key], 0 if (p.honours_natural and not g.is_suit) else INF))
    return PatternPlan(p, MappingProxyType(set_templates), allowed, pair_needed, sets, pairs, gap, tuple(spans))
