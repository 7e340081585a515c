"""What a parsed rule file holds: its statements (``declare``/``override``/``remove``), its
options, the names each declaration refers to (checked once ``extends`` is resolved), and the
marks an error carries for the tools that sort errors (its phase, the rule paths it is about).

Plain data: the parser (:mod:`engine.lang.parse`) makes it, resolution
(:mod:`engine.lang.resolve`) and the checks (:mod:`engine.lang.checks`) read it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from engine.errors import Location, RuleError
from engine.lang.ruleset import Decl

# KIND keyword → Ruleset field
SECTIONS = {
    "suit": "suits",
    "honours": "honours",
    "table": "table",
    "meld": "melds",
    "pattern": "patterns",
    "indicator": "indicators",
    "jing": "jing",
    "fan": "fans",
    "payment": "payments",
    "factor": "factors",
    "exhaustive": "exhaustive",
    "flow": "flow",
}

# what a reference names, for checking after resolution
REF_PATTERN, REF_FAN, REF_MELD_OR_KIND, REF_GROUP, REF_INDICATOR, REF_JING_FORMULA, REF_FACTOR = (
    "pattern", "fan", "meld", "group", "indicator", "jing formula", "factor",
)


@dataclass
class Ref:
    """A name a declaration refers to, checked once the whole chain is resolved."""

    what: str
    name: str
    location: Location
    context: str | None = None  # for facts: win / transfer / jing


@dataclass
class Stmt:
    """One declaration statement of a file: ``declare`` / ``override`` / ``remove``."""

    op: str
    kind: str
    name: str
    decl: Decl | None  # None for a `remove`
    location: Location
    refs: list[Ref] = field(default_factory=list)

    @property
    def path(self) -> str:
        """``KIND.NAME``: how extends, override, remove, diff and errors refer to it."""
        return f"{self.kind}.{self.name}"


@dataclass
class OptionStmt:
    """An ``option`` as written: name, label, default, and each choice's statements."""
    name: str
    label: str | None
    default: str
    choices: dict[str, list[Stmt]]
    location: Location
    default_location: Location


@dataclass
class SetStmt:
    """A ``set NAME = VALUE`` as written: this file chooses an option that a parent declares."""
    name: str
    value: str
    location: Location
    value_location: Location


@dataclass
class ParsedFile:
    """One rule file as parsed, before ``extends`` is resolved."""
    file: str
    text: str
    name: str | None = None
    label: str | None = None
    extends: tuple[str, Location] | None = None
    sources: list[str] = field(default_factory=list)
    stmts: list[Stmt] = field(default_factory=list)
    options: list[OptionStmt] = field(default_factory=list)
    sets: list[SetStmt] = field(default_factory=list)
    unparsed: set[str] = field(default_factory=set)  # KIND.NAME of statements with a syntax error

@dataclass
class Entry:
    """A resolved declaration: the statement that won, the text of its file (for error lines),
    and for an override the declaration it replaced (the linter compares them)."""

    stmt: Stmt
    file_text: str
    replaced: Decl | None = None


def about(exc: RuleError, *paths: str) -> RuleError:
    """``exc`` marked with the ``KIND.NAME`` paths it is about (an unknown name, an override of
    nothing): :func:`engine.lang.compiler.check_text` drops it when such a statement had a
    syntax error (a cascade)."""
    exc.paths = paths
    return exc


def tag(exc: RuleError, phase: str) -> RuleError:
    """``exc`` marked with the compiler phase that found it (``file``, ``syntax``, ``declaration``,
    ``resolve``, ``check``, ``table``): :mod:`engine.lang.lint` gives each phase an error code."""
    exc.phase = phase
    return exc
