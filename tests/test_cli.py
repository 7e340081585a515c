"""The mjrules command: output a person can read, --json a program can read, exit codes."""
from __future__ import annotations

import json
from pathlib import Path

from ruamel.yaml import YAML
from typer.testing import CliRunner

from engine.cli import app

from .conftest import CASES

runner = CliRunner()

SCORE = ["score", "--rules", "nanchang", "--jing", "3p", "--hand", "S=456m789m123s东西7p3p",
         "--win", "S", "--tile", "南", "--by", "discard", "--from", "W"]


def test_test_command_summary_and_exit_0():
    r = runner.invoke(app, ["test", str(CASES / "nanchang_table.yaml")])
    assert r.exit_code == 0, r.output
    lines = r.output.strip().splitlines()
    assert lines[-1] == f"{len(lines) - 1} passed, 0 failed"
    assert all(line.startswith("PASS ") for line in lines[:-1])


def test_test_command_fail_exit_1_explains(tmp_path: Path):
    f = tmp_path / "bad.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: off by one\n    jing: 3p\n"
                 "    hands: {S: 456m789m123s东西7p3p}\n    win: {seat: S, tile: 南, by: discard, from: W}\n"
                 "    expect: {hand: {S: 4}}\n", encoding="utf-8")
    r = runner.invoke(app, ["test", str(f)])
    assert r.exit_code == 1
    assert "FAIL off by one" in r.output
    assert "hand.S: expected 4, got 5" in r.output
    assert "fired: 平胡, 点炮" in r.output
    assert "payment.点炮 discarder x2" in r.output
    assert r.output.strip().endswith("0 passed, 1 failed")


def test_test_command_unreadable_file_exit_2(tmp_path: Path):
    f = tmp_path / "broken.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: x\n    hands: {S: 123m\n", encoding="utf-8")
    r = runner.invoke(app, ["test", str(f)])
    assert r.exit_code == 2
    assert f"{f}:" in r.output and "error: not valid YAML" in r.output
    assert "Traceback" not in r.output


def test_test_command_refuses_fifth_copy(tmp_path: Path):
    f = tmp_path / "five.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: five 1m\n    jing: 3p\n"
                 "    hands: {S: 1111m, N: 1m}\n    expect: {hand: {E: -15}}\n", encoding="utf-8")
    r = runner.invoke(app, ["test", str(f)])
    assert r.exit_code == 2
    assert f"{f}:5:5: error: case 'five 1m': tile 1m is used 5 times" in r.output


def test_test_json():
    r = runner.invoke(app, ["test", "--json", str(CASES / "nanchang_table.yaml")])
    data = json.loads(r.output)
    assert data["failed"] == 0 and data["passed"] == len(data["cases"]) > 0
    assert {"name", "passed", "differences", "fired"} <= set(data["cases"][0])


def test_score_table_explains_every_zi():
    r = runner.invoke(app, SCORE)
    assert r.exit_code == 0, r.output
    for text in ("reading 平胡, 1 精 as wild", "payment.点炮", "W → S", "factor.庄家 x2", "jing.霸王 x2"):
        assert text in r.output


def test_score_json_is_zero_sum():
    r = runner.invoke(app, SCORE + ["--json"])
    data = json.loads(r.output)
    assert data["net"]["hand"] == {"E": -2, "S": 5, "W": -2, "N": -1}
    assert data["net"]["upper"] == {"E": -4, "S": 12, "W": -4, "N": -4}
    for part in data["net"].values():
        assert sum(part.values()) == 0
    assert data["reading"] == {"pattern": "平胡", "wilds": 1, "jing_wait": False}


def test_score_not_a_win_exit_1():
    r = runner.invoke(app, ["score", "--rules", "nanchang", "--jing", "3p", "--hand", "E=147m257p36s东南西北中",
                            "--win", "E", "--tile", "发"])
    assert r.exit_code == 1
    assert "no winning hand" in r.output and "Traceback" not in r.output


def test_score_bad_tile_exit_2():
    r = runner.invoke(app, ["score", "--rules", "nanchang", "--hand", "E=123x"])
    assert r.exit_code == 2
    assert "cannot read tile" in r.output or "no tile" in r.output


def test_score_exhaustive_draw():
    r = runner.invoke(app, ["score", "--rules", "nanchang", "--hand", "E=1m", "--json"])
    assert json.loads(r.output)["net"]["hand"] == {"E": -15, "S": 5, "W": 5, "N": 5}


def test_check_ok_and_options():
    r = runner.invoke(app, ["check", "nanchang-table"])
    assert r.exit_code == 0
    assert r.output.startswith("ok: nanchang-table (extends nanchang)")


def test_unknown_ruleset_names_the_bundled_ones():
    r = runner.invoke(app, ["check", "nanchan"])
    assert r.exit_code == 2
    assert "no bundled ruleset 'nanchan'" in r.output and "did you mean nanchang?" in r.output
    assert "to use a file, give a path like ./nanchan.rules" in r.output


def test_export_is_stable_yaml():
    a = runner.invoke(app, ["export", "nanchang-table"]).output
    b = runner.invoke(app, ["export", "nanchang-table"]).output
    assert a == b
    data = YAML(typ="safe").load(a)
    assert data["name"] == "nanchang-table"
    assert data["fans"]["大七对"]["multiplier"] == 4
    assert data["fans"]["大七对"]["origin"]["file"].endswith("nanchang-table.rules")
    assert data["fans"]["小七对"]["origin"]["file"].endswith("nanchang.rules")
    assert list(data["fans"])[:3] == ["小七对", "大七对", "十三烂"]


def test_help_teaches():
    r = runner.invoke(app, ["--help"])
    assert "mjrules score --rules" in r.output and "mjrules test" in r.output
    # the score example on one line, whatever the width: pasted whole, it runs
    assert any(ln.strip().startswith("mjrules score --rules") and ln.rstrip().endswith("--from W")
               for ln in r.output.splitlines()), r.output
    r = runner.invoke(app, ["score", "--help"])
    assert "--hand" in r.output and "kong_draw" in r.output


def test_list_names_bundled_rulesets_and_options():
    r = runner.invoke(app, ["list", "--json"])
    rows = {row["name"]: row for row in json.loads(r.output)}
    assert rows["nanchang-table"]["extends"] == ["nanchang"]
    assert rows["nanchang"]["options"]["明杠分"] == ["declared", "1", "2"]


def test_score_input_errors_exit_2():
    base = ["score", "--rules", "nanchang", "--jing", "3p"]
    twice = runner.invoke(app, base + ["--hand", "S=456m789m123s东西7p3p", "--hand", "S=1m", "--win", "S", "--tile", "南"])
    assert twice.exit_code == 2 and "--hand gives seat S twice" in twice.output
    short = runner.invoke(app, base + ["--hand", "S=456m789m123s东西7p", "--win", "S", "--tile", "南"])
    assert short.exit_code == 2 and "winner S holds 13 tiles" in short.output
    frm = runner.invoke(app, base + ["--hand", "S=456m789m123s东西7p3p", "--win", "S", "--tile", "南", "--from", "W"])
    assert frm.exit_code == 2 and "--from is for a discard or a robbed kong" in frm.output


def test_unknown_option_hint():
    r = runner.invoke(app, ["check", "nanchang", "--option", "foo=1"])
    assert r.exit_code == 2
    assert "hint: options of this ruleset: 明杠分, 四归, 下精" in r.output


def test_score_any_indicator():
    r = runner.invoke(app, ["score", "--rules", "ganzhou", "--jing", "9s", "--lower", "2m", "--indicator", "left=5p",
                            "--indicator", "right=东", "--hand", "E=2m", "--hand", "S=5p6p", "--hand", "W=东南南", "--json"])
    net = json.loads(r.stdout)["net"]
    assert net["right"] == {"E": -8, "S": -8, "W": 24, "N": -8}
    assert net["total"] == {"E": -17, "S": 11, "W": 19, "N": -13}
