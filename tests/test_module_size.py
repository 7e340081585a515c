"""No hand-written module in engine/ is over 800 lines: past that it is two modules."""
from __future__ import annotations

from .conftest import ROOT

ENGINE = ROOT / "engine"
MAX_LINES = 800
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


def test_no_hand_written_module_is_over_800_lines():
    found = long_modules(skip=GENERATED)
    assert not found, f"modules over {MAX_LINES} lines (split them by the question each part answers):\n" + \
        "\n".join(found)


def test_the_size_check_can_fail(tmp_path):
    (tmp_path / "engine").mkdir()
    (tmp_path / "engine" / "big.py").write_text("x = 1\n" * (MAX_LINES + 1))
    (tmp_path / "engine" / "fine.py").write_text("x = 1\n" * MAX_LINES)
    assert long_modules(tmp_path / "engine") == [f"engine/big.py: {MAX_LINES + 1} lines"]
