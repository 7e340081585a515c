"""engine/lang hands a statement's clauses up as named types (engine/lang/pieces.py), never as
tagged tuples (issue 28): no function there returns or stores a tuple whose first item is a
string constant (a tag), and nothing tests ``x[0] == "tag"`` on a tuple it was handed."""
from __future__ import annotations

import ast

from .conftest import ROOT

LANG = ROOT / "engine" / "lang"
GENERATED = {"standalone_parser.py"}  # Lark's, made by engine/lang/parsergen.py


def _tag(value: ast.expr | None) -> list[str]:
    """The tags of the tuples ``value`` is (either branch of a conditional expression): a tuple
    literal whose first item is a string constant."""
    if isinstance(value, ast.IfExp):
        return _tag(value.body) + _tag(value.orelse)
    if isinstance(value, ast.Tuple) and value.elts and isinstance(value.elts[0], ast.Constant) \
            and isinstance(value.elts[0].value, str):
        return [value.elts[0].value]
    return []


def tagged(source: str) -> list[tuple[int, str]]:
    """(line, what) for each tagged tuple made or read in ``source``."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Return):
            out += [(node.lineno, f"returns a tuple tagged {t!r}") for t in _tag(node.value)]
        elif isinstance(node, ast.AnnAssign) or (
                isinstance(node, ast.Assign) and not any(isinstance(t, ast.Tuple) for t in node.targets)):
            # a tuple stored (not names unpacked: `A, B = "a", "b"`)
            out += [(node.lineno, f"stores a tuple tagged {t!r}") for t in _tag(node.value)]
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            tests_tuple = any(isinstance(v, ast.Call) and getattr(v.func, "id", "") == "isinstance"
                              and len(v.args) == 2 and getattr(v.args[1], "id", "") == "tuple" for v in node.values)
            reads_tag = any(isinstance(v, ast.Compare) and isinstance(v.left, ast.Subscript)
                            and isinstance(v.left.slice, ast.Constant) and v.left.slice.value == 0
                            and any(isinstance(c, ast.Constant) and isinstance(c.value, str) for c in v.comparators)
                            for v in node.values)
            if tests_tuple and reads_tag:
                out.append((node.lineno, "reads a tuple's tag"))
    return sorted(out)


def test_no_tagged_tuples_in_engine_lang():
    found = [f"{f.relative_to(ROOT)}:{line}: {what}" for f in sorted(LANG.glob("*.py")) if f.name not in GENERATED
             for line, what in tagged(f.read_text(encoding="utf-8"))]
    assert not found, "tagged tuples (use a named type, engine/lang/pieces.py):\n" + "\n".join(found)


def test_the_check_can_fail():
    planted = ('def mult(c):\n    return ("mult", 4, None)\n'
               'def fan(c):\n    for x in c:\n        if isinstance(x, tuple) and x[0] == "no_win":\n            pass\n'
               'def fine(c):\n    return (1, "a")\n'
               'def plan(p, i, j):\n    p[i] = ("join", j) if j else ("cont", j)\n    p[j]: tuple = ("new", 0)\n'
               'NAMES, KINDS = ("a", "b"), ("c", "d")\n')
    assert tagged(planted) == [(2, "returns a tuple tagged 'mult'"), (5, "reads a tuple's tag"),
                               (10, "stores a tuple tagged 'cont'"), (10, "stores a tuple tagged 'join'"),
                               (11, "stores a tuple tagged 'new'")]
