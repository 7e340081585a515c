"""Rule file → :class:`~engine.lang.ruleset.Ruleset`: parse with Lark, resolve ``extends``,
``override``, ``remove`` and ``option``, then check every name a declaration refers to.

The only module that knows the grammar (``grammar/mjrules.lark``). Errors are
:class:`~engine.errors.RuleError` with ``file:line:col``, the source line and a hint.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

from engine.lang.parsergen import parser_module

from engine.lang import facts as F
from engine.lang import flow as FLOW
from engine.errors import Location, OptionError, RuleError, did_you_mean
from engine.lang import limits as L
from engine.lang.playable import check_playable
from engine.lang.resources import is_bundled_ref, resolve_ruleset_path
from engine.lang.ruleset import (
    Adder,
    Base,
    BinOp,
    BoolOp,
    Cmp,
    Component,
    Exhaustive,
    Factor,
    Fan,
    Fixed,
    Flow,
    Honours,
    HonourTile,
    Indicator,
    JingFormula,
    JingKong,
    JingKongBonus,
    JingLiability,
    JingAdder,
    JingDiscarded,
    JingMultiplier,
    JingValue,
    Meld,
    Neg,
    Not,
    Num,
    OptionInfo,
    Origin,
    Pattern,
    PatternIs,
    Payment,
    Position,
    Ruleset,
    Shape,
    Suit,
    TableParam,
    Var,
)

# the pre-built standalone Lark parser (engine/lang/parsergen.py): its own Token, Tree, … classes
_P = parser_module()
Lark, Token, Transformer, Tree, v_args = _P.Lark, _P.Token, _P.Transformer, _P.Tree, _P.v_args
UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError = (
    _P.UnexpectedCharacters, _P.UnexpectedEOF, _P.UnexpectedInput, _P.UnexpectedToken, _P.VisitError)

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


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The LALR parser for the rule language (positions kept for errors), loaded from the
    pre-built standalone module rather than built from ``grammar_text()`` at each start."""
    return _P.Lark_StandAlone(propagate_positions=True,
                              lexer_callbacks={"INT": _check_int, "MULT": _check_mult, "NAME": _check_name,
                                               "RULESET_NAME": _check_name, "STRING": _check_string})


class _TokenTooBig(Exception):
    """Raised by the lexer (before the parser does any work with it) for a token past a limit."""

    def __init__(self, message: str, token: Token, hint: str | None = None):
        super().__init__(message)
        self.message, self.token, self.hint = message, token, hint


def _check_int(tok: Token) -> Token:
    # the length check comes first: int() of a huge digit string is itself slow (and refused)
    if len(tok) > len(str(L.MAX_NUMBER)) or int(tok) > L.MAX_NUMBER:
        raise _TokenTooBig(f"number {_clip(str(tok))} is too large (at most {L.MAX_NUMBER})", tok,
                           hint="numbers in a rule file are small: see Limits in docs/language.md")
    return tok


def _check_mult(tok: Token) -> Token:
    digits = str(tok)[1:]
    if len(digits) > len(str(L.MAX_MULTIPLIER)) or int(digits) > L.MAX_MULTIPLIER:
        raise _TokenTooBig(f"multiplier {_clip(str(tok))} is too large (at most x{L.MAX_MULTIPLIER})", tok,
                           hint="numbers in a rule file are small: see Limits in docs/language.md")
    return tok


def _check_name(tok: Token) -> Token:
    if len(tok) > L.MAX_NAME_CHARS:
        raise _TokenTooBig(f"name {str(tok)[:12]}… is {len(tok)} characters long (at most {L.MAX_NAME_CHARS})",
                           tok)
    return tok


def _check_string(tok: Token) -> Token:
    if len(tok) - 2 > L.MAX_STRING_CHARS:
        raise _TokenTooBig(f"string {str(tok)[:12]}… is {len(tok) - 2} characters long (at most {L.MAX_STRING_CHARS})",
                           tok)
    return tok


def _clip(text: str, keep: int = 12) -> str:
    """A long number shortened for a message: its start, ``…`` and its count of digits."""
    return text if len(text) <= keep else f"{text[:keep]}… ({len(text)} digits)"


def _in_range(what: str, tok: Token, low: int, high: int, file: str) -> int:
    """``tok`` as an int within ``low..high``, else a RuleError at the token."""
    v = int(str(tok).lstrip("x×"))
    if not low <= v <= high:
        raise RuleError(f"{what} {v} is out of range ({low}..{high})",
                        Location(file, tok.line, tok.column))
    return v


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
    decl: Any
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
    unparsed: set[str] = field(default_factory=set)  # KIND.NAME of statements with a syntax error


def _s(tok: Token) -> str:
    text = str(tok)
    return text[1:-1] if text.startswith('"') else text


def _value(tok: Token) -> str | int:
    if tok.type == "INT":
        return int(tok)
    return _s(tok)


@v_args(meta=True)
class _Build(Transformer):
    """Lark tree → statements. Methods are named after the grammar rules."""

    def __init__(self, file: str):
        super().__init__()
        self.file = file
        self.refs: list[Ref] = []  # collected while building one declaration

    def loc(self, meta_or_tok) -> Location:
        return Location(self.file, getattr(meta_or_tok, "line", 1), getattr(meta_or_tok, "column", 1))

    def origin(self, meta) -> Origin:
        return Origin(file=self.file, line=meta.line, column=meta.column)

    def _int(self, what: str, tok: Token, low: int, high: int) -> int:
        return _in_range(what, tok, low, high, self.file)

    def take_refs(self) -> list[Ref]:
        refs, self.refs = self.refs, []
        return refs

    def _ref(self, what: str, tok: Token, context: str | None = None) -> None:
        self.refs.append(Ref(what, str(tok), self.loc(tok), context))

    def _stmt(self, meta, kind: str, name: Token, decl: Any) -> Stmt:
        return Stmt("declare", kind, str(name), decl, self.loc(meta), self.take_refs())

    # -- file structure
    def start(self, meta, items):
        return items

    def header(self, meta, c):
        return ("header", str(c[0]), _s(c[1]) if len(c) > 1 else None)

    def extends(self, meta, c):
        return ("extends", _s(c[0]), self.loc(c[0]))

    def source(self, meta, c):
        return ("source", _s(c[0]))

    def override(self, meta, c):
        st: Stmt = c[0]
        st.op = "override"
        st.location = self.loc(meta)
        st.decl = st.decl.model_copy(update={"origin": self.origin(meta)})
        return st

    def remove(self, meta, c):
        kind, name = str(c[0]), str(c[1])
        return Stmt("remove", kind, name, None, self.loc(meta))

    def option(self, meta, c):
        name = str(c[0])
        rest = list(c[1:])
        toks = [x for x in rest if isinstance(x, Token)]
        label = _s(toks[0]) if len(toks) == 2 else None
        default = str(_value(toks[-1]))
        choices: dict[str, list] = {}
        where: dict[str, Location] = {}
        for value, stmts, loc in (x for x in rest if isinstance(x, tuple)):
            if value in choices:
                raise RuleError(f"option {name}: choice {value!r} is given twice", loc,
                                related=[("first given here", where[value])])
            choices[value], where[value] = stmts, loc
        return OptionStmt(name, label, default, choices, self.loc(meta), self.loc(toks[-1]))

    def choice(self, meta, c):
        return (str(_value(c[0])), list(c[1:]), self.loc(c[0]))

    # -- tiles
    def suit(self, meta, c):
        name = c[0]
        rest = list(c[1:])
        label = _s(rest.pop(0)) if rest[0].type == "STRING" else None
        low, high = (self._int(f"suit {name}: rank", t, 0, L.MAX_RANK) for t in rest[:2])
        cyclic = any(x == "cyclic" for x in rest[2:])
        copies = next(x[1] for x in rest[2:] if isinstance(x, tuple))
        if low > high:
            raise RuleError(f"suit {name}: ranks {low}..{high} is empty", self.loc(rest[0]),
                            hint=f"write ranks {high}..{low}")
        if high - low + 1 > L.MAX_RANKS:
            raise RuleError(f"suit {name}: {high - low + 1} ranks; a suit has at most {L.MAX_RANKS}",
                            self.loc(rest[1]))
        decl = Suit(name=str(name), label=label, low=low, high=high, cyclic=cyclic, copies=copies,
                    origin=self.origin(meta))
        return self._stmt(meta, "suit", name, decl)

    def honours(self, meta, c):
        name = c[0]
        rest = list(c[1:])
        label = _s(rest.pop(0)) if isinstance(rest[0], Token) and rest[0].type == "STRING" else None
        tiles = [x for x in rest if isinstance(x, HonourTile)]
        if len(tiles) > L.MAX_RANKS:
            raise RuleError(f"honours {name}: {len(tiles)} tiles; a group has at most {L.MAX_RANKS}", self.loc(meta))
        cyclic = any(x == "cyclic" for x in rest)
        copies = next(x[1] for x in rest if isinstance(x, tuple))
        decl = Honours(name=str(name), label=label, tiles=tiles, cyclic=cyclic, copies=copies,
                       origin=self.origin(meta))
        return self._stmt(meta, "honours", name, decl)

    def honour_tile(self, meta, c):
        return HonourTile(name=str(c[0]), code=_s(c[1]) if len(c) > 1 else None)

    def cyclic(self, meta, c):
        return "cyclic"

    def copies(self, meta, c):
        return ("copies", self._int("copies", c[0], 1, L.MAX_COPIES))

    def table(self, meta, c):
        values = [self._int(f"table {c[0]}: number", v, 0, L.MAX_TABLE_NUMBER) if v.type == "INT" else _value(v)
                  for v in c[1:]]
        decl = TableParam(name=str(c[0]), values=values, origin=self.origin(meta))
        return self._stmt(meta, "table", c[0], decl)

    # -- melds, patterns
    def meld(self, meta, c):
        decl = Meld(name=str(c[0]), meld_kind=str(c[1]), shapes=list(c[2:]), origin=self.origin(meta))
        return self._stmt(meta, "meld", c[0], decl)

    def groups(self, meta, c):
        for tok in c:
            self._ref(REF_GROUP, tok)
        return [str(t) for t in c]

    def run(self, meta, c):
        return Shape(type="run", size=self._int("run", c[0], 1, L.MAX_SET_TILES), groups=c[1])

    def distinct(self, meta, c):
        return Shape(type="distinct", size=self._int("distinct", c[0], 1, L.MAX_SET_TILES), groups=c[1])

    def same(self, meta, c):
        return Shape(type="same", size=self._int("same", c[0], 1, L.MAX_SET_TILES), declared=len(c) > 1)

    def pattern(self, meta, c):
        comps = [x for x in c[1:] if isinstance(x, Component)]
        flags: dict[str, Any] = {}
        for x in c[1:]:
            if isinstance(x, tuple) and x[0] == "one_of":
                flags["one_of"], flags["one_of_plus"] = x[1]
            elif isinstance(x, tuple):
                flags[x[0]] = x[1]
        decl = Pattern(name=str(c[0]), components=comps, origin=self.origin(meta), **flags)
        return self._stmt(meta, "pattern", c[0], decl)

    def sets(self, meta, c):
        for tok in c[1:]:
            self._ref(REF_MELD_OR_KIND, tok)
        return Component(type="sets", count=self._int("sets", c[0], 0, L.MAX_HAND_TILES), of=[str(t) for t in c[1:]])

    def pair(self, meta, c):
        return Component(type="pair", count=1)

    def pairs(self, meta, c):
        return Component(type="pairs", count=self._int("pairs", c[0], 1, L.MAX_HAND_TILES))

    def rotten(self, meta, c):
        return Component(type="rotten", count=1, gap=self._int("rotten gap", c[0], 1, L.MAX_RANKS))

    def concealed(self, meta, c):
        return ("concealed", True)

    def honours_natural(self, meta, c):
        return ("honours_natural", True)

    def min_honours(self, meta, c):
        return ("min_honours", self._int("honours >=", c[0], 0, L.MAX_HAND_TILES))

    def quads_as_pairs(self, meta, c):
        return ("quads_as_pairs", True)

    def one_of(self, meta, c):
        return ("one_of", (c[0], c[1] if len(c) > 1 else []))

    def only(self, meta, c):
        return ("only", c[0])

    # -- indicators
    def indicator(self, meta, c):
        name = c[0]
        rest = list(c[1:])
        label = _s(rest.pop(0)) if isinstance(rest[0], Token) else None
        pos: Position = rest.pop(0)
        attrs: dict[str, Any] = {}
        for a in rest:
            attrs.update(a)
        decl = Indicator(name=str(name), label=label, position=pos, origin=self.origin(meta), **attrs)
        return self._stmt(meta, "indicator", name, decl)

    def pos_stack_top(self, meta, c):
        return Position(type="stack_top", end=str(c[0]))

    def _pos(self, type_, c):
        self._ref(REF_INDICATOR, c[0])
        return Position(type=type_, ref=str(c[0]))

    def pos_under(self, meta, c):
        return self._pos("under", c)

    def pos_left(self, meta, c):
        return self._pos("left", c)

    def pos_right(self, meta, c):
        return self._pos("right", c)

    def pos_previous(self, meta, c):
        return self._pos("previous", c)

    def wild(self, meta, c):
        return {"wild": True}

    def hidden(self, meta, c):
        return {"hidden": True}

    def settle(self, meta, c):
        return {"settle": c[0], "with_kongs": len(c) > 1}

    def after_deal(self, meta, c):
        return "after_deal"

    def at_end(self, meta, c):
        return "at_end"

    # -- 精
    def jing(self, meta, c):
        name, body = c
        kind_cls, fields = body
        decl = kind_cls(name=str(name), origin=self.origin(meta), **fields)
        return self._stmt(meta, "jing", name, decl)

    def jing_value(self, meta, c):
        ints = [self._int("精 value", t, 0, L.MAX_AMOUNT) for t in c if isinstance(t, Token) and t.type == "INT"]
        return JingValue, {"main": ints[0], "next": ints[1]}

    def jing_kong(self, meta, c):
        ints = [self._int("kong points", t, 0, L.MAX_AMOUNT) for t in c]
        return JingKong, {"concealed": ints[0], "exposed": ints[1], "added": ints[2] if len(ints) > 2 else ints[1]}

    def jing_mult(self, meta, c):
        self._check_expr(c[1], F.JING)
        return JingMultiplier, {"factor": self._int("multiplier", c[0], 0, L.MAX_MULTIPLIER), "when": c[1]}

    def jing_formula(self, meta, c):
        self._check_expr(c[0], F.JING)
        self._check_expr(c[1], F.JING)
        return JingFormula, {"score": c[0], "when": c[1]}

    def jing_kong_bonus(self, meta, c):
        return JingKongBonus, {"amount": self._int("amount", c[0], 0, L.MAX_AMOUNT), "replaces_kong_points": len(c) > 1}

    def jing_liability(self, meta, c):
        self._ref(REF_JING_FORMULA, c[0])
        return JingLiability, {"rule": str(c[0])}

    def jing_add(self, meta, c):
        self._check_expr(c[1], F.JING)
        return JingAdder, {"amount": self._int("amount", c[0], 0, L.MAX_AMOUNT), "when": c[1]}

    def jing_discarded(self, meta, c):
        return JingDiscarded, {}

    # -- win score
    def fan(self, meta, c):
        name = c[0]
        fields: dict[str, Any] = {"multiplier": 1, "adders": [], "fixed": None}
        mults = 0
        for x in c[1:]:
            if isinstance(x, tuple) and x[0] == "mult":
                if mults:
                    raise RuleError(f"fan {name} has two multipliers", x[2], hint="write one, e.g. x4")
                mults += 1
                fields["multiplier"] = x[1]
            elif isinstance(x, Adder):
                fields["adders"].append(x)
            elif isinstance(x, Fixed):
                fields["fixed"] = x
            elif isinstance(x, tuple) and x[0] == "no_win":
                fields["no_win"] = True
            elif isinstance(x, tuple) and x[0] == "instead":
                fields["instead_of_all"] = x[1] == "all"
                fields["instead_of"] = [] if x[1] == "all" else x[1]
                fields["instead_except"] = x[2]
            else:
                self._check_expr(x, F.WIN)
                fields["when"] = x
        if fields.get("no_win") and (mults or fields["adders"] or fields["fixed"]):
            raise RuleError(f"fan {name}: `no win` refuses the win, so it takes no other effect", self.loc(meta),
                            hint=f"write `fan {name} = no win when …` alone, and the scoring in another fan")
        decl = Fan(name=str(name), origin=self.origin(meta), **fields)
        return self._stmt(meta, "fan", name, decl)

    def no_win(self, meta, c):
        return ("no_win", self.loc(meta))

    def mult(self, meta, c):
        return ("mult", self._int("multiplier", c[0], 0, L.MAX_MULTIPLIER), self.loc(c[0]))

    def add(self, meta, c):
        return Adder(amount=self._int("amount", c[0], 0, L.MAX_AMOUNT), payer=str(c[1]), fallback=str(c[2]) if len(c) > 2 else None)

    def fixed(self, meta, c):
        for tok in c[1:]:
            self._ref(REF_FACTOR, tok)
        return Fixed(amount=self._int("amount", c[0], 0, L.MAX_AMOUNT), with_factors=[str(t) for t in c[1:]])

    def instead(self, meta, c):
        names = [t for t in c if t.type != "ALL"]
        for tok in names:
            self._ref(REF_FAN, tok)
        if c[0].type == "ALL":
            return ("instead", "all", [str(t) for t in names])
        return ("instead", [str(t) for t in names], [])

    def payment(self, meta, c):
        name = c[0]
        weights = {}
        paid_by = None
        for w in c[1:-1]:
            if w[0] == "paid_by":
                if w[1] != "discarder":
                    raise RuleError(f"payment {name} is paid by {w[1]}: only `paid by discarder` is a payment "
                                    "scheme (the discarder pays every payer's amount)", w[2],
                                    hint="write `paid by discarder`")
                paid_by = w[1]
                continue
            if w[0] in weights:
                raise RuleError(f"payment {name} names {w[0]} twice", w[2])
            weights[w[0]] = w[1]
        self._check_expr(c[-1], F.WIN)
        decl = Payment(name=str(name), weights=weights, when=c[-1], paid_by=paid_by, origin=self.origin(meta))
        return self._stmt(meta, "payment", name, decl)

    def paid_by(self, meta, c):
        return ("paid_by", str(c[0]), self.loc(c[0]))

    def weight(self, meta, c):
        return (str(c[0]), self._int("multiplier", c[1], 0, L.MAX_MULTIPLIER), self.loc(c[0]))

    def payment_base(self, meta, c):
        if str(c[0]) != "base":
            raise RuleError(f"`payment {c[0]} = {c[1]}` is not a payment", self.loc(c[0]),
                            hint="a number alone is only allowed for `payment base`; a payment "
                                 "names its payers: `payment discard = discarder x2, others x1 when discard`")
        decl = Base(name="base", amount=self._int("payment base", c[1], 0, L.MAX_AMOUNT), origin=self.origin(meta))
        return self._stmt(meta, "payment", c[0], decl)

    def factor(self, meta, c):
        name, value = c[0], c[1]
        cap = None
        if isinstance(value, tuple) and value[0] == "cap":
            cap, value = value[1], Num(value=1)
        scopes = [str(t) for t in c[2:] if isinstance(t, Token) and t.type == "SCOPE"]
        after = any(isinstance(t, Token) and t.type == "AFTER_ADDERS" for t in c[2:])
        when = c[-1] if len(c) > 2 and not isinstance(c[-1], Token) else None
        context = F.TRANSFER if set(scopes) == {"win"} else F.SETTLE
        self._check_expr(value, context)
        if when is not None:
            self._check_expr(when, context)
        decl = Factor(name=str(name), value=value, scopes=scopes, after_adders=after, when=when, cap=cap,
                      origin=self.origin(meta))
        return self._stmt(meta, "factor", name, decl)

    def cap(self, meta, c):
        return ("cap", self._int("cap", c[0], 0, L.MAX_AMOUNT))

    def exhaustive(self, meta, c):
        decl = Exhaustive(name=str(c[0]), payer=str(c[1]), amount=self._int("amount", c[2], 0, L.MAX_AMOUNT), origin=self.origin(meta))
        return self._stmt(meta, "exhaustive", c[0], decl)

    def flow(self, meta, c):
        name, policy = c[0], c[1]
        params: dict[str, list] = {}
        where: dict[str, Location] = {}
        for a in c[2:]:
            if a.key is None:
                raise RuleError(f"flow {name}: name each parameter, e.g. {policy}(key: value)", a.location,
                                hint=_flow_hint(str(policy)))
            key, values, loc = a.key, a.values, a.location
            if key in params:
                raise RuleError(f"flow {name}: parameter {key!r} given twice", loc)
            params[key], where[key] = values, loc
        problem = FLOW.check(str(policy), params)
        if problem:
            message, key = problem
            raise RuleError(f"flow {name}: {message}", where[key] if key else self.loc(policy),
                            hint=did_you_mean(str(policy), FLOW.POLICIES) if str(policy) not in FLOW.POLICIES
                            else _flow_hint(str(policy)))
        decl = Flow(name=str(name), policy=str(policy), params=params, origin=self.origin(meta))
        return self._stmt(meta, "flow", name, decl)

    def flow_kv(self, meta, c):
        return _FlowArg(str(c[0]), c[1].values, self.loc(c[0]))

    def flow_value(self, meta, c):
        return _FlowArg(None, [_value(t) for t in c], self.loc(c[0]))

    # -- expressions
    def or_(self, meta, c):
        return c[0] if len(c) == 1 else BoolOp(op="or", args=c)

    def and_(self, meta, c):
        return c[0] if len(c) == 1 else BoolOp(op="and", args=c)

    def not_(self, meta, c):
        return Not(arg=c[0])

    def cmp(self, meta, c):
        return c[0] if len(c) == 1 else Cmp(op=str(c[1]), left=c[0], right=c[2])

    def binop(self, meta, c):
        return BinOp(op=str(c[1]), left=c[0], right=c[2])

    def neg(self, meta, c):
        return Neg(arg=c[0])

    def num(self, meta, c):
        return Num(value=int(c[0]))

    def var(self, meta, c):
        v = Var(name=str(c[0]))
        self._pending_vars.append((v, self.loc(c[0])))
        return v

    def pattern_is(self, meta, c):
        self._pending_patterns.append(Ref(REF_PATTERN, str(c[0]), self.loc(c[0])))
        return PatternIs(pattern=str(c[0]))

    _pending_vars: list
    _pending_patterns: list

    def _check_expr(self, expr, context: str) -> None:
        """Record the facts and patterns an expression names, for the context it is used in."""
        for v, loc in self._pending_vars:
            self.refs.append(Ref("fact", v.name, loc, context))
        for ref in self._pending_patterns:
            ref.context = context
            self.refs.append(ref)
        self._pending_vars, self._pending_patterns = [], []

    def transform(self, tree):
        self._pending_vars, self._pending_patterns = [], []
        return super().transform(tree)


@dataclass
class _FlowArg:
    key: str | None  # None: a value given without its parameter name
    values: list
    location: Location


def _flow_hint(policy: str) -> str:
    spec = FLOW.POLICIES[policy]
    return f"{policy}(" + ", ".join(
        f"{k}: {'/'.join(p.words) if p.words else 'N'}" for k, p in spec.params.items()) + ")"


# ---- parsing -----------------------------------------------------------------------------

_TERMINAL_WORDS = {
    "NAME": "a name", "RULESET_NAME": "a ruleset name", "INT": "a number", "STRING": 'a "string"',
    "MULT": "a multiplier like x2", "KIND": "a declaration kind (fan, meld, …)", "CMP": "a comparison",
    "PAYER": "a payer (discarder, others, each, dealer)", "SCOPE": "win, jing or exhaustive",
    "MELD_KIND": "chow, pung, kong or pair", "END": "head or tail", "$END": "the end of the file",
    "ADDOP": "`+` or `-`", "MULOP": "`*` or `/`", "ALL": "`all`", "DECLARED": "`declared`",
    "AFTER_ADDERS": "`after adders`", "WITH_KONGS": "`with kongs`", "INSTEAD_KONG": "`instead of kong points`",
    "LBRACE": "`{`", "RBRACE": "`}`", "LPAR": "`(`", "RPAR": "`)`", "EQUAL": "`=`", "COMMA": "`,`",
    "PLUS": "`+`", "MINUS": "`-`", "COLON": "`:`", "VBAR": "`|`", "SLASH": "`/`",
}


def _looks_like(word: str, keyword: str) -> bool:
    import difflib

    return word != keyword and difflib.SequenceMatcher(None, word, keyword).ratio() >= 0.75


def _readable(expected: set[str]) -> str:
    words = []
    for t in sorted(expected):
        if t in _TERMINAL_WORDS:
            words.append(_TERMINAL_WORDS[t])
        elif t.startswith("__ANON") or t.startswith("_"):
            continue
        else:
            words.append(f"`{t.lower()}`")
    words = sorted(set(words))
    if len(words) > 8:
        words = words[:8] + ["…"]
    return ", ".join(words)


_STATEMENT_STARTS = ["ruleset", "extends", "source", "override", "remove", "option", *SECTIONS]


def parse_text(text: str, file: str) -> ParsedFile:
    """Parse one rule file's text (no ``extends`` resolution). Raises :class:`RuleError`."""
    text = text.removeprefix("\ufeff")  # a byte-order mark (Windows editors) is not content
    _check_text(text, file)
    try:
        tree = parser().parse(text)
    except _TokenTooBig as exc:
        raise RuleError(exc.message, Location(file, exc.token.line, exc.token.column), hint=exc.hint,
                        source_text=text) from None
    except UnexpectedInput as exc:
        raise _syntax_error(exc, text, file) from None
    _check_tree(tree, file, text)
    builder = _Build(file)
    try:
        items = builder.transform(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, RuleError):
            exc.orig_exc.source_text = text
            raise exc.orig_exc from None
        raise
    return _parsed_file(items, text, file)


def _parsed_file(items: list, text: str, file: str, errors: list | None = None) -> ParsedFile:
    """The transformed top-level items as a :class:`ParsedFile`. A second ``extends`` raises
    :class:`RuleError`, or is added to ``errors`` (tagged ``resolve``) when a list is given."""
    pf = ParsedFile(file=file, text=text)
    for it in items:
        if isinstance(it, tuple) and it[0] == "header":
            pf.name, pf.label = it[1], it[2]
        elif isinstance(it, tuple) and it[0] == "extends":
            if pf.extends is not None:
                exc = RuleError("a rule file can extend only one parent", it[2], source_text=text)
                if errors is None:
                    raise exc
                errors.append(_tag(exc, "resolve"))
                continue
            pf.extends = (it[1], it[2])
        elif isinstance(it, tuple) and it[0] == "source":
            pf.sources.append(it[1])
        elif isinstance(it, OptionStmt):
            pf.options.append(it)
        else:
            pf.stmts.append(it)
    return pf


def parse_text_collect(text: str, file: str) -> tuple[ParsedFile, list[RuleError]]:
    """Parse one rule file's text, recovering after errors: the text is cut into top-level
    statements (:func:`statement_chunks`), each parsed on its own when the whole does not parse,
    and each statement that parses is built on its own. Returns the statements that were built
    and every error found (each tagged with its ``phase``), in file order; an error of the text
    as a whole (too large, not text, a limit of :func:`_check_tree`) stops there.
    At most :data:`~engine.lang.limits.MAX_ERRORS` syntax errors are collected."""
    text = text.removeprefix("\ufeff")
    errors: list[RuleError] = []
    unparsed: set[str] = set()
    try:
        _check_text(text, file)
    except RuleError as exc:
        return ParsedFile(file=file, text=text), [_tag(exc, "file")]
    try:
        subtrees = list(parser().parse(text).children)
    except (_TokenTooBig, UnexpectedInput):
        subtrees = []
        chunks = statement_chunks(text)
        counted = [c for c in chunks if c[1].split(None, 1)[:1] not in (["ruleset"], ["extends"], ["source"])]
        if len(counted) > L.MAX_DECLARATIONS:  # bound the work: each statement is parsed on its own
            line = counted[L.MAX_DECLARATIONS][0]
            return ParsedFile(file=file, text=text), [_tag(RuleError(
                f"more than {L.MAX_DECLARATIONS} statements in one file", Location(file, line, 1),
                hint="split the rules over files with `extends`", source_text=text), "file")]
        for i, (line, chunk) in enumerate(chunks):
            if len(errors) >= L.MAX_ERRORS:
                break
            padded = "\n" * (line - 1) + chunk
            try:
                tree = parser().parse(padded)
            except _TokenTooBig as exc:
                errors.append(_tag(RuleError(exc.message, Location(file, exc.token.line, exc.token.column),
                                             hint=exc.hint, source_text=text), "syntax"))
                continue
            except UnexpectedInput as exc:
                following = chunks[i + 1] if i + 1 < len(chunks) else None
                errors.append(_tag(_chunk_syntax_error(exc, padded, text, file, following), "syntax"))
                unparsed |= _declared_path(chunk)
                continue
            if i and any(isinstance(t, Tree) and t.data == "header" for t in tree.children):
                errors.append(_tag(RuleError("`ruleset NAME` comes first in a file", Location(file, line, 1),
                                             source_text=text), "syntax"))
                continue
            subtrees.extend(tree.children)
    try:
        _check_tree(Tree("start", subtrees), file, text)
    except RuleError as exc:
        return ParsedFile(file=file, text=text), errors + [_tag(exc, "file")]
    items = []
    for sub in subtrees:
        try:
            items.append(_Build(file).transform(sub) if isinstance(sub, Tree) else sub)
        except VisitError as exc:
            if not isinstance(exc.orig_exc, RuleError):
                raise
            exc.orig_exc.source_text = text
            errors.append(_tag(exc.orig_exc, "declaration"))
    pf = _parsed_file(items, text, file, errors)
    pf.unparsed = unparsed
    errors.sort(key=lambda e: (e.location.line, e.location.column) if e.location else (0, 0))
    return pf, errors


def statement_chunks(text: str) -> list[tuple[int, str]]:
    """The text cut into top-level statements: ``(first line, text)`` pairs. A statement starts
    on a line that begins (column 1) with anything but a space, ``#`` or ``}``, outside any
    ``{ }`` (an ``option``'s choices stay with it); comment and blank lines join the statement
    before them. The cut only guides error recovery: it never changes what a file means."""
    chunks: list[tuple[int, list[str]]] = []
    depth = 0
    for no, row in enumerate(text.split("\n"), 1):
        starts = depth == 0 and row[:1] not in ("", " ", "\t", "\r", "#", "}")
        if starts or not chunks:
            chunks.append((no, []))
        chunks[-1][1].append(row)
        code = re.sub(r'"[^"\n]*"', "", row).split("#", 1)[0]
        depth = max(0, depth + code.count("{") - code.count("}"))
    return [(no, "\n".join(rows)) for no, rows in chunks]


def _declared_path(chunk: str) -> set[str]:
    """``{KIND.NAME}`` a statement's text declares, overrides or removes (empty: none seen)."""
    words = chunk.split("#", 1)[0].split()
    if words[:1] in (["override"], ["remove"]):
        words = words[1:]
    return {f"{words[0]}.{words[1]}"} if len(words) > 1 and words[0] in SECTIONS else set()


def _chunk_syntax_error(exc: UnexpectedInput, padded: str, text: str, file: str,
                        following: tuple[int, str] | None) -> RuleError:
    """:func:`_syntax_error` for one statement parsed alone. A statement cut short by the end of
    its chunk is reported as the whole file's parse would: at the next statement's first word."""
    tok = getattr(exc, "token", None)
    ends = isinstance(exc, UnexpectedEOF) or (tok is not None and tok.type == "$END")
    if ends and following is not None:
        line, chunk = following
        word = chunk.split(None, 1)[0] if chunk.split() else chunk
        return RuleError(f"unexpected `{word}`; expected {_readable(set(exc.expected))}",
                         Location(file, line, 1), source_text=text)
    err = _syntax_error(exc, padded, file)
    err.source_text = text
    return err


def _line_col(text: str, index: int) -> tuple[int, int]:
    """1-based line and column of ``text[index]`` (lines end at ``\\n`` only, as the parser counts)."""
    return text.count("\n", 0, index) + 1, index - (text.rfind("\n", 0, index) + 1) + 1


_NOT_TEXT = re.compile("[\x00\ud800-\udfff]")


def _check_text(text: str, file: str) -> None:
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


def _check_tree(tree: Tree, file: str, text: str) -> None:
    """Count statements and measure each expression (depth, size) iteratively, before any
    recursive walk (the transformer, pydantic, the evaluator) can meet a deep tree.

    Raises :class:`RuleError` at the statement or expression that passes a limit of
    :mod:`engine.lang.limits`."""
    def fail(msg, node, hint=None):
        meta = node.meta
        raise RuleError(msg, Location(file, getattr(meta, "line", 1), getattr(meta, "column", 1)), hint=hint,
                        source_text=text)

    statements = 0
    # (node, expression root or None, nesting level); children pushed reversed: document order
    stack: list[tuple[Any, Any, int]] = [(tree, None, 0)]
    sizes: dict[int, int] = {}
    while stack:
        node, root, level = stack.pop()
        if not isinstance(node, Tree):
            # the lexer's name check is skipped where Lark chains callbacks on keywords that
            # share NAME's pattern (names inside expressions): check every name here too
            if isinstance(node, Token) and node.type in ("NAME", "RULESET_NAME") and len(node) > L.MAX_NAME_CHARS:
                raise RuleError(f"name {str(node)[:12]}… is {len(node)} characters long (at most {L.MAX_NAME_CHARS})",
                                Location(file, node.line, node.column), source_text=text)
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


def _syntax_error(exc: UnexpectedInput, text: str, file: str) -> RuleError:
    loc = Location(file, getattr(exc, "line", 1) or 1, getattr(exc, "column", 1) or 1)
    if isinstance(exc, UnexpectedCharacters):
        ch = text[exc.pos_in_stream] if exc.pos_in_stream < len(text) else "?"
        rows = text.split("\n")  # lines as the parser counts them (\n only)
        line_text = rows[loc.line - 1] if loc.line <= len(rows) else ""
        if ch == '"':
            return RuleError("unterminated string", loc, hint='a string closes with " on the same line',
                             source_text=text)
        hint = None
        if ch in "“”":
            hint = 'use plain double quotes "…"'
        elif line_text.lstrip().startswith("extends") and ch in "./\\":
            path = line_text.split("#")[0].strip()[len("extends"):].strip()
            hint = f'a path is quoted: extends "{path}"'
        return RuleError(f"unexpected character {ch!r}", loc, hint=hint, source_text=text)
    tok = getattr(exc, "token", None)
    if isinstance(exc, UnexpectedEOF) or (tok is not None and tok.type == "$END"):
        body = text.rstrip()
        rows = body.split("\n")
        loc = Location(file, len(rows), len(rows[-1]) + 1)
        return RuleError(f"the file ends in the middle of a declaration; expected {_readable(set(exc.expected))}",
                         loc, source_text=text)
    assert isinstance(exc, UnexpectedToken)
    expected = _readable(set(exc.expected))
    hint = None
    word = str(tok)
    if tok.type in ("NAME", "RULESET_NAME") and word not in _STATEMENT_STARTS and exc.column == 1:
        hint = did_you_mean(word, _STATEMENT_STARTS) or (
            "a statement starts with one of: " + ", ".join(_STATEMENT_STARTS))
    elif "MULT" in exc.expected and (tok.type in ("INT",) or word in ("x", "×")):
        hint = "a multiplier is written x2 (no space)"
    else:
        before = text[: getattr(tok, "start_pos", 0) or 0].split()
        if before and _looks_like(before[-1], "pattern"):
            hint = f"did you mean `pattern {word}`?"
    return RuleError(f"unexpected `{word}`; expected {expected}", loc, hint=hint, source_text=text)


# ---- resolution: extends, override, remove, options ------------------------------------------


@dataclass
class _Entry:
    stmt: Stmt
    file_text: str
    replaced: Any = None  # for an override: the declaration it replaced (the linter compares them)


def compile_ruleset(ref: str | Path, options: dict[str, str] | None = None, *, base_dir: Path | None = None) -> Ruleset:
    """Compile a bundled ruleset name or a ``.rules`` path into a Ruleset.

    ``options`` chooses ``option`` values by name (as ``--option name=value``); unknown names or
    values raise :class:`OptionError` (a :class:`RuleError`) listing what the files declare.
    """
    options = dict(options or {})
    path = resolve_ruleset_path(str(ref), base_dir)
    used: set[str] = set()
    state = _resolve(path, options, used, chain=())
    _check_options_used(options, used, state)
    return _build(path, state)


def _check_options_used(options: dict[str, str], used: set[str], state: dict) -> None:
    unknown = set(options) - used
    if unknown:
        declared = list(state["option_infos"])  # in declaration order
        name = sorted(unknown)[0]
        listing = f"options of this ruleset: {', '.join(declared)}" if declared else "this ruleset declares no options"
        close = did_you_mean(name, declared)
        raise OptionError(f"unknown option {name!r}", None, hint=f"{close} ({listing})" if close else listing,
                          option=name, value=options[name])


def compile_text(text: str, file: str = "<text>", options: dict[str, str] | None = None,
                 base_dir: Path | None = None) -> Ruleset:
    """Compile rule-file text directly (``extends`` resolves relative to ``base_dir``).

    Raises :class:`RuleError` as :func:`compile_ruleset` does (:class:`OptionError` for an
    unknown option or choice)."""
    options = dict(options or {})
    used: set[str] = set()
    state = _resolve_parsed(parse_text(text, file), options, used, (), base_dir or Path.cwd())
    _check_options_used(options, used, state)
    return _build(Path(file), state)


@dataclass
class Checked:
    """What :func:`check_text` found: the ruleset (None when an error stopped the compile or
    any error was found), every error (each with a ``phase``), the file as parsed, and the
    resolved entries (``KIND.NAME`` → the statement that won, with what an override replaced)."""

    ruleset: Ruleset | None
    errors: list[RuleError]
    parsed: ParsedFile
    entries: dict = field(default_factory=dict)


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
        state = _resolve_parsed(pf, options, used, (), base_dir or Path.cwd(), errors)
        _check_options_used(options, used, state)
    except OptionError:
        raise
    except RuleError as exc:
        errors.append(_tag(exc, "resolve"))
        return Checked(None, errors, pf)
    try:
        rs = _build(Path(file), state, errors)
    except OptionError:
        raise
    except RuleError as exc:
        errors.append(exc if hasattr(exc, "phase") else _tag(exc, "check"))
        return Checked(None, errors, pf, state["entries"])
    if pf.unparsed:  # a name whose statement has a syntax error is not unknown: one error, not two
        errors = [e for e in errors if not set(getattr(e, "paths", ())) & pf.unparsed]
    errors.sort(key=lambda e: (e.location.file != file, e.location.line, e.location.column) if e.location else (True, 0, 0))
    return Checked(None if errors else rs, errors, pf, state["entries"])


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


def _resolve(path: Path, options: dict[str, str], used: set[str], chain: tuple[str, ...],
             via: tuple[str, Location, str] | None = None) -> dict:
    """Compile ``path`` and its parents. ``via`` is the child's ``extends`` (reference, location,
    child text): a parent that is not a text file is reported there, never by echoing its bytes."""
    try:
        text = read_rule_file(path)
    except RuleError as exc:
        if via is None:
            raise
        ref, loc, child_text = via
        related = [(f"{exc.message}", exc.location)] if exc.location else []
        raise RuleError(f"cannot extend {ref!r}: not a rule file", loc, hint=exc.message if not related else None,
                        related=related, source_text=child_text) from None
    return _resolve_parsed(parse_text(text, str(path)), options, used, chain, path.parent)


def _resolve_parsed(pf: ParsedFile, options: dict[str, str], used: set[str], chain: tuple[str, ...],
                    base_dir: Path, errors: list | None = None) -> dict:
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
        state = _resolve(parent_path, options, used, (*chain, key), via=(parent_ref, loc, pf.text))
        state["extends"].append(state["name"])
    else:
        state = {"entries": {}, "option_infos": {}, "extends": [], "files": [], "sources": [], "name": None, "label": None,
                 "removed": {}, "pending_options": []}
    state["name"] = pf.name or Path(pf.file).stem
    state["files"] = [pf.file, *state["files"]]
    state["label"] = pf.label or (state["label"] if pf.extends else None)
    state["sources"] = state["sources"] + pf.sources
    entries: dict[str, _Entry] = state["entries"]
    for st in pf.stmts:
        _collecting(errors, "resolve", _apply, entries, st, pf.text, state["removed"])
    for opt in pf.options:
        _collecting(errors, "resolve", _resolve_option, opt, pf, options, used, state)
    return state


def _resolve_option(opt: OptionStmt, pf: ParsedFile, options: dict[str, str], used: set[str], state: dict) -> None:
    """One ``option`` of a file: its choice (default or ``options``) is queued to apply last.

    Raises :class:`RuleError` (a name given twice, a default that is no choice) or
    :class:`OptionError` (``options`` names no choice of it)."""
    if opt.name in state["option_infos"]:
        first = state["option_infos"][opt.name].origin
        raise RuleError(f"option {opt.name} is already declared", opt.location, source_text=pf.text,
                        related=[("first declared here", Location(first.file, first.line, first.column))],
                        hint="give each option its own name")
    if opt.default not in opt.choices:
        raise RuleError(f"option {opt.name}: default {opt.default!r} is not one of its choices "
                        f"({', '.join(opt.choices)})", opt.default_location, source_text=pf.text)
    chosen = str(options.get(opt.name, opt.default))
    if opt.name in options:
        used.add(opt.name)
    if chosen not in opt.choices:
        raise OptionError(f"option {opt.name} has no choice {chosen!r}", opt.location,
                          hint=f"choose one of: {', '.join(opt.choices)}", source_text=pf.text,
                          option=opt.name, value=chosen)
    state["pending_options"].append((opt.choices[chosen], pf.text))
    state["option_infos"][opt.name] = OptionInfo(
        name=opt.name, label=opt.label, default=opt.default, chosen=chosen, choices=list(opt.choices),
        origin=Origin(file=opt.location.file, line=opt.location.line, column=opt.location.column))


def _names(exc: RuleError, *paths: str) -> RuleError:
    """``exc`` marked with the ``KIND.NAME`` paths it is about (an unknown name, an override of
    nothing): :func:`check_text` drops it when such a statement had a syntax error (a cascade)."""
    exc.paths = paths
    return exc


def _tag(exc: RuleError, phase: str) -> RuleError:
    """``exc`` marked with the compiler phase that found it (``file``, ``syntax``, ``declaration``,
    ``resolve``, ``check``, ``table``): :mod:`engine.lang.lint` gives each phase an error code."""
    exc.phase = phase
    return exc


def _collecting(errors: list | None, phase: str, fn, *args) -> None:
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
        errors.append(_tag(exc, phase))


def _same_kind_hint(entries: dict[str, _Entry], kind: str, name: str) -> str | None:
    names = [p.split(".", 1)[1] for p in entries if p.startswith(kind + ".")]
    hint = did_you_mean(name, names)
    return hint.replace("did you mean ", f"did you mean {kind}.") if hint else None


def _apply(entries: dict[str, _Entry], st: Stmt, text: str, removed: dict[str, Location]) -> None:
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
        entries[path] = _Entry(st, text)
    elif st.op == "override":
        if old is None:
            raise _names(RuleError(f"override of {path}, which no file in the chain declares", st.location,
                            hint=_same_kind_hint(entries, st.kind, st.name) or "declare it without `override`",
                            source_text=text), path)
        entries[path] = _Entry(st, text, old.stmt.decl)
    else:
        if old is None:
            raise _names(RuleError(f"remove of {path}, which no file in the chain declares", st.location,
                                   hint=_same_kind_hint(entries, st.kind, st.name), source_text=text), path)
        del entries[path]
        removed[path] = st.location


def _build(path: Path, state: dict, errors: list | None = None) -> Ruleset:
    entries: dict[str, _Entry] = state["entries"]
    # the chosen option blocks apply last, after every file of the chain: an option is the
    # user's explicit choice, so it wins over a child's override of the same path
    for stmts, text in state["pending_options"]:
        for st in stmts:
            _collecting(errors, "resolve", _apply, entries, st, text, state["removed"])
    sections: dict[str, dict] = {f: {} for f in SECTIONS.values()}
    base = None
    for e in entries.values():
        decl = e.stmt.decl
        if isinstance(decl, Base):
            base = decl
        else:
            sections[SECTIONS[e.stmt.kind]][decl.name] = decl
    rs = Ruleset(name=state["name"], label=state["label"], file=str(path), sources=state["sources"],
                 extends=state["extends"], files=state["files"], base=base, options=state["option_infos"], **sections)
    _check(rs, entries, state.get("removed", {}), errors)
    if errors:  # a table is proved playable only once everything else holds
        return rs
    try:
        check_playable(rs, {p: e.file_text for p, e in entries.items()})  # the table can be played
    except RuleError as exc:
        _note_own_changes(exc, str(path), entries, state.get("removed", {}))
        raise _tag(exc, "table")
    return rs


def _note_own_changes(exc: RuleError, file: str, entries: dict[str, _Entry], removed: dict[str, Location]) -> None:
    """A table error located in a parent file was most likely caused by what ``file`` itself
    overrides or removes: name up to three of those places as notes, so the author sees their
    own line (a parent's wall line alone does not say which override broke it)."""
    if exc.location is None or exc.location.file == file:
        return
    own = [(f"{p} is overridden here", e.stmt.location) for p, e in entries.items()
           if e.stmt.op == "override" and e.stmt.location.file == file]
    own += [(f"{p} is removed here", loc) for p, loc in removed.items() if loc.file == file]
    exc.related.extend(own[:3])


# ---- checks after resolution --------------------------------------------------------------------


_REF_KINDS = {REF_GROUP: ("suit", "honours"), REF_PATTERN: ("pattern",), REF_FAN: ("fan",),
              REF_MELD_OR_KIND: ("meld",), REF_INDICATOR: ("indicator",), REF_FACTOR: ("factor",),
              REF_JING_FORMULA: ("jing",)}


def _check(rs: Ruleset, entries: dict[str, _Entry], removed: dict[str, Location], errors: list | None = None) -> None:
    """The checks after resolution. Raises the first :class:`RuleError`; with ``errors``, adds
    each (tagged ``check``) and goes on (each check is independent of the others)."""
    def fail(msg, st: Stmt, hint=None, loc=None, ref: Ref | None = None, related=None):
        related = list(related or [])
        if ref is not None:
            for kind in _REF_KINDS.get(ref.what, ()):
                if f"{kind}.{ref.name}" in removed:
                    related.append((f"{kind}.{ref.name} is removed here", removed[f"{kind}.{ref.name}"]))
        exc = RuleError(msg, loc or st.location, hint=hint, source_text=entries[st.path].file_text,
                        related=related)
        if ref is not None:
            _names(exc, *(f"{kind}.{ref.name}" for kind in _REF_KINDS.get(ref.what, ())))
        if errors is None:
            raise exc
        errors.append(_tag(exc, "check"))

    if not rs.suits and not rs.honours:
        raise RuleError("the ruleset declares no tiles", Location(rs.file, 1, 1),
                        hint="declare at least one `suit` or `honours` group")
    if rs.base is None:
        raise RuleError("the ruleset declares no `payment base`", Location(rs.file, 1, 1),
                        hint="add `payment base = 1`")
    # tile names and codes are unique
    seen: dict[str, str] = {}
    for suit in rs.suits.values():
        for r in range(suit.low, suit.high + 1):
            seen[f"{r}{suit.name}"] = suit.name
    for grp in rs.honours.values():
        for t in grp.tiles:
            for n in [t.name] + ([t.code] if t.code else []):
                if n in seen:
                    st = entries[f"honours.{grp.name}"].stmt
                    fail(f"tile {n!r} of honours {grp.name} is already a tile of {seen[n]}", st)
                seen[n] = grp.name
    group_names = set(rs.suits) | set(rs.honours) | {"suits", "honours"}
    meld_names = set(rs.melds) | {"chow", "pung", "kong", "pair"}
    facts_ok = {c: set(F.facts_for(c)) for c in (F.WIN, F.TRANSFER, F.JING, F.SETTLE)}
    jing_formulas = {n for n, r in rs.jing.items() if r.type == "formula"}
    for e in entries.values():
        st = e.stmt
        for ref in st.refs:
            if ref.what == REF_GROUP and ref.name not in group_names:
                fail(f"unknown tile group {ref.name!r}", st, did_you_mean(ref.name, group_names), ref.location, ref)
            elif ref.what == REF_MELD_OR_KIND and ref.name not in meld_names:
                fail(f"unknown meld {ref.name!r}", st, did_you_mean(ref.name, meld_names), ref.location, ref)
            elif ref.what == REF_PATTERN and ref.context not in (None, F.WIN, F.TRANSFER):
                fail(f"`pattern {ref.name}` is a fact of a win; a {ref.context} rule has no reading to test", st,
                     "test patterns in fans, payments, or factors `on win` only", ref.location)
            elif ref.what == REF_PATTERN and ref.name not in rs.patterns:
                fail(f"unknown pattern {ref.name!r}", st, did_you_mean(ref.name, rs.patterns), ref.location, ref)
            elif ref.what == REF_FAN and ref.name not in rs.fans:
                fail(f"unknown fan {ref.name!r}", st, did_you_mean(ref.name, rs.fans), ref.location, ref)
            elif ref.what == REF_FACTOR and ref.name not in rs.factors:
                fail(f"unknown factor {ref.name!r}", st, did_you_mean(ref.name, rs.factors), ref.location, ref)
            elif ref.what == REF_INDICATOR and ref.name not in rs.indicators:
                fail(f"unknown indicator {ref.name!r}", st, did_you_mean(ref.name, rs.indicators), ref.location, ref)
            elif ref.what == REF_JING_FORMULA and ref.name not in jing_formulas:
                fail(f"{ref.name!r} is not a 精 formula (`jing NAME = score … when …`)", st,
                     did_you_mean(ref.name, jing_formulas), ref.location, ref)
            elif ref.what == "fact" and ref.name not in facts_ok[ref.context]:
                elsewhere = [c for c, names in facts_ok.items() if ref.name in names]
                hint = did_you_mean(ref.name, facts_ok[ref.context])
                if _looks_like(ref.name, "pattern"):
                    hint = "did you mean `pattern NAME`?"
                if elsewhere:
                    hint = f"{ref.name} is a fact of {elsewhere[0]} rules, not of {ref.context} rules"
                fail(f"unknown fact {ref.name!r} in a {ref.context} condition", st,
                     hint or "facts: " + ", ".join(sorted(facts_ok[ref.context])), ref.location)
    for st in (e.stmt for e in entries.values()):
        d = st.decl
        if isinstance(d, Meld):
            for sh in d.shapes:
                bad = [g for g in sh.groups if g in rs.honours or g == "honours"]
                if sh.type == "run" and bad:
                    where = next((r.location for r in st.refs if r.what == REF_GROUP and r.name == bad[0]), None)
                    fail(f"meld {d.name}: a run needs ranked tiles; {bad[0]} has none", st,
                         "use `distinct N in …` for honour chows", where)
                if sh.size < 2 and d.meld_kind != "pair":
                    fail(f"meld {d.name}: a set of {sh.size} tile", st)
        if isinstance(d, Pattern):
            kinds = [c.type for c in d.components]
            if "rotten" in kinds and len(kinds) > 1:
                fail(f"pattern {d.name}: `rotten` is a whole hand and combines with nothing", st)
            if kinds.count("pair") + kinds.count("pairs") > 1:
                fail(f"pattern {d.name}: write the pairs once (`pairs N`)", st)
            if "pairs" in kinds and "sets" in kinds:
                fail(f"pattern {d.name}: `pairs N` is a whole hand; use `sets N + pair`", st)
        if isinstance(d, Fan) and d.name in d.instead_of + d.instead_except:
            fail(f"fan {d.name} names itself after `instead of`", st)
    pair_melds = [m for m in rs.melds.values() if m.meld_kind == "pair"]
    pair_users = [p for p in rs.patterns.values() if any(c.type in ("pair", "pairs") for c in p.components)]
    if pair_users and not pair_melds:
        fail(f"pattern {pair_users[0].name} uses pairs but no `meld … pair = same 2` is declared",
             entries[f"pattern.{pair_users[0].name}"].stmt, "add `meld 将 pair = same 2`")
    values = [e.stmt for e in entries.values() if isinstance(e.stmt.decl, JingValue)]
    if len(values) > 1:
        fail(f"jing.{values[1].name} declares 精 values again", values[1],
             f"change the values with `override jing {values[0].name} = 正 N, 副 M`",
             related=[(f"jing.{values[0].name} declares them here", values[0].location)])
    for suit in rs.suits.values():
        if suit.high - suit.low + 1 > L.MAX_RANKS or suit.copies > L.MAX_COPIES:
            fail(f"suit {suit.name}: at most {L.MAX_RANKS} ranks and {L.MAX_COPIES} copies", entries[f"suit.{suit.name}"].stmt)
    for grp in rs.honours.values():
        if len(grp.tiles) > L.MAX_RANKS or grp.copies > L.MAX_COPIES:
            fail(f"honours {grp.name}: at most {L.MAX_RANKS} tiles and {L.MAX_COPIES} copies",
                 entries[f"honours.{grp.name}"].stmt)
