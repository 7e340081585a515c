"""The one evaluator of the IR's conditions and formulas: each tree compiled once into closures.

:func:`compile_expr` turns an expression tree of :mod:`engine.lang.ruleset` (``Num``, ``Var``,
``PatternIs``, ``Not``, ``BoolOp``, ``Cmp``, ``BinOp``, ``Neg``) into ``fn(env, pattern)``:
``env`` maps fact names (engine/lang/facts.py) to numbers or bools, ``pattern`` is the name of
the reading's pattern (or None, where no reading is in question). Its semantics: a missing
fact is 0; ``and``/``or`` stop at the first deciding argument and give a bool; both sides of a
comparison or an operator are evaluated; ``/`` is floor division, 0 when dividing by 0. Closures only: no text is ever evaluated. The
depth of the tree is bounded by the compiler's expression limits (engine/lang/limits.py).
Every caller (the scorer, the value bot through the scorer, the compiler's playability checks)
uses this module; a tree walk survives only as the test oracle (tests/test_expr_compiled.py).
"""
from __future__ import annotations

import operator
from collections.abc import Callable, Mapping
from typing import TypeAlias

from engine.lang.ruleset import BinOp, BoolOp, Cmp, Expr, Neg, Not, Num, PatternIs, Var

Env: TypeAlias = Mapping[str, int]  # fact name -> number or bool (a bool is an int)
Compiled: TypeAlias = Callable[[Env, str | None], int]  # fn(env, pattern name or None) -> number or bool

_CMP: dict[str, Callable[[int, int], bool]] = {
    ">=": operator.ge, "<=": operator.le, "==": operator.eq, "!=": operator.ne, ">": operator.gt, "<": operator.lt}
_ARITH: dict[str, Callable[[int, int], int]] = {"+": operator.add, "-": operator.sub, "*": operator.mul}


def _div(a: int, b: int) -> int:
    return a // b if b else 0


def compile_expr(expr: Expr) -> Compiled:
    """``fn(env, pattern)`` computing ``expr``: a number or a bool.

    An unknown node raises :class:`TypeError` (and an unknown operator :class:`KeyError`) when
    the closure is called, not before."""
    if isinstance(expr, Num):
        value = expr.value
        return lambda env, pattern: value
    if isinstance(expr, Var):
        name = expr.name
        return lambda env, pattern: env.get(name, 0)
    if isinstance(expr, PatternIs):
        pattern_name = expr.pattern
        return lambda env, pattern: pattern == pattern_name
    if isinstance(expr, Not):
        arg = compile_expr(expr.arg)
        return lambda env, pattern: not arg(env, pattern)
    if isinstance(expr, BoolOp):
        args = tuple(compile_expr(a) for a in expr.args)
        if expr.op == "and":
            return lambda env, pattern: all(a(env, pattern) for a in args)
        return lambda env, pattern: any(a(env, pattern) for a in args)
    if isinstance(expr, Neg):
        arg = compile_expr(expr.arg)
        return lambda env, pattern: -arg(env, pattern)
    if isinstance(expr, (Cmp, BinOp)):
        left, right = compile_expr(expr.left), compile_expr(expr.right)
        op = expr.op
        fn = _div if op == "/" else _ARITH.get(op) or _CMP.get(op)
        if fn is None:
            def unknown(env: Env, pattern: str | None) -> int:
                left(env, pattern), right(env, pattern)
                raise KeyError(op)
            return unknown
        return lambda env, pattern: fn(left(env, pattern), right(env, pattern))

    def bad(env: Env, pattern: str | None) -> int:
        raise TypeError(f"unknown expression node {expr!r}")
    return bad


CACHE_LIMIT = 4096  # expression nodes a cache keeps compiled before it starts again (bounds memory)


class ExprCache:
    """Closures of expression nodes, compiled on first use. Nodes are frozen IR, keyed by
    identity and kept alive by the cache (so an id is never reused while cached)."""

    def __init__(self) -> None:
        self._fns: dict[int, tuple[Expr, Compiled]] = {}

    def __call__(self, expr: Expr) -> Compiled:
        """The closure of ``expr`` (see :func:`compile_expr`)."""
        hit = self._fns.get(id(expr))
        if hit is None or hit[0] is not expr:
            if len(self._fns) >= CACHE_LIMIT:
                self._fns.clear()
            hit = self._fns[id(expr)] = (expr, compile_expr(expr))
        return hit[1]
