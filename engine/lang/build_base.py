"""What every declaration of ``grammar/mjrules.lark`` is built with: its locations, numbers
checked against their range, the names it refers to (checked later, :mod:`engine.lang.checks`),
and its expressions — conditions and formulas (``or``, ``and``, ``not``, comparisons,
arithmetic, facts, ``pattern is``) with the facts and patterns they name.
:class:`~engine.lang.build.Build` adds the declarations."""
from __future__ import annotations

from typing import Any, TypeAlias, cast

from engine.errors import Location, RuleError
from engine.lang.ruleset import ArithOp, BinOp, BoolOp, Cmp, CmpOp, Decl, Expr, Neg, Not, Num, Origin, PatternIs, Var
from engine.lang.statements import REF_PATTERN, Ref, Stmt
from engine.lang.syntax import Meta, ParseTree, Token, Transformer, token_location, v_args

# a rule's children as Lark hands them over: its tokens and what the methods of the rules below
# built (each method knows, from the grammar, what stands where)
Children: TypeAlias = list[Any]


def in_range(what: str, tok: Token, low: int, high: int, file: str) -> int:
    """``tok`` as an int within ``low..high``, else a RuleError at the token."""
    v = int(str(tok).lstrip("x×"))
    if not low <= v <= high:
        raise RuleError(f"{what} {v} is out of range ({low}..{high})", token_location(file, tok))
    return v



def text_of(tok: Token) -> str:
    text = str(tok)
    return text[1:-1] if text.startswith('"') else text


def value_of(tok: Token) -> str | int:
    if tok.type == "INT":
        return int(tok)
    return text_of(tok)


@v_args(meta=True)
class BuildBase(Transformer[Token, Any]):
    """What every declaration's builder uses (locations, numbers in range, the names a
    declaration refers to) and the expression rules. Methods are named after the grammar rules."""

    def __init__(self, file: str) -> None:
        super().__init__()
        self.file = file
        self.refs: list[Ref] = []  # collected while building one declaration

    def loc(self, meta_or_tok: Meta | Token) -> Location:
        return Location(self.file, getattr(meta_or_tok, "line", 1), getattr(meta_or_tok, "column", 1))

    def origin(self, meta: Meta) -> Origin:
        return Origin(file=self.file, line=meta.line, column=meta.column)

    def int_in(self, what: str, tok: Token, low: int, high: int) -> int:
        return in_range(what, tok, low, high, self.file)

    def take_refs(self) -> list[Ref]:
        refs, self.refs = self.refs, []
        return refs

    def ref(self, what: str, tok: Token, context: str | None = None) -> None:
        self.refs.append(Ref(what, str(tok), self.loc(tok), context))

    def stmt(self, meta: Meta, kind: str, name: Token, decl: Decl) -> Stmt:
        return Stmt("declare", kind, str(name), decl, self.loc(meta), self.take_refs())

    # -- expressions
    def or_(self, meta: Meta, c: Children) -> Expr:
        return c[0] if len(c) == 1 else BoolOp(op="or", args=c)

    def and_(self, meta: Meta, c: Children) -> Expr:
        return c[0] if len(c) == 1 else BoolOp(op="and", args=c)

    def not_(self, meta: Meta, c: Children) -> Not:
        return Not(arg=c[0])

    def cmp(self, meta: Meta, c: Children) -> Expr:
        return c[0] if len(c) == 1 else Cmp(op=cast(CmpOp, str(c[1])), left=c[0], right=c[2])

    def binop(self, meta: Meta, c: Children) -> BinOp:
        return BinOp(op=cast(ArithOp, str(c[1])), left=c[0], right=c[2])

    def neg(self, meta: Meta, c: Children) -> Neg:
        return Neg(arg=c[0])

    def num(self, meta: Meta, c: Children) -> Num:
        return Num(value=int(c[0]))

    def var(self, meta: Meta, c: Children) -> Var:
        v = Var(name=str(c[0]))
        self._pending_vars.append((v, self.loc(c[0])))
        return v

    def pattern_is(self, meta: Meta, c: Children) -> PatternIs:
        self._pending_patterns.append(Ref(REF_PATTERN, str(c[0]), self.loc(c[0])))
        return PatternIs(pattern=str(c[0]))

    _pending_vars: list[tuple[Var, Location]]
    _pending_patterns: list[Ref]

    def check_expr(self, expr: Expr, context: str) -> None:
        """Record the facts and patterns an expression names, for the context it is used in."""
        for v, loc in self._pending_vars:
            self.refs.append(Ref("fact", v.name, loc, context))
        for ref in self._pending_patterns:
            ref.context = context
            self.refs.append(ref)
        self._pending_vars, self._pending_patterns = [], []

    def transform(self, tree: ParseTree) -> Any:
        self._pending_vars, self._pending_patterns = [], []
        return super().transform(tree)
