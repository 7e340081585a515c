"""Errors a user can act on: a message, where (file:line:col), the source line, and a hint.

Every error the engine raises for bad input is a :class:`MjError`; the CLI prints it with
:func:`MjError.render` and exits 2 (rule files, scenario files) or 1 (an illegal action),
never with a traceback.
"""
from __future__ import annotations

import difflib
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass
class Location:
    """A place in a text file: path, 1-based line and column."""

    file: str
    line: int
    column: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"


@dataclass
class MjError(Exception):
    """A user-facing error: ``file:line:col: error: message`` plus the line, a caret and a hint.

    ``related`` lists other places that contributed (the parent rule an override conflicts
    with, say), each shown as ``note: …``.
    """

    message: str
    location: Location | None = None
    hint: str | None = None
    related: list[tuple[str, Location]] = field(default_factory=list)
    source_text: str | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        return f"{where}error: {self.message}"

    def render(self) -> str:
        """The full multi-line report: message, source line with caret, notes, hint."""
        lines = [str(self)]
        if self.location:
            src = self._line_text(self.location)
            if src is not None:
                shown, caret_cells = _expand(*_window(src, self.location.column))
                lines.append(f"  {shown}")
                lines.append("  " + " " * caret_cells + "^")
        for what, loc in self.related:
            lines.append(f"{loc}: note: {what}")
        if self.hint:
            lines.append(f"hint: {self.hint}")
        return "\n".join(lines)

    def to_json(self) -> dict[str, Any]:
        """The error as a JSON-ready dict (for ``--json``)."""
        loc = self.location
        return {
            "error": self.message,
            "file": loc.file if loc else None,
            "line": loc.line if loc else None,
            "column": loc.column if loc else None,
            "hint": self.hint,
            "notes": [{"note": w, "at": str(where)} for w, where in self.related],
        }

    def _line_text(self, loc: Location) -> str | None:
        text = self.source_text
        if text is None:
            try:
                text = Path(loc.file).read_text(encoding="utf-8")
            except (OSError, ValueError):  # unreadable, or not UTF-8 text: echo nothing
                return None
        if not text:  # "" marks a file whose bytes are not text: nothing to echo
            return None
        # lines end at \n only, as the parsers count them (splitlines would also split at \f, \x1c …)
        rows = text.split("\n")
        if 1 <= loc.line <= len(rows):
            return rows[loc.line - 1].removesuffix("\r")
        return None


class RuleError(MjError):
    """A rule file cannot be parsed or compiled."""

    # marks set (not always) by engine.lang.statements.tag and .about; annotations only: absent until set
    phase: str
    paths: tuple[str, ...]


@dataclass
class OptionError(RuleError):
    """An ``--option`` (or a scenario's ``options:``) names an option the ruleset does not
    declare, or a value that is not one of its choices. ``option`` and ``value`` say which, so
    the caller can point at the flag or the scenario line that chose it rather than at the rule
    file (``location`` is the option's declaration, where there is one)."""

    option: str = ""
    value: str | None = None


@dataclass
class ScenarioError(MjError):
    """A scenario file (or a hand given on the command line) is malformed. ``at``: the keys, from
    the case, of what is wrong (``("win", "from")``), so the file's reader can point at it."""

    at: tuple[str | int, ...] = ()


class IllegalAction(MjError):
    """A hand or an action the rules do not allow; nothing was changed. ``refused_by``: the
    rule paths that refused a win (``fan.NAME`` of its ``no win`` fans), when rules did."""

    refused_by: tuple[str, ...] = ()


_ECHO_WIDTH = 100  # characters of a long source line shown on each side of the error's column


def _window(src: str, column: int) -> tuple[str, int]:
    """A long line cut to the part around ``column`` (``…`` marks a cut), and the column in it."""
    if len(src) <= 2 * _ECHO_WIDTH:
        return src, column
    start = max(0, column - 1 - _ECHO_WIDTH)
    end = column - 1 + _ECHO_WIDTH
    head, tail = ("…" if start else ""), ("…" if end < len(src) else "")
    return head + src[start:end] + tail, column - start + len(head)


class ImpossibleState(IllegalAction):
    """A snapshot the game could not produce (a one-tile kong, a pung claimed from its own seat,
    ``first_turn`` on a discard that is not the dealer's): bad input, so ``score`` exits 2. It is
    an :class:`IllegalAction`, so a scenario case expecting ``win: false`` still sees the refusal."""


def _expand(src: str, column: int, tab: int = 8) -> tuple[str, int]:
    """The line as it is echoed, literally: tabs expanded by display cells (CJK characters take
    two), control characters (escape sequences, NUL, …) shown as ``?`` so that a hostile file
    cannot drive the terminal; and the cell where ``column`` (1-based, in characters) starts —
    so the caret lands under it."""
    import unicodedata

    out, cells, caret = [], 0, None
    for i, ch in enumerate(src):
        if i == column - 1:
            caret = cells
        if ch == "\t":
            n = tab - cells % tab
            out.append(" " * n)
            cells += n
        elif unicodedata.category(ch) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            out.append("?")
            cells += 1
        else:
            out.append(ch)
            cells += 2 if unicodedata.east_asian_width(ch) in "WF" else 1
    return "".join(out), cells if caret is None else caret


def did_you_mean(name: str, candidates: Iterable[str]) -> str | None:
    """``did you mean X?`` for the closest known name, or None."""
    cands = list(candidates)
    close = difflib.get_close_matches(name, cands, n=1, cutoff=0.5)
    if not close:
        # Chinese names: shared characters are a better signal than edit distance — two of them,
        # or the one a one-character name has (底分 shares only 分 with 明杠分: no suggestion)
        need = min(2, len(set(name)))
        shared = [c for c in cands if len(set(c) & set(name)) >= need and not c.isascii()]
        close = shared[:1]
    return f"did you mean {close[0]}?" if close else None
