"""The editor's server finds the rule a name in a statement refers to by the words before it
(engine/tools/lsp.py ``definition``): a pure function of the text, no server process."""
from __future__ import annotations

from pathlib import Path

from engine.tools.lsp import analyse, definition

ROOT = Path(__file__).resolve().parent.parent

TEXT = ("extends nanchang\n"
        "fan 冲关 = x2 when self_drawn\n"  # a fan of the same name as nanchang's 精 formula
        "override jing 包冲关 = liability over 冲关 on first claimed discard of upper\n")


def test_liability_over_names_a_jing_formula_not_a_fan_of_that_name():
    a = analyse(TEXT, str(ROOT / "house.rules"), ROOT)
    col = TEXT.split("\n")[2].index("冲关 on")
    sym = definition(a, 2, col + 1)
    assert sym is not None and (sym.kind, sym.name) == ("jing", "冲关")
    assert Path(sym.file).name == "nanchang.rules"
    col = TEXT.split("\n")[1].index("冲关")
    sym = definition(a, 1, col + 1)  # the fan's own name is the fan
    assert sym is not None and (sym.kind, Path(sym.file).name) == ("fan", "house.rules")
