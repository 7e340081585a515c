"""A ruleset's patterns as the table check reads them: one :class:`Plan` per pattern (made by
:func:`make_plan` before any table is read), and the groups a plan gets with its tables
(:class:`GroupTable` for a sets pattern, :class:`RottenGroup` for a rotten one). Read by the
checker (engine/core/wintables/checker.py) and the wild-free path
(engine/core/wintables/wildfree.py); RULES.md §1 Winning hands.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.core.patterns import CompiledPatterns, PatternPlan
from engine.core.wintables.build import TableSpec
from engine.core.wintables.codegen import SetsFewest, SetsFit
from engine.core.wintables.packing import FIELD_BITS
from engine.core.wintables.store import cached_rotten_rooms
from engine.lang.ruleset import Pattern

PARITY_PAIR = 2  # the pair size of the parity bit trick (a count's lowest bit is its parity)


@dataclass(frozen=True, slots=True)
class GroupTable:
    """One group of a sets pattern: where its key sits in the hand's (``shift``, ``mask``),
    its full ``table`` (engine/core/wintables/forms.py), and whether its tiles must all be
    ``natural`` (``honours natural``)."""

    shift: int
    mask: int
    table: dict[int, int]
    natural: bool


@dataclass(frozen=True, slots=True)
class RottenGroup:
    """One group of a rotten pattern: where its key sits, ``rooms`` (a suit: packed key → free
    ranks, -1 if the gap is broken; None for honours) and its ``kinds``."""

    shift: int
    mask: int
    rooms: dict[int, int] | None
    kinds: int


@dataclass(frozen=True, slots=True)
class Plan:
    """A pattern compiled for the table check (made by :func:`make_plan`, reading no table;
    ``groups`` (sets: :class:`GroupTable`), ``rotten_groups`` (rotten: :class:`RottenGroup`) and
    the sets plans' generated ``fit`` and ``fewest`` come with the full tables, as a new plan:
    until then they are empty and None).

    ``kind``: "sets", "pairs" or "rotten"; ``specs``: per group the table spec (sets);
    ``natural``: per group whether its tiles must be natural (sets); ``free``: a wild may
    stand for any tile anywhere in the pattern; ``mode``: how :meth:`TableChecker.readings`
    finds the fewest wilds ("profiled", "pairs" or "splits"); ``paired``: it has a pair (or
    pairs), so it can be 精钓; ``wait_implies_reading``: a 精钓 reading is then also a plain
    one; ``one_kind``: every set is of one kind (pungs)."""

    name: str
    pattern_plan: PatternPlan
    pattern: Pattern
    kind: str
    pair: bool
    min_honours: int
    honours_natural: bool
    quads: bool
    needs_splits: bool
    set_size: int
    sets: int
    pairs: int
    rotten_gap: int
    specs: tuple[TableSpec, ...]
    natural: tuple[bool, ...]
    free: bool
    mode: str
    paired: bool
    wait_implies_reading: bool
    one_kind: bool
    groups: tuple[GroupTable, ...] = ()
    rotten_groups: tuple[RottenGroup, ...] = ()
    fit: SetsFit | None = None
    fewest: SetsFewest | None = None


def make_plan(name: str, plan: PatternPlan, patterns: CompiledPatterns) -> Plan:
    """``plan`` compiled for the table check (before the full tables are read)."""
    p = plan.pattern
    tiles = patterns.tiles
    needs_splits = bool(p.honours_natural or p.min_honours)
    specs: list[TableSpec] = []
    natural: list[bool] = []
    if plan.rotten_gap:
        kind = "rotten"
    elif plan.pairs:
        kind = "pairs"
    else:
        kind = "sets"
        limit = patterns.set_size * plan.sets + (patterns.pair_size if plan.pair_needed else 0)
        for span, (g, _, _) in zip(plan.spans, patterns.group_spans):
            specs.append(TableSpec(span.hi - span.lo, patterns.templates_by_id[span.templates],
                                   patterns.pair_size if plan.pair_needed else 0, limit,
                                   tuple(tiles.kinds[k].copies for k in g.kinds)))
            natural.append(span.cap == 0)
    # a wild may stand for any tile anywhere in the pattern (no natural honours, no counted
    # honours, no group limits): more wilds never hurt
    free = not (needs_splits or p.one_of or p.only or any(natural))
    # how readings() finds the fewest wilds: per-group profiles (plain sets), the pairs
    # count (two-tile pairs), or a check per split of the held 精
    plain = not (p.min_honours or p.one_of or p.only)
    two_tile_pairs = patterns.pair_size == PARITY_PAIR
    mode = ("profiled" if plain and kind == "sets" else
            "pairs" if plain and kind == "pairs" and two_tile_pairs else "splits")
    return Plan(name=name, pattern_plan=plan, pattern=p, kind=kind, pair=plan.pair_needed,
                min_honours=p.min_honours, honours_natural=p.honours_natural, quads=p.quads_as_pairs,
                needs_splits=needs_splits, set_size=patterns.set_size, sets=plan.sets, pairs=plan.pairs,
                rotten_gap=plan.rotten_gap, specs=tuple(specs), natural=tuple(natural), free=free, mode=mode,
                paired=bool(plan.pair_needed or plan.pairs),
                # a 精钓 reading (the pair = the winning tile + a 精 standing as a wild) is then
                # also a plain one: with no plain reading, none is looked for (two-tile pairs only)
                wait_implies_reading=free and two_tile_pairs,
                # every set one kind (pungs): natural tiles of more kinds than sets + pair never fit
                one_kind=kind == "sets" and free and all(len(set(t)) == 1 for spec in specs for t in spec.templates))


def rotten_groups(plan: Plan, patterns: CompiledPatterns) -> tuple[RottenGroup, ...]:
    """The groups of a rotten plan, each suit's rooms read from the table cache (or built)."""
    out: list[RottenGroup] = []
    for g, lo, hi in patterns.group_spans:
        shift, mask = FIELD_BITS * lo, (1 << (FIELD_BITS * (hi - lo))) - 1
        if g.is_suit:
            out.append(RottenGroup(shift, mask, cached_rotten_rooms(g.ranks, plan.rotten_gap), hi - lo))
        elif not plan.honours_natural:
            out.append(RottenGroup(shift, mask, None, hi - lo))
    return tuple(out)


