"""docs/house-rules/: pointer files to the bundled rulesets' room options, each with scenarios.

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
from ruamel.yaml import YAML

from engine.lang.compiler import compile_ruleset
from engine.lang.fmt import format_text
from engine.tools.scenario import run_file

from .conftest import assert_case_passed, scenario_params

HOUSE = Path(__file__).resolve().parent.parent / "docs" / "house-rules"
RULES = sorted(HOUSE.glob("*.rules"))
YAMLS = sorted(HOUSE.glob("*.yaml"))

# scenario file → the option off: (ruleset, options) — the options over the file's own (its
# pointer file's `set` and its `options:`); ruleset None: the file's own; a ruleset with a newline
# is a rule text written beside the scenario (a reading the server does not follow)
JIAN_OLD_KONG_BLOOM = "ruleset old-kong-bloom\nextends jian\noverride fan 杠开 = x4 when after_kong\n"
JIAN_FIXED_DEAD_WALL = "ruleset fixed-dead-wall\nextends jian\nremove flow 海底\n"
OFF: dict[str, tuple[str | None, dict]] = {
    "base-score": (None, {"底分": 1}),
    "base-score-4": (None, {"底分": 1}),
    "buried-lower": (None, {"玩法": "上下翻"}),
    "cap": (None, {"封顶": "不封顶"}),
    "cap-600": (None, {"封顶": "不封顶"}),
    "dead-wall-kongs": (JIAN_FIXED_DEAD_WALL, {}),
    "discard-pays": (None, {"抓炮": "一家付"}),
    "discard-pays-alone": (None, {"抓炮": "三家付"}),
    "discarded-jing": (None, {"精牌": "打出精牌不算分"}),
    "floor-falls": (None, {"爬楼": "快下"}),
    "floor-falls-fast": (None, {"爬楼": "慢下"}),
    "follow-first": (None, {"抄庄": "不抄庄"}),
    "ganzhou-fan-jing": (None, {"翻精": "上下左右翻"}),
    "ganzhou-no-lower": (None, {"翻精": "上下左右翻"}),
    "jing-must-hook": (None, {"胡法": "可平胡"}),
    "kong-bloom": (JIAN_OLD_KONG_BLOOM, {}),
    "look-back": (None, {"回头一笑": "否"}),
    "no-dealer-double": (None, {"庄家": "分庄闲"}),
    "no-lower": (None, {"玩法": "埋地雷"}),
    "no-plain-win": (None, {"无平胡": "否"}),
    "overlord-bonus": (None, {"霸王": "精x2"}),
    "piao-jing": (None, {"飘精": "否"}),
    "room": (None, {"底分": 1, "抓炮": "一家付"}),
}
# the bundled ruleset each pointer file extends, and the option it sets (None: the parent's base)
POINTS_TO = {
    "base-score": ("nanchang-app", "底分"), "base-score-4": ("nanchang-app", "底分"),
    "buried-lower": ("nanchang-app", "玩法"), "cap": ("nanchang-app", "封顶"), "cap-600": ("jian", "封顶"),
    "dead-wall-kongs": ("jian", None), "discard-pays": ("nanchang-app", "抓炮"),
    "discard-pays-alone": ("nanchang-app", "抓炮"), "discarded-jing": ("nanchang-app", "精牌"),
    "floor-falls": ("nanchang-app", "爬楼"), "floor-falls-fast": ("nanchang-app", "爬楼"),
    "follow-first": ("nanchang-app", "抄庄"), "ganzhou-fan-jing": ("ganzhou", "翻精"),
    "ganzhou-no-lower": ("ganzhou", "翻精"), "jing-must-hook": ("ganzhou-app", "胡法"),
    "kong-bloom": ("jian", None), "look-back": ("nanchang-app", "回头一笑"),
    "no-dealer-double": ("ganzhou-app", "庄家"), "no-lower": ("nanchang-app", "玩法"),
    "no-plain-win": ("nanchang-app", "无平胡"), "overlord-bonus": ("nanchang-app", "霸王"),
    "piao-jing": ("nanchang-app", "飘精"), "room": ("nanchang-app", None),
}


def test_the_directory_holds_the_files():
    assert len(RULES) >= 15 and len(YAMLS) >= 20
    assert {y.stem for y in YAMLS} == set(OFF) == set(POINTS_TO) == {r.stem for r in RULES}
    for y in YAMLS:  # each scenario file runs its own pointer file
        assert re.search(rf"^ruleset: {re.escape(y.stem)}\.rules$", y.read_text(encoding="utf-8"), re.M), y.name


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_each_file_is_a_pointer_to_a_bundled_option(path: Path):
    """A house file declares nothing of its own: it extends a bundled ruleset and `set`s the
    option that says its rule (room.rules sets several)."""
    parent, option = POINTS_TO[path.stem]
    text = path.read_text(encoding="utf-8")
    assert re.search(rf"^extends {re.escape(parent)}$", text, re.M)
    statements = [ln.split()[0] for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    assert set(statements) <= {"ruleset", "extends", "source", "set"}, statements
    rs = compile_ruleset(str(path))
    assert all(Path(o.origin.file).resolve() != path.resolve() for o in rs.options.values())
    if option is not None:
        assert re.search(rf"^set {re.escape(option)} = ", text, re.M)
        assert option in compile_ruleset(parent).options


@pytest.mark.parametrize("path", RULES, ids=lambda p: p.stem)
def test_rule_file_compiles_with_every_choice_and_is_formatted(path: Path):
    rs = compile_ruleset(str(path))
    own = [(n, o) for n, o in rs.options.items() if Path(o.origin.file).resolve() == path.resolve()]
    for name, opt in own:  # the file's own options (a parent's may override what this file removes)
        for choice in opt.choices:
            compile_ruleset(str(path), options={name: choice})
    text = path.read_text(encoding="utf-8")
    assert format_text(text, str(path)) == text
    assert re.search(r'^source "[^"]{8,}"', text, re.M), "each house rule names its source"


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


def test_diff_shows_the_option_each_file_sets():
    """`mjrules diff PARENT FILE` shows the option the pointer file chose, at its `set`."""
    from typer.testing import CliRunner

    from engine.cli import app
    runner = CliRunner()
    for stem, (parent, option) in POINTS_TO.items():
        if option is None:
            continue
        rs, base = compile_ruleset(str(HOUSE / f"{stem}.rules")), compile_ruleset(parent)
        if rs.options[option].chosen == base.options[option].chosen:
            continue  # the file sets the parent's default: nothing to show
        out = runner.invoke(app, ["diff", parent, str(HOUSE / f"{stem}.rules")]).output
        assert f"~ option.{option}" in out and f"{stem}.rules:" in out, (stem, out)
    out = runner.invoke(app, ["diff", "nanchang-app", str(HOUSE / "room.rules")]).output
    for option in ("底分", "抓炮", "霸王", "封顶"):
        assert f"~ option.{option}" in out


@pytest.mark.parametrize("result", scenario_params(YAMLS))
def test_case_passes(result):
    assert_case_passed(result)


def _with_option_off(y: Path, tmp_path: Path) -> Path:
    ruleset, options = OFF[y.stem]
    text = y.read_text(encoding="utf-8")
    own = re.search(r"^ruleset: (.+)$", text, re.M).group(1).strip()
    if ruleset is None:
        ruleset = str((y.parent / own).resolve()) if own.endswith(".rules") else own
    elif "\n" in ruleset:
        (tmp_path / "off.rules").write_text(ruleset, encoding="utf-8")
        ruleset = "off.rules"
    given = re.search(r"^options: (.*)$", text, re.M)
    options = {**(YAML(typ="safe").load(given.group(1)) if given else {}), **options}
    text = re.sub(r"^options: .*\n", "", text, flags=re.M)
    opts = "{" + ", ".join(f'{k}: "{v}"' for k, v in options.items()) + "}"
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
