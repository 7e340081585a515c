"""Every syntax error of a rule file, not only the first: the text is cut into top-level
statements (:func:`statement_chunks`), each parsed on its own when the whole does not parse,
and each statement that parses is built on its own, so an editor, ``mjrules check`` and the
playground see all of a file's mistakes at once. The cut only guides recovery: a file that
parses whole means exactly what :func:`engine.lang.parse.parse_text` says.
"""
from __future__ import annotations

import re
from typing import Any

from engine.errors import Location, RuleError
from engine.lang import limits as L
from engine.lang.build import Build
from engine.lang.parse import check_text_limits, check_tree_limits, parsed_file
from engine.lang.statements import SECTIONS, ParsedFile, tag
from engine.lang.syntax import (
    STATEMENT_STARTS,
    TokenTooBig,
    Tree,
    UnexpectedEOF,
    UnexpectedInput,
    UnexpectedToken,
    VisitError,
    glued_keyword,
    parser,
    readable,
    strip_comment,
    syntax_error,
    token_location,
)


def parse_text_collect(text: str, file: str) -> tuple[ParsedFile, list[RuleError]]:
    """Parse one rule file's text, recovering after errors: the text is cut into top-level
    statements (:func:`statement_chunks`), each parsed on its own when the whole does not parse,
    and each statement that parses is built on its own. Returns the statements that were built
    and every error found (each tagged with its ``phase``), in file order; an error of the text
    as a whole (too large, not text, a limit of :func:`~engine.lang.parse.check_tree_limits`) stops there.
    At most :data:`~engine.lang.limits.MAX_ERRORS` syntax errors are collected."""
    text = text.removeprefix("\ufeff")
    errors: list[RuleError] = []
    unparsed: set[str] = set()
    try:
        check_text_limits(text, file)
    except RuleError as exc:
        return ParsedFile(file=file, text=text), [tag(exc, "file")]
    try:
        subtrees = list(parser().parse(text).children)
    except (TokenTooBig, UnexpectedInput):
        subtrees = []
        chunks = statement_chunks(text)
        counted = [c for c in chunks if c[1].split(None, 1)[:1] not in (["ruleset"], ["extends"], ["source"])]
        if len(counted) > L.MAX_DECLARATIONS:  # bound the work: each statement is parsed on its own
            line = counted[L.MAX_DECLARATIONS][0]
            return ParsedFile(file=file, text=text), [tag(RuleError(
                f"more than {L.MAX_DECLARATIONS} statements in one file", Location(file, line, 1),
                hint="split the rules over files with `extends`", source_text=text), "file")]
        for i, (line, chunk) in enumerate(chunks):
            if len(errors) >= L.MAX_ERRORS:
                break
            padded = "\n" * (line - 1) + chunk
            try:
                tree = parser().parse(padded)
            except TokenTooBig as exc:
                errors.append(tag(RuleError(exc.message, token_location(file, exc.token),
                                             hint=exc.hint, source_text=text), "syntax"))
                continue
            except UnexpectedInput as exc:
                following = chunks[i + 1] if i + 1 < len(chunks) else None
                errors.append(tag(_chunk_syntax_error(exc, padded, text, file, following), "syntax"))
                unparsed |= _declared_path(chunk)
                continue
            if any(_has_code(c) for _, c in chunks[:i]) and any(
                    isinstance(t, Tree) and t.data == "header" for t in tree.children):
                errors.append(tag(RuleError("`ruleset NAME` comes first in a file", Location(file, line, 1),
                                             source_text=text), "syntax"))
                continue
            subtrees.extend(tree.children)
    try:
        check_tree_limits(Tree("start", subtrees), file, text)
    except RuleError as exc:
        return ParsedFile(file=file, text=text), errors + [tag(exc, "file")]
    items: list[Any] = []  # what Build makes of each statement (see parse.parsed_file)
    for sub in subtrees:
        try:
            items.append(Build(file).transform(sub) if isinstance(sub, Tree) else sub)
        except VisitError as exc:
            if not isinstance(exc.orig_exc, RuleError):
                raise
            exc.orig_exc.source_text = text
            errors.append(tag(exc.orig_exc, "declaration"))
    pf = parsed_file(items, text, file, errors)
    pf.unparsed = unparsed
    errors.sort(key=lambda e: (e.location.line, e.location.column) if e.location else (0, 0))
    return pf, errors


def statement_chunks(text: str) -> list[tuple[int, str]]:
    """The text cut into top-level statements: ``(first line, text)`` pairs. A statement starts,
    outside any ``{ }`` (an ``option``'s choices stay with it), on a line that begins (column 1)
    with anything but a space, ``#`` or ``}``, or on an indented line whose first word begins a
    statement (:data:`~engine.lang.syntax.STATEMENT_STARTS`: an indented statement is still one); comment and blank
    lines join the statement before them. The cut only guides error recovery: it never changes
    what a file means."""
    chunks: list[tuple[int, list[str]]] = []
    depth = 0
    for no, row in enumerate(text.split("\n"), 1):
        first = row.split(None, 1)[:1]
        starts = depth == 0 and (row[:1] not in ("", " ", "\t", "\r", "#", "}")
                                 or (bool(first) and first[0] in STATEMENT_STARTS))
        if starts or not chunks:
            chunks.append((no, []))
        chunks[-1][1].append(row)
        code = re.sub(r'"[^"\n]*"', "", row).split("#", 1)[0]
        depth = max(0, depth + code.count("{") - code.count("}"))
    return [(no, "\n".join(rows)) for no, rows in chunks]


def _code_end(padded: str) -> tuple[int, int] | None:
    """(line, column) of the last character of code (not a comment, not a space) in a chunk
    padded to its place in the file; None for a chunk without code."""
    rows = padded.split("\n")
    for no in range(len(rows), 0, -1):
        code = strip_comment(rows[no - 1]).rstrip()
        if code:
            return no, len(code)
    return None


def _has_code(chunk: str) -> bool:
    """Whether a chunk holds more than comments and blank lines."""
    return any(row.split("#", 1)[0].strip() for row in chunk.split("\n"))


def _declared_path(chunk: str) -> set[str]:
    """``{KIND.NAME}`` a statement's text declares, overrides or removes (empty: none seen)."""
    words = chunk.split("#", 1)[0].split()
    if words[:1] in (["override"], ["remove"]):
        words = words[1:]
    return {f"{words[0]}.{words[1]}"} if len(words) > 1 and words[0] in SECTIONS else set()


def _chunk_syntax_error(exc: UnexpectedInput, padded: str, text: str, file: str,
                        following: tuple[int, str] | None) -> RuleError:
    """:func:`syntax_error` for one statement parsed alone. A statement cut short by the end of
    its chunk is reported where it ends (the last character of its code), saying what it still
    needs and that the next statement begins after it."""
    ends = isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END")
    end = _code_end(padded)
    if ends and end is not None:
        assert isinstance(exc, UnexpectedEOF | UnexpectedToken)  # as `ends` found
        line, col = end
        nxt = following[1].split(None, 1)[0] if following and following[1].split() else None
        err = RuleError(f"the statement ends here, unfinished; expected {readable(set(exc.expected))}",
                        Location(file, line, col), source_text=text,
                        hint=f"the next statement (`{nxt}` at line {following[0]}) begins on the next line"
                        if nxt and following else None)
    else:
        err = syntax_error(exc, padded, file)
        err.source_text = text
    glued = _glued_hint(padded)
    if glued is not None:  # the likelier cause, said first
        err.hint = glued if err.hint is None else f"{glued}; else {err.hint}"
    return err


def _glued_hint(padded: str) -> str | None:
    """A hint naming a keyword run into more letters in a statement's code (comments left out),
    at its line and column in the file: what the lexer read as the keyword (syntax.glued_keyword)."""
    code = "\n".join(strip_comment(row) for row in padded.split("\n"))
    found = glued_keyword(code)
    if found is None:
        return None
    at, word, keyword = found
    line = code.count("\n", 0, at) + 1
    col = at - (code.rfind("\n", 0, at) + 1) + 1
    return f"`{word}` at line {line}, column {col}: did you mean `{keyword}`? (read as `{keyword}` and then `{word[len(keyword):]}`)"

