"""Does a resolved ruleset hang together? The checks made once ``extends``, ``override``,
``remove`` and the options are resolved: every name a declaration refers to exists (and is of
the right kind for where it is used), tile names are unique, and each declaration's shape is one
the core can evaluate (a run of ranked tiles, pairs written once, one set of 精 values …).

One function per thing checked. :func:`check_ruleset` runs them in a fixed order; each finding
goes to a :class:`Findings`, which raises it (``compile_ruleset``) or collects it tagged
``check`` (``check_text``), so every independent problem of a file is reported at once.
"""
from __future__ import annotations

import re

from engine.errors import Location, RuleError, did_you_mean
from engine.lang import facts as F
from engine.lang import limits as L
from engine.lang.ruleset import Fan, JingValue, Meld, Pattern, Ruleset
from engine.lang.statements import (
    REF_FACTOR,
    REF_FAN,
    REF_GROUP,
    REF_INDICATOR,
    REF_JING_FORMULA,
    REF_MELD_OR_KIND,
    REF_PATTERN,
    Entry,
    Ref,
    Stmt,
    about,
    tag,
)
from engine.lang.syntax import looks_like

# what kinds of declaration a reference may name (KIND.NAME paths, for removed-here notes)
REF_KINDS = {REF_GROUP: ("suit", "honours"), REF_PATTERN: ("pattern",), REF_FAN: ("fan",),
             REF_MELD_OR_KIND: ("meld",), REF_INDICATOR: ("indicator",), REF_FACTOR: ("factor",),
             REF_JING_FORMULA: ("jing",)}


class Findings:
    """Where the checks' problems go: raised at once when ``errors`` is None, else appended to
    ``errors`` tagged ``check``. Each problem is located at its statement (or a token of it)
    with that file's text, and a reference to a removed declaration notes where it was removed."""

    def __init__(self, entries: dict[str, Entry], removed: dict[str, Location], errors: list[RuleError] | None):
        self.entries, self.removed, self.errors = entries, removed, errors

    def fail(self, msg: str, st: Stmt, hint: str | None = None, loc: Location | None = None,
             ref: Ref | None = None, related: list[tuple[str, Location]] | None = None) -> None:
        """Report ``msg`` about statement ``st`` (at ``loc`` if given); ``ref``: the name at fault."""
        related = list(related or [])
        kinds: tuple[str, ...] = ()
        if ref is not None:
            kinds = REF_KINDS.get(ref.what, ())
            for kind in kinds:
                if f"{kind}.{ref.name}" in self.removed:
                    related.append((f"{kind}.{ref.name} is removed here", self.removed[f"{kind}.{ref.name}"]))
        exc = RuleError(msg, loc or st.location, hint=hint, source_text=self.entries[st.path].file_text,
                        related=related)
        if ref is not None:
            about(exc, *(f"{kind}.{ref.name}" for kind in kinds))
        if self.errors is None:
            raise exc
        self.errors.append(tag(exc, "check"))

    def stmt(self, path: str) -> Stmt:
        """The statement that declares ``KIND.NAME``."""
        return self.entries[path].stmt


def check_ruleset(rs: Ruleset, entries: dict[str, Entry], removed: dict[str, Location],
                  errors: list[RuleError] | None = None) -> None:
    """The checks after resolution. Raises the first :class:`RuleError`; with ``errors``, adds
    each (tagged ``check``) and goes on (each check is independent of the others). A ruleset
    with no tiles or no ``payment base`` is always raised: nothing else can be checked."""
    check_has_tiles_and_base(rs)
    found = Findings(entries, removed, errors)
    check_tile_names_unique(rs, found)
    check_references(rs, found)
    for st in (e.stmt for e in entries.values()):
        check_meld_shapes(st, rs, found)
        check_pattern_components(st, found)
        check_fan_not_instead_of_itself(st, found)
    check_pairs_have_a_meld(rs, found)
    check_one_set_of_jing_values(found)
    check_group_sizes(rs, found)


def check_has_tiles_and_base(rs: Ruleset) -> None:
    """A ruleset declares at least one tile group and a ``payment base`` (raised at 1:1)."""
    if not rs.suits and not rs.honours:
        raise RuleError("the ruleset declares no tiles", Location(rs.file, 1, 1),
                        hint="declare at least one `suit` or `honours` group")
    if rs.base is None:
        raise RuleError("the ruleset declares no `payment base`", Location(rs.file, 1, 1),
                        hint="add `payment base = 1`")


def check_tile_names_unique(rs: Ruleset, found: Findings) -> None:
    """No honour tile's name or code is already a tile (``5m``) or another honour's name."""
    seen: dict[str, str] = {}
    for suit in rs.suits.values():
        for r in range(suit.low, suit.high + 1):
            seen[f"{r}{suit.name}"] = suit.name
    for grp in rs.honours.values():
        for t in grp.tiles:
            for n in [t.name] + ([t.code] if t.code else []):
                if n in seen:
                    found.fail(f"tile {n!r} of honours {grp.name} is already a tile of {seen[n]}",
                               found.stmt(f"honours.{grp.name}"))
                seen[n] = grp.name


class _Known:
    """The names a reference may name, per kind, in a resolved ruleset."""

    def __init__(self, rs: Ruleset):
        self.rs = rs
        self.groups = set(rs.suits) | set(rs.honours) | {"suits", "honours"}
        self.melds = set(rs.melds) | {"chow", "pung", "kong", "pair"}
        self.facts = {c: set(F.facts_for(c)) for c in (F.WIN, F.TRANSFER, F.JING, F.SETTLE)}
        self.jing_formulas = {n for n, r in rs.jing.items() if r.type == "formula"}


def check_references(rs: Ruleset, found: Findings) -> None:
    """Every name a declaration refers to names a declaration of the right kind, and every fact
    or pattern a condition tests is one of the context it is used in (RULES.md facts)."""
    known = _Known(rs)
    for st in (e.stmt for e in found.entries.values()):
        for ref in st.refs:
            if ref.what == "fact":
                check_fact(ref, st, known, found)
            elif ref.what == REF_PATTERN and ref.context not in (None, F.WIN, F.TRANSFER):
                found.fail(f"`pattern {ref.name}` is a fact of a win; a {ref.context} rule has no reading to test",
                           st, "test patterns in fans, payments, or factors `on win` only", ref.location)
            else:
                check_name(ref, st, known, found)


def check_name(ref: Ref, st: Stmt, known: _Known, found: Findings) -> None:
    """A referred name (tile group, meld, pattern, fan, factor, indicator, 精 formula) exists."""
    rs = known.rs
    names, message = {
        REF_GROUP: (known.groups, f"unknown tile group {ref.name!r}"),
        REF_MELD_OR_KIND: (known.melds, f"unknown meld {ref.name!r}"),
        REF_PATTERN: (rs.patterns, f"unknown pattern {ref.name!r}"),
        REF_FAN: (rs.fans, f"unknown fan {ref.name!r}"),
        REF_FACTOR: (rs.factors, f"unknown factor {ref.name!r}"),
        REF_INDICATOR: (rs.indicators, f"unknown indicator {ref.name!r}"),
        REF_JING_FORMULA: (known.jing_formulas, f"{ref.name!r} is not a 精 formula (`jing NAME = score … when …`)"),
    }[ref.what]
    if ref.name not in names:
        hint = did_you_mean(ref.name, names)
        if hint is None and ref.what == REF_JING_FORMULA:  # few: name them
            hint = ("the 精 formulas here: " + ", ".join(sorted(names))) if names else "no 精 formula is declared here"
        found.fail(message, st, hint, ref.location, ref)


def check_fact(ref: Ref, st: Stmt, known: _Known, found: Findings) -> None:
    """A fact a condition reads is one of its context's (win, transfer, jing, settle); the hint
    names the context it belongs to, or the ``pattern NAME`` test a misspelling was meant as."""
    assert ref.context is not None  # a fact's reference always carries its context (Build._check_expr)
    ok = known.facts[ref.context]
    if ref.name in ok:
        return
    elsewhere = [c for c, names in known.facts.items() if ref.name in names]
    hint = did_you_mean(ref.name, ok)
    if looks_like(ref.name, "pattern"):
        hint = "did you mean `pattern NAME`?"
    if elsewhere:
        hint = f"{ref.name} is a fact of {elsewhere[0]} rules, not of {ref.context} rules"
    if re.fullmatch(r"[x×][0-9]+", ref.name):
        hint = f"a factor's value is a number or a formula: write `= {ref.name[1:]}`, not `= {ref.name}`"
    found.fail(f"unknown fact {ref.name!r} in a {ref.context} condition", st,
               hint or "facts: " + ", ".join(sorted(ok)), ref.location)


def check_meld_shapes(st: Stmt, rs: Ruleset, found: Findings) -> None:
    """A meld's runs are over ranked tiles (not honours), and only a pair is a set of one tile."""
    d = st.decl
    if not isinstance(d, Meld):
        return
    for sh in d.shapes:
        bad = [g for g in sh.groups if g in rs.honours or g == "honours"]
        if sh.type == "run" and bad:
            where = next((r.location for r in st.refs if r.what == REF_GROUP and r.name == bad[0]), None)
            found.fail(f"meld {d.name}: a run needs ranked tiles; {bad[0]} has none", st,
                       "use `distinct N in …` for honour chows", where)
        if sh.size < 2 and d.meld_kind != "pair":
            found.fail(f"meld {d.name}: a set of {sh.size} tile", st)


def check_pattern_components(st: Stmt, found: Findings) -> None:
    """A pattern's components combine: ``rotten`` alone, pairs written once, never pairs + sets."""
    d = st.decl
    if not isinstance(d, Pattern):
        return
    kinds = [c.type for c in d.components]
    if "rotten" in kinds and len(kinds) > 1:
        found.fail(f"pattern {d.name}: `rotten` is a whole hand and combines with nothing", st)
    if kinds.count("pair") + kinds.count("pairs") > 1:
        found.fail(f"pattern {d.name}: write the pairs once (`pairs N`)", st)
    if "pairs" in kinds and "sets" in kinds:
        found.fail(f"pattern {d.name}: `pairs N` is a whole hand; use `sets N + pair`", st)


def check_fan_not_instead_of_itself(st: Stmt, found: Findings) -> None:
    """A fan's ``instead of`` (and its ``except``) never names the fan itself."""
    d = st.decl
    if isinstance(d, Fan) and d.name in d.instead_of + d.instead_except:
        found.fail(f"fan {d.name} names itself after `instead of`", st)


def check_pairs_have_a_meld(rs: Ruleset, found: Findings) -> None:
    """A pattern that uses pairs needs a ``pair`` meld to read them with."""
    pair_melds = [m for m in rs.melds.values() if m.meld_kind == "pair"]
    pair_users = [p for p in rs.patterns.values() if any(c.type in ("pair", "pairs") for c in p.components)]
    if pair_users and not pair_melds:
        found.fail(f"pattern {pair_users[0].name} uses pairs but no `meld … pair = same 2` is declared",
                   found.stmt(f"pattern.{pair_users[0].name}"), "add `meld 将 pair = same 2`")


def check_one_set_of_jing_values(found: Findings) -> None:
    """The 精 values (正 N, 副 M) are declared once in the whole chain."""
    values = [e.stmt for e in found.entries.values() if isinstance(e.stmt.decl, JingValue)]
    if len(values) > 1:
        found.fail(f"jing.{values[1].name} declares 精 values again", values[1],
                   f"change the values with `override jing {values[0].name} = 正 N, 副 M`",
                   related=[(f"jing.{values[0].name} declares them here", values[0].location)])


def check_group_sizes(rs: Ruleset, found: Findings) -> None:
    """Each tile group within :mod:`engine.lang.limits` (ranks or tiles, copies)."""
    for suit in rs.suits.values():
        if suit.high - suit.low + 1 > L.MAX_RANKS or suit.copies > L.MAX_COPIES:
            found.fail(f"suit {suit.name}: at most {L.MAX_RANKS} ranks and {L.MAX_COPIES} copies",
                       found.stmt(f"suit.{suit.name}"))
    for grp in rs.honours.values():
        if len(grp.tiles) > L.MAX_RANKS or grp.copies > L.MAX_COPIES:
            found.fail(f"honours {grp.name}: at most {L.MAX_RANKS} tiles and {L.MAX_COPIES} copies",
                       found.stmt(f"honours.{grp.name}"))
