"""Shanten (向听): how many tiles a hand is from a win, with 精 wilds, for every declared pattern.

``-1`` is a complete hand, ``0`` is one tile away (听, tenpai). The count is the usual block
count generalised to the ruleset's meld shapes:

- ``sets k + pair``: per tile group, every way to split the tiles into complete sets
  (templates of the declared melds), partial sets (two tiles of a template, a pair) and a head
  pair; shanten = 2k − (2·sets + partials + head), partials counting only up to k − sets;
- ``pairs n``: n − 1 − pairs, singles needing a tile each;
- ``rotten gap G``: complete-hand size − 1 − the largest set of compatible singles.

Each 精 held is counted as a wild that supplies one missing tile, so it lowers the shanten by
one (a pair of wilds, one pair), never below 0 for a hand short of a complete count. This is an
estimate for play, not a scoring rule: the bot uses it; the scorer never does.

:class:`Shanten` (used by the bots) keeps one small max-plus table per group and folds them;
:class:`~engine.core.shanten_oracle.ShantenOracle` is the plain reference it must equal
(tests/test_shanten_tables.py); :class:`~engine.core.shanten_base.ShantenBase` holds what both share.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sized

from engine.core.hands import HandEvaluator
from engine.core.patterns import CompiledPatterns, GroupSpan, PatternPlan
from engine.core.shanten_base import STATE_LIMIT as STATE_LIMIT  # re-exported: the memos' bounds
from engine.core.shanten_base import GroupTableMemos, HandState, remember
from engine.core.shanten_blocks import MEMO_LIMIT as MEMO_LIMIT

Table = int  # a group's (or groups') max-plus table, packed (shanten_blocks.pack): cell 2·sets + head -> most partial sets


class Fold:
    """A sets plan's groups folded for one hand state: ``groups[i]`` group i's table (None: no
    tiles), ``prefix[i]`` the groups before i folded, ``suffix[i]`` those from i on (None until
    needed), ``rest[i]`` every group but i folded (filled as asked). (A plain class: one is made
    per hand state measured, and a dataclass's ``__init__`` cost more.)"""

    __slots__ = ("groups", "prefix", "suffix", "rest")

    def __init__(self, groups: list[Table | None], prefix: list[Table | None]):
        self.groups = groups
        self.prefix = prefix
        self.suffix: list[Table | None] | None = None
        self.rest: dict[int, Table | None] = {}


class Shanten(GroupTableMemos):
    """Shanten of concealed tiles under one ruleset's patterns (values equal to
    :class:`~engine.core.shanten_oracle.ShantenOracle`'s, tested on random hands).

    For a ``sets k + pair`` plan each group's options become a max-plus table: for each
    (sets capped at k, head 0/1) the most partial sets (capped at k), ``-1`` where impossible.
    The shanten only grows with the partials for fixed (sets, head), and combining groups
    adds them (capped), so keeping the maximum per cell loses nothing. Groups combine by a
    small max-plus step; :meth:`of_each_discard` folds the groups a candidate leaves alone
    once per group (prefix and suffix), so a candidate costs one group table and one step.
    """

    def __init__(self, ev: HandEvaluator | CompiledPatterns):
        super().__init__(ev)
        # ("rotten", gap, group, counts) -> the positions a draw changes
        self._growers: dict[tuple[object, ...], tuple[int, ...]] = {}
        # (k, head, other groups' table, group id, counts, distance to beat) -> the positions whose draw beats it
        self._helping: dict[tuple[int, bool, Table | None, int, tuple[int, ...], int], tuple[int, ...]] = {}
        # (k, group id, counts, ±1) -> each position's table with one tile more or fewer there
        self._after: dict[tuple[int, int, tuple[int, ...], int], tuple[Table | None, ...]] = {}
        self._plan_memo: dict[HandState, tuple[int | None, ...]] = {}  # hand state -> each plan's distance
        # (natural counts, k, spans id) -> its Fold (``_folded``)
        self._fold_memo: dict[tuple[tuple[int, ...], int, int], Fold] = {}
        # hand state -> plan's measure id -> discarded kind -> the plan's distance after it (``_after_discards``)
        self._discard_memo: dict[HandState, dict[int, dict[int, int]]] = {}
        self._useful_memo: dict[HandState, frozenset[int]] = {}  # hand state -> the kinds whose draw helps
        self._spans = self._shared_spans()
        measure_of = {name: self._measure_of(plan) for name, plan in self.ev.plans.items()}
        measures = list(dict.fromkeys(measure_of.values()))  # plans alike measure once (plan_distances)
        # each plan's measure as a small id (its place in ``measures``): the key of its memoised rows
        self._measure = {name: measures.index(ms) for name, ms in measure_of.items()}
        self._distinct = [next(p for n, p in self.ev.plans.items() if self._measure[n] == i)
                          for i in range(len(measures))]
        self._spread = [self._measure[n] for n in self.ev.plans]
        names = list(self.ev.plans)
        self._distinct_at = [names.index(p.pattern.name) for p in self._distinct]  # their places in plan order
        span_keys = {name: tuple((sp.lo, sp.hi, sp.templates) for sp in spans) for name, spans in self._spans.items()}
        ids = {key: i for i, key in enumerate(dict.fromkeys(span_keys.values()))}
        self._span_key = {name: ids[key] for name, key in span_keys.items()}  # plans of equal spans: one small id
        self._group_of = {kd: gi for gi, (_, lo, hi) in enumerate(self.ev.group_spans) for kd in range(lo, hi)}

    def memos(self) -> dict[str, Sized]:
        return {**super().memos(), "growers": self._growers, "helping": self._helping, "after": self._after,
                "plan_memo": self._plan_memo, "fold_memo": self._fold_memo, "discard_memo": self._discard_memo,
                "useful_memo": self._useful_memo}

    def _measure_of(self, plan: PatternPlan) -> object:
        """What a plan's distances depend on (plans alike measure alike: the two rotten patterns
        of one gap, sets patterns of the same templates): the key of its memoised rows."""
        if plan.rotten_gap:
            return ("rotten", plan.rotten_gap)
        if plan.pairs:
            return ("pairs", plan.pairs, plan.pattern.quads_as_pairs)
        spans = tuple((sp.lo, sp.hi, sp.templates) for sp in self._spans[plan.pattern.name])
        return ("sets", plan.sets, plan.pair_needed, spans)

    def _after_discards(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int,
                        kinds: list[int], rows: dict[int, dict[int, int]] | None = None) -> dict[int, int]:
        """``plan_after_each(plan, nat, w, n_melds, kinds, -1)`` as {kind: distance} (empty when
        the plan has no value with ``n_melds`` melds), memoised per hand state: the hand a claim
        leaves is measured again when the seat discards from it. The row may hold more kinds.
        ``rows``: the hand state's rows (:meth:`_discard_rows`) when the caller has them."""
        if (plan.rotten_gap or plan.pairs) and n_melds:
            return {}
        if rows is None:
            rows = self._discard_rows(nat, w, n_melds)
        measure = self._measure[plan.pattern.name]
        row = rows.get(measure)
        if row is None:
            row = rows[measure] = {}
        missing = [d for d in kinds if d not in row]  # (a kind twice is measured twice, alike)
        if missing:
            row.update(zip(missing, self.plan_after_each(plan, nat, w, n_melds, missing, -1) or ()))
        return row

    def _discard_rows(self, nat: tuple[int, ...], w: int, n_melds: int) -> dict[int, dict[int, int]]:
        """The memoised rows of :meth:`_after_discards` of one hand state (plan's measure -> row)."""
        key = (nat, w, n_melds)
        rows = self._discard_memo.get(key)
        if rows is None:
            rows = remember(self._discard_memo, key, {})
        return rows

    def _shared_spans(self) -> dict[str, tuple[GroupSpan, ...]]:
        """Each plan's spans (by pattern name) with equal templates under one id (the first), so
        that groups alike (the three suits) share their tables, steps and growers: a table
        depends only on the templates, ``k`` and the counts."""
        by_id = self.ev.templates_by_id
        first = {tid: by_id.index(templates) for tid, templates in enumerate(by_id)}
        return {name: tuple(dataclasses.replace(sp, templates=first[sp.templates]) for sp in plan.spans)
                for name, plan in self.ev.plans.items()}

    def plan_after_each(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int, kinds: list[int],
                        step: int) -> list[int] | None:
        """The plan's distance (as :meth:`plan_distance`) for the natural counts ``nat`` with one more
        (``step`` 1, a draw) or one fewer (``step`` -1, a discard) of each kind in ``kinds``;
        None when the plan has no value with ``n_melds`` melds. Each candidate changes one group,
        so the other groups are folded once (prefix and suffix max-plus steps)."""
        if (plan.rotten_gap or plan.pairs) and n_melds:
            return None  # a pairs or rotten plan needs a concealed hand
        spans = self.ev.group_spans

        def sub_after(d: int, lo: int, hi: int) -> tuple[int, ...]:
            c = list(nat[lo:hi])
            c[d - lo] += step
            return tuple(c)

        if plan.rotten_gap:  # each candidate changes one group's usable singles
            usable = [self.rotten_usable(plan.rotten_gap, gi, nat[lo:hi]) for gi, (_, lo, hi) in enumerate(spans)]
            total = sum(usable)
            out = []
            for d in kinds:
                if (nat[d] > 0) == (nat[d] + step > 0):
                    u = total  # the kinds held stay the same: so do the usable singles
                else:
                    gi = self._group_of[d]
                    _, lo, hi = spans[gi]
                    u = total - usable[gi] + self.rotten_usable(plan.rotten_gap, gi, sub_after(d, lo, hi))
                out.append(max(self.ev.hand_size - 1 - u - w, -1))
            return out
        if plan.pairs:  # each candidate changes one kind's pairs and singles
            ps = self.ev.pair_size
            cap = None if plan.pattern.quads_as_pairs else ps  # a count past ps makes no more pairs
            pairs_in = [c // ps if cap is None else min(c, cap) // ps for c in range(max(nat, default=0) + 2)]
            pairs = sum(pairs_in[c] for c in nat if c)
            singles = sum(1 for c in nat if c % ps)
            by_count: dict[int, int] = {}  # a kind's count held -> the distance (kinds held alike, alike)
            out = []
            for d in kinds:
                c = nat[d]
                v = by_count.get(c)
                if v is None:
                    after = c + step
                    pr = pairs - pairs_in[c] + (pairs_in[after] if after >= 0 else 0)
                    sg = singles - (1 if c % ps else 0) + (1 if after % ps else 0)
                    v = by_count[c] = self._pairs_distance(plan, pr, sg, w)
                out.append(v)
            return out
        k = plan.sets - n_melds
        if k < 0:
            return None
        pspans = self._spans[plan.pattern.name]
        rest_of = self._folds_without(plan, nat, k)
        head = plan.pair_needed
        group_of, steps, bests, shift = self._group_of, self.steps, self.bests, self.shift  # read inline
        out = []
        by_group: dict[int, tuple[int, tuple[Table | None, ...], Table | None]] = {}
        for d in kinds:
            gi = group_of[d]
            known = by_group.get(gi)
            if known is None:  # the kinds of one group share its tables after and the others' fold
                span = pspans[gi]
                known = by_group[gi] = (span.lo, self._tables_after(k, span.templates, nat[span.lo:span.hi], step),
                                     rest_of(gi))
            lo, shifted, rest = known
            table = shifted[d - lo]
            if table is None or rest is None:
                acc = rest if table is None else table
            else:
                acc = steps.get(rest << shift | table) or self.combined(rest, table)
            best = None if acc is None else bests.get(acc << 1 | head)
            if best is None:
                best = self.best_of(k, head, acc)
            out.append(max(best - w, -1))
        return out

    def _tables_after(self, k: int, tid: int, sub: tuple[int, ...], step: int) -> tuple[Table | None, ...]:
        """For each position of a group: its table (``k`` sets to make) with one more (``step`` 1)
        or one fewer (``step`` -1) tile there; None where the group is left without tiles (or a
        count would fall below 0). Memoised per group state."""
        key = (k, tid, sub, step)
        out = self._after.get(key)
        if out is None:
            if len(self._after) >= MEMO_LIMIT:
                self._after.clear()
            tables: list[Table | None] = []
            for pos in range(len(sub)):
                after = list(sub)
                after[pos] += step
                tables.append(self.table(k, tid, tuple(after)) if any(after) and after[pos] >= 0 else None)
            out = self._after[key] = tuple(tables)
        return out

    def _folded(self, plan: PatternPlan, nat: tuple[int, ...], k: int,
                parent: tuple[tuple[int, ...], int] | None = None) -> Fold:
        """The :class:`Fold` of a sets plan's groups with ``k`` sets to make, memoised per hand
        state: plans alike, the plan's distance and its distances after each discard or draw
        share one fold. ``parent``: (a hand's counts, a kind) when ``nat`` is that hand less one
        tile of that kind; a fold of it with its suffix is then read for every group but one."""
        sid = self._span_key[plan.pattern.name]
        key = (nat, k, sid)
        f = self._fold_memo.get(key)
        if f is None and parent is not None:
            base = self._fold_memo.get((parent[0], k, sid))
            if base is not None and base.suffix is not None:
                f = remember(self._fold_memo, key, self._fold_less(plan, nat, k, base, self._group_of[parent[1]]))
        if f is None:
            tables, steps, shift = self.tables, self.steps, self.shift  # the memos, read inline
            groups: list[Table | None] = []
            prefix: list[Table | None] = [None]
            acc: Table | None = None
            for sp in self._spans[plan.pattern.name]:
                sub = nat[sp.lo:sp.hi]
                t = (tables.get((k, sp.templates, sub)) or self.table(k, sp.templates, sub)) if any(sub) else None
                groups.append(t)
                if t is not None:
                    acc = t if acc is None else steps.get(acc << shift | t) or self.combined(acc, t)
                prefix.append(acc)
            f = remember(self._fold_memo, key, Fold(groups, prefix))
        return f

    def _fold_less(self, plan: PatternPlan, nat: tuple[int, ...], k: int, base: Fold, gi: int) -> Fold:
        """The fold of ``nat``, which differs from the hand folded in ``base`` (its suffix made)
        in group ``gi`` only: the groups before it keep their prefix, those after their suffix,
        and every group but ``gi`` the same rest."""
        sp = self._spans[plan.pattern.name][gi]
        sub = nat[sp.lo:sp.hi]
        groups = list(base.groups)
        groups[gi] = self.table(k, sp.templates, sub) if any(sub) else None
        prefix = base.prefix[:gi + 1]
        acc = prefix[-1]
        steps, combined, shift = self.steps, self.combined, self.shift  # the memo read inline, as combined reads it
        for t in groups[gi:]:
            acc = t if acc is None else acc if t is None else steps.get(acc << shift | t) or combined(acc, t)
            prefix.append(acc)
        assert base.suffix is not None, "the base fold has its suffix"
        acc = base.suffix[gi + 1]
        head: list[Table | None] = []
        for t in reversed(groups[:gi + 1]):
            acc = t if acc is None else acc if t is None else steps.get(t << shift | acc) or combined(t, acc)
            head.append(acc)
        f = Fold(groups, prefix)
        f.suffix = head[::-1] + base.suffix[gi + 1:]
        if gi in base.rest:
            f.rest[gi] = base.rest[gi]
        return f

    def _folds_without(self, plan: PatternPlan, nat: tuple[int, ...], k: int,
                       parent: tuple[tuple[int, ...], int] | None = None) -> Callable[[int], Table | None]:
        """``rest(gi)``: every group's table but group ``gi``'s folded (a sets plan, ``k`` sets to
        make), each computed once per hand state (prefix and suffix max-plus steps); ``parent``
        as for :meth:`_folded`."""
        f = self._folded(plan, nat, k, parent)
        prefix, suffix, done = f.prefix, f.suffix, f.rest
        if suffix is None:
            steps, shift = self.steps, self.shift  # the memo of combined, read inline
            suffix = [None]
            acc: Table | None = None
            for t in reversed(f.groups):
                if t is not None:
                    acc = t if acc is None else steps.get(t << shift | acc) or self.combined(t, acc)
                suffix.append(acc)
            suffix.reverse()
            f.suffix = suffix

        def rest(gi: int) -> Table | None:
            if gi in done:
                return done[gi]
            r = done[gi] = self.combined(prefix[gi], suffix[gi + 1])
            return r
        return rest

    def helping_kinds(self, nat: tuple[int, ...], w: int, n_melds: int,
                      parent: tuple[tuple[int, ...], int] | None = None) -> frozenset[int]:
        """The kinds (positions of ``nat``, natural counts) of which one more tile lowers the
        shanten of ``nat`` with ``w`` wilds (ukeire). ``parent``: (the natural counts of a hand,
        a kind) when ``nat`` is that hand less one tile of that kind, whose distances
        (:meth:`plans_each_discard`'s rows) then spare measuring ``nat`` again. Memoised per hand
        state (a seat that discards the tile it drew asks of the same hand again)."""
        key = (nat, w, n_melds)
        out = self._useful_memo.get(key)
        if out is None:
            out = remember(self._useful_memo, key, self._helping_among(nat, w, n_melds, parent))
        return out

    def helping_after_discards(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                               discards: list[int]) -> list[frozenset[int]]:
        """For each of ``discards`` (each held): :meth:`helping_kinds` of ``concealed`` less that
        tile (the 精 counted as wilds; a wild kind's own position is never asked of)."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        whole = tuple(counts)
        out = []
        for d in discards:
            if d in wild_kinds:
                out.append(self.helping_kinds(whole, w - 1, n_melds))
                continue
            counts[d] -= 1
            cut = tuple(counts)
            counts[d] += 1
            out.append(self.helping_kinds(cut, w, n_melds, (whole, d)))
        return out

    def _nearest_plans(self, nat: tuple[int, ...], w: int, n_melds: int,
                       parent: tuple[tuple[int, ...], int] | None) -> tuple[int, list[tuple[PatternPlan, int]]]:
        """(the shanten of ``nat``, each distinct plan at it or nearer with its distance). With a
        ``parent`` (see :meth:`helping_kinds`) a plan its rows measured after that discard is read
        from them; one they did not is bounded below by the parent's own distance (a discard
        never lowers a distance) and measured only when that bound could make it the nearest."""
        tiles = sum(nat) + w
        if parent is None or (nat, w, n_melds) in self._plan_memo:
            dists = self.plan_distances(nat, w, n_melds)
            vals: list[int | None] = [dists[i] for i in self._distinct_at]
        else:
            whole, kind = parent
            lows = self.plan_distances(whole, w, n_melds)
            rows = self._discard_memo.get((whole, w, n_melds), {})
            vals = []
            unknown: list[tuple[int, int]] = []  # (the parent's distance: a bound below, plan index)
            for j, (plan, i) in enumerate(zip(self._distinct, self._distinct_at)):
                row = rows.get(self._measure[plan.pattern.name])
                if row is not None and kind in row:
                    vals.append(row[kind])
                else:
                    vals.append(None)  # None until measured: a plan of no value stays None
                    low = lows[i]
                    if low is not None:
                        unknown.append((low, j))
            known = [v for v in vals if v is not None]
            least = min(known, default=None)
            for low, j in sorted(unknown):
                if least is not None and low > self.settle(least, tiles, n_melds):
                    break  # this plan and every farther one cannot be the nearest
                v = vals[j] = self._after_discards(self._distinct[j], whole, w, n_melds, [kind]).get(kind)
                if v is not None and (least is None or v < least):
                    least = v
        now = self.settle(min((v for v in vals if v is not None), default=None), tiles, n_melds)  # of_counts
        return now, [(plan, v) for plan, v in zip(self._distinct, vals) if v is not None and v <= now]

    def _helping_among(self, nat: tuple[int, ...], w: int, n_melds: int,
                       parent: tuple[tuple[int, ...], int] | None = None) -> frozenset[int]:
        """:meth:`helping_kinds` computed. A draw lowers a plan's distance by at most one, so only
        the plans at the hand's distance are searched; in a sets plan a draw that leaves its
        group's table as it was changes nothing and is not folded again."""
        now, nearest = self._nearest_plans(nat, w, n_melds, parent)
        out: set[int] = set()
        for plan, dist in nearest:  # plans alike measure alike: once
            if dist < now:  # a hand short of a complete count, already at -1 (a lone 精 waits on anything):
                return frozenset(range(len(nat)))  # a draw never raises a distance, so every draw completes it
            if plan.rotten_gap:  # only a draw that adds a usable single to its group can help
                usable = [self.rotten_usable(plan.rotten_gap, gi, nat[lo:hi])
                          for gi, (_, lo, hi) in enumerate(self.ev.group_spans)]
                if max(self.ev.hand_size - 2 - sum(usable) - w, -1) < now:  # one more usable single
                    for gi, (_, lo, hi) in enumerate(self.ev.group_spans):
                        for pos in self._rotten_growers(plan.rotten_gap, gi, nat[lo:hi], usable[gi]):
                            out.add(lo + pos)
                continue
            if plan.pairs:
                todo = [kd for kd in range(len(nat)) if kd not in out]
                for kd, v in zip(todo, self.plan_after_each(plan, nat, w, n_melds, todo, 1) or ()):
                    if v < now:
                        out.add(kd)
                continue
            if now < 0:
                continue  # complete: no draw lowers it
            k = plan.sets - n_melds
            head = plan.pair_needed
            rest_of = self._folds_without(plan, nat, k, parent)
            helping, need = self._helping, now + w  # the memo, read inline; the distance before wilds to beat
            for gi, span in enumerate(self._spans[plan.pattern.name]):
                sub = nat[span.lo:span.hi]
                if not any(sub):
                    continue  # a lone tile makes no block: a group without tiles has no helping draw
                key = (k, head, rest_of(gi), span.templates, sub, need)
                positions = helping.get(key)
                if positions is None:
                    positions = self._helping_draws(key)
                lo = span.lo
                for pos in positions:
                    out.add(lo + pos)
        return frozenset(out)

    def _helping_draws(self, key: tuple[int, bool, Table | None, int, tuple[int, ...], int]) -> tuple[int, ...]:
        """``key``: (k, head needed, the other groups' folded table, group id, the group's counts,
        a distance before wilds). The positions of the group where one more tile brings a sets
        plan's distance before wilds below it; a draw that leaves the group's table as it was
        changes nothing. Memoised (few folded tables recur)."""
        k, head, rest, tid, sub, need = key
        if len(self._helping) >= MEMO_LIMIT:
            self._helping.clear()
        out: list[int] = []
        steps, bests, shift = self.steps, self.bests, self.shift  # the memos read inline, as combined and best_of read them
        for where, table in self.grown_tables(k, tid, sub):
            acc = table if rest is None else steps.get(rest << shift | table) or self.combined(rest, table)
            best = bests.get(acc << 1 | head)
            if (self.best_of(k, head, acc) if best is None else best) < need:
                out += where
        positions = self._helping[key] = tuple(sorted(out))
        return positions

    def _rotten_growers(self, gap: int, gi: int, sub: tuple[int, ...], usable: int) -> tuple[int, ...]:
        """The positions of group ``gi`` whose one more tile adds a usable single (``usable`` now)
        to a ``rotten gap`` plan: one more tile adds at most one. Memoised per group state."""
        key = ("rotten", gap, gi, sub)
        out = self._growers.get(key)
        if out is None:
            if len(self._growers) >= MEMO_LIMIT:
                self._growers.clear()
            grows = []
            for pos in range(len(sub)):
                if sub[pos]:
                    continue  # a second copy is no new single
                after = list(sub)
                after[pos] += 1
                if self.rotten_usable(gap, gi, tuple(after)) > usable:
                    grows.append(pos)
            out = self._growers[key] = tuple(grows)
        return out

    def distances(self, nat: tuple[int, ...], w: int, n_melds: int) -> Iterable[int | None]:
        return self.plan_distances(nat, w, n_melds)

    def plan_distances(self, nat: tuple[int, ...], w: int, n_melds: int) -> tuple[int | None, ...]:
        """:meth:`plan_distance` of every plan, in plan order, memoised per hand state."""
        key = (nat, w, n_melds)
        v = self._plan_memo.get(key)
        if v is None:
            vals = [self.plan_distance(plan, nat, w, n_melds) for plan in self._distinct]
            v = remember(self._plan_memo, key, tuple(vals[i] for i in self._spread))
        return v

    def _pairs_distance(self, plan: PatternPlan, pairs: int, singles: int, w: int) -> int:
        """A pairs plan's distance with ``pairs`` pairs and ``singles`` kinds held an odd number
        of times: each wild completes a single, two wilds left over make a pair."""
        from_wilds = min(w, singles) + max(w - singles, 0) // self.ev.pair_size
        return max(plan.pairs - pairs - 1 - from_wilds, -1)

    def plan_distance(self, plan: PatternPlan, nat: tuple[int, ...], w: int, n_melds: int) -> int | None:
        """As ``ShantenOracle.plan_distance``, sets patterns from the folded group tables and
        pairs patterns from the number of kinds held at each count."""
        if plan.pairs and not n_melds:
            ps = self.ev.pair_size
            quads = plan.pattern.quads_as_pairs
            pairs = singles = 0
            for c in range(1, max(nat) + 1):
                n = nat.count(c)
                if n:
                    pairs += n * (c // ps if quads else min(c, ps) // ps)
                    singles += n if c % ps else 0
            return self._pairs_distance(plan, pairs, singles, w)
        if plan.rotten_gap:
            return self.rotten_distance(plan, nat, w, n_melds)
        if plan.pairs:
            return None  # with melds
        k = plan.sets - n_melds
        if k < 0:
            return None
        acc = self._folded(plan, nat, k).prefix[-1]
        best = None if acc is None else self.bests.get(acc << 1 | plan.pair_needed)  # the memo read inline, as best_of reads it
        return max((self.best_of(k, plan.pair_needed, acc) if best is None else best) - w, -1)

    def plans_of(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                 names: list[str]) -> dict[str, int]:
        """For each plan in ``names``: the shanten of ``concealed`` with that plan alone — what
        ``Shanten(patterns.only(name)).of`` gives — counting the hand once."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        nat = tuple(counts)
        n_tiles = sum(nat) + w
        dist = dict(zip(self.ev.plans, self.plan_distances(nat, w, n_melds)))
        return {name: self.settle(dist[name], n_tiles, n_melds) for name in names}

    def discard_bounds(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                       names: list[str]) -> dict[str, tuple[int, int]]:
        """For each plan in ``names``: (the least, the most) :meth:`plans_each_discard` can give for
        any one discard of ``concealed``, from the hand's own distances: a discard never lowers a
        plan's distance and raises it by at most one (it takes one tile from a set, a partial set,
        the head, a pair or a usable single, or one wild)."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        left = len(concealed) - 1
        dist = dict(zip(self.ev.plans, self.plan_distances(tuple(counts), w, n_melds)))
        out = {}
        for name in names:
            d = dist[name]
            out[name] = (self.settle(d, left, n_melds), self.settle(None if d is None else d + 1, left, n_melds))
        return out

    def plans_each_discard(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                           discards: list[int], names: list[str]) -> dict[str, list[int]]:
        """For each plan in ``names``: the shanten of ``concealed`` minus each of ``discards``
        with that plan alone — what ``Shanten(patterns.only(name)).of_each_discard`` gives —
        counting the hand once for every plan (each ``d`` must be held)."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        nat = tuple(counts)
        left = sum(nat) + w - 1  # tiles after a discard
        natural = [d for d in discards if d not in wild_kinds]
        less_a_wild = dict(zip(self.ev.plans, self.plan_distances(nat, w - 1, n_melds))) \
            if len(natural) < len(discards) else {}
        complete = left + self.ev.set_size * n_melds >= self.ev.hand_size  # as settle reads it
        out: dict[str, list[int]] = {}
        rows = self._discard_rows(nat, w, n_melds)  # looked up once for every plan
        alike: dict[int, list[int]] = {}  # plans alike (one measure) have one list: shared, not rebuilt
        measure = self._measure
        for name in names:
            done = alike.get(measure[name])
            if done is not None:
                out[name] = done
                continue
            vals = self._after_discards(self.ev.plans[name], nat, w, n_melds, natural, rows)
            after_wild = less_a_wild.get(name)
            out[name] = alike[measure[name]] = [
                left if (v := after_wild if d in wild_kinds else vals.get(d)) is None  # settled
                else v if complete or v > 0 else 0 for d in discards]
        return out

    def of_each_discard(self, concealed: list[int], n_melds: int, wild_kinds: frozenset[int],
                        discards: list[int]) -> list[int]:
        """``[self.of(concealed minus d, n_melds, wild_kinds) for d in discards]``, counting the
        hand once (each ``d`` must be held); the groups a candidate leaves alone are folded once."""
        counts, w = self.natural_counts(concealed, wild_kinds)
        nat = tuple(counts)
        n_tiles = sum(nat) + w
        memo = self.state_memo
        out: list[int | None] = [None] * len(discards)
        todo: dict[int, list[int]] = {}  # natural kind -> positions in discards
        for j, d in enumerate(discards):
            if d in wild_kinds:
                out[j] = self.of_counts(nat, w - 1, n_melds)
            else:
                todo.setdefault(d, []).append(j)
        if not todo:
            return out  # type: ignore[return-value]
        after = {}
        for d in todo:
            c = list(nat)
            c[d] -= 1
            after[d] = tuple(c)
        best: dict[int, int] = {}
        for d in list(todo):
            v = memo.get((after[d], w, n_melds))
            if v is not None:
                for j in todo.pop(d):
                    out[j] = v
        if not todo:
            return out  # type: ignore[return-value]
        kinds = list(todo)
        for plan in self.ev.plans.values():
            vals = self.plan_after_each(plan, nat, w, n_melds, kinds, -1)
            if vals is None:
                continue
            for d, v in zip(kinds, vals):
                if d not in best or v < best[d]:
                    best[d] = v
        for d, js in todo.items():
            v = self.settle(best.get(d), n_tiles - 1, n_melds)
            remember(memo, (after[d], w, n_melds), v)
            for j in js:
                out[j] = v
        return out  # type: ignore[return-value]
