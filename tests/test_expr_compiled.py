"""The one evaluator (engine/lang/expr.py, compiled closures) gives what a plain tree walk gives:
the walk below is the reference semantics, kept only here as the test oracle; checked on every
expression of the bundled rulesets and on random trees."""
from __future__ import annotations

import random
from types import SimpleNamespace

import pytest
from pydantic import BaseModel

from engine import Scorer, compile_ruleset
from engine.lang.expr import compile_expr
from engine.lang.ruleset import BinOp, BoolOp, Cmp, Neg, Not, Num, PatternIs, Var

NODES = (Num, Var, PatternIs, Not, BoolOp, Cmp, BinOp, Neg)


def walk(expr, env: dict, reading=None):
    """The oracle: a condition or formula evaluated by walking the tree."""
    if isinstance(expr, Num):
        return expr.value
    if isinstance(expr, Var):
        return env.get(expr.name, 0)
    if isinstance(expr, PatternIs):
        return reading is not None and reading.pattern == expr.pattern
    if isinstance(expr, Not):
        return not walk(expr.arg, env, reading)
    if isinstance(expr, BoolOp):
        vals = (walk(a, env, reading) for a in expr.args)
        return all(vals) if expr.op == "and" else any(vals)
    if isinstance(expr, Neg):
        return -walk(expr.arg, env, reading)
    if isinstance(expr, (Cmp, BinOp)):
        a, b = walk(expr.left, env, reading), walk(expr.right, env, reading)
        if expr.op in "+-*/":
            return {"+": a + b, "-": a - b, "*": a * b, "/": a // b if b else 0}[expr.op]
        return {">=": a >= b, "<=": a <= b, "==": a == b, "!=": a != b, ">": a > b, "<": a < b}[expr.op]
    raise TypeError(f"unknown expression node {expr!r}")


def expressions(obj, out: list) -> list:
    """Every top-level expression tree inside an IR object."""
    if isinstance(obj, NODES):
        out.append(obj)
    elif isinstance(obj, BaseModel):
        for name in type(obj).model_fields:
            expressions(getattr(obj, name), out)
    elif isinstance(obj, dict):
        for v in obj.values():
            expressions(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            expressions(v, out)
    return out


def names(expr, out: set) -> set:
    if isinstance(expr, Var):
        out.add(expr.name)
    for child in ("arg", "left", "right"):
        if hasattr(expr, child):
            names(getattr(expr, child), out)
    for a in getattr(expr, "args", []):
        names(a, out)
    return out


def envs(rng: random.Random, facts: set, patterns: list[str], n: int):
    for _ in range(n):
        env = {f: rng.choice([0, 1, 2, 3, 5, 8, -1, True, False]) for f in facts if rng.random() < 0.9}
        reading = rng.choice([None] + [SimpleNamespace(pattern=p) for p in patterns])
        yield env, reading


@pytest.mark.parametrize("rules", ["nanchang", "nanchang-table", "chongguan", "ganzhou"])
def test_every_expression_of_a_ruleset_compiles_to_the_walk(rules):
    rs = compile_ruleset(rules)
    sc = Scorer(rs)
    exprs = expressions(rs, [])
    assert len(exprs) > 10  # fans, factors, payments, 精 rules all have conditions
    facts = set().union(*(names(e, set()) for e in exprs))
    rng = random.Random(rules)
    for env, reading in envs(rng, facts, list(rs.patterns), 60):
        for e in exprs:
            assert sc.rules.eval(e, env, reading) == walk(e, env, reading), (e, env)
            assert type(sc.rules.eval(e, env, reading)) is type(walk(e, env, reading))


def random_tree(rng: random.Random, depth: int):
    if depth == 0 or rng.random() < 0.25:
        return rng.choice([Num(value=rng.randint(-3, 6)), Var(name=rng.choice("abc")), PatternIs(pattern="p")])
    kind = rng.choice(["not", "and", "or", "neg", "cmp", "bin"])
    if kind == "not":
        return Not(arg=random_tree(rng, depth - 1))
    if kind == "neg":
        return Neg(arg=random_tree(rng, depth - 1))
    if kind in ("and", "or"):
        return BoolOp(op=kind, args=[random_tree(rng, depth - 1) for _ in range(rng.randint(1, 3))])
    if kind == "cmp":
        return Cmp(op=rng.choice([">=", "<=", "==", "!=", ">", "<"]), left=random_tree(rng, depth - 1),
                   right=random_tree(rng, depth - 1))
    return BinOp(op=rng.choice("+-*/"), left=random_tree(rng, depth - 1), right=random_tree(rng, depth - 1))


def test_random_trees_compile_to_the_walk():
    sc = Scorer(compile_ruleset("nanchang"))
    rng = random.Random(8)
    for _ in range(400):
        e = random_tree(rng, 4)
        for env, reading in envs(rng, {"a", "b", "c"}, ["p", "q"], 5):
            got, want = sc.rules.eval(e, env, reading), walk(e, env, reading)
            assert got == want and type(got) is type(want), (e, env)


def test_semantics_kept():
    f = compile_expr(BinOp(op="/", left=Var(name="n"), right=Num(value=0)))
    assert f({"n": 7}, None) == 0  # dividing by 0 gives 0
    assert compile_expr(BinOp(op="/", left=Num(value=-7), right=Num(value=2)))({}, None) == -4  # floor division
    assert compile_expr(Var(name="missing"))({}, None) == 0
    assert compile_expr(PatternIs(pattern="p"))({}, None) is False
    assert compile_expr(BoolOp(op="or", args=[Num(value=0), Num(value=5)]))({}, None) is True
    with pytest.raises(TypeError, match="unknown expression node"):
        compile_expr("not a node")({}, None)
