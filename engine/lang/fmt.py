"""Rule text → rule text: the one canonical layout of a rule file (``mjrules fmt``).

The layout, from the parse tree and the token stream (comments included):

- every statement starts a line; a statement the author broke over lines keeps its breaks,
  each further line indented one level (:data:`INDENT`) below the statement;
- one space between tokens, none before ``,`` ``:`` ``)`` ``..`` and ``/``, none after ``(``,
  ``..``, ``/``, a unary ``-`` or the ``+`` of an amount (``+5``), none between a policy and
  its ``(``;
- the clauses whose order carries no meaning are put in the grammar's order: an indicator's
  ``picked by each seat, wild, hidden, settle …``, a pattern's constraints (``concealed, honours natural,
  honours >= N, quads as pairs, one of …, only …``), a fan's effects (``xN, +N …, fixed N …``)
  — only when the clause list stands on one line;
- an ``option``'s choices one per line, indented one level; a choice with at most one
  statement and no comment stays on its line (``yes: { override … }``), else its statements
  go one per line, one level deeper, and ``}`` closes on a line of its own; a ``{`` ends the
  line that opens its block (unless a comment stands before it);
- comments stay where they stand: a comment after code stays at the end of that line, a
  comment on a line of its own stays on its own line (indented as the code it precedes);
  trailing comments of consecutive lines are aligned in one column (:func:`_align`);
- at most one blank line in a row; none at the start or end of the file, after ``{`` or
  before ``}``; trailing spaces removed; lines end with ``\\n``; the file ends with one.

Formatting is idempotent (formatting the result changes nothing) and keeps the meaning: the
result parses to the same statements and holds the same comments (both checked on every call,
:func:`format_text`), so it compiles to the same IR. Input is untrusted: it is parsed by the compiler's bounded parser
first (:func:`engine.lang.compiler.parse_text`), so a file that does not parse is refused with
``file:line:col`` before any formatting.
"""
from __future__ import annotations

import os
import shutil
import threading
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Generic, Literal, NamedTuple, Protocol, TypeAlias, TypeVar, cast

from engine.errors import Location, MjError, RuleError
from engine.lang import compiler as C
from engine.lang import limits as L
from engine.lang.syntax import STANDALONE, Lark, ParseTree, Tree, spaced_terminals
from engine.lang.syntax import Token as LarkToken

INDENT = 4          # spaces per block level and per continuation line
COMMENT_GAP = 2     # spaces at least between code and its trailing comment
ALIGN_MAX_CELLS = 80  # code wider than this (in terminal cells) is left out of its block's comment column

_OPEN_SPACE_AFTER = {"LPAR", "__ANON_0", "SLASH", "MINUS"}   # no space after these
_NO_SPACE_BEFORE = {"COMMA", "COLON", "RPAR", "__ANON_0", "SLASH"}

# clause kinds in the grammar's order: (statement, first token type(s) of a clause) → rank
_Order: TypeAlias = dict[str | tuple[str, ...], int]
_INDICATOR_ORDER: _Order = {"PICKED": 0, "WILD": 1, "HIDDEN": 2, "SETTLE": 3}
_PATTERN_ORDER: _Order = {"CONCEALED": 0, ("HONOURS", "NATURAL"): 1, ("HONOURS", "__ANON_2"): 2, "QUADS": 3,
                  "ONE": 4, "ONLY": 5}
_FAN_ORDER: _Order = {"MULT": 0, "PLUS": 1, "FIXED": 2}


# ---- tokens -------------------------------------------------------------------------------------


class _Tok(Protocol):
    """A token as the formatter reads it: Lark's Token, whose positions Lark types as optional
    and its lexer always sets (every token here is lexed from the text)."""

    type: str
    line: int
    end_line: int
    start_pos: int

_sink = threading.local()


def _collect(tok: LarkToken) -> LarkToken:
    _sink.tokens.append(tok)
    return tok


@lru_cache(maxsize=1)
def _token_parser() -> Lark:
    """The rule-language parser, collecting comments as it reads them (the code tokens are read
    through its interactive interface, :func:`_parse`)."""
    # Only COMMENT gets a callback: Lark chains a callback on a terminal that keywords share
    # (NAME) through a late-bound loop variable, so with callbacks on several terminals some are
    # never called. The same module as the compiler's parser (:data:`engine.lang.syntax.STANDALONE`).
    lark: Lark = STANDALONE.Lark_StandAlone(propagate_positions=True, lexer_callbacks={"COMMENT": _collect})
    return lark


def parse_with_tokens(text: str) -> tuple[ParseTree, list[_Tok]]:
    """(tree, tokens: code and comments, in source order) of text :func:`compiler.parse_text`
    accepted."""
    _sink.tokens = []
    try:
        ip = _token_parser().parse_interactive(text)
        code = list(ip.iter_parse())
        tree: ParseTree = ip.resume_parse()  # type: ignore[no-untyped-call]  # untyped in Lark
        toks = code + _sink.tokens
    finally:
        _sink.tokens = []
    toks.sort(key=lambda t: t.start_pos)
    return tree, cast(list[_Tok], toks)


# ---- structure: statements, options, choices ------------------------------------------------------


Span: TypeAlias = tuple[int, int]  # first and last token index of a statement
_Item = TypeVar("_Item")


@dataclass
class _Block(Generic[_Item]):
    """An ``option`` or a choice: its ``{`` and ``}`` token indices and what it holds (an
    option: its choices, ``_Block[Span]``; a choice: its statements' spans)."""
    start: int                      # index of the first token
    open: int                       # index of `{`
    close: int                      # index of `}`
    items: list[_Item] = field(default_factory=list)
    oneline: bool = False


_Structure: TypeAlias = list[Span | _Block[_Block[Span]]]  # a file's statements and options


def _span(tree: ParseTree, toks: list[_Tok], starts: dict[int, int]) -> Span:
    """First and last token index of a subtree (by source position)."""
    first = starts[tree.meta.start_pos]
    last = first
    while last + 1 < len(toks) and toks[last + 1].start_pos < tree.meta.end_pos:
        last += 1
    return first, last


def _structure(tree: ParseTree, toks: list[_Tok]) -> _Structure:
    """The file's statements: (first, last) token spans, and a :class:`_Block` per option."""
    starts = {t.start_pos: i for i, t in enumerate(toks)}
    out: _Structure = []
    for item in tree.children:
        assert isinstance(item, Tree)  # a statement: the start rule holds no token of its own
        first, last = _span(item, toks, starts)
        if item.data != "option":
            out.append((first, last))
            continue
        opt = _Block[_Block[Span]](first, _next_of(toks, first, "LBRACE"), last)
        for ch in item.children:
            if not isinstance(ch, Tree) or ch.data != "choice":
                continue
            cf, cl = _span(ch, toks, starts)
            blk = _Block[Span](cf, _next_of(toks, cf, "LBRACE"), cl)
            blk.items = [_span(x, toks, starts) for x in ch.children if isinstance(x, Tree)]
            inside = range(blk.open + 1, blk.close)
            blk.oneline = len(blk.items) <= 1 and not any(toks[i].type == "COMMENT" for i in inside)
            opt.items.append(blk)
        out.append(opt)
    return out


def _next_of(toks: list[_Tok], i: int, type_: str) -> int:
    while toks[i].type != type_:
        i += 1
    return i


# ---- clause order ---------------------------------------------------------------------------------


def _clauses(toks: list[_Tok], lo: int, hi: int) -> tuple[list[list[_Tok]], list[_Tok]]:
    """Tokens ``toks[lo:hi]`` split at top-level commas: (clauses, the commas)."""
    out: list[list[_Tok]] = []
    cur: list[_Tok] = []
    commas: list[_Tok] = []
    depth = 0
    for t in toks[lo:hi]:
        depth += (t.type == "LPAR") - (t.type == "RPAR")
        if t.type == "COMMA" and depth == 0:
            out.append(cur)
            commas.append(t)
            cur = []
        else:
            cur.append(t)
    out.append(cur)
    return out, commas


def _rank(order: _Order, clause: list[_Tok]) -> int:
    two = tuple(t.type for t in clause[:2])
    return order.get(two, order.get(clause[0].type, len(order)))


def _reorder(toks: list[_Tok], first: int, last: int) -> None:
    """Put the clauses of one indicator, pattern or fan statement (``toks[first..last]``) in the
    grammar's order, in place, when they stand on one line (stable: same kinds keep their order,
    so a repeated clause still means what it meant)."""
    kinds = [t.type for t in toks[first:last + 1]]
    kind = kinds[1] if kinds[0] == "OVERRIDE" and len(kinds) > 1 else kinds[0]
    if kind not in ("INDICATOR", "PATTERN", "FAN") or "EQUAL" not in kinds:
        return
    lo = first + kinds.index("EQUAL") + 1
    hi = last + 1
    if kind == "FAN":
        if "WHEN" not in kinds[lo - first:]:
            return
        hi = first + kinds.index("WHEN", lo - first)
        order, keep = _FAN_ORDER, 0
    else:
        order, keep = (_INDICATOR_ORDER, 1) if kind == "INDICATOR" else (_PATTERN_ORDER, 1)
    region = toks[lo:hi]
    if not region or len({t.line for t in region} | {t.end_line for t in region}) > 1 or any(t.type == "COMMENT" for t in region):
        return
    parts, commas = _clauses(toks, lo, hi)
    if any(not p for p in parts):
        return
    head, rest = parts[:keep], parts[keep:]
    ordered = head + sorted(rest, key=lambda p: _rank(order, p))
    new: list[_Tok] = []
    for i, p in enumerate(ordered):
        if i:
            new.append(commas[i - 1])
        new.extend(p)
    toks[lo:hi] = new


# ---- layout ---------------------------------------------------------------------------------------


@dataclass
class _Line:
    indent: int
    line: int                                    # the source line it comes from
    code: list[_Tok] = field(default_factory=list)
    comment: str | None = None
    blank: bool = False

    def code_text(self, signs: set[int]) -> str:
        """The code, tokens spaced by :func:`_space`."""
        out = ""
        prev = None
        for t in self.code:
            if prev is not None and _space(prev, t, signs):
                out += " "
            out += _text(t)
            prev = t
        return out


def _space(prev: _Tok, tok: _Tok, signs: set[int]) -> bool:
    """Whether one space separates two tokens on a line (``signs``: ids of the ``+`` of amounts)."""
    if tok.type in _NO_SPACE_BEFORE or prev.type in _OPEN_SPACE_AFTER:
        return False
    if tok.type == "LPAR" and prev.type == "NAME":
        return False               # a flow policy's arguments: pass_lock(…)
    return id(prev) not in signs   # an amount: +5


def _text(tok: _Tok) -> str:
    """A token as written, but the words of ``with kongs``, ``after adders`` and ``instead of kong
    points`` one space apart (the grammar takes any whitespace between them)."""
    return " ".join(str(tok).split()) if tok.type in spaced_terminals() else str(tok)  # one token of several words


def _cells(text: str) -> int:
    """Terminal cells of ``text``: an East Asian wide character takes two."""
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


class _Place(NamedTuple):
    """Where :func:`_layout` puts a token: ``how`` is ``new`` (it starts a line), ``join`` (it
    stays on the line whatever the source says) or ``cont`` (a source line break before it is
    kept); ``indent`` is the line's indent when it starts one."""

    how: Literal["new", "join", "cont"]
    indent: int


def _plan(structure: _Structure, toks: list[_Tok]) -> dict[int, _Place]:
    """Per token index: its :class:`_Place`."""
    plan: dict[int, _Place] = {}

    def stmt(first: int, last: int, indent: int, join: bool = False) -> None:
        for i in range(first, last + 1):
            plan[i] = _Place("join", indent) if join else _Place("cont", indent + INDENT)
        if not join:
            plan[first] = _Place("new", indent)

    for s in structure:
        if isinstance(s, tuple):
            stmt(*s, 0)
            continue
        for i in range(s.start, s.open + 1):
            plan[i] = _Place("cont", INDENT)
        plan[s.start] = _Place("new", 0)
        plan[s.close] = _Place("new", 0)
        for ch in s.items:
            for i in range(ch.start, ch.close + 1):
                plan[i] = _Place("cont", 2 * INDENT)
            plan[ch.start] = _Place("new", INDENT)
            if ch.oneline:
                for i in range(ch.start + 1, ch.close + 1):
                    plan[i] = _Place("join", INDENT)
                continue
            for first, last in ch.items:
                stmt(first, last, 2 * INDENT)
            plan[ch.close] = _Place("new", INDENT)
        for blk, indent in [(s, INDENT)] + [(ch, 2 * INDENT) for ch in s.items]:
            if toks[blk.open - 1].type != "COMMENT":
                plan[blk.open] = _Place("join", indent)  # `{` ends the line that opens the block
    for i, t in enumerate(toks):
        if t.type == "COMMENT":
            plan.pop(i, None)
    return plan


def _layout(toks: list[_Tok], plan: dict[int, _Place]) -> list[_Line]:
    lines: list[_Line] = []
    cur: _Line | None = None
    prev: _Tok | None = None          # the previous token (code or comment)
    prev_code: _Tok | None = None

    def close() -> None:
        nonlocal cur
        if cur is not None:
            lines.append(cur)
            cur = None

    def blank_before(tok: _Tok, inside: bool) -> None:
        if prev is None or inside or not lines and cur is None:
            return
        if tok.line - prev.end_line > 1 and tok.type != "RBRACE":
            last = cur if cur is not None else lines[-1]
            if last.blank or (last.code and last.code[-1].type == "LBRACE"):
                return
            close()
            lines.append(_Line(0, tok.line, blank=True))

    following: list[int | None] = [None] * len(toks)   # the next code token's index, per token
    nxt = None
    for i in range(len(toks) - 1, -1, -1):
        following[i] = nxt
        if i in plan:
            nxt = i

    for i, tok in enumerate(toks):
        if tok.type == "COMMENT":
            text = str(tok).rstrip()
            if prev_code is not None and cur is not None and prev is not None and prev.end_line == tok.line \
                    and prev.type != "COMMENT":
                cur.comment = text
                close()
            else:
                nxt = following[i]
                place = plan[nxt] if nxt is not None else _Place("new", 0)
                indent = place.indent + (INDENT if nxt is not None and toks[nxt].type == "RBRACE"
                                         and place.how == "new" else 0)
                blank_before(tok, place.how != "new")
                close()
                lines.append(_Line(indent, tok.line, comment=text))
            prev = tok
            continue
        place = plan[i]
        if place.how == "new":
            blank_before(tok, False)
            close()
            cur = _Line(place.indent, tok.line)
        elif cur is None or (place.how == "cont" and prev_code is not None and tok.line > prev_code.end_line):
            close()
            cur = _Line(place.indent, tok.line)
        cur.code.append(tok)
        prev = prev_code = tok
    close()
    while lines and lines[-1].blank:
        lines.pop()
    return lines


def _align(lines: list[_Line], signs: set[int]) -> list[str]:
    """The text of each line. Trailing comments of consecutive code lines (a block: no blank
    line, comment-only line or comment-less code line between) stand in one column, two cells
    past the widest code of the block; code wider than :data:`ALIGN_MAX_CELLS` keeps its comment
    two cells after it and does not widen the column."""
    texts = [(" " * ln.indent + ln.code_text(signs)) if ln.code else "" for ln in lines]
    out: list[str] = []
    i = 0
    while i < len(lines):
        ln = lines[i]
        if not (ln.code and ln.comment is not None):
            # a blank line, code alone, or a comment alone (a line with neither code nor comment is blank)
            out.append("" if ln.blank else (" " * ln.indent + (ln.comment or "") if not ln.code else texts[i]))
            i += 1
            continue
        block: list[tuple[str, str]] = []  # (code text, comment) of each line of the block
        while i < len(lines) and lines[i].code and (comment := lines[i].comment) is not None:
            block.append((texts[i], comment))
            i += 1
        widths = [_cells(code) for code, _ in block]
        column = max((w for w in widths if w <= ALIGN_MAX_CELLS), default=0) + COMMENT_GAP
        for (code, comment), w in zip(block, widths):
            pad = column - w if w <= ALIGN_MAX_CELLS else COMMENT_GAP
            out.append(code + " " * pad + comment)
    return out


# ---- entry points ---------------------------------------------------------------------------------


def _signature(pf: C.ParsedFile) -> object:
    """What a parsed file says, without where it says it: compared before and after formatting."""
    def stmt(s: C.Stmt) -> tuple[str, str, str, object]:
        decl = s.decl.model_dump(mode="json", exclude={"origin"}) if s.decl is not None else None
        return (s.op, s.kind, s.name, decl)

    return (pf.name, pf.label, pf.extends[0] if pf.extends else None, pf.sources,
            [stmt(s) for s in pf.stmts],
            [(o.name, o.label, o.default, {k: [stmt(s) for s in v] for k, v in o.choices.items()})
             for o in pf.options])


def format_text(text: str, file: str = "<text>") -> str:
    """``text`` (one rule file) in the canonical layout (module docstring).

    Raises :class:`~engine.errors.RuleError` (``file:line:col``) when the text does not parse or
    passes a limit of :mod:`engine.lang.limits` (checked by the compiler's parser before any
    formatting), and when the formatted text would pass one (a line made longer than
    ``MAX_LINE_CHARS`` by joining or aligning)."""
    text = text.removeprefix("\ufeff")
    before = C.parse_text(text, file)
    tree, toks = parse_with_tokens(text)
    structure = _structure(tree, toks)
    for s in structure:
        spans = [s] if isinstance(s, tuple) else [x for ch in s.items for x in ch.items]
        for first, last in spans:
            _reorder(toks, first, last)
    code = [t for t in toks if t.type != "COMMENT"]
    signs = {id(t) for p, t in zip(code, code[1:]) if t.type == "PLUS" and p.type in ("EQUAL", "COMMA")}
    lines = _layout(toks, _plan(structure, toks))
    rows = [row.rstrip() for row in _align(lines, signs)]
    for line, row in zip(lines, rows):
        if len(row) > L.MAX_LINE_CHARS:
            raise RuleError(f"formatted, this line would be {len(row)} characters long (at most {L.MAX_LINE_CHARS})",
                            Location(file, line.line, 1), hint="break the statement over lines",
                            source_text=text)
    result = "\n".join(rows) + "\n" if rows else ""
    if len(result.encode("utf-8", "surrogatepass")) > L.MAX_FILE_BYTES:
        raise RuleError(f"formatted, the rule file would be larger than {L.MAX_FILE_BYTES} bytes", Location(file, 1, 1),
                        hint="a rule file is a short list of rules; split it with `extends`", source_text="")
    try:
        after = C.parse_text(result, file)
    except RuleError as exc:  # a bug of the formatter: never hand out its output
        raise AssertionError(f"formatting {file} made text that does not parse: {exc}") from None
    if _signature(after) != _signature(before):
        raise AssertionError(f"formatting {file} would change what it declares")
    if _comments(parse_with_tokens(result)[1]) != _comments(toks):
        raise AssertionError(f"formatting {file} would lose or change a comment")
    return result


def _comments(toks: list[_Tok]) -> list[str]:
    return [str(t).rstrip() for t in toks if t.type == "COMMENT"]


# ---- files ----------------------------------------------------------------------------------------


@dataclass
class Formatted:
    """One rule file and its canonical layout: ``file`` as named to the user, its text as read
    (``before``) and formatted (``after``)."""
    file: str
    before: str
    after: str

    @property
    def changed(self) -> bool:
        """Whether formatting changes the text."""
        return self.before != self.after

    def diff(self) -> str:
        """The change as a unified diff (``--- FILE`` / ``+++ FILE``); "" when nothing changes."""
        import difflib

        def rows(text: str) -> list[str]:  # lines end at \n only, as the parser counts them
            parts = text.split("\n")
            return [p + "\n" for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])

        out = []
        for row in difflib.unified_diff(rows(self.before), rows(self.after), fromfile=self.file, tofile=self.file):
            out.append(row if row.endswith("\n") else row + "\n\\ No newline at end of file\n")
        return "".join(out)


def rule_files(args: list[str]) -> list[Path]:
    """The files ``args`` name: a file as given, a folder's ``*.rules`` files (recursively, in
    name order, symbolic links to folders not followed), each once.

    Raises :class:`~engine.errors.MjError` for a name that is neither a file nor a folder."""
    found: list[Path] = []
    for arg in args:
        p = Path(arg)
        if p.is_dir():
            for top, dirs, names in os.walk(p):
                dirs.sort()
                found.extend(Path(top) / n for n in sorted(names) if n.endswith(".rules"))
        elif p.exists():
            found.append(p)
        else:
            raise MjError(f"{arg}: no such file or folder", hint="give rule files or folders holding *.rules files")
    seen: set[Path] = set()
    out = []
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            out.append(p)
    return out


def format_file(path: Path) -> Formatted:
    """A rule file read with the compiler's bounded reader and formatted (nothing written).

    Raises :class:`~engine.errors.RuleError` as :func:`format_text` and
    :func:`~engine.lang.compiler.read_rule_file` do."""
    text = C.read_rule_file(path)
    return Formatted(str(path), text, format_text(text, str(path)))


def write_formatted(path: Path, text: str) -> None:
    """Replace ``path``'s content by ``text`` (UTF-8, ``\\n`` line ends), through a temporary file
    beside it so that a failure leaves the old file whole; the file keeps its permissions.

    Raises :class:`~engine.errors.MjError` when it cannot be written."""
    import tempfile

    target = path.resolve()  # a link stays a link: its target is rewritten
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".mjrules-fmt", dir=target.parent)
        with open(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        shutil.copymode(target, tmp)
        os.replace(tmp, target)
    except OSError as exc:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        raise MjError(f"cannot write {path}: {exc.strerror or exc}") from None
