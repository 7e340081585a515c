"""Rule file → :class:`~engine.lang.ruleset.Ruleset`: the compiler's front door.

:func:`compile_ruleset` (a bundled name or a ``.rules`` path) and :func:`compile_text` stop at
the first error; :func:`check_text` collects every error of a file (for ``mjrules check``, the
language server and the playground). The work is done by the modules of :mod:`engine.lang`:

- :mod:`~engine.lang.syntax`: the pre-built Lark parser of ``grammar/mjrules.lark``, its
  token limits and its syntax-error messages;
- :mod:`~engine.lang.build`: parse tree → statements, one method per grammar rule;
- :mod:`~engine.lang.parse`: bytes → text → parsed file, within :mod:`~engine.lang.limits`;
- :mod:`~engine.lang.recovery`: every syntax error of a file, statement by statement;
- :mod:`~engine.lang.resolve`: ``extends``, ``override``, ``remove`` and ``option``;
- :mod:`~engine.lang.checks`: the checks of a resolved ruleset (names, shapes).

Errors are :class:`~engine.errors.RuleError` with ``file:line:col``, the source line and a hint.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from engine.errors import OptionError, RuleError
from engine.lang.parse import decode_rule_bytes, parse_text, read_rule_file
from engine.lang.recovery import parse_text_collect, statement_chunks
from engine.lang.resolve import build_ruleset, check_options_used, resolve, resolve_parsed
from engine.lang.resources import resolve_ruleset_path
from engine.lang.ruleset import Ruleset
from engine.lang.statements import SECTIONS, Entry, OptionStmt, ParsedFile, Ref, Stmt, tag
from engine.lang.syntax import parser

__all__ = ["SECTIONS", "Checked", "OptionStmt", "ParsedFile", "Ref", "Stmt", "check_text", "compile_ruleset",
           "compile_text", "decode_rule_bytes", "parse_text", "parse_text_collect", "parser", "read_rule_file",
           "statement_chunks"]


def compile_ruleset(ref: str | Path, options: dict[str, str] | None = None, *, base_dir: Path | None = None) -> Ruleset:
    """Compile a bundled ruleset name or a ``.rules`` path into a Ruleset.

    ``options`` chooses ``option`` values by name (as ``--option name=value``); unknown names or
    values raise :class:`OptionError` (a :class:`RuleError`) listing what the files declare.
    """
    options = dict(options or {})
    path = resolve_ruleset_path(str(ref), base_dir)
    used: set[str] = set()
    state = resolve(path, options, used, chain=())
    check_options_used(options, used, state)
    return build_ruleset(path, state)



def compile_text(text: str, file: str = "<text>", options: dict[str, str] | None = None,
                 base_dir: Path | None = None) -> Ruleset:
    """Compile rule-file text directly (``extends`` resolves relative to ``base_dir``).

    Raises :class:`RuleError` as :func:`compile_ruleset` does (:class:`OptionError` for an
    unknown option or choice)."""
    options = dict(options or {})
    used: set[str] = set()
    state = resolve_parsed(parse_text(text, file), options, used, (), base_dir or Path.cwd())
    check_options_used(options, used, state)
    return build_ruleset(Path(file), state)


@dataclass
class Checked:
    """What :func:`check_text` found: the ruleset (None when an error stopped the compile or
    any error was found), every error (each with a ``phase``), the file as parsed, and the
    resolved entries (``KIND.NAME`` → the statement that won, with what an override replaced)."""

    ruleset: Ruleset | None
    errors: list[RuleError]
    parsed: ParsedFile
    entries: dict[str, Entry] = field(default_factory=dict)


def check_text(text: str, file: str = "<text>", options: dict[str, str] | None = None,
               base_dir: Path | None = None) -> Checked:
    """Compile rule-file text as :func:`compile_text` does, but collect errors rather than stop
    at the first: every syntax error (the parser recovers at the next statement), every
    statement's own error, every ``override``/``remove``/duplicate error and every reference
    check; the table is proved playable only when nothing else failed. An error in a parent
    file, a bad ``extends`` or a limit stops the compile (one error).

    Raises :class:`OptionError` only for ``options`` (the caller's choices); never RuleError."""
    options = dict(options or {})
    used: set[str] = set()
    pf, errors = parse_text_collect(text, file)
    if any(getattr(e, "phase", "") == "file" for e in errors):
        return Checked(None, errors, pf)
    try:
        state = resolve_parsed(pf, options, used, (), base_dir or Path.cwd(), errors)
        check_options_used(options, used, state)
    except OptionError:
        raise
    except RuleError as exc:
        errors.append(tag(exc, "resolve"))
        return Checked(None, errors, pf)
    try:
        rs = build_ruleset(Path(file), state, errors)
    except OptionError:
        raise
    except RuleError as exc:
        errors.append(exc if hasattr(exc, "phase") else tag(exc, "check"))
        return Checked(None, errors, pf, state.entries)
    if pf.unparsed:  # a name whose statement has a syntax error is not unknown: one error, not two
        errors = [e for e in errors if not set(getattr(e, "paths", ())) & pf.unparsed]
    errors.sort(key=lambda e: (e.location.file != file, e.location.line, e.location.column) if e.location else (True, 0, 0))
    return Checked(None if errors else rs, errors, pf, state.entries)
