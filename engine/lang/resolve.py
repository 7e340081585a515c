"""What a rule file means once its parents are read: ``extends`` followed up the chain, each
``override`` and ``remove`` applied to what the parents declared, each ``option``'s choice (the
default, or the caller's) applied last, and the result assembled into a
:class:`~engine.lang.ruleset.Ruleset`, checked (:mod:`engine.lang.checks`) and proved playable
(:mod:`engine.lang.playable`).

What has been resolved so far is a :class:`Resolution`, filled from the root of the chain down.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.errors import Location, OptionError, RuleError, did_you_mean
from engine.lang import limits as L
from engine.lang.checks import check_ruleset
from engine.lang.parse import parse_text, read_rule_file
from engine.lang.playable import check_playable
from engine.lang.resources import is_bundled_ref, resolve_ruleset_path
from engine.lang.ruleset import Base, OptionInfo, Origin, Ruleset
from engine.lang.statements import SECTIONS, Entry, OptionStmt, ParsedFile, SetStmt, Stmt, about, tag


@dataclass(frozen=True)
class Preset:
    """A ``set NAME = VALUE`` of a file below, on its way up the chain to the option it chooses."""

    stmt: SetStmt
    file_text: str


@dataclass
class Resolution:
    """A chain of rule files resolved so far: each ``KIND.NAME`` and the statement that won,
    where each removed one was removed, the options declared (in declaration order) and the
    chosen choices' statements still to apply, and the chain's name, label, files (child first),
    parents (root first) and sources."""

    entries: dict[str, Entry] = field(default_factory=dict)
    removed: dict[str, Location] = field(default_factory=dict)
    option_infos: dict[str, OptionInfo] = field(default_factory=dict)
    pending_options: list[tuple[list[Stmt], str]] = field(default_factory=list)  # (statements, file text)
    name: str = ""  # set once its file is read: the `ruleset` name, or the file's stem
    label: str | None = None
    files: list[str] = field(default_factory=list)
    extends: list[str] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)


def check_options_used(options: dict[str, str], used: set[str], state: Resolution) -> None:
    """Every option the caller chose is declared by some file of the chain, else
    :class:`OptionError` naming the closest declared one."""
    unknown = set(options) - used
    if unknown:
        declared = list(state.option_infos)  # in declaration order
        name = sorted(unknown)[0]
        listing = f"options of this ruleset: {', '.join(declared)}" if declared else "this ruleset declares no options"
        close = did_you_mean(name, declared)
        raise OptionError(f"unknown option {name!r}", None, hint=f"{close} ({listing})" if close else listing,
                          option=name, value=options[name])



def resolve(path: Path, options: dict[str, str], used: set[str], chain: tuple[str, ...],
             via: tuple[str, Location, str] | None = None, presets: dict[str, Preset] | None = None) -> Resolution:
    """Compile ``path`` and its parents. ``via`` is the child's ``extends`` (reference, location,
    child text): a parent that is not a text file is reported there, never by echoing its bytes.
    ``presets``: the ``set`` statements of the files below, by option name (the nearest wins)."""
    try:
        text = read_rule_file(path)
    except RuleError as exc:
        if via is None:
            raise
        ref, loc, child_text = via
        related = [(f"{exc.message}", exc.location)] if exc.location else []
        raise RuleError(f"cannot extend {ref!r}: not a rule file", loc, hint=exc.message if not related else None,
                        related=related, source_text=child_text) from None
    return resolve_parsed(parse_text(text, str(path)), options, used, chain, path.parent, presets=presets)


def resolve_parsed(pf: ParsedFile, options: dict[str, str], used: set[str], chain: tuple[str, ...],
                    base_dir: Path, errors: list[RuleError] | None = None,
                    presets: dict[str, Preset] | None = None) -> Resolution:
    """The :class:`Resolution` of a parsed file and its parents. ``chain``: the
    files already being resolved below it (a cycle is an error); ``used`` collects the options
    of ``options`` some file declares; ``presets`` the ``set`` statements of the files below.
    With ``errors``, a statement's own resolution error is added to it (tagged ``resolve``) and
    the rest goes on.

    A file's own ``set`` statements choose options of its parents: the caller's ``options`` win
    over them, and a file's ``set`` over a parent's. A ``set`` of an option no parent declares,
    or of one this file declares itself, is an error at the ``set``."""
    presets = dict(presets or {})
    own = _own_presets(pf, errors)
    below = presets
    presets = {**own, **below}  # a child's `set` wins over its parent's
    key = str(Path(pf.file).resolve()) if Path(pf.file).exists() else pf.file
    if key in chain:
        raise RuleError("`extends` makes a cycle: " + " → ".join([*chain, key]),
                        pf.extends[1] if pf.extends else None, source_text=pf.text)
    if pf.extends:
        parent_ref, loc = pf.extends
        if len(chain) + 1 >= L.MAX_EXTENDS_DEPTH:
            raise RuleError(f"the `extends` chain is longer than {L.MAX_EXTENDS_DEPTH} files", loc,
                            source_text=pf.text)
        if not parent_ref.endswith(".rules") and (not is_bundled_ref(parent_ref) or "." in parent_ref):
            raise RuleError(f"cannot extend {parent_ref!r}: not a .rules file", loc, source_text=pf.text,
                            hint="extend a bundled ruleset by name, or a rule file by a path ending in .rules")
        try:
            parent_path = resolve_ruleset_path(parent_ref, base_dir)
        except RuleError as exc:
            raise RuleError(exc.message, loc, hint=exc.hint, source_text=pf.text) from None
        state = resolve(parent_path, options, used, (*chain, key), via=(parent_ref, loc, pf.text), presets=presets)
        state.extends.append(state.name)
    else:
        state = Resolution()
    for preset in own.values():
        _collecting(errors, "resolve", _check_set, preset.stmt, pf, state)
    state.name = pf.name or Path(pf.file).stem
    state.files = [pf.file, *state.files]
    state.label = pf.label or (state.label if pf.extends else None)
    state.sources = state.sources + pf.sources
    entries: dict[str, Entry] = state.entries
    for st in pf.stmts:
        _collecting(errors, "resolve", _apply, entries, st, pf.text, state.removed)
    for opt in pf.options:
        _collecting(errors, "resolve", _resolve_option, opt, pf, options, used, state, below.get(opt.name))
    return state


def _own_presets(pf: ParsedFile, errors: list[RuleError] | None) -> dict[str, Preset]:
    """The file's ``set`` statements by option name; a second ``set`` of one option is an error."""
    own: dict[str, Preset] = {}
    for st in pf.sets:
        if st.name in own:
            first = own[st.name].stmt.location
            exc = RuleError(f"option {st.name} is already set in this file", st.location, source_text=pf.text,
                            related=[("first set here", first)], hint="keep one `set` per option")
            if errors is None:
                raise exc
            errors.append(tag(exc, "resolve"))
            continue
        own[st.name] = Preset(st, pf.text)
    return own


def _check_set(st: SetStmt, pf: ParsedFile, state: Resolution) -> None:
    """A ``set`` names an option of a parent. Raises :class:`RuleError` at the ``set``."""
    if any(o.name == st.name for o in pf.options):
        raise RuleError(f"option {st.name} is declared in this file: `set` chooses an option of a parent",
                        st.location, source_text=pf.text, hint=f"change the default of option {st.name} instead")
    if st.name not in state.option_infos:
        declared = list(state.option_infos)
        listing = (f"options of the parents: {', '.join(declared)}" if declared
                   else "no parent declares an option" if pf.extends else "`set` needs an `extends` parent")
        close = did_you_mean(st.name, declared)
        raise RuleError(f"unknown option {st.name!r}", st.location, source_text=pf.text,
                        hint=f"{close} ({listing})" if close else listing)


def _resolve_option(opt: OptionStmt, pf: ParsedFile, options: dict[str, str], used: set[str], state: Resolution,
                    preset: Preset | None = None) -> None:
    """One ``option`` of a file: its choice (the caller's ``options``, else the nearest ``set``
    of a file below, else the default) is queued to apply last.

    Raises :class:`RuleError` (a name given twice, a default that is no choice, a ``set`` of no
    choice, at the ``set``) or :class:`OptionError` (``options`` names no choice of it)."""
    if opt.name in state.option_infos:
        first = state.option_infos[opt.name].origin
        raise RuleError(f"option {opt.name} is already declared", opt.location, source_text=pf.text,
                        related=[("first declared here", Location(first.file, first.line, first.column))],
                        hint="give each option its own name")
    if opt.default not in opt.choices:
        raise RuleError(f"option {opt.name}: default {opt.default!r} is not one of its choices "
                        f"({', '.join(opt.choices)})", opt.default_location, source_text=pf.text)
    set_at = None
    if opt.name in options:
        used.add(opt.name)
        chosen = str(options[opt.name])
    elif preset is not None:
        chosen, where = preset.stmt.value, preset.stmt.value_location
        if chosen not in opt.choices:
            raise RuleError(f"option {opt.name} has no choice {chosen!r}", where, source_text=preset.file_text,
                            hint=f"choose one of: {', '.join(opt.choices)}",
                            related=[("the option is declared here", opt.location)])
        set_at = Origin(file=where.file, line=preset.stmt.location.line, column=preset.stmt.location.column)
    else:
        chosen = opt.default
    if chosen not in opt.choices:
        raise OptionError(f"option {opt.name} has no choice {chosen!r}", opt.location,
                          hint=f"choose one of: {', '.join(opt.choices)}", source_text=pf.text,
                          option=opt.name, value=chosen)
    state.pending_options.append((opt.choices[chosen], pf.text))
    state.option_infos[opt.name] = OptionInfo(
        name=opt.name, label=opt.label, default=opt.default, chosen=chosen, choices=list(opt.choices),
        origin=Origin(file=opt.location.file, line=opt.location.line, column=opt.location.column), set_at=set_at)

def _collecting(errors: list[RuleError] | None, phase: str, fn: Callable[..., object], *args: object) -> None:
    """``fn(*args)``; a :class:`RuleError` it raises propagates, or is added to ``errors``
    (tagged with ``phase``) when a list is given, so independent statements are all checked."""
    if errors is None:
        fn(*args)
        return
    try:
        fn(*args)
    except OptionError:  # a choice given by the caller (--option), not a fault of the file
        raise
    except RuleError as exc:
        errors.append(tag(exc, phase))


def _same_kind_hint(entries: dict[str, Entry], kind: str, name: str) -> str | None:
    names = [p.split(".", 1)[1] for p in entries if p.startswith(kind + ".")]
    hint = did_you_mean(name, names)
    return hint.replace("did you mean ", f"did you mean {kind}.") if hint else None


def _other_kind_hint(entries: dict[str, Entry], st: Stmt) -> str | None:
    """``flow.抄庄 has that name`` when the name is declared under another kind."""
    others = [p for p in entries if p.split(".", 1)[1] == st.name]
    return f"{others[0]} has that name: write `{st.op} {others[0].replace('.', ' ', 1)}`" if others else None


def _apply(entries: dict[str, Entry], st: Stmt, text: str, removed: dict[str, Location]) -> None:
    path = st.path
    if st.kind not in SECTIONS:
        raise RuleError(f"unknown declaration kind {st.kind!r}", st.location, source_text=text)
    old = entries.get(path)
    if st.op == "declare":
        if old is not None:
            raise RuleError(
                f"{path} is already declared",
                st.location,
                hint=f"to change it, write `override {st.kind} {st.name} …`; to drop it, `remove {st.kind} {st.name}`",
                related=[("first declared here", old.stmt.location)],
                source_text=text,
            )
        entries[path] = Entry(st, text)
    elif st.op == "override":
        if old is None:
            raise about(RuleError(f"override of {path}, which no file in the chain declares", st.location,
                            hint=_same_kind_hint(entries, st.kind, st.name) or "declare it without `override`",
                            source_text=text), path)
        entries[path] = Entry(st, text, old.stmt.decl)
    else:
        if old is None:
            raise about(RuleError(f"remove of {path}, which no file in the chain declares", st.location,
                                   hint=_same_kind_hint(entries, st.kind, st.name) or _other_kind_hint(entries, st),
                                   source_text=text), path)
        del entries[path]
        removed[path] = st.location


def build_ruleset(path: Path, state: Resolution, errors: list[RuleError] | None = None) -> Ruleset:
    """The :class:`Ruleset` of a :class:`Resolution`: the chosen options applied, then checked
    (:func:`~engine.lang.checks.check_ruleset`) and, when nothing else failed, proved playable.
    Raises :class:`RuleError` (or adds to ``errors`` what can be collected)."""
    entries: dict[str, Entry] = state.entries
    # the chosen option blocks apply last, after every file of the chain: an option is the
    # user's explicit choice, so it wins over a child's override of the same path
    for stmts, text in state.pending_options:
        for st in stmts:
            _collecting(errors, "resolve", _apply, entries, st, text, state.removed)
    sections: dict[str, dict[str, Any]] = {f: {} for f in SECTIONS.values()}  # Ruleset field -> its declarations
    base = None
    for e in entries.values():
        decl = e.stmt.decl
        assert decl is not None  # an entry is a declaration (a `remove` deletes its entry)
        if isinstance(decl, Base):
            base = decl
        else:
            sections[SECTIONS[e.stmt.kind]][decl.name] = decl
    rs = Ruleset(name=state.name, label=state.label, file=str(path), sources=state.sources,
                 extends=state.extends, files=state.files, base=base, options=state.option_infos, **sections)
    check_ruleset(rs, entries, state.removed, errors)
    if errors:  # a table is proved playable only once everything else holds
        return rs
    try:
        check_playable(rs, {p: e.file_text for p, e in entries.items()})  # the table can be played
    except RuleError as exc:
        _note_own_changes(exc, str(path), entries, state.removed)
        raise tag(exc, "table") from None
    return rs


def _note_own_changes(exc: RuleError, file: str, entries: dict[str, Entry], removed: dict[str, Location]) -> None:
    """A table error located in a parent file was most likely caused by what ``file`` itself
    overrides or removes: name up to three of those places as notes, so the author sees their
    own line (a parent's wall line alone does not say which override broke it)."""
    if exc.location is None or exc.location.file == file:
        return
    own = [(f"{p} is overridden here", e.stmt.location) for p, e in entries.items()
           if e.stmt.op == "override" and e.stmt.location.file == file]
    own += [(f"{p} is removed here", loc) for p, loc in removed.items() if loc.file == file]
    exc.related.extend(own[:3])


