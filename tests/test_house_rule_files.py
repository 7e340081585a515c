"""docs/house-rules/: the room options of issue 10 written as rule files, each with scenarios.

Every rule file compiles with every choice of its options and is formatted; every scenario
case passes under `mjrules test`. And each option is shown to matter where it should: every
case is run again with the option off (the bundled ruleset, or the option's other value) —
a case named "… changes nothing …" (or "… agree …") must pass there too, and every other case
must not (its numbers change, or what it names does not exist without the option).
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from engine.lang.compiler import compile_ruleset
from engine.lang.fmt import format_text
from engine.tools.scenario import run_file

from .conftest import assert_case_passed, scenario_params

HOUSE = Path(__file__).resolve().parent.parent / "docs" / "house-rules"
RULES = sorted(HOUSE.glob("*.rules"))
YAMLS = sorted(HOUSE.glob("*.yaml"))

# scenario file → the option off: (ruleset, options); None: the file's own ruleset
OFF: dict[str, tuple[str | None, dict]] = {
    "base-score": (None, {"底分": 1}),
    "base-score-4": (None, {"底分": 1}),
    "discard-pays": (None, {"点炮": "三家"}),
    "discard-pays-alone": (None, {"点炮": "三家"}),
    "overlord-bonus": (None, {"霸王": "x2"}),
    "no-dealer-double": (None, {"庄闲": "分庄闲"}),
    "kong-bloom": ("nanchang", {}),
    "cap": (None, {"封顶": "none"}),
    "cap-600": (None, {"封顶": "none"}),
    "piao-jing": ("nanchang", {}),
    "discarded-jing": (None, {"打出精": "no"}),
    "no-plain-win": ("nanchang", {}),
    "jing-must-hook": ("nanchang", {}),
    "ganzhou-fan-jing": (None, {"翻精": "上下左右翻"}),
    "look-back": ("nanchang", {}),
    "buried-lower": (None, {"下精": "after_deal"}),
    "follow-first": (None, {"抄庄": "无"}),
    "floor-falls": (None, {"爬楼": "快下"}),
    "floor-falls-fast": (None, {"爬楼": "慢下"}),
    "dead-wall-kongs": (None, {"海底": "固定"}),
    "no-lower": ("nanchang", {}),
    "ganzhou-no-lower": (None, {"翻精": "上下左右翻"}),
}


def test_the_directory_holds_the_files():
    assert len(RULES) >= 15 and len(YAMLS) >= 20
    assert {y.stem for y in YAMLS} == set(OFF)


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_rule_file_compiles_with_every_choice_and_is_formatted(path: Path):
    rs = compile_ruleset(str(path))
    own = [(n, o) for n, o in rs.options.items() if Path(o.origin.file).resolve() == path.resolve()]
    for name, opt in own:  # the file's own options (a parent's may override what this file removes)
        for choice in opt.choices:
            compile_ruleset(str(path), options={name: choice})
    text = path.read_text(encoding="utf-8")
    assert format_text(text, str(path)) == text
    assert re.search(r'^source "issue 10', text, re.M), "each house rule names its source"


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_sheet_diff_and_export_describe_every_house_rule(path: Path):
    """The new constructs have a text in `diff`, `sheet` and `export` (no internal error)."""
    from typer.testing import CliRunner

    from engine.cli import app
    runner = CliRunner()
    assert runner.invoke(app, ["sheet", str(path)]).exit_code == 0
    assert runner.invoke(app, ["export", str(path)]).exit_code == 0
    d = runner.invoke(app, ["diff", "nanchang" if "chongguan" not in path.read_text() else "chongguan", str(path)])
    assert d.exit_code == 1 and "+" in d.output


def test_diff_shows_the_new_constructs():
    from typer.testing import CliRunner

    from engine.cli import app
    out = CliRunner().invoke(app, ["diff", "nanchang", str(HOUSE / "overlord-bonus.rules")]).output
    assert "+ +10 when sole_holder" in out
    out = CliRunner().invoke(app, ["diff", "nanchang", str(HOUSE / "cap.rules")]).output
    assert "factor.封顶 = at most 300 on win, jing, exhaustive" in out
    out = CliRunner().invoke(app, ["diff", "nanchang", str(HOUSE / "discard-pays.rules")]).output
    assert "discarder x2, others x1 paid by discarder when discard" in out
    out = CliRunner().invoke(app, ["diff", "nanchang", str(HOUSE / "no-plain-win.rules")]).output
    assert "fan.无平胡 = no win when pattern 平胡" in out
    out = CliRunner().invoke(app, ["diff", "nanchang", str(HOUSE / "discarded-jing.rules")]).output
    assert "jing.打出 = count discarded" in out


@pytest.mark.parametrize("result", scenario_params(YAMLS))
def test_case_passes(result):
    assert_case_passed(result)


def _with_option_off(y: Path, tmp_path: Path) -> Path:
    ruleset, options = OFF[y.stem]
    text = y.read_text(encoding="utf-8")
    own = re.search(r"^ruleset: (.+)$", text, re.M).group(1).strip()
    if ruleset is None:
        ruleset = str((y.parent / own).resolve()) if own.endswith(".rules") else own
    text = re.sub(r"^options: .*\n", "", text, flags=re.M)
    opts = "{" + ", ".join(f"{k}: {v}" for k, v in options.items()) + "}"
    text = re.sub(r"^ruleset: .*$", f"ruleset: {ruleset}\noptions: {opts}", text, count=1, flags=re.M)
    out = tmp_path / y.name
    out.write_text(text, encoding="utf-8")
    return out


@pytest.mark.parametrize("y", [y for y in YAMLS if y.stem in OFF], ids=lambda p: p.stem)
def test_the_option_changes_the_numbers_and_only_where_it_should(y: Path, tmp_path: Path):
    on = run_file(y)
    off = run_file(_with_option_off(y, tmp_path), keep_going=True)
    assert [r.name for r in on] == [r.name for r in off]
    same = [r for r in on if "changes nothing" in r.name or " agree " in r.name]
    assert same and len(same) < len(on), "each file has a case where the option matters and one where it does not"
    for a, b in zip(on, off):
        unchanged = a in same
        assert a.passed
        assert b.passed == unchanged, (
            f"{a.name}: with the option off it should {'pass' if unchanged else 'not pass'}: {b.differences}")
