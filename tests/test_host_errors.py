"""Errors a table host can act on: what a Chinese input method types (full-width punctuation,
digits and spaces) is named with its ASCII replacement, and the hints of common slips say what
to write instead of misleading."""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import ScenarioError
from engine.lang.compiler import check_text
from engine.tools.scenario import run_file

HEAD = "ruleset h\nextends nanchang\n"


def one_error(body: str):
    errors = check_text(HEAD + body, "h.rules").errors
    assert len(errors) == 1, [e.message for e in errors]
    return errors[0]


@pytest.mark.parametrize("body,wide,meant,column", [
    ("fan 大 ＝ x2 when self_drawn\n", "＝", "'='", 7),
    ("fan 大 = x2 when self_drawn ， discard\n", "，", "','", 28),
    ("fan 大 = x2 when （self_drawn)\n", "（", "'('", 17),
    ("fan 大 = x2 when floor >= ２\n", "２", "'2'", 26),
    ("fan 大 = x2 when self_drawn\u3000and discard\n", "space", "' '", 27),
])
def test_full_width_characters_are_named_with_their_ascii(body, wide, meant, column):
    e = one_error(body)
    assert f"a full-width {wide}" in e.message and "half-width" in e.message
    assert meant in e.hint and (e.location.line, e.location.column) == (3, column)


def test_a_full_width_digit_is_never_read_as_a_number():
    """`x２` was once a multiplier of 2: now it is refused, with the word it should be."""
    e = one_error("fan 大 = x２ when self_drawn\n")
    assert "a full-width ２ in `x２`" in e.message and "'x2'" in e.hint


@pytest.mark.parametrize("body,hint", [
    ("fan 大 = 2x when self_drawn\n", "a multiplier is written x2: the x first, then the number"),
    ("factor 底分 = x2 on win\n", "a factor's value is a number or a formula: write `= 2`, not `= x2`"),
    ("jing 霸王 = 10 when sole_holder\n", "a 精 bonus is added: write `+10 when …`"),
    ("remove fan 抄庄\n", "flow.抄庄 has that name: write `remove flow 抄庄`"),
])
def test_hints_say_what_to_write(body, hint):
    e = one_error(body)
    assert e.hint is not None and e.hint.startswith(hint), e.hint


def test_an_unknown_option_suggests_no_unrelated_name():
    """底分 shares only 分 with 明杠分: the options are listed, none is guessed."""
    r = CliRunner().invoke(app, ["score", "--rules", "nanchang", "--option", "底分=4", "--hand", "S=123m"])
    assert r.exit_code == 2 and "unknown option '底分'" in r.output
    assert "did you mean" not in r.output and "options of this ruleset: 明杠分, 四归, 下精" in r.output


def test_a_full_width_colon_in_a_scenario_is_named_at_its_line(tmp_path):
    f = tmp_path / "s.yaml"
    f.write_text("ruleset: nanchang\ncases:\n  - name: t\n    jing： 9s\n    hands:\n      S: 123p\n"
                 "    expect:\n      hand: {E: -2}\n", encoding="utf-8")
    with pytest.raises(ScenarioError) as e:
        run_file(f)
    assert "a full-width ：" in e.value.message and (e.value.location.line, e.value.location.column) == (4, 9)


@pytest.mark.parametrize("text,line", [
    ("name: t\nnotes:\n  - 胡：平胡\nbad: [1, 2\n", 5),   # a ： inside a list item is text, not the mistake
    ("name: t\nnotes: |\n  胡：平胡\nbad: [1, 2\n", 5),   # nor inside a block of text
])
def test_a_full_width_colon_in_text_is_not_blamed_for_another_error(text, line):
    from engine.lang.yamlio import load_text

    with pytest.raises(ScenarioError) as e:
        load_text(text, "x.yaml")
    assert "full-width" not in e.value.message and e.value.location.line == line
