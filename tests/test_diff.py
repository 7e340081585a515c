"""`mjrules diff`: rule-path differences between resolved rulesets, with origins."""
from __future__ import annotations

import json
import re

import pytest
from typer.testing import CliRunner

from engine import compile_ruleset, compile_text
from engine.cli import app
from engine.lang.resources import rulesets_dir
from engine.tools.diff import diff, expr_text, rules_of

runner = CliRunner()

# RULES.md §3, chongguan: 埋雷; 回头一笑; dead wall of 17 stacks; 弃先胡后 with resets;
# 大七对 x4; kongs 2 both — as the rule paths that say them
CHONGGUAN_VS_NANCHANG = {
    ("~", "indicator.lower"),     # 埋雷: hidden, settled at the end
    ("+", "indicator.回头"),       # 回头一笑
    ("~", "table.dead_wall"),     # 17 stacks
    ("~", "flow.弃先胡后"),         # with resets
    ("~", "fan.大七对"),            # x4
    ("~", "jing.kong"),           # 2 both
}


def _changes(a, b):
    return {(c.op, c.path) for c in diff(compile_ruleset(a), compile_ruleset(b))}


def test_nanchang_to_chongguan_is_exactly_rules_section_3():
    assert _changes("nanchang", "chongguan") == CHONGGUAN_VS_NANCHANG


def test_nanchang_to_table_lists_only_its_overrides():
    text = (rulesets_dir() / "nanchang-table.rules").read_text(encoding="utf-8")
    overrides = {("~", f"{k}.{n}") for k, n in re.findall(r"^override (\w+) (\S+)", text, re.M)}
    assert overrides and _changes("nanchang", "nanchang-table") == overrides


def test_nanchang_to_ganzhou():
    assert _changes("nanchang", "ganzhou") == {
        ("~", "indicator.lower"), ("+", "indicator.left"), ("+", "indicator.right"), ("~", "fan.天胡"),
        ("~", "fan.地胡"), ("~", "fan.大七对"), ("~", "fan.精钓"), ("~", "flow.精钓点炮"), ("+", "option.翻精"),
        ("+", "option.精钓点炮")}


def test_removed_and_option_choice(tmp_path):
    f = tmp_path / "h.rules"
    f.write_text("extends nanchang\nremove meld 风顺\n", encoding="utf-8")
    assert _changes("nanchang", str(f)) == {("-", "meld.风顺")}
    a, b = compile_ruleset("nanchang"), compile_ruleset("nanchang", {"明杠分": "2"})
    assert {(c.op, c.path) for c in diff(a, b)} == {("~", "jing.kong"), ("~", "option.明杠分")}


def test_cli_marks_origins_and_exit_codes():
    r = runner.invoke(app, ["diff", "nanchang", "nanchang-table"])
    assert r.exit_code == 1
    lines = r.output.splitlines()
    i = lines.index("~ fan.大七对")
    assert lines[i + 1].startswith("    - x2 when pattern 大七对") and "nanchang.rules:" in lines[i + 1]
    assert lines[i + 2].startswith("    + x4 when pattern 大七对") and "nanchang-table.rules:" in lines[i + 2]
    assert lines[-1] == "4 differences: 0 added, 0 removed, 4 changed"
    same = runner.invoke(app, ["diff", "nanchang", "nanchang"])
    assert same.exit_code == 0 and same.output.strip().endswith("no differences")


def test_cli_json():
    r = runner.invoke(app, ["diff", "nanchang", "chongguan", "--json"])
    data = json.loads(r.stdout)
    assert (data["added"], data["removed"], data["changed"]) == (1, 0, 5)
    kong = next(c for c in data["changes"] if c["path"] == "jing.kong")
    assert kong["old"]["text"] == "concealed 2, exposed 1, added 1"
    assert kong["new"]["text"] == "concealed 2, exposed 2, added 2"


@pytest.mark.parametrize("text", [
    "not wilds_used and (self_drawn or first_turn)",
    "floor * (floor - 3) > 0",
    "floor - (3 - floor) == 1",
    "-floor >= -2",
    "pattern 小七对 or jing_wait and not discard",
])
def test_expressions_read_as_written(tmp_path, text):
    rs = compile_text(f"extends nanchang\nfan z = x2 when {text}\n", str(tmp_path / "z.rules"), base_dir=tmp_path)
    assert expr_text(rs.fans["z"].when) == text


def test_every_bundled_rule_renders():
    for name in ("nanchang", "nanchang-table", "chongguan", "ganzhou"):
        assert all(r.text for r in rules_of(compile_ruleset(name)).values())


def test_impact_plays_the_same_hands_under_both():
    r = runner.invoke(app, ["diff", "nanchang", "nanchang", "--impact", "10", "--json"])
    assert r.exit_code == 0
    rows = json.loads(r.stdout)["impact"]["rows"]
    assert rows and all(row["a"] == row["b"] for row in rows)  # the same rules: the same hands, the same results
    r = runner.invoke(app, ["diff", "nanchang", "chongguan", "--impact", "10", "--json"])
    moved = json.loads(r.stdout)["impact"]["rows"][0]
    assert moved["what"] == "子 moved per hand" and moved["a"] != moved["b"]


def test_options_go_to_the_side_that_declares_them():
    r = runner.invoke(app, ["diff", "nanchang", "ganzhou", "--option", "翻精=埋地雷", "--json"])
    paths = {c["path"] for c in json.loads(r.stdout)["changes"]}
    assert "indicator.left" not in paths and "option.翻精" in paths
    r = runner.invoke(app, ["diff", "ganzhou", "ganzhou", "--option-b", "翻精=埋地雷", "--json"])
    got = {(c["op"], c["path"]) for c in json.loads(r.stdout)["changes"]}
    assert got == {("-", "indicator.left"), ("-", "indicator.right"), ("~", "option.翻精")}
    r = runner.invoke(app, ["diff", "nanchang", "chongguan", "--option", "nosuch=1"])
    assert r.exit_code == 2 and "unknown option 'nosuch'" in r.output


def test_diff_impact_takes_the_impact_flags():
    """`diff A B --impact N` plays with --bots in --workers processes and prints --format markdown;
    those flags without --impact are refused (exit 2)."""
    r = runner.invoke(app, ["diff", "nanchang", "nanchang-table", "--impact", "8", "--bots", "value",
                                 "--workers", "2", "--format", "markdown"])
    assert r.exit_code == 1, r.output  # they differ
    assert "~ fan.大七对" in r.output
    assert "## Impact of nanchang-table over nanchang: 8 paired hands" in r.output
    assert "`mjrules impact nanchang nanchang-table -n 8 --seed 1 --bots value`" in r.output
    for flags in (["--bots", "value"], ["--workers", "2"]):
        r = runner.invoke(app, ["diff", "nanchang", "nanchang-table", *flags])
        assert r.exit_code == 2 and "no --impact is given" in r.output
    r = runner.invoke(app, ["diff", "nanchang", "nanchang-table", "--impact", "4", "--format", "html"])
    assert r.exit_code == 2 and "--format 'html'" in r.output
