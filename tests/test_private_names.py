"""No engine module reaches another module's ``_private`` names, and no test does.

The check, per file of engine/: an attribute read or written as ``x._name`` (one leading
underscore, not a dunder) is an offence unless ``_name`` is defined in the same file — as a
function, class, assigned name or attribute (``self._name = …``), parameter, import alias or
``__slots__`` entry; and ``from m import _name`` of another module, or ``getattr(x, "_name")``
(setattr, hasattr, delattr) of a name not defined here, is an offence. So a class
may use its own private members anywhere in its module, and a subclass in another module may
not use its base's. The named-tuple API (``_replace``, ``_asdict``, ``_fields``, ``_make``)
and ``sys._getframe`` are the standard library's public names.
"""
from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT

ENGINE = ROOT / "engine"
STDLIB_PUBLIC = {"_replace", "_asdict", "_fields", "_make", "_field_defaults", "_getframe", "_exit"}

ALLOWED: set[str] = set()  # offenders tolerated for now: none (an entry that no longer offends fails)
# Generated files: Lark's standalone parser reads its own classes' members across its classes
# as it was written; it is made by engine/lang/parsergen.py, not by hand.
GENERATED = {"engine/lang/standalone_parser.py"}


def _is_private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and name != "_"


def defined_names(tree: ast.AST) -> set[str]:
    """Every name a module defines (see the module docstring)."""
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            out.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.id)
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, (ast.Store, ast.Del)):
            out.add(node.attr)
        elif isinstance(node, ast.arg):
            out.add(node.arg)
        elif isinstance(node, ast.alias):
            out.add(node.asname or node.name.split(".")[0])
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            out.update(node.names)
        elif isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "__slots__" for t in node.targets):
            out.update(c.value for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str))
    return out


def offences(source: str) -> list[tuple[int, str]]:
    """(line, what) for each use of another module's private name in ``source``."""
    tree = ast.parse(source)
    own = defined_names(tree) - {a.asname for a in ast.walk(tree) if isinstance(a, ast.alias) and a.asname is None}
    own -= {n.names[i].name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
            for i in range(len(n.names)) if n.names[i].asname is None}  # an imported name is not defined here
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _is_private(node.attr) and node.attr not in own \
                and node.attr not in STDLIB_PUBLIC:
            out.append((node.lineno, f".{node.attr}"))
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("getattr", "setattr", "hasattr", "delattr") and len(node.args) >= 2 \
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str) \
                and _is_private(node.args[1].value) and node.args[1].value not in own:
            out.append((node.lineno, f"{node.func.id}(…, {node.args[1].value!r})"))  # the same, by its name
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            for a in node.names:
                if _is_private(a.name):
                    out.append((node.lineno, f"from {'.' * node.level}{node.module or ''} import {a.name}"))
    return out


def private_strings(source: str) -> list[tuple[int, str]]:
    """(line, what) for each string constant in ``source`` spelling a private name it does not
    define: a test that reads a member by a name kept in a string (``getattr(x, name)`` for each
    name of a tuple) reaches it as surely as ``x._name`` does."""
    tree = ast.parse(source)
    own = defined_names(tree)
    return [(node.lineno, repr(node.value)) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier()
            and _is_private(node.value) and node.value not in own | STDLIB_PUBLIC]


def all_offences(engine: Path = ENGINE, strings: bool = False) -> dict[str, list[tuple[int, str]]]:
    """File (relative to the repository) → its offences, for every file of ``engine`` (with
    ``strings``, :func:`private_strings` too)."""
    found = {}
    for f in sorted(engine.rglob("*.py")):
        text = f.read_text(encoding="utf-8")
        got = offences(text) + (private_strings(text) if strings else [])
        if got:
            found[f.relative_to(engine.parent).as_posix()] = got
    return found


def test_no_module_reads_another_modules_private_names():
    found = {f: hits for f, hits in all_offences().items() if f not in GENERATED}
    report = [f"{f}:{line}: {what}" for f, hits in found.items() for line, what in hits]
    unexpected = [f"{f}:{line}: {what}" for f, hits in found.items() for line, what in hits
                  if f"{f}: {what}" not in ALLOWED]
    assert not unexpected, ("private names of other modules used:\n" + "\n".join(unexpected)
                            + "\n(every offender, the allowed ones included:\n" + "\n".join(report) + ")")
    stale = sorted(ALLOWED - {f"{f}: {what}" for f, hits in found.items() for _, what in hits})
    assert not stale, f"allowed offences no longer found (drop them from ALLOWED): {stale}"


def test_no_test_reads_a_private_name():
    """The tests test through public behaviour (issue 28): the same check over tests/."""
    found = all_offences(ROOT / "tests", strings=True)
    assert not found, "private names used by tests:\n" + "\n".join(
        f"{f}:{line}: {what}" for f, hits in found.items() for line, what in hits)


def test_the_check_can_fail():
    """A planted module reading another's private attribute and importing a private name is
    reported; its own private members, a subclass's own and the named-tuple API are not."""
    src = ("from engine.core.hands import _hidden\n"
           "from engine.core import shanten\n"
           "class Mine:\n"
           "    __slots__ = ('_slot',)\n"
           "    def __init__(self, other):\n"
           "        self._own = 1\n"
           "        self._slot = other._replace(a=1)\n"
           "        shanten._largest_spread((1,), 2)\n"
           "        other._own\n"
           "        other._memo.clear()\n"
           "def _helper(): return Mine(None)._own\n"
           "def peek(sh): return getattr(sh, '_plan_memo'), getattr(sh, '_own'), getattr(sh, 'tables')\n")
    assert sorted(offences(src)) == [(1, "from engine.core.hands import _hidden"), (8, "._largest_spread"), (10, "._memo"),
                                     (12, "getattr(…, '_plan_memo')")]
    # a name kept in a string, read later (the memo test read Shanten's memos so)
    assert private_strings("MEMOS = ('state_memo', '_plan_memo')\nx = [getattr(s, m) for m in MEMOS]\n") == \
        [(1, "'_plan_memo'")]
