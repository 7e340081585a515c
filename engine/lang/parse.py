"""Rule-file bytes → text → :class:`~engine.lang.statements.ParsedFile`, for a file that is
meant to parse whole (a parent of ``extends``, ``compile_ruleset``, ``fmt``).

The input is untrusted, so its bounds are checked before any recursive walk can meet it: the
bytes (size, UTF-8, NUL) in :func:`decode_rule_bytes`, the text (size, line length, surrogates)
in :func:`check_text_limits`, each token by the lexer (:mod:`engine.lang.syntax`), and the tree
(statements, expression depth and size) in :func:`check_tree_limits`; all from
:mod:`engine.lang.limits`. A file with several errors is read by :mod:`engine.lang.recovery`.
"""
from __future__ import annotations

import re
from pathlib import Path
from typing import Any, NoReturn

from engine.errors import Location, RuleError
from engine.lang import limits as L
from engine.lang.build import Build
from engine.lang.pieces import Extends, Header, Source
from engine.lang.statements import SECTIONS, OptionStmt, ParsedFile, SetStmt, tag
from engine.lang.syntax import (
    ParseTree,
    Token,
    TokenTooBig,
    Tree,
    UnexpectedInput,
    VisitError,
    parser,
    syntax_error,
    token_location,
)


def parse_text(text: str, file: str) -> ParsedFile:
    """Parse one rule file's text (no ``extends`` resolution). Raises :class:`RuleError`."""
    text = text.removeprefix("\ufeff")  # a byte-order mark (Windows editors) is not content
    check_text_limits(text, file)
    try:
        tree = parser().parse(text)
    except TokenTooBig as exc:
        raise RuleError(exc.message, token_location(file, exc.token), hint=exc.hint,
                        source_text=text) from None
    except UnexpectedInput as exc:
        raise syntax_error(exc, text, file) from None
    check_tree_limits(tree, file, text)
    builder = Build(file)
    try:
        items: list[Any] = builder.transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, RuleError):
            exc.orig_exc.source_text = text
            raise exc.orig_exc from None
        raise
    return parsed_file(items, text, file)


def parsed_file(items: list[Any], text: str, file: str, errors: list[RuleError] | None = None) -> ParsedFile:
    """The transformed top-level items as a :class:`ParsedFile`. A second ``extends`` raises
    :class:`RuleError`, or is added to ``errors`` (tagged ``resolve``) when a list is given."""
    pf = ParsedFile(file=file, text=text)
    for it in items:
        if isinstance(it, Header):
            pf.name, pf.label = it.name, it.label
        elif isinstance(it, Extends):
            if pf.extends is not None:
                exc = RuleError("a rule file can extend only one parent", it.loc, source_text=text)
                if errors is None:
                    raise exc
                errors.append(tag(exc, "resolve"))
                continue
            pf.extends = (it.parent, it.loc)
        elif isinstance(it, Source):
            pf.sources.append(it.text)
        elif isinstance(it, OptionStmt):
            pf.options.append(it)
        elif isinstance(it, SetStmt):
            pf.sets.append(it)
        else:
            pf.stmts.append(it)
    return pf


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]`` (lines end at ``\\n`` only, as the parser counts)."""
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


def check_text_limits(text: str, file: str) -> None:
    """Size, NUL bytes, unpaired surrogates and line length, before the parser sees the text.

    Raises :class:`RuleError` at the first offending place (size: at 1:1)."""
    if len(text) > L.MAX_FILE_BYTES or len(text.encode("utf-8", "surrogatepass")) > L.MAX_FILE_BYTES:
        raise RuleError(f"the rule file is larger than {L.MAX_FILE_BYTES} bytes", Location(file, 1, 1),
                        hint="a rule file is a short list of rules; split it with `extends`", source_text="")
    bad = _NOT_TEXT.search(text)
    if bad:
        line, col = _line_col(text, bad.start())
        what = "a NUL byte" if bad.group() == "\x00" else "a character that is not valid Unicode text"
        raise RuleError(f"the rule file holds {what}, so it is not a text file", Location(file, line, col),
                        hint="a rule file is UTF-8 text", source_text="")
    for line_no, row in enumerate(text.split("\n"), 1):
        if len(row) > L.MAX_LINE_CHARS:
            raise RuleError(f"line {line_no} is {len(row)} characters long (at most {L.MAX_LINE_CHARS})",
                            Location(file, line_no, L.MAX_LINE_CHARS + 1), hint="break it into several rules",
                            source_text=text)


# expression nodes of the parse tree; the first four each add a level of nesting
_EXPR_LEVELS = {"or_", "not_", "neg", "binop"}
_EXPR_TREES = _EXPR_LEVELS | {"and_", "cmp", "num", "var", "pattern_is"}
_STATEMENTS = set(SECTIONS) | {"payment_base", "remove", "option", "choice"}


def check_tree_limits(tree: ParseTree, file: str, text: str) -> None:
    """Count statements and measure each expression (depth, size) iteratively, before any
    recursive walk (the transformer, pydantic, the evaluator) can meet a deep tree.

    Raises :class:`RuleError` at the statement or expression that passes a limit of
    :mod:`engine.lang.limits`."""
    def fail(msg: str, node: ParseTree, hint: str | None = None) -> NoReturn:
        meta = node.meta
        raise RuleError(msg, Location(file, getattr(meta, "line", 1), getattr(meta, "column", 1)), hint=hint,
                        source_text=text)

    statements = 0
    # (node, expression root or None, nesting level); children pushed reversed: document order
    stack: list[tuple[ParseTree | Token, ParseTree | None, int]] = [(tree, None, 0)]
    sizes: dict[int, int] = {}
    while stack:
        node, root, level = stack.pop()
        if not isinstance(node, Tree):
            # the lexer's name check is skipped where Lark chains callbacks on keywords that
            # share NAME's pattern (names inside expressions): check every name here too
            if isinstance(node, Token) and node.type in ("NAME", "RULESET_NAME") and len(node) > L.MAX_NAME_CHARS:
                raise RuleError(f"name {str(node)[:12]}… is {len(node)} characters long (at most {L.MAX_NAME_CHARS})",
                                token_location(file, node), source_text=text)
            if root is not None:
                sizes[id(root)] = sizes.get(id(root), 0) + 1
                if sizes[id(root)] > L.MAX_EXPR_NODES:
                    fail(f"this expression has more than {L.MAX_EXPR_NODES} names, numbers and operators", root,
                         "a condition or formula is short: split the rule into several")
            continue
        data = node.data
        if data in _STATEMENTS:
            statements += 1
            if statements > L.MAX_DECLARATIONS:
                fail(f"more than {L.MAX_DECLARATIONS} statements in one file", node,
                     "split the rules over files with `extends`")
        if data in _EXPR_TREES:
            if root is None:
                root = node
            elif data in _EXPR_LEVELS:
                level += 1
                if level > L.MAX_EXPR_DEPTH:
                    fail(f"this expression nests more than {L.MAX_EXPR_DEPTH} levels deep", root,
                         "each ( ), `not`, `-` and operator is a level: drop redundant ones, "
                         "or split the rule into several")
            if data in ("not_", "neg"):
                sizes[id(root)] = sizes.get(id(root), 0) + 1
            elif data in ("and_", "or_"):
                sizes[id(root)] = sizes.get(id(root), 0) + len(node.children) - 1
        stack.extend((child, root, level) for child in reversed(node.children))



def read_rule_file(path: Path) -> str:
    """The text of a rule file, read no further than :data:`~engine.lang.limits.MAX_FILE_BYTES`.

    Raises :class:`RuleError` when it cannot be read, is too large, is not UTF-8 or holds a NUL
    byte (located at the first bad byte, with no source line echoed: the bytes are not text)."""
    try:
        with open(path, "rb") as f:
            raw = f.read(L.MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise RuleError(f"cannot read rule file {path}: {exc.strerror}", None) from None
    return decode_rule_bytes(raw, str(path))


def decode_rule_bytes(raw: bytes, file: str) -> str:
    """The text of a rule file's bytes (read up to ``MAX_FILE_BYTES + 1``; ``file`` names it in
    errors). Raises :class:`RuleError` as :func:`read_rule_file` does."""
    if len(raw) > L.MAX_FILE_BYTES:
        raise RuleError(f"the rule file is larger than {L.MAX_FILE_BYTES} bytes", Location(file, 1, 1),
                        hint="a rule file is a short list of rules; split it with `extends`", source_text="")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        col = len(raw[raw.rfind(b"\n", 0, exc.start) + 1: exc.start].decode("utf-8", "replace")) + 1
        raise RuleError("the rule file is not UTF-8 text", Location(file, line, col),
                        hint="save it as UTF-8 (e.g. `iconv -f GBK -t UTF-8`)", source_text="") from None
    if "\x00" in text:
        line, col = _line_col(text, text.index("\x00"))
        raise RuleError("the rule file holds a NUL byte, so it is not a text file", Location(file, line, col),
                        hint="a rule file is UTF-8 text", source_text="")
    return text

