"""The Python source written per ruleset for the win checks' innermost loops, and how it is
compiled.

A loop over four or five groups costs as much as the work in it, so the wild-free check, a
sets pattern's fit and its fewest wilds are written out once per ruleset, one block per group.
Only integers go into the source (:func:`line` raises TypeError on anything else): shifts,
masks, bit patterns. Tables and functions are passed in by name as arguments of the generated
``make``, never as text, so no rule-file text can reach the code.

Each generated function gets a file name of its own (``<win tables N: what>``) registered with
:mod:`linecache`, so a traceback through it shows its lines; ``MJRULES_DUMP_TABLES=DIR`` also
writes each source to ``DIR/wintables-N-what.py`` (and compiles it under that name).
"""
from __future__ import annotations

import itertools
import keyword
import linecache
import os
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TypeAlias

from engine.core.wintables.packing import NONE, VALUE_BITS

MAX_SOURCES = 256  # generated sources kept in linecache (the oldest dropped: bounds memory)
DUMP_ENV = "MJRULES_DUMP_TABLES"

Held: TypeAlias = tuple[tuple[int, int], ...]  # the 精 of one group: (field bit in the group, count) per kind
Profile: TypeAlias = Callable[[dict[int, int], int, Held], tuple[list[int], list[int]]]  # the checker's profile
WildFreeCheck: TypeAlias = Callable[[int, int], bool]  # check(key, n): :func:`wild_free_check`
SetsFit: TypeAlias = Callable[[int, int, bool], bool]  # fits(key, w, pair): :func:`sets_fit`
# fewest(key, jing, jing_bits, top, win_group, pair_removed, total, n_melds): :func:`sets_fewest`
SetsFewest: TypeAlias = Callable[[int, dict[int, Held], int, int, int, bool, int, int], tuple[int | None, int, bool]]


class TableGroup(Protocol):
    """What the generated sets loops read of a group (:class:`~.plans.GroupTable`): where its
    key sits in the hand's (``shift``, ``mask``) and its full ``table``."""

    @property
    def shift(self) -> int: ...
    @property
    def mask(self) -> int: ...
    @property
    def table(self) -> dict[int, int]: ...


class CountFields(Protocol):
    """What :func:`wild_free_check` reads of one tile count's patterns (:class:`~.wildfree.CountCheck`)."""

    @property
    def select(self) -> int: ...
    @property
    def need(self) -> int: ...
    @property
    def ones(self) -> int: ...
    @property
    def counted(self) -> Sequence[tuple[int, int, int]]: ...


_serial = itertools.count(1)
_registered: deque[str] = deque()


def line(template: str, **ints: int) -> str:
    """``template`` with its ``{name}`` fields filled by ``ints``, which must all be ``int``
    (not bool, not str: no text of any other origin goes into generated code). Raises
    TypeError naming the first value that is not."""
    for name, value in ints.items():
        if type(value) is not int:
            raise TypeError(f"generated win-table code takes integers only: {name}={value!r}")
    return template.format(**ints)


def generated(what: str, lines: list[str], **names: object) -> Any:
    """The function ``make(**names)`` defined by ``lines`` returns (``lines`` indented as its
    body). ``what`` (an identifier) names it in tracebacks and dumps; ``names`` are the
    objects the code may use (keys must be identifiers). Raises ValueError on a bad name. The
    value is whatever the generated code makes (Any): each caller states its type."""
    for name in (what, *names):
        if not name.isidentifier() or keyword.iskeyword(name):
            raise ValueError(f"not a name for generated code: {name!r}")
    n = next(_serial)
    source = "\n".join([f"def make({', '.join(names)}):", *lines]) + "\n"
    filename = f"<win tables {n}: {what}>"
    dump = os.environ.get(DUMP_ENV)
    if dump:
        path = Path(dump) / f"wintables-{n:04d}-{what}.py"
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(source, encoding="utf-8")
            filename = str(path)
        except OSError:
            pass  # a debugging aid: an unwritable folder only means no dump
    _register(filename, source)
    scope: dict[str, Any] = {}
    exec(compile(source, filename, "exec"), scope)
    return scope["make"](**names)


def _register(filename: str, source: str) -> None:
    """Put ``source`` in :mod:`linecache` under ``filename`` (mtime None: never checked
    against a file), the oldest of ours dropped past :data:`MAX_SOURCES`."""
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    _registered.append(filename)
    while len(_registered) > MAX_SOURCES:
        linecache.cache.pop(_registered.popleft(), None)


def wild_free_check(groups: Sequence[tuple[int, int, Callable[[int, int], int]]], counts: Mapping[int, CountFields],
                    low: int, high: int, fmask: int, hshift: int, allbig: int) -> WildFreeCheck:
    """``check(key, n) -> bool``: whether the packed wild-free hand ``key`` of ``n`` tiles
    completes some pattern. ``groups``: per group (shift, mask, lookup ``get(sub, default)``);
    ``counts``: per tile count a :class:`~.wildfree.CountCheck`. The groups' values are summed
    (one field per pattern), then each pattern's field compared with its need at once (a
    zero-field test of the sum xor the needs), the patterns that also count honours one by one;
    ``allbig`` is the value of a group key with no entry."""
    total = " + ".join(line("g{i}((key >> {shift}) & {mask}, absent)", i=i, shift=shift, mask=mask)
                       for i, (shift, mask, _) in enumerate(groups))
    lines = ["    def check(key, n):"]
    for n, c in sorted(counts.items()):
        lines += [line("        if n == {n}:", n=n),
                  f"            total = {total or '0'}",
                  line("            x = ((total ^ {need}) & {sel}) | {ones}", need=c.need, sel=c.select, ones=c.ones),
                  line("            if (x - {low}) & ~x & {high}:", low=low, high=high),
                  "                return True"]
        for shift, need, least in c.counted:
            lines += [line("            if (total >> {shift}) & {fmask} == {need} and total >> {hshift} >= {least}:",
                           shift=shift, fmask=fmask, need=need, hshift=hshift, least=least),
                      "                return True"]
        lines += ["            return False"]
    lines += ["        return False", "    return check"]
    check: WildFreeCheck = generated("wild_free_check", lines, absent=allbig,
                                     **{f"g{i}": get for i, (_, _, get) in enumerate(groups)})
    return check


def sets_fit(groups: Sequence[TableGroup], pair_size: int) -> SetsFit:
    """``fits(key, w, pair) -> bool`` for a ``sets`` pattern's groups (:class:`~.plans.GroupTable`):
    whether the natural tiles ``key`` complete with ``w`` wilds — each group's fewest wilds
    without the pair (``a``) summed, plus the least extra a group needs to hold the pair
    (``b − a``, at most a pair of wilds), or the pair's group forced when another group cannot
    do without it."""
    lines = ["    def fits(key, w, pair):", "        base = 0", "        delta = NONE"]
    for i, g in enumerate(groups):
        lines += [line("        sub = (key >> {shift}) & {mask}", shift=g.shift, mask=g.mask),
                  "        if sub:",
                  line("            v = t{i}[sub]", i=i),
                  "            a = v & NONE",
                  "            b = v >> VB",
                  "            if a == NONE and (not pair or b == NONE):",
                  "                return False",
                  "            base += a",  # a NONE here is the pair's group: delta takes it back
                  "            if base > w and not pair:",
                  "                return False",
                  "            if b - a < delta:",
                  "                delta = b - a"]
    lines += ["        if not pair:", "            return base <= w",
              "        return base + (PS if PS < delta else delta) <= w", "    return fits"]
    fits: SetsFit = generated("sets_fit", lines, NONE=NONE, VB=VALUE_BITS, PS=pair_size,
                              **{f"t{i}": g.table for i, g in enumerate(groups)})
    return fits


def sets_fewest(groups: Sequence[TableGroup], pair_size: int, pair: bool, sets: int, set_size: int, implies: bool,
                profile: Profile) -> SetsFewest:
    """``fewest(key, jing, jing_bits, top, win_group, pair_removed, total, n_melds) -> (fewest
    or None, rest, broken)`` of a plain ``sets`` pattern (no natural-honour counts, no group
    limits), written out for its ``groups``: the groups without 精 looked up once, each group
    holding 精 (``jing``: group → its 精; ``jing_bits``: their bits) by its ``profile`` (the
    checker's ``profile``, folded by :func:`fold` when two groups hold 精); the fewest
    ``wilds`` with ``base + without_pair[wilds] + min(pair, delta) ≤ wilds`` or
    ``base + with_pair[wilds] ≤ wilds``. ``top``: the 精 held (the most wilds any split gives);
    past it, no split fits. ``pair``: the pattern has a pair; ``sets``, ``set_size``: its sets.

    ``rest`` and ``broken``: with ``win_group`` a group index (the winning tile's), the wilds
    the groups without 精 other than it need without the pair, and whether one of them cannot
    complete — what the 精钓 check starts from; with ``win_group = -1``, or ``implies`` (the
    pattern has no reading where a 精钓 reading implies a plain one: ``wait_implies_reading``),
    the loop may stop early (``rest`` is then meaningless)."""
    lines = ["    def fewest(key, jing, jing_bits, top, win_group, pair_removed, total, n_melds):",
             "        pair = CPAIR and not pair_removed",
             "        k = SETS - n_melds",
             "        fits = k >= 0 and total == SIZE * k + (PS if pair else 0)",
             "        stop = win_group < 0 or IMPLIES",  # no reading: no 精钓 one either
             "        if not fits and stop:",
             "            return None, 0, True",
             "        base = 0", "        delta = NONE", "        rest = 0", "        broken = False",
             "        bound = top + NONE if pair else top",  # a group that must hold the pair adds NONE
             "        without_pair = with_pair = None"]
    for i, g in enumerate(groups):
        lines += [line("        sub = (key >> {shift}) & {mask}", shift=g.shift, mask=g.mask),
                  line("        if jing_bits & {bit}:", bit=1 << i),
                  "            if fits:",
                  line("                group_without, group_with = profile(t{i}, sub, jing[{i}])", i=i),
                  "                if without_pair is None:",
                  "                    without_pair, with_pair = group_without, group_with",
                  "                else:",
                  "                    without_pair, with_pair = fold(without_pair, with_pair, group_without, group_with)",
                  "        elif sub:",
                  line("            v = t{i}[sub]", i=i),
                  "            a = v & NONE",
                  "            b = v >> VB",
                  line("            if win_group != {i}:", i=i),
                  "                if a == NONE:",
                  "                    broken = True",
                  "                else:",
                  "                    rest += a",
                  "            if fits:",
                  "                if a == NONE and (not pair or b == NONE):",
                  "                    fits = False",
                  "                    if stop or broken:",
                  "                        return None, rest, broken",
                  "                else:",
                  "                    base += a",
                  "                    if base > bound:",  # more wilds than the 精 held
                  "                        fits = False",
                  "                        if stop or broken:",
                  "                            return None, rest, broken",
                  "                    elif b - a < delta:",
                  "                        delta = b - a"]
    lines += ["        if not fits:", "            return None, rest, broken",
              "        extra = PS if delta > PS else delta",
              "        if without_pair is None:",
              "            need = base + extra if pair else base",
              "            return (0 if need <= 0 else None), rest, broken",
              # need(wilds) ≥ base + min(delta, 0) (both profiles ≥ 0): no fewer wilds fit
              "        if pair:",
              "            wilds = base + delta if delta < 0 else base",
              "            for wilds in range(wilds if wilds > 0 else 0, len(without_pair)):",
              "                need = base + without_pair[wilds] + extra",
              "                if base + with_pair[wilds] < need:",
              "                    need = base + with_pair[wilds]",
              "                if need <= wilds:",
              "                    return wilds, rest, broken",
              "        else:",
              "            for wilds in range(base, len(without_pair)):",
              "                if base + without_pair[wilds] <= wilds:",
              "                    return wilds, rest, broken",
              "        return None, rest, broken",
              "    return fewest"]
    fewest: SetsFewest = generated("sets_fewest", lines, NONE=NONE, VB=VALUE_BITS, PS=pair_size, CPAIR=bool(pair),
                                   SETS=sets, SIZE=set_size, IMPLIES=bool(implies), profile=profile, fold=fold,
                                   **{f"t{i}": g.table for i, g in enumerate(groups)})
    return fewest


def fold(without_pair: list[int], with_pair: list[int], group_without: list[int],
         group_with: list[int]) -> tuple[list[int], list[int]]:
    """Two groups holding 精: their profiles (fewest wilds without / with the pair, by wilds
    used) combined, min-plus over how the wilds divide."""
    n = len(without_pair) + len(group_without) - 1
    out_without, out_with = [NONE + NONE] * n, [NONE + NONE] * n
    for i, (x, y) in enumerate(zip(without_pair, with_pair)):
        for j, (p, q) in enumerate(zip(group_without, group_with)):
            if x + p < out_without[i + j]:
                out_without[i + j] = x + p
            r = y + p if y + p < x + q else x + q
            if r < out_with[i + j]:
                out_with[i + j] = r
    return out_without, out_with
