"""engine/lang hands a statement's clauses up as named types (engine/lang/pieces.py), never as
tagged tuples (issue 28): no function there returns a tuple whose first item is a string
constant (a tag), and nothing tests ``x[0] == "tag"`` on a tuple it was handed."""
from __future__ import annotations

import ast

from .conftest import ROOT

LANG = ROOT / "engine" / "lang"
GENERATED = {"standalone_parser.py"}  # Lark's, made by engine/lang/parsergen.py


def tagged(source: str) -> list[tuple[int, str]]:
    """(line, what) for each tagged tuple made or read in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple) and node.value.elts \
                and isinstance(node.value.elts[0], ast.Constant) and isinstance(node.value.elts[0].value, str):
            out.append((node.lineno, f"returns a tuple tagged {node.value.elts[0].value!r}"))
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            tests_tuple = any(isinstance(v, ast.Call) and getattr(v.func, "id", "") == "isinstance"
                              and len(v.args) == 2 and getattr(v.args[1], "id", "") == "tuple" for v in node.values)
            reads_tag = any(isinstance(v, ast.Compare) and isinstance(v.left, ast.Subscript)
                            and isinstance(v.left.slice, ast.Constant) and v.left.slice.value == 0
                            and any(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in v.comparators)
                            for v in node.values)
            if tests_tuple and reads_tag:
                out.append((node.lineno, "reads a tuple's tag"))
    return out


def test_no_tagged_tuples_in_engine_lang():
    found = [f"{f.relative_to(ROOT)}:{line}: {what}" for f in sorted(LANG.glob("*.py")) if f.name not in GENERATED
             for line, what in tagged(f.read_text(encoding="utf-8"))]
    assert not found, "tagged tuples (use a named type, engine/lang/pieces.py):\n" + "\n".join(found)


def test_the_check_can_fail():
    planted = ('def mult(c):\n    return ("mult", 4, None)\n'
               'def fan(c):\n    for x in c:\n        if isinstance(x, tuple) and x[0] == "no_win":\n            pass\n'
               'def fine(c):\n    return (1, "a")\n')
    assert tagged(planted) == [(2, "returns a tuple tagged 'mult'"), (5, "reads a tuple's tag")]
