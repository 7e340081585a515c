"""docs/rulesets/*.md are the rule sheets `mjrules sheet` generates: they stay current."""
from __future__ import annotations

import pytest

from engine import compile_ruleset
from engine.lang.resources import bundled_ruleset_names
from engine.tools.diff import rules_of
from engine.tools.sheet import comment_at, rule_sheet

from .conftest import ROOT


@pytest.mark.parametrize("name", bundled_ruleset_names())
def test_committed_sheet_is_current(name):
    committed = (ROOT / "docs" / "rulesets" / f"{name}.md").read_text(encoding="utf-8")
    assert committed == rule_sheet(compile_ruleset(name)) + "\n", (
        f"docs/rulesets/{name}.md is stale: run `mjrules sheet {name} -O docs/rulesets/{name}.md`")


def test_a_sheet_shows_the_override_and_its_source():
    rules = rules_of(compile_ruleset("chongguan"))
    kong = rules["jing.kong"]
    assert kong.text == "concealed 2, exposed 2, added 2" and kong.origin.file.endswith("chongguan.rules")
    # the comment above the override in chongguan.rules, word for word
    assert comment_at(kong) == "kongs score 2 both, 明 and 暗 (RULES.md §2 精 settlement: 冲关 (002 [pub]) pays 2 for both)"
    assert "| `jing.kong` | concealed 2, exposed 2, added 2 | chongguan.rules:" in rule_sheet(compile_ruleset("chongguan"))


def _option_variants() -> list[tuple[str, str, str]]:
    from engine.lang.compiler import compile_ruleset
    from engine.lang.resources import rulesets_dir

    out = []
    for f in sorted(rulesets_dir().glob("*.rules")):
        rs = compile_ruleset(f.stem)
        out += [(f.stem, name, v) for name, o in rs.options.items() for v in o.choices if v != o.chosen]
    return out


@pytest.mark.parametrize("ref, name, value", _option_variants(), ids=lambda x: str(x))
def test_every_option_value_has_a_sheet_and_a_diff(ref, name, value):
    """Every declaration an option value makes has a text (`sheet`, `diff`): no construct the
    printers do not know (each tile, flips, family …)."""
    from engine.lang.compiler import compile_ruleset
    from engine.tools.diff import diff
    from engine.tools.sheet import rule_sheet

    variant = compile_ruleset(ref, {name: value})  # every value compiles with the others at their defaults
    assert f"option.{name}" in rule_sheet(variant)
    assert any(c.path == f"option.{name}" for c in diff(compile_ruleset(ref), variant))
