"""A house file is one rule file: `set NAME = VALUE` chooses a parent's option (docs/language.md `set`).
What wins (the caller over the nearest `set` over a parent's `set` over the default), the errors
at the `set`, and what check, sheet, diff and export show."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import compile_ruleset
from engine.cli import app
from engine.errors import RuleError
from engine.lang.compiler import check_text
from engine.tools.diff import diff as diff_rulesets

runner = CliRunner()


def write(tmp_path: Path, name: str, text: str) -> Path:
    f = tmp_path / name
    f.write_text(text, encoding="utf-8")
    return f


def test_a_set_chooses_the_parents_option_and_changes_the_rules(tmp_path):
    room = write(tmp_path, "room.rules", "extends nanchang\nset 四归 = no\n")
    rs = compile_ruleset(str(room))
    assert rs.options["四归"].chosen == "no"
    assert rs.options["四归"].set_at is not None and rs.options["四归"].set_at.line == 2
    assert rs.patterns["小七对"].quads_as_pairs is False
    assert compile_ruleset("nanchang").patterns["小七对"].quads_as_pairs is True


def test_the_caller_wins_over_a_set_and_the_nearest_set_over_a_parents(tmp_path):
    house = write(tmp_path, "house.rules", "extends nanchang\nset 四归 = no\nset 下精 = at_end\n")
    room = write(tmp_path, "room.rules", 'extends "house.rules"\nset 下精 = hidden_at_end\n')
    rs = compile_ruleset(str(room))
    assert (rs.options["四归"].chosen, rs.options["下精"].chosen) == ("no", "hidden_at_end")
    assert rs.options["四归"].set_at.file == str(house) and rs.options["下精"].set_at.file == str(room)
    called = compile_ruleset(str(room), {"下精": "after_deal"})
    assert called.options["下精"].chosen == "after_deal" and called.options["下精"].set_at is None


def test_house_files_with_options_combine_in_one_house_file(tmp_path):
    write(tmp_path, "house.rules", "extends nanchang\n"
          'option 大七对 "x2 or x4" = 2 {\n    2: { }\n    4: { override fan 大七对 = x4 when pattern 大七对 }\n}\n')
    room = write(tmp_path, "room.rules", 'extends "house.rules"\nset 大七对 = 4\nset 四归 = no\n')
    rs = compile_ruleset(str(room))
    assert rs.fans["大七对"].multiplier == 4
    assert rs.options["四归"].chosen == "no"


@pytest.mark.parametrize("text, line, col, message, hint", [
    ("extends nanchang\nset 四归 = maybe\n", 2, 10, "option 四归 has no choice 'maybe'", "choose one of: declared, yes, no"),
    ("extends nanchang\nset 四规 = no\n", 2, 1, "unknown option '四规'", "did you mean 四归?"),
    ("extends nanchang\nset 四归 = no\nset 四归 = yes\n", 3, 1, "option 四归 is already set in this file", "keep one"),
    ("extends nanchang\noption 快 = a {\n    a: { }\n    b: { }\n}\nset 快 = b\n", 6, 1,
     "option 快 is declared in this file", "change the default of option 快"),
])
def test_a_bad_set_is_an_error_at_the_set(tmp_path, text, line, col, message, hint):
    f = write(tmp_path, "room.rules", text)
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert (e.value.location.line, e.value.location.column) == (line, col)
    assert message in e.value.message and hint in (e.value.hint or "")
    checked = check_text(text, str(f), base_dir=tmp_path)
    assert [(x.location.line, x.location.column) for x in checked.errors] == [(line, col)]
    r = runner.invoke(app, ["check", str(f)])
    assert r.exit_code == 2 and f"room.rules:{line}:{col}" in r.output


def test_set_is_a_statement_word_and_not_a_name(tmp_path):
    f = write(tmp_path, "room.rules", "extends nanchang\nfan set = x2 when discard\n")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert e.value.location.line == 2


def test_check_sheet_diff_and_export_show_the_chosen_values(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path, "room.rules", "ruleset room\nextends nanchang\nset 四归 = no\n")
    r = runner.invoke(app, ["check", "room.rules"])
    assert r.exit_code == 0 and "option 四归 = no (default declared; choices declared, yes, no; set at room.rules:3)" in r.output
    r = runner.invoke(app, ["sheet", "room.rules"])
    assert "Options chosen: 四归=no (set at room.rules:3)." in r.output
    changes = {c.path: c for c in diff_rulesets(compile_ruleset("nanchang"), compile_ruleset("room.rules"))}
    assert changes["option.四归"].new.text.startswith("no ") and changes["option.四归"].new.origin.line == 3
    assert changes["pattern.小七对"].op == "~"
    r = runner.invoke(app, ["export", "room.rules", "--json"])
    exported = json.loads(r.output)["options"]["四归"]
    assert exported["chosen"] == "no" and exported["set_at"]["line"] == 3


def test_an_unquoted_choice_with_punctuation_is_told_to_quote_it(tmp_path):
    f = write(tmp_path, "room.rules", "extends nanchang-app\nset 霸王 = 精+10\n")
    with pytest.raises(RuleError) as e:
        compile_ruleset(str(f))
    assert (e.value.location.line, e.value.location.column) == (2, 11)
    assert e.value.hint == 'a choice with punctuation is written in quotes: set 霸王 = "精+10"'
