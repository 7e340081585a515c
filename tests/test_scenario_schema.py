"""Scenario files are hostile input: read through a schema and a bounded YAML reader.

Every refusal is a ScenarioError (or an OptionError) with file:line:col and a message that says
what is wrong; `mjrules test` reports it as an error (exit 2), never an internal error (exit 3),
and goes on with the other files and cases.
"""
from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import MjError, OptionError, ScenarioError
from engine.lang import yamlio
from engine.tools.scenario import run_file

from .conftest import CASES

runner = CliRunner()

HEAD = "ruleset: nanchang\ncases:\n"
GOOD = ("  - name: good\n    jing: 3p\n    hands: {S: 456m789m123s东西7p3p}\n"
        "    win: {seat: S, tile: 南, by: discard, from: W}\n    expect: {hand: {S: 5}}\n")


def write(tmp_path: Path, text: str | bytes, name: str = "s.yaml") -> Path:
    f = tmp_path / name
    if isinstance(text, bytes):
        f.write_bytes(text)
    else:
        f.write_text(text, encoding="utf-8")
    return f


def refused(tmp_path: Path, text: str | bytes, kind: type = ScenarioError) -> MjError:
    f = write(tmp_path, text)
    with pytest.raises(kind) as info:
        run_file(f)
    assert info.value.location is not None and info.value.location.file == str(f)
    return info.value


def where(exc: MjError) -> tuple[int, int]:
    return exc.location.line, exc.location.column


# ---- the schema: each class of error, with its message, line and column --------------------------


def test_unknown_case_key_points_at_the_key_and_suggests(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    flor: 2\n    expect: {hand: {S: 1}}\n")
    assert exc.message == "cases[0]: unknown key 'flor'"
    assert where(exc) == (4, 5)
    assert exc.hint.startswith("did you mean floor? keys here: name, source, dealer, floor")


def test_unknown_top_level_key(tmp_path):
    exc = refused(tmp_path, "ruleset: nanchang\nrulesett: x\ncases: []\n")
    assert exc.message == "unknown key 'rulesett'" and where(exc) == (2, 1)


def test_unknown_nested_key_in_a_hand(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    hands: {W: {concealed: 1m, mled: []}}\n    expect: {hand: {S: 1}}\n")
    assert exc.message == "cases[0].hands.W: unknown key 'mled'"
    assert where(exc) == (4, 32)
    assert exc.hint.endswith("keys here: concealed, melds, discards")


def test_missing_key_points_at_its_mapping(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    win: {seat: S, by: self_draw}\n    expect: {hand: {S: 1}}\n")
    assert exc.message == "cases[0].win: missing key `tile`"
    assert where(exc) == (4, 10)
    exc = refused(tmp_path, "ruleset: nanchang\n")
    assert exc.message == "missing key `cases`" and where(exc) == (1, 1)
    exc = refused(tmp_path, HEAD + "  - name: x\n    jing: 3p\n")
    assert exc.message == "cases[0]: missing key `expect`" and where(exc) == (3, 5)


def test_wrong_type_points_at_the_value(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    floor: '2'\n    expect: {hand: {S: 1}}\n")
    assert exc.message == "cases[0].floor: Input should be a valid integer, not '2'"
    assert where(exc) == (4, 12)
    exc = refused(tmp_path, HEAD + "  - name: x\n    hands: {W: 5}\n    expect: {hand: {S: 1}}\n")
    assert exc.message.startswith("cases[0].hands.W: Input should be a valid string or a valid dictionary")
    assert where(exc) == (4, 16)
    exc = refused(tmp_path, HEAD + "  - name: x\n    expect: {hand: {S: five}}\n")
    assert exc.message == "cases[0].expect.hand.S: Input should be a valid integer, not 'five'"
    assert where(exc) == (4, 24)


def test_huge_numbers_are_refused(tmp_path):
    exc = refused(tmp_path, HEAD + f"  - name: x\n    floor: {10 ** 100}\n    expect: {{hand: {{S: 1}}}}\n")
    assert exc.message.startswith(f"cases[0].floor: Input should be less than or equal to {yamlio.MAX_FLOOR}")
    assert where(exc) == (4, 12)
    exc = refused(tmp_path, HEAD + f"  - name: x\n    expect: {{hand: {{S: -{10 ** 30}}}}}\n")
    assert "greater than or equal to" in exc.message and where(exc) == (4, 24)


def test_long_strings_are_refused(tmp_path):
    long_hand = "1m" * 600  # 1200 characters: one value, under the YAML bounds, over the schema's
    exc = refused(tmp_path, HEAD + f"  - name: x\n    hands: {{S: {long_hand}}}\n    expect: {{hand: {{S: 1}}}}\n")
    assert exc.message.startswith(f"cases[0].hands.S: String should have at most {yamlio.MAX_TEXT} characters")
    assert where(exc) == (4, 16)
    megabyte = "1m" * 500_000  # a hand string of 1 MB: refused by line length, before YAML reads it
    exc = refused(tmp_path, HEAD + f"  - name: x\n    hands: {{S: {megabyte}}}\n    expect: {{hand: {{S: 1}}}}\n")
    assert exc.message == f"line 4 is {len(megabyte) + 16} characters long (at most {yamlio.MAX_LINE})"
    assert where(exc) == (4, yamlio.MAX_LINE + 1)
    assert len(exc.render()) < 500  # the line itself is not printed
    big_value = "x" * (yamlio.MAX_SCALAR + 1)
    exc = refused(tmp_path, HEAD + f"  - name: x\n    source: >\n      {big_value}\n    expect: {{hand: {{S: 1}}}}\n")
    assert exc.message == f"a value of {yamlio.MAX_SCALAR + 2} characters (at most {yamlio.MAX_SCALAR})"
    assert where(exc) == (4, 13)  # the folded scalar starts at its `>`


def test_too_many_cases(tmp_path):
    cases = "".join(f"  - {{name: c{i}, expect: {{win: false}}}}\n" for i in range(yamlio.MAX_ITEMS + 1))
    exc = refused(tmp_path, HEAD + cases)
    assert exc.message.startswith(f"cases: List should have at most {yamlio.MAX_ITEMS} items")
    assert where(exc) == (3, 3)
    exc = refused(tmp_path, "ruleset: nanchang\ncases: []\n")
    assert exc.message.startswith("cases: List should have at least 1 item") and where(exc) == (2, 8)


def test_a_file_that_is_not_a_mapping(tmp_path):
    exc = refused(tmp_path, "- just\n- a list\n")
    assert exc.message == "a scenario file is a mapping with `ruleset` and `cases`" and where(exc) == (1, 1)


def test_an_empty_game_is_a_case_error_not_a_crash(tmp_path):
    """Found by benchmarks/fuzz.py: `game:` with nothing after it (null) was an internal error."""
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n    expect: {phase: draw}\n")
    assert exc.message == "case 'g': `game` is empty"
    assert where(exc) == (4, 5)  # the `game:` key


def test_more_replacements_than_the_wall_is_an_error_at_the_key(tmp_path):
    """Issue 16: a `replacements` list longer than the wall's tail was an internal IndexError."""
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n      dice: [[1, 2]]\n      replacements: ["
                  + ", ".join(["1m"] * 137) + "]\n    expect: {phase: draw}\n")
    assert exc.message == "case 'g': game.replacements: 137 tiles given; the wall has 136"
    assert where(exc) == (6, 7)  # the `replacements:` key inside `game`
    assert exc.hint.startswith("give at most 136 replacements")
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n      draws: [" + ", ".join(["1m"] * 136)
                  + "]\n    expect: {phase: draw}\n")
    assert exc.message == "case 'g': game.draws: 136 tiles given; the wall has 81 left after the deal"
    assert where(exc) == (5, 7)  # 136 - 53 dealt - the two indicators' places
    # 136 replacements fit the tail: what refuses 136 × 1m is the set's copies, as before
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n      replacements: [" + ", ".join(["1m"] * 136)
                  + "]\n    expect: {phase: draw}\n")
    assert "more 1m than the set has" in exc.message


def test_game_actions_are_checked(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n      actions: [E discard 白, {refused: S win, x: 1}]\n"
                  "    expect: {phase: draw}\n")
    assert exc.message.startswith("cases[0].game.actions[1]: an action is a text `SEAT KIND [TILE]`, {refused: …}")
    assert where(exc) == (5, 30)
    exc = refused(tmp_path, HEAD + "  - name: g\n    game:\n      dice: [[1, 9]]\n    expect: {phase: draw}\n")
    assert exc.message.startswith("cases[0].game.dice[0][1]: Input should be less than or equal to 6")
    assert where(exc) == (5, 18)


def test_duplicate_yaml_keys_are_refused(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    floor: 1\n    floor: 2\n    expect: {hand: {S: 1}}\n")
    assert "duplicate key \"floor\"" in exc.message and where(exc) == (5, 5)


# ---- YAML safety: refused before anything is expanded or built ----------------------------------


def _laughs(levels: int = 9) -> str:
    rows = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, levels):
        prev, cur = chr(96 + i), chr(97 + i)
        rows.append(f"{cur}: &{cur} [" + ", ".join([f"*{prev}"] * 10) + "]")
    return HEAD + "  - name: lol\n    expect: {hand: {S: 1}}\n    source:\n" + "".join(f"      {r}\n" for r in rows)


def test_billion_laughs_is_refused_without_expanding(tmp_path):
    f = write(tmp_path, _laughs())  # 10**9 strings once expanded (it took 5 GB before)
    tracemalloc.start()
    try:
        with pytest.raises(ScenarioError) as info:
            run_file(f)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert info.value.message == f"more than {yamlio.MAX_NODES} values once aliases are expanded"
    assert where(info.value) == (10, 26)  # the first alias that goes past the bound
    assert peak < 20 * 2 ** 20  # a few MB at most: nothing was expanded


def test_aliases_within_the_bound_still_work(tmp_path):
    f = write(tmp_path, "ruleset: nanchang\ncases:\n  - name: a\n    jing: 3p\n    hands: &h {S: 456m789m123s东西7p3p}\n"
                        "    win: &w {seat: S, tile: 南, by: discard, from: W}\n    expect: {hand: {S: 5}}\n"
                        "  - name: b\n    jing: 3p\n    hands: *h\n    win: *w\n    expect: {hand: {S: 5}}\n")
    assert [r.passed for r in run_file(f)] == [True, True]


def test_an_alias_inside_its_own_anchor_is_refused(tmp_path):
    exc = refused(tmp_path, "ruleset: nanchang\ncases: &c [1, *c]\n")
    assert exc.message == "alias *c is inside its own anchor (a cycle)" and where(exc) == (2, 15)


def test_deep_nesting_is_refused(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: x\n    source: " + "[" * 50_000 + "]" * 50_000 + "\n")
    assert exc.message.startswith("line 4 is") and where(exc) == (4, yamlio.MAX_LINE + 1)
    exc = refused(tmp_path, HEAD + "  - name: x\n    source:\n" + "".join("      [\n" for _ in range(5000)))
    assert exc.message == f"nested more than {yamlio.MAX_DEPTH} levels deep"
    assert where(exc) == (4 + yamlio.MAX_DEPTH - 2, 7)  # 3 levels above it: the 30th `[` is the 33rd


def test_non_utf8_bytes_are_refused_with_their_place(tmp_path):
    text = (HEAD + "  - name: 南昌\n").encode("utf-8") + "    source: 南昌\n".encode("gbk")
    exc = refused(tmp_path, text)
    assert exc.message == "the scenario file is not UTF-8 text (byte 0xc4)"
    assert where(exc) == (4, 13)
    assert "iconv" in exc.hint


def test_nul_bytes_are_refused_with_their_place(tmp_path):
    exc = refused(tmp_path, (HEAD + "  - name: a\0b\n").encode("utf-8"))
    assert exc.message == "the scenario file holds a NUL byte: it is not text" and where(exc) == (3, 12)


def test_a_file_over_the_size_cap_is_refused_unread(tmp_path):
    f = write(tmp_path, HEAD + "# padding\n" * (yamlio.MAX_FILE_BYTES // 10 + 1))
    with pytest.raises(ScenarioError) as info:
        run_file(f)
    assert info.value.message == f"the scenario file is bigger than {yamlio.MAX_FILE_BYTES} bytes"


# ---- options: at the scenario's own line, not in the rule file -----------------------------------


def test_unknown_option_points_at_the_scenario_options_entry(tmp_path):
    exc = refused(tmp_path, "ruleset: nanchang\noptions:\n  nosuch: 7\n" + GOOD.join(["cases:\n", ""]), OptionError)
    assert exc.message == "unknown option 'nosuch'" and where(exc) == (3, 3)
    assert exc.option == "nosuch"


def test_unknown_option_value_points_at_the_value(tmp_path):
    exc = refused(tmp_path, "ruleset: nanchang\noptions: {明杠分: 7}\n" + GOOD.join(["cases:\n", ""]), OptionError)
    assert exc.message == "option 明杠分 has no choice '7'" and where(exc) == (2, 16)
    assert exc.related and exc.related[0][0] == "option 明杠分 is declared here"
    assert exc.related[0][1].file.endswith("nanchang.rules")


# ---- mjrules test keeps going --------------------------------------------------------------------


def test_test_keeps_going_after_a_bad_file_and_a_bad_case(tmp_path):
    broken = write(tmp_path, "ruleset: nanchang\ncases:\n  - name: x\n    hands: {S: 123m\n", "broken.yaml")
    mixed = write(tmp_path, HEAD + GOOD + "  - name: bad\n    floor: 0\n    expect: {hand: {S: 1}}\n"
                  + GOOD.replace("good", "off").replace("{S: 5}", "{S: 4}"), "mixed.yaml")
    r = runner.invoke(app, ["test", str(broken), str(mixed), str(CASES / "nanchang_options.yaml")])
    assert r.exit_code == 2, r.output
    lines = r.output.splitlines()
    assert lines[0] == f"ERROR {broken}"
    assert f"{broken}:5:1: error: not valid YAML" in lines[1]
    assert "PASS good" in lines and "ERROR bad" in lines and "FAIL off" in lines
    assert f"    {mixed}:9:12: error: cases[1].floor: Input should be greater than or equal to 1, not 0" in lines
    assert "    hand.S: expected 4, got 5" in lines
    assert lines[-1] == "4 passed, 1 failed, 2 errors"  # nanchang_options' 3 cases still ran


def test_test_json_carries_the_errors(tmp_path):
    mixed = write(tmp_path, HEAD + GOOD + "  - name: bad\n    floor: 0\n    expect: {hand: {S: 1}}\n", "mixed.yaml")
    missing = tmp_path / "missing.yaml"
    r = runner.invoke(app, ["test", "--json", str(missing), str(mixed)])
    assert r.exit_code == 2
    data = json.loads(r.stdout)
    assert (data["passed"], data["failed"], data["errors"]) == (1, 0, 2)
    first, good, bad = data["cases"]
    assert first["status"] == "error" and first["name"] is None and first["file"] == str(missing)
    assert first["error"]["error"].startswith(f"cannot read scenario file {missing}")
    assert good["status"] == "pass" and good["error"] is None
    assert bad["status"] == "error" and bad["name"] == "bad"
    assert (bad["error"]["line"], bad["error"]["column"]) == (9, 12)


def test_failures_without_errors_exit_1(tmp_path):
    f = write(tmp_path, HEAD + GOOD.replace("{S: 5}", "{S: 4}"))
    r = runner.invoke(app, ["test", str(f)])
    assert r.exit_code == 1 and r.output.splitlines()[-1] == "0 passed, 1 failed"


def test_run_file_raises_unless_keep_going(tmp_path):
    f = write(tmp_path, HEAD + "  - name: bad\n    floor: 0\n    expect: {hand: {S: 1}}\n" + GOOD)
    with pytest.raises(ScenarioError):
        run_file(f)
    bad, good = run_file(f, keep_going=True)
    assert bad.status == "error" and bad.name == "bad" and where(bad.error) == (4, 12)
    assert good.status == "pass"


def test_the_scenario_page_states_the_bounds():
    text = " ".join((Path(__file__).resolve().parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8").split())
    for stated in (f"over {yamlio.MAX_FILE_BYTES // 2 ** 20} MiB", f"line over {yamlio.MAX_LINE} characters",
                   f"value over {yamlio.MAX_SCALAR} characters", f"more than {yamlio.MAX_DEPTH} deep",
                   f"more than {yamlio.MAX_NODES:,} values".replace(",", " "), f"at most {yamlio.MAX_ITEMS} cases",
                   f"of at most {yamlio.MAX_WORD} characters", f"floor from 1 to {yamlio.MAX_FLOOR}", "±10⁹"):
        assert stated in text, stated
    assert yamlio.MAX_ZI == 10 ** 9 and yamlio.MAX_TEXT == 1000


def test_the_game_schema_and_the_scripted_keys_agree():
    from engine.tools.scenario import GameSpec
    from engine.tools.scripted import GAME_KEYS

    assert {f.alias or n for n, f in GameSpec.model_fields.items()} == GAME_KEYS


def test_an_alias_to_an_anchor_being_redefined_is_a_cycle_too(tmp_path):
    exc = refused(tmp_path, "ruleset: nanchang\nx: &x 1\ncases: &x [*x]\n")
    assert exc.message == "alias *x is inside its own anchor (a cycle)" and where(exc) == (3, 12)


def test_a_key_of_the_wrong_type_points_at_the_key(tmp_path):
    exc = refused(tmp_path, HEAD + "  - name: k\n    hands: {S: 1m, 1: 123m}\n    expect: {hand: {S: 1}}\n")
    assert exc.message == "cases[0].hands: key 1: Input should be a valid string" and where(exc) == (4, 20)
