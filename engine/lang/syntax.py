"""How the rule language is read, and how a reader is told it is not: the pre-built Lark parser
(:mod:`engine.lang.parsergen`), the lexer's limits on a single token (a number, a name, a
string too large: :mod:`engine.lang.limits`), and the message of a syntax error — what was
found, what the grammar expected, and a hint for the known mistakes (a misspelt keyword, a
multiplier written ``x 2``, curly quotes, an unquoted ``extends`` path).
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache
from typing import TYPE_CHECKING, TypeAlias, cast

from engine.errors import Location, RuleError, did_you_mean
from engine.lang import limits as L
from engine.lang.parsergen import parser_module
from engine.lang.statements import SECTIONS

__all__ = [  # Lark's classes are re-exported: the parser's modules import them from here
    "STANDALONE", "STATEMENT_STARTS", "Lark", "Meta", "ParseTree", "Token", "TokenTooBig", "Transformer", "Tree",
    "UnexpectedCharacters", "UnexpectedEOF", "UnexpectedInput", "UnexpectedToken", "VisitError", "glued_keyword",
    "keywords", "looks_like",
    "parser", "readable", "syntax_error", "token_location", "v_args",
]

# the pre-built standalone Lark parser (engine/lang/parsergen.py): its own Token, Tree, … classes.
# The type checker reads them from the committed module; at run time they come from the module
# parser_module() returns (the committed one, or the same code generated from an edited grammar).
STANDALONE = parser_module()
if TYPE_CHECKING:
    from engine.lang.standalone_parser import (
        Lark,
        Meta,
        Token,
        Transformer,
        Tree,
        UnexpectedCharacters,
        UnexpectedEOF,
        UnexpectedInput,
        UnexpectedToken,
        VisitError,
        v_args,
    )
else:
    Lark, Meta, Token, Transformer, Tree, v_args = (STANDALONE.Lark, STANDALONE.Meta, STANDALONE.Token,
                                                    STANDALONE.Transformer, STANDALONE.Tree, STANDALONE.v_args)
    UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError = (
        STANDALONE.UnexpectedCharacters, STANDALONE.UnexpectedEOF, STANDALONE.UnexpectedInput,
        STANDALONE.UnexpectedToken, STANDALONE.VisitError)


ParseTree: TypeAlias = "Tree[Token]"  # a parse tree of the rule language: its leaves are tokens


def token_location(file: str, tok: Token) -> Location:
    """Where a lexed token starts in ``file`` (Lark types its line and column as optional; its
    lexer always sets them)."""
    return Location(file, tok.line or 1, tok.column or 1)


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR parser for the rule language (positions kept for errors), loaded from the
    pre-built standalone module rather than built from ``grammar_text()`` at each start."""
    lark: Lark = STANDALONE.Lark_StandAlone(
        propagate_positions=True, lexer_callbacks={"INT": _check_int, "MULT": _check_mult, "NAME": _check_name,
                                                   "RULESET_NAME": _check_name, "STRING": _check_string})
    return lark


class TokenTooBig(Exception):
    """Raised by the lexer (before the parser does any work with it) for a token past a limit."""

    def __init__(self, message: str, token: Token, hint: str | None = None):
        super().__init__(message)
        self.message, self.token, self.hint = message, token, hint


def _check_int(tok: Token) -> Token:
    # the length check comes first: int() of a huge digit string is itself slow (and refused)
    if len(tok) > len(str(L.MAX_NUMBER)) or int(tok) > L.MAX_NUMBER:
        raise TokenTooBig(f"number {_clip(str(tok))} is too large (at most {L.MAX_NUMBER})", tok,
                           hint="numbers in a rule file are small: see Limits in docs/language.md")
    return tok


def _check_mult(tok: Token) -> Token:
    digits = str(tok)[1:]
    if len(digits) > len(str(L.MAX_MULTIPLIER)) or int(digits) > L.MAX_MULTIPLIER:
        raise TokenTooBig(f"multiplier {_clip(str(tok))} is too large (at most x{L.MAX_MULTIPLIER})", tok,
                           hint="numbers in a rule file are small: see Limits in docs/language.md")
    return tok


def _check_name(tok: Token) -> Token:
    if len(tok) > L.MAX_NAME_CHARS:
        raise TokenTooBig(f"name {str(tok)[:12]}… is {len(tok)} characters long (at most {L.MAX_NAME_CHARS})",
                           tok)
    return tok


def _check_string(tok: Token) -> Token:
    if len(tok) - 2 > L.MAX_STRING_CHARS:
        raise TokenTooBig(f"string {str(tok)[:12]}… is {len(tok) - 2} characters long (at most {L.MAX_STRING_CHARS})",
                           tok)
    return tok


def _clip(text: str, keep: int = 12) -> str:
    """A long number shortened for a message: its start, ``…`` and its count of digits."""
    return text if len(text) <= keep else f"{text[:keep]}… ({len(text)} digits)"



_TERMINAL_WORDS = {
    "NAME": "a name", "RULESET_NAME": "a ruleset name", "INT": "a number", "STRING": 'a "string"',
    "MULT": "a multiplier like x2", "KIND": "a declaration kind (fan, meld, …)", "CMP": "a comparison",
    "PAYER": "a payer (discarder, others, each, dealer)", "SCOPE": "win, jing, kongs, exhaustive or follow",
    "MELD_KIND": "chow, pung, kong or pair", "END": "head or tail", "$END": "the end of the file",
    "ADDOP": "`+` or `-`", "MULOP": "`*` or `/`", "ALL": "`all`", "DECLARED": "`declared`",
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "EQUAL": "`=`", "COMMA": "`,`",
    "PLUS": "`+`", "MINUS": "`-`", "COLON": "`:`", "VBAR": "`|`", "SLASH": "`/`",
}


def looks_like(word: str, keyword: str) -> bool:
    """Whether ``word`` is ``keyword`` misspelt (close, but not the same)."""
    import difflib

    return word != keyword and difflib.SequenceMatcher(None, word, keyword).ratio() >= 0.75


@lru_cache(maxsize=1)
def keywords() -> frozenset[str]:
    """The grammar's words that are a token alone (its string terminals made of letters:
    ``when``, ``pattern`` …)."""
    return frozenset(t.pattern.value for t in parser().terminals
                     if t.pattern.type == "str" and t.pattern.value.isascii() and t.pattern.value.isalpha())


@lru_cache(maxsize=1)
def grammar_words() -> frozenset[str]:
    """:func:`keywords` and every word a terminal's pattern spells (``first`` and ``claimed`` of
    ``/first\\s+claimed/``, ``dealer`` of ``/(discarder|…|dealer)\\b/``): the words no misspelling
    hint takes for another."""
    spelled = (re.findall(r"(?<![\\a-z])[a-z]{2,}", t.pattern.value) for t in parser().terminals if t.pattern.type == "re")
    return keywords().union(*spelled)


@lru_cache(maxsize=1)
def spaced_terminals() -> dict[str, str]:
    """The grammar's keywords of several words, one token each (``FIRST_CLAIMED: /first\\s+claimed/``):
    terminal name → its words as a rule file writes them (``first claimed``). What error
    messages name and what ``fmt`` writes with single spaces."""
    return {t.name: t.pattern.value.replace("\\s+", " ") for t in parser().terminals
            if t.pattern.type == "re" and re.fullmatch(r"[a-z]+(?:\\s\+[a-z]+)+", t.pattern.value)}


def expected_words(expected: Iterable[str]) -> list[str]:
    """The keywords among the terminals a parser expected, as written (``when``, ``first claimed``)."""
    spaced = spaced_terminals()
    by_name = {t.name: t.pattern.value for t in parser().terminals if t.pattern.type == "str"}
    out = []
    for t in expected:
        if t in spaced:
            out.append(spaced[t])
        elif by_name.get(t, "").isalpha():
            out.append(by_name[t])
    return sorted(out)


GLUED_MIN = 4  # letters a keyword has before a word it begins is taken for it misspelt (not `one` in `ones`)


def glued_keyword(code: str) -> tuple[int, str, str] | None:
    """The first word of ``code`` (one statement's text) that is a keyword with letters run on
    (``whenn``): (its offset, the word, the keyword). Where a name may not stand, the lexer takes
    the keyword and leaves the rest, so the error it causes is reported further on; None when
    no word looks so."""
    known = grammar_words()
    longest_first = sorted(keywords(), key=lambda k: (-len(k), k))
    for m in re.finditer(r"[A-Za-z_][A-Za-z0-9_]*", code):
        word = m.group()
        if word in known:
            continue
        for k in longest_first:
            if len(k) >= GLUED_MIN and word.startswith(k) and looks_like(word, k):
                return m.start(), word, k
    return None


def readable(expected: Iterable[str]) -> str:
    """The terminals a parser expected, in words (``a name, `=`, …``), at most eight."""
    words = []
    spaced = spaced_terminals()
    for t in sorted(expected):
        if t in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[t])
        elif t in spaced:
            words.append(f"`{spaced[t]}`")
        elif t.startswith(("__ANON", "_")):
            continue
        else:
            words.append(f"`{t.lower()}`")
    words = sorted(set(words))
    if len(words) > 8:
        words = words[:8] + ["…"]
    return ", ".join(words)


STATEMENT_STARTS = ["ruleset", "extends", "source", "override", "remove", "option", "set", *SECTIONS]
# what a Chinese input method types in full width, and the ASCII character a rule file wants
FULL_WIDTH = {**{chr(0xFF10 + d): str(d) for d in range(10)}, "＝": "=", "，": ",", "＋": "+", "－": "-",
              "＊": "*", "／": "/", "（": "(", "）": ")", "：": ":", "；": ";", "＃": "#", "．": ".",
              "＜": "<", "＞": ">", "！": "!", "｛": "{", "｝": "}", "　": " ", "、": ",", "。": "."}


def syntax_error(exc: UnexpectedInput, text: str, file: str) -> RuleError:
    """The :class:`RuleError` for a Lark syntax error in ``text``: where, what was found, what
    was expected, and a hint for a known mistake."""
    loc = Location(file, getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1)
    if isinstance(exc, UnexpectedCharacters):
        pos = cast(int, exc.pos_in_stream)  # Lark declares it None on the base class; the lexer sets it
        ch = text[pos] if pos < len(text) else "?"
        rows = text.split("\n")  # lines as the parser counts them (\n only)
        line_text = rows[loc.line - 1] if loc.line <= len(rows) else ""
        if ch == '"':
            return RuleError("unterminated string", loc, hint='a string closes with " on the same line',
                             source_text=text)
        hint = None
        if ch in FULL_WIDTH:
            ascii_ch = FULL_WIDTH[ch]
            what = "a full-width space" if ch == "\u3000" else f"a full-width {ch}"
            return RuleError(f"{what}: rule files use half-width (ASCII) punctuation and digits", loc,
                             hint=f"write {ascii_ch!r} instead (switch the input method to half-width, 半角)",
                             source_text=text)
        if ch in "“”":
            hint = 'use plain double quotes "…"'
        elif line_text.lstrip().startswith("extends") and ch in "./\\":
            path = line_text.split("#")[0].strip()[len("extends"):].strip()
            hint = f'a path is quoted: extends "{path}"'
        return RuleError(f"unexpected character {ch!r}", loc, hint=hint, source_text=text)
    if isinstance(exc, UnexpectedEOF) or (isinstance(exc, UnexpectedToken) and exc.token.type == "$END"):
        body = text.rstrip()
        rows = body.split("\n")
        loc = Location(file, len(rows), len(rows[-1]) + 1)
        return RuleError(f"the file ends in the middle of a declaration; expected {readable(set(exc.expected))}",
                         loc, source_text=text)
    assert isinstance(exc, UnexpectedToken)
    tok = exc.token
    expected = readable(set(exc.expected))
    hint = None
    word = str(tok)
    wide = next((c for c in word if c in FULL_WIDTH), None)
    if wide is not None:
        return RuleError(f"a full-width {wide} in `{word}`: rule files use half-width (ASCII) punctuation and digits",
                         loc, hint=f"write {''.join(FULL_WIDTH.get(c, c) for c in word)!r} (the input method's 半角)",
                         source_text=text)
    if tok.type in ("NAME", "RULESET_NAME") and word not in STATEMENT_STARTS and exc.column == 1:
        hint = did_you_mean(word, STATEMENT_STARTS) or (
            "a statement starts with one of: " + ", ".join(STATEMENT_STARTS))
    elif "MULT" in exc.expected and tok.type == "INT" and text[getattr(tok, "end_pos", 0) or 0:][:1] in ("x", "×"):
        hint = f"a multiplier is written x{word}: the x first, then the number"
    elif "MULT" in exc.expected and (tok.type in ("INT",) or word in ("x", "×")):
        hint = "a multiplier is written x2 (no space)"
    elif word == "when" and "EACH" in exc.expected and tok.line is not None and \
            text.split("\n")[tok.line - 1].lstrip().startswith(("jing", "override jing")):
        hint = "a 精 bonus is added: write `+10 when …` (or `x2 when …` to multiply the score)"
    else:
        before = text[: getattr(tok, "start_pos", 0) or 0].split()
        row = text.split("\n")[tok.line - 1] if tok.line is not None else ""
        if before and looks_like(before[-1], "pattern"):
            hint = f"did you mean `pattern {word}`?"
        elif row.lstrip().startswith("set ") and "=" in row and word not in ("=",):
            lhs, value = (part.strip() for part in strip_comment(row).split("=", 1))
            hint = f'a choice with punctuation is written in quotes: {lhs} = "{value}"'
        else:  # a keyword misspelt, or the first word of one of several words the rest of which is not right
            hint = _closest_keyword(word, text[getattr(tok, "start_pos", 0) or 0:], exc.expected)
    return RuleError(f"unexpected `{word}`; expected {expected}", loc, hint=hint, source_text=text)


def _closest_keyword(word: str, rest: str, expected: Iterable[str]) -> str | None:
    """``did you mean `K`?`` for the expected keyword ``K`` that the text from the unexpected
    ``word`` on (``rest``) most looks like: a keyword of several words whose first word is there
    or misspelt (``after cap`` → ``after caps``, not ``after adders``), or one word misspelt."""
    import difflib

    first = word.split("_")[0]
    close = [k for k in expected_words(expected) if k.split()[0] == first or looks_like(first, k.split()[0])]
    if not close:
        return None
    written = rest.replace("_", " ").split()

    def likeness(k: str) -> float:
        return difflib.SequenceMatcher(None, " ".join(written[:len(k.split())]), k).ratio()

    return f"did you mean `{max(close, key=likeness)}`?"


def strip_comment(row: str) -> str:
    """``row`` without its ``# …`` comment (a ``#`` inside a string is kept)."""
    out, in_str = [], False
    for ch in row:
        if ch == '"':
            in_str = not in_str
        elif ch == "#" and not in_str:
            break
        out.append(ch)
    return "".join(out)
