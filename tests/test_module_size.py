"""No hand-written module in engine/ is over 600 lines (past that it is two modules, cut by the
question each part answers), and each opens with a docstring saying what it answers."""
from __future__ import annotations

import ast

from .conftest import ROOT

ENGINE = ROOT / "engine"
MAX_LINES = 600
MIN_WORDS = 6  # a docstring shorter than this names the module rather than its question
GENERATED = {"engine/lang/standalone_parser.py"}  # Lark's standalone parser (engine/lang/parsergen.py)


def long_modules(engine=ENGINE, skip=frozenset()) -> list[str]:
    """``file: lines`` for each .py file under ``engine`` over :data:`MAX_LINES` lines."""
    out = []
    for f in sorted(engine.rglob("*.py")):
        name = f.relative_to(engine.parent).as_posix()
        n = len(f.read_text(encoding="utf-8").splitlines())
        if n > MAX_LINES and name not in skip:
            out.append(f"{name}: {n} lines")
    return out


def unexplained_modules(engine=ENGINE, skip=frozenset()) -> list[str]:
    """Each .py file under ``engine`` that does not open with a docstring of at least
    :data:`MIN_WORDS` words."""
    out = []
    for f in sorted(engine.rglob("*.py")):
        name = f.relative_to(engine.parent).as_posix()
        doc = ast.get_docstring(ast.parse(f.read_text(encoding="utf-8")))
        if name not in skip and (doc is None or len(doc.split()) < MIN_WORDS):
            out.append(name)
    return out


def test_no_hand_written_module_is_over_600_lines():
    found = long_modules(skip=GENERATED)
    assert not found, f"modules over {MAX_LINES} lines (split them by the question each part answers):\n" + \
        "\n".join(found)


def test_every_module_opens_with_the_question_it_answers():
    found = unexplained_modules(skip=GENERATED)
    assert not found, "modules without an opening docstring saying what they answer:\n" + "\n".join(found)


def test_the_size_check_can_fail(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "engine" / "fine.py").write_text("x = 1\n" * MAX_LINES)
    assert long_modules(tmp_path / "engine") == [f"engine/big.py: {MAX_LINES + 1} lines"]


def test_the_docstring_check_can_fail(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "bare.py").write_text("x = 1\n")
    (tmp_path / "engine" / "terse.py").write_text('"""Helpers."""\nx = 1\n')
    (tmp_path / "engine" / "told.py").write_text('"""What a seat may do now, and why not."""\nx = 1\n')
    assert unexplained_modules(tmp_path / "engine") == ["engine/bare.py", "engine/terse.py"]
