"""`mjrules check` as a linter: every error of a rule file, and coded warnings.

Codes (docs/cli.md has the table; :data:`CODES` is it). The letter is the severity, the first
digit the kind: ``E`` errors (the file does not compile; always reported), ``W`` warnings (it
compiles, but something in it has no effect or cannot be what was meant):

- ``E0xx`` the file as text (unreadable, not UTF-8, past a limit), ``E1xx`` syntax,
  ``E2xx`` one declaration's own values, ``E3xx`` resolution (``extends``, ``override``,
  ``remove``, duplicates, options), ``E4xx`` names and consistency, ``E5xx`` the table cannot
  be played;
- ``W1xx`` hand shapes (patterns, melds), ``W2xx`` conditions and arithmetic (fans, payments,
  factors, 精 rules), ``W3xx`` changes that change nothing (overrides, options).

Warnings are looked for once a file has no error (a file that does not compile has no
meaning to judge), and only at places in the file checked (a parent's own warnings are its
file's). ``# noqa`` on a line drops every warning reported on it, ``# noqa: W201,W202`` those
codes; selectors (``--select``, ``--extend-select``, ``--ignore``) are code prefixes as in ruff.
"""
from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from engine.errors import Location, RuleError
from engine.lang import facts as F
from engine.lang.compiler import Checked, check_text, read_rule_file
from engine.lang.expr import compile_expr
from engine.lang.ruleset import (
    BinOp,
    BoolOp,
    Cmp,
    CmpOp,
    Decl,
    Expr,
    Factor,
    Fan,
    Honours,
    JingFormula,
    JingMultiplier,
    Model,
    Neg,
    Not,
    Num,
    Pattern,
    PatternIs,
    Payment,
    Ruleset,
    Suit,
    Var,
)
from engine.lang.statements import OptionStmt, Stmt
from engine.lang.syntax import strip_comment

ERROR, WARNING = "error", "warning"

# code → (severity, what it means); the table of docs/cli.md
CODES: dict[str, tuple[str, str]] = {
    "E001": (ERROR, "the file cannot be read as a rule file: unreadable, not UTF-8 text, or past a size limit"),
    "E101": (ERROR, "syntax error (the parser goes on at the next statement)"),
    "E201": (ERROR, "a declaration's own values are wrong (out of range, given twice, an unknown flow parameter)"),
    "E301": (ERROR, "resolution: `extends`, a name declared twice, an `override`/`remove` of nothing, an option"),
    "E401": (ERROR, "an unknown name (fact, pattern, meld, group, fan …) or an inconsistent declaration"),
    "E501": (ERROR, "the table cannot be played (seats, wall, deal, dice, payments …)"),
    "W101": (WARNING, "a pattern identical to an earlier one: a hand is read as one pattern, so their fans never combine"),
    "W102": (WARNING, "a meld that no pattern uses"),
    "W201": (WARNING, "a condition that can never hold, so its rule never applies"),
    "W202": (WARNING, "a multiplier x1, which changes nothing"),
    "W203": (WARNING, "a multiplier x0, which makes the score it applies to 0"),
    "W204": (WARNING, "a formula or factor that can be negative"),
    "W301": (WARNING, "an override that changes nothing"),
    "W302": (WARNING, "an option choice identical to the option's default choice"),
    "W303": (WARNING, "an override an option's choice replaces (options apply after every file)"),
}

_PHASE_CODES = {"file": "E001", "syntax": "E101", "declaration": "E201", "resolve": "E301", "check": "E401",
                "table": "E501"}
_MAX_ATOMS = 10  # a condition testing more yes/no atoms than this is not searched (2**10 cases)
_INF = float("inf")
_MAX_COUNT_TRIED = 1000  # W204: a 精 formula is tried at every count up to this (else bounded by intervals)
_NOQA = re.compile(r"#\s*noqa(?::\s*([A-Z]\d+(?:[\s,]+[A-Z]\d+)*))?", re.IGNORECASE)


class _Span(NamedTuple):
    line: int
    start: int  # column of the first character
    end: int  # column after the last


@dataclass
class Diagnostic:
    """One finding: ``code`` (:data:`CODES`), severity, message, and its place in ``file`` from
    ``line:column`` to ``end_line:end_column`` (1-based; the end is exclusive)."""

    code: str
    severity: str
    message: str
    file: str
    line: int
    column: int
    end_line: int
    end_column: int
    hint: str | None = None
    related: list[tuple[str, Location]] = field(default_factory=list)
    error: RuleError | None = None  # the compiler's error, for its full rendering

    def concise(self) -> str:
        """``file:line:col: CODE message`` (ruff's concise format)."""
        return f"{self.file}:{self.line}:{self.column}: {self.code} {self.message}"

    def to_json(self) -> dict[str, Any]:
        """The finding as a JSON-ready dict (``mjrules check --json``)."""
        return {"code": self.code, "severity": self.severity, "message": self.message, "file": self.file,
                "line": self.line, "column": self.column, "end": {"line": self.end_line, "column": self.end_column},
                "hint": self.hint, "notes": [{"note": w, "at": str(loc)} for w, loc in self.related]}


@dataclass
class Selection:
    """Which warning codes are reported: ``select`` (default: all), plus ``extend_select``,
    minus ``ignore``; each entry is a code or a prefix of codes (``W2``, ``W``). Errors are
    always reported."""

    select: list[str] | None = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)

    def valid(self) -> bool:
        """Whether every selector matches some code."""
        return all(any(code.startswith(sel.upper()) for code in CODES)
                   for sel in [*(self.select or []), *self.extend_select, *self.ignore])

    def wants(self, code: str) -> bool:
        """Whether ``code`` is reported."""
        if CODES[code][0] == ERROR:
            return True
        chosen = any(code.startswith(s.upper()) for s in (self.select if self.select is not None else ["W"]))
        chosen = chosen or any(code.startswith(s.upper()) for s in self.extend_select)
        return chosen and not any(code.startswith(s.upper()) for s in self.ignore)


def lint_file(path: str | Path, options: dict[str, str] | None = None, selection: Selection | None = None) -> list[Diagnostic]:
    """Every error and selected warning of the rule file at ``path``, in file order.

    Raises :class:`~engine.errors.OptionError` for an ``options`` name or choice the file does
    not declare (a fault of the caller's flag, not of the file)."""
    path = Path(path)
    try:
        text = read_rule_file(path)
    except RuleError as exc:
        return [from_error(exc, str(path))]
    return lint_text(text, str(path), options, path.parent, selection)


def lint_text(text: str, file: str = "<text>", options: dict[str, str] | None = None,
              base_dir: Path | None = None, selection: Selection | None = None) -> list[Diagnostic]:
    """:func:`lint_file` on rule text (``extends`` resolves relative to ``base_dir``)."""
    checked = check_text(text, file, options, base_dir)
    return diagnose(checked, file, selection)


def diagnose(checked: Checked, file: str, selection: Selection | None = None) -> list[Diagnostic]:
    """The diagnostics of a :func:`~engine.lang.compiler.check_text` result: its errors, then (if
    it has none) the selected warnings not suppressed by ``# noqa``, in file order."""
    selection = selection or Selection()
    text = checked.parsed.text
    out = [from_error(e, file, text) for e in checked.errors]
    if checked.ruleset is not None:
        found = _Linter(checked, file).run()
        rows = text.split("\n")
        out += [d for d in found if selection.wants(d.code) and not _suppressed(d, rows)]
    out.sort(key=lambda d: (d.file != file, d.line, d.column, d.code))
    return out


def _suppressed(d: Diagnostic, rows: list[str]) -> bool:
    if not 1 <= d.line <= len(rows):
        return False
    m = _NOQA.search(rows[d.line - 1])
    if not m:
        return False
    return m.group(1) is None or d.code in {c.upper() for c in re.split(r"[\s,]+", m.group(1)) if c}


def from_error(exc: RuleError, file: str, text: str = "") -> Diagnostic:
    """A compiler error as a :class:`Diagnostic` (its code from the phase that found it)."""
    code = _PHASE_CODES.get(getattr(exc, "phase", ""), "E001" if exc.source_text == "" else "E301")
    loc = exc.location or Location(file, 1, 1)
    src = exc.source_text if exc.source_text else (text if loc.file == file else None)
    end_line, end_col = _token_end(src, loc.line, loc.column)
    return Diagnostic(code, ERROR, exc.message, loc.file, loc.line, loc.column, end_line, end_col, exc.hint,
                      list(exc.related), exc)


def _token_end(text: str | None, line: int, column: int) -> tuple[int, int]:
    """The end (exclusive) of the word or symbol at ``line:column`` of ``text``."""
    rows = (text or "").split("\n")
    if not 1 <= line <= len(rows):
        return line, column + 1
    row = rows[line - 1]
    m = re.compile(r"\w+|\S").match(row, column - 1)
    return line, (m.end() + 1) if m else column + 1


def _same(a: Model, b: Model) -> bool:
    """Two declarations mean the same (where they were written aside)."""
    return a.model_dump(exclude={"origin"}) == b.model_dump(exclude={"origin"})


class _Linter:
    """The warning checks over one compiled file (see :data:`CODES`)."""

    def __init__(self, checked: Checked, file: str):
        assert checked.ruleset is not None  # diagnose lints only a file that compiled
        self.rs: Ruleset = checked.ruleset
        self.checked, self.file = checked, file
        self.rows = checked.parsed.text.split("\n")
        self.found: list[Diagnostic] = []

    def run(self) -> list[Diagnostic]:
        self.patterns()
        self.melds()
        self.conditions()
        self.multipliers()
        self.formulas()
        self.overrides()
        self.options()
        self.replaced()
        return self.found

    # -- helpers
    def mine(self, decl: Decl) -> bool:
        return decl.origin is not None and decl.origin.file == self.file

    def warn(self, code: str, message: str, line: int, column: int, end: tuple[int, int] | None = None,
             hint: str | None = None, related: list[tuple[str, Location]] | None = None) -> None:
        end_line, end_col = end or (line, self._line_end(line, column))
        self.found.append(Diagnostic(code, WARNING, message, self.file, line, column, end_line, end_col, hint,
                                     related or []))

    def _line_end(self, line: int, column: int) -> int:
        """The end of the statement's text on ``line`` (before a comment, trailing space cut)."""
        row = self.rows[line - 1] if 1 <= line <= len(self.rows) else ""
        code = strip_comment(row).rstrip()
        return max(len(code) + 1, column + 1)

    def at_decl(self, code: str, decl: Decl, message: str, hint: str | None = None,
                related: list[tuple[str, Location]] | None = None) -> None:
        self.warn(code, message, decl.origin.line, decl.origin.column, hint=hint, related=related)

    def find(self, decl: Decl, pattern: str) -> _Span | None:
        """``(line, start column, end column)`` of the first match of ``pattern`` in the
        declaration's line, searched from its start; None when not on that line."""
        line = decl.origin.line
        row = self.rows[line - 1] if 1 <= line <= len(self.rows) else ""
        code = strip_comment(row)
        m = re.compile(pattern).search(code, decl.origin.column - 1)
        return _Span(line, m.start() + 1, m.end() + 1) if m else None

    # -- W101: a pattern identical to an earlier one; W102: a meld no pattern uses
    def _allowed(self, names: list[str]) -> frozenset[str]:
        return frozenset(m.name for m in self.rs.melds.values() if m.meld_kind != "pair"
                         and (not names or m.name in names or m.meld_kind in names))

    def _shape(self, p: Pattern) -> tuple[object, ...]:
        comps = sorted((c.type, c.count, c.gap, tuple(sorted(self._allowed(c.of))) if c.type == "sets" else ())
                       for c in p.components)
        return (tuple(comps), p.concealed, p.honours_natural, p.min_honours, p.quads_as_pairs,
                frozenset(p.one_of), frozenset(p.one_of_plus), frozenset(p.only))

    def patterns(self) -> None:
        first: dict[tuple[object, ...], Pattern] = {}
        for p in self.rs.patterns.values():
            key = self._shape(p)
            if key in first and self.mine(p):
                q = first[key]
                fans = [f.name for f in self.rs.fans.values() if _names_pattern(f.when, p.name)]
                also = f"; fan {', '.join(fans)} applies only when the hand is read as {p.name}" if fans else ""
                self.at_decl("W101", p, f"pattern {p.name} matches exactly the hands pattern {q.name} matches: a hand "
                             f"is scored as one of them (the one that pays more, {q.name} on a tie){also}",
                             hint=f"if {p.name} is {q.name} under another name, use `pattern {q.name}` in its fans",
                             related=[(f"pattern {q.name} is declared here",
                                       Location(q.origin.file, q.origin.line, q.origin.column))])
            first.setdefault(key, p)

    def melds(self) -> None:
        used: set[str] = set()
        pairs = False
        for p in self.rs.patterns.values():
            for c in p.components:
                if c.type == "sets":
                    used |= self._allowed(c.of)
                elif c.type in ("pair", "pairs"):
                    pairs = True
        for m in self.rs.melds.values():
            if not self.mine(m) or m.name in used or (m.meld_kind == "pair" and pairs):
                continue
            self.at_decl("W102", m, f"meld {m.name} is in no pattern, so no winning hand uses it",
                         hint=f"add it to a pattern (`sets 4 of …/{m.name}`), or remove it")

    # -- W201: a condition that can never hold
    def conditions(self) -> None:
        rules: list[tuple[Decl, str, Expr]] = []
        rules += [(f, "fan", f.when) for f in self.rs.fans.values()]
        rules += [(p, "payment", p.when) for p in self.rs.payments.values() if isinstance(p, Payment)]
        rules += [(f, "factor", f.when) for f in self.rs.factors.values() if f.when is not None]
        rules += [(j, "jing", j.when) for j in self.rs.jing.values() if isinstance(j, (JingMultiplier, JingFormula))]
        for decl, kind, when in rules:
            if not self.mine(decl) or satisfiable(when) is not False:
                continue
            span = self.find(decl, r"\bwhen\b")
            where = {"line": span.line, "column": span.end + 1} if span else {"line": decl.origin.line,
                                                                             "column": decl.origin.column}
            end = None
            if span:
                stop = self.find(decl, r"\binstead\s+of\b")
                end = (span.line, stop.start - 1) if stop and stop.start > span.end else None
            self.warn("W201", f"the condition of {kind} {decl.name} can never hold, so the {kind} never applies",
                      where["line"], where["column"], end,
                      hint="a win is made one way (discard, self-draw, kong draw, robbed kong), "
                           "one seat is the dealer, and a hand is read as one pattern")

    # -- W202, W203: x1 and x0
    def multipliers(self) -> None:
        for d in [*self.rs.fans.values(), *self.rs.jing.values()]:
            if not self.mine(d):
                continue
            factor = d.multiplier if isinstance(d, Fan) else getattr(d, "factor", None) if isinstance(d, JingMultiplier) else None
            if factor not in (0, 1):
                continue
            span = self.find(d, r"(?<!\w)[x×]" + str(factor) + r"(?!\d)")
            if span is None:  # a fan without a written multiplier is x1 by default
                continue
            if factor == 1:
                self.warn("W202", f"{d.kind} {d.name}: x1 multiplies by 1 and changes nothing", span.line, span.start,
                          (span.line, span.end), hint="drop it (a fan with only `+N` adders needs no multiplier)"
                          if isinstance(d, Fan) and d.adders else "drop the rule, or give the multiplier it means")
            else:
                self.warn("W203", f"{d.kind} {d.name}: x0 makes the score it applies to 0", span.line, span.start,
                          (span.line, span.end), hint="to drop a rule, write `remove " + d.kind + " " + d.name + "`")

    # -- W204: a formula that can be negative
    def formulas(self) -> None:
        for d in [*self.rs.jing.values(), *self.rs.factors.values()]:
            if not self.mine(d):
                continue
            if isinstance(d, JingFormula):
                expr = d.score
            elif isinstance(d, Factor):
                expr = d.value
            else:
                continue
            bounds = _bounds(d.when)
            low = self._least_jing_score(d) if isinstance(d, JingFormula) else None
            if low is None:
                low, _ = _interval(expr, bounds)
            if low < 0:
                least = "no least value" if low == -_INF else f"a value as low as {int(low)}"
                span = self.find(d, r"\bscore\s+" if isinstance(d, JingFormula) else r"=\s*")
                line, col = (span.line, span.end) if span else (d.origin.line, d.origin.column)
                self.warn("W204", f"{d.kind} {d.name}: the formula can be negative ({least}), which would "
                          "turn who pays around", line, col,
                          hint="bound it with its `when` condition (e.g. `when n >= 5`)")

    def _least_jing_score(self, d: JingFormula) -> float | None:
        """The least value a 精 formula takes on the counts its condition lets through, tried at
        every n a seat can have (n counts the tiles of two kinds: at most the most copies of a
        kind × (正 + 副 value)), with and without 霸王; None when the formula or its condition
        tests another fact (then the interval bound of :func:`_interval` stands) or the ruleset
        gives 精 no value (a count of 0)."""
        facts = _fact_names(d.score) | (_fact_names(d.when) if d.when is not None else set())
        values = self.rs.jing_rules("value")
        if not facts <= {"n", "sole_holder"} or not values:
            return None
        groups: list[Suit | Honours] = [*self.rs.suits.values(), *self.rs.honours.values()]
        copies = max((g.copies for g in groups), default=0)
        top = copies * (values[0].main + values[0].next)
        if top > _MAX_COUNT_TRIED:
            return None
        when = compile_expr(d.when) if d.when is not None else None
        score = compile_expr(d.score)
        lows = [score(env, None) for n in range(1, top + 1) for sole in (False, True)
                for env in ({"n": n, "sole_holder": sole},) if when is None or when(env, None)]
        return min(lows, default=0)

    # -- W301: an override that changes nothing
    def overrides(self) -> None:
        for st in self.checked.parsed.stmts:
            e = self.checked.entries.get(st.path)
            if st.op != "override" or e is None or e.stmt is not st or e.replaced is None or st.decl is None:
                continue
            if _same(e.replaced, st.decl):
                old = e.replaced.origin
                self.warn("W301", f"override of {st.path} changes nothing: it restates the rule it replaces",
                          st.location.line, st.location.column, hint="drop the override",
                          related=[(f"{st.path} is declared here", Location(old.file, old.line, old.column))]
                          if old else [])

    # -- W303: an override an option's choice replaces
    def replaced(self) -> None:
        own = {id(st) for st in self.checked.parsed.stmts}
        for st in self.checked.parsed.stmts:
            e = self.checked.entries.get(st.path)
            # a parent's statement comes before this file's: one that won over this file's came after
            # every file, from an option's choice (a later statement of this file is another matter)
            if st.op != "override" or e is None or e.stmt is st or id(e.stmt) in own:
                continue
            at = e.stmt.location
            self.warn("W303", f"override of {st.path} changes nothing: an option's choice replaces it "
                              "(options apply after every file)", st.location.line, st.location.column,
                      hint="drop the override, or set the option to the choice that says what you mean",
                      related=[(f"{st.path} is set by an option's choice here", Location(at.file, at.line, at.column))])

    # -- W302: an option choice identical to its default
    def options(self) -> None:
        for opt in self.checked.parsed.options:
            default = _choice_key(opt.choices.get(opt.default, []))
            for value, stmts in opt.choices.items():
                if value == opt.default or _choice_key(stmts) != default:
                    continue
                line, col = self._choice_place(opt, value)
                self.warn("W302", f"option {opt.name}: choice {value!r} does the same as the default {opt.default!r}",
                          line, col, hint="drop the choice, or give it the statements it means")

    def _choice_place(self, opt: OptionStmt, value: str) -> tuple[int, int]:
        pat = re.compile(r"(?:^|[{\s])(\"?" + re.escape(value) + r"\"?)\s*:\s*\{")
        for no in range(opt.location.line, len(self.rows) + 1):
            m = pat.search(strip_comment(self.rows[no - 1]))
            if m and (no > opt.location.line or m.start(1) > opt.location.column):
                return no, m.start(1) + 1
        return opt.location.line, opt.location.column


def _choice_key(stmts: Iterable[Stmt]) -> list[tuple[str, str, str, str]]:
    return sorted((st.op, st.kind, st.name, repr(st.decl.model_dump(exclude={"origin"})) if st.decl else "")
                  for st in stmts)


def _names_pattern(expr: Expr, name: str) -> bool:
    return any(isinstance(n, PatternIs) and n.pattern == name for n in _walk(expr))


def _walk(expr: Expr) -> Iterator[Expr]:
    stack = [expr]
    while stack:
        n = stack.pop()
        yield n
        if isinstance(n, (Not, Neg)):
            stack.append(n.arg)
        elif isinstance(n, BoolOp):
            stack.extend(n.args)
        elif isinstance(n, (Cmp, BinOp)):
            stack.extend((n.left, n.right))


# ---- satisfiability of a condition ---------------------------------------------------------------

_KIND_OF = {fact: kind for kind, values in F.KINDS.items() for facts in values.values() for fact in facts}


def satisfiable(expr: Expr) -> bool | None:
    """Whether some win makes ``expr`` true: every value of each fact kind it tests
    (:data:`engine.lang.facts.KINDS`, with :data:`~engine.lang.facts.REQUIRES`), each pattern
    it names or another one, and both values of every other atom (another fact, a comparison:
    the same text is the same atom). None when it has more than ``_MAX_ATOMS`` free atoms."""
    kinds: set[str] = set()
    patterns: list[str] = []
    atoms: list[str] = []
    for n in _bool_leaves(expr):
        if isinstance(n, Var) and n.name in _KIND_OF:
            kinds.add(_KIND_OF[n.name])
            if n.name in F.REQUIRES:
                kinds.add(_KIND_OF[F.REQUIRES[n.name]])
        elif isinstance(n, PatternIs):
            if n.pattern not in patterns:
                patterns.append(n.pattern)
        elif not isinstance(n, Num) and _atom(n) not in atoms:
            atoms.append(_atom(n))
    if len(atoms) > _MAX_ATOMS:
        return None
    for choice in itertools.product(*(list(F.KINDS[k].values()) for k in sorted(kinds))):
        true_facts = frozenset[str]().union(*choice)
        if any(F.REQUIRES.get(f, f) not in true_facts for f in true_facts):
            continue
        for reading in [*patterns, None]:
            for bits in itertools.product((False, True), repeat=len(atoms)):
                if _truth(expr, true_facts, reading, dict(zip(atoms, bits))):
                    return True
    return False


def _bool_leaves(expr: Expr) -> Iterator[Expr]:
    """The leaves of a condition's and/or/not structure (facts, patterns, comparisons …)."""
    stack = [expr]
    while stack:
        n = stack.pop()
        if isinstance(n, BoolOp):
            stack.extend(n.args)
        elif isinstance(n, Not):
            stack.append(n.arg)
        else:
            yield n


def _atom(n: Expr) -> str:
    return n.name if isinstance(n, Var) else repr(n.model_dump())


def _truth(expr: Expr, true_facts: frozenset[str], reading: str | None, atoms: dict[str, bool]) -> bool:
    if isinstance(expr, BoolOp):
        vals = (_truth(a, true_facts, reading, atoms) for a in expr.args)
        return all(vals) if expr.op == "and" else any(vals)
    if isinstance(expr, Not):
        return not _truth(expr.arg, true_facts, reading, atoms)
    if isinstance(expr, PatternIs):
        return expr.pattern == reading
    if isinstance(expr, Var) and expr.name in _KIND_OF:
        return expr.name in true_facts
    if isinstance(expr, Num):
        return expr.value != 0
    return atoms[_atom(expr)]


# ---- the range of a formula ------------------------------------------------------------------------


_FLIPPED: dict[CmpOp, CmpOp] = {">=": "<=", "<=": ">=", ">": "<", "<": ">"}  # `5 <= n` is `n >= 5`


def _bounds(when: Expr | None) -> dict[str, tuple[float, float]]:
    """Ranges of the count facts that ``when`` (a conjunction) narrows: ``n >= 5`` → n ∈ [5, ∞)."""
    out: dict[str, tuple[float, float]] = {}
    if when is None:
        return out
    conj = when.args if isinstance(when, BoolOp) and when.op == "and" else [when]
    for c in conj:
        if not isinstance(c, Cmp):
            continue
        left, right, op = c.left, c.right, c.op
        if isinstance(left, Num) and isinstance(right, Var):
            left, right, op = right, left, _FLIPPED.get(op, op)
        if not (isinstance(left, Var) and isinstance(right, Num)):
            continue
        lo, hi = out.get(left.name, _fact_range(left.name))
        v = right.value
        if op == ">=":
            lo = max(lo, v)
        elif op == ">":
            lo = max(lo, v + 1)
        elif op == "<=":
            hi = min(hi, v)
        elif op == "<":
            hi = min(hi, v - 1)
        elif op == "==":
            lo, hi = max(lo, v), min(hi, v)
        out[left.name] = (lo, hi)
    return out


def _fact_names(expr: Expr) -> set[str]:
    """The facts an expression names."""
    return {n.name for n in _walk(expr) if isinstance(n, Var)}


def _fact_range(name: str) -> tuple[float, float]:
    return (F.COUNTS[name], _INF) if name in F.COUNTS else (0, 1)


def _interval(expr: Expr, bounds: dict[str, tuple[float, float]]) -> tuple[float, float]:
    """Least and greatest value of an integer expression, the facts within ``bounds``."""
    if isinstance(expr, Num):
        return expr.value, expr.value
    if isinstance(expr, Var):
        return bounds.get(expr.name, _fact_range(expr.name))
    if isinstance(expr, Neg):
        lo, hi = _interval(expr.arg, bounds)
        return -hi, -lo
    if isinstance(expr, BinOp):
        a, b = _interval(expr.left, bounds), _interval(expr.right, bounds)
        if expr.op == "+":
            return a[0] + b[0], a[1] + b[1]
        if expr.op == "-":
            return a[0] - b[1], a[1] - b[0]
        if expr.op == "*":
            prods = [_mul(x, y) for x in a for y in b]
            return min(prods), max(prods)
        if a[0] >= 0 and b[0] >= 0:  # `/` divides down; by zero gives 0
            return 0, a[1]
        return -_INF, _INF
    return 0, 1  # a condition used as a number: 0 or 1


def _mul(x: float, y: float) -> float:
    return 0 if x == 0 or y == 0 else x * y
