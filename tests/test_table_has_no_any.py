"""engine/table is typed without ``Any`` (issue 28): events, records and the value model say
what they hold (engine/table/events.py, records.py's TypedDicts, the scorer's ``Env``)."""
from __future__ import annotations

import ast

from .conftest import ROOT


def uses_any(source: str) -> list[int]:
    """Lines where ``Any`` (typing's) is named in ``source``."""
    return sorted({n.lineno for n in ast.walk(ast.parse(source))
                   if (isinstance(n, ast.Name) and n.id == "Any") or (isinstance(n, ast.Attribute) and n.attr == "Any")
                   or (isinstance(n, ast.alias) and n.name == "Any")} | {
        n.lineno for n in ast.walk(ast.parse(source)) if isinstance(n, ast.ImportFrom)
        and any(a.name == "Any" for a in n.names)})


def test_no_module_of_engine_table_uses_any():
    found = [f"{f.relative_to(ROOT)}:{line}" for f in sorted((ROOT / "engine" / "table").glob("*.py"))
             for line in uses_any(f.read_text(encoding="utf-8"))]
    assert not found, "Any in engine/table (say the type):\n" + "\n".join(found)


def test_the_check_can_fail():
    assert uses_any("from typing import Any\nx: dict[str, Any] = {}\ny: typing.Any\n") == [1, 2, 3]
    assert uses_any("from typing import Mapping\nx: Mapping[str, object]\n") == []
