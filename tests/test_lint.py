"""`mjrules check` as a linter (engine/lang/lint.py): every error of a file at once, each
warning code firing where it should and not on the bundled rulesets, `# noqa`, the
`--select`/`--ignore` selectors, several files per run, `--json`, and the exit status."""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.lang.lint import CODES, Selection, lint_file, lint_text
from engine.lang.resources import bundled_ruleset_names, resolve_ruleset_path

ROOT = Path(__file__).resolve().parent.parent
PARENT = "extends nanchang\n"
runner = CliRunner()


def lint(tmp_path: Path, body: str, **kw):
    path = tmp_path / "t.rules"
    path.write_text(PARENT + body, encoding="utf-8")
    return path, lint_file(path, **kw)


def only(diags, code):
    found = [d for d in diags if d.code == code]
    assert found, [d.concise() for d in diags]
    return found


# ---- errors: all of them, with positions ---------------------------------------------------------


def test_a_file_with_three_errors_reports_all_three(tmp_path):
    path, diags = lint(tmp_path, "fan 新 = x2 when discrad\n"          # line 2: unknown fact
                                 "meld 新顺 chow = distinct three in winds\n"  # line 3: syntax
                                 "fan 小七对 = x3 when pattern 小七对\n"    # line 4: declared twice
                                 "fan 好 = x2 when discard\n")
    got = [(d.code, d.line, d.column, d.end_line, d.end_column, d.message) for d in diags]
    assert got == [
        ("E401", 2, 17, 2, 24, "unknown fact 'discrad' in a win condition"),
        ("E101", 3, 25, 3, 30, "unexpected `three`; expected a number"),
        ("E301", 4, 1, 4, 4, "fan.小七对 is already declared"),
    ]
    assert all(d.file == str(path) and d.severity == "error" for d in diags)
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 2
    lines = r.output.splitlines()
    assert f"{path}:2:17: error: unknown fact 'discrad' in a win condition" in lines
    assert f"{path}:3:25: error: unexpected `three`; expected a number" in lines
    assert f"{path}:4:1: error: fan.小七对 is already declared" in lines
    assert lines[-1] == "Found 3 errors, 0 warnings."
    data = json.loads(runner.invoke(app, ["check", str(path), "--json"]).stdout)
    assert data["ok"] is False and data["errors"] == 3 and data["warnings"] == 0
    assert (data["error"], data["line"], data["column"]) == ("unknown fact 'discrad' in a win condition", 2, 17)
    assert [(d["code"], d["severity"], d["file"], d["line"], d["column"], d["end"]) for d in data["diagnostics"]] == [
        ("E401", "error", str(path), 2, 17, {"line": 2, "column": 24}),
        ("E101", "error", str(path), 3, 25, {"line": 3, "column": 30}),
        ("E301", "error", str(path), 4, 1, {"line": 4, "column": 4}),
    ]


def test_a_statement_cut_short_is_reported_where_it_ends(tmp_path):
    """The parser recovers at the next statement: `and` ends line 2, `or` ends line 4; each is
    reported at its own line's last word, not at the statement after it."""
    _, diags = lint(tmp_path, "fan 另 = x2 when self_drawn and\n"
                              "pattern 坏 = sets 4 of 刻字 + pair\n"
                              "fan 坏 = x2 when pattern 坏 or\n")
    got = [(d.code, d.line, d.column, d.message) for d in diags]
    expected = "the statement ends here, unfinished; expected `(`, `-`, `not`, `pattern`, a name, a number"
    assert got == [("E101", 2, 30, expected), ("E401", 3, 23, "unknown meld '刻字'"), ("E101", 4, 28, expected)]
    assert diags[0].hint == "the next statement (`pattern` at line 3) begins on the next line"


def test_a_keyword_with_letters_run_on_is_named_in_the_hint(tmp_path):
    """`whenn`: where a name may not stand the lexer reads `when` and leaves `n`, and the error
    falls at the statement's end; the hint names the word, where it is and the keyword meant.
    A name that merely begins with a short keyword (`one` in `ones`, `on` in `one`) is not taken for one."""
    _, diags = lint(tmp_path, "fan 另 = x2 whenn pattern 另\n")
    assert [(d.code, d.line) for d in diags] == [("E101", 2)]
    assert diags[0].hint == "`whenn` at line 2, column 12: did you mean `when`? (read as `when` and then `n`)"
    from engine.lang.syntax import glued_keyword

    assert glued_keyword("fan 另 = x2 when one and ones") is None
    assert glued_keyword("pattern 坏 = sets 4 of 刻子 + pairr") == (len("pattern 坏 = sets 4 of 刻子 + "), "pairr", "pair")


def test_a_statement_with_a_syntax_error_does_not_cascade(tmp_path):
    """Names declared by a statement that does not parse are not also reported as unknown."""
    _, diags = lint(tmp_path, "pattern 碰碰胡 = sets four of 刻子 + pair\n"
                              "fan 碰碰胡 = x2 when pattern 碰碰胡\n"
                              "fan 坏 = x2 when pattern 好好\n")
    assert [(d.code, d.line, d.column, d.message) for d in diags] == [
        ("E101", 2, 20, "unexpected `four`; expected a number"),
        ("E401", 4, 25, "unknown pattern '好好'"),
    ]


def test_recovery_is_bounded_by_the_statement_limit(tmp_path):
    from engine.lang import limits as L

    body = "fan 坏 = x2 when\n" + "".join(f"fan f{i} = x2 when discard\n" for i in range(L.MAX_DECLARATIONS))
    _, diags = lint(tmp_path, body)
    assert [(d.code, d.line, d.message) for d in diags] == [
        ("E001", L.MAX_DECLARATIONS + 2, f"more than {L.MAX_DECLARATIONS} statements in one file")]


def test_errors_of_an_option_block_and_of_values_are_collected(tmp_path):
    _, diags = lint(tmp_path, "suit q ranks 5..1 copies 4\n"
                              "remove fan 不存在\n"
                              "fan 好 = x2, x3 when discard\n")
    assert [(d.code, d.line, d.column) for d in diags] == [("E201", 2, 14), ("E301", 3, 1), ("E201", 4, 13)]


def test_errors_match_the_compilers_first_error(tmp_path):
    """The linter's first error is the compiler's (same message and place) on single-error files."""
    from engine.errors import RuleError
    from engine.lang.compiler import compile_ruleset

    for body in ("fan 新 = x2 when not wild_used\n", "fan :x: = x2\n", "meld 新顺 chow = distinct three in winds\n",
                 "override fan 没有 = x2 when discard\n", "override table deal = 4 4 4 2\n"):
        path, diags = lint(tmp_path, body)
        with pytest.raises(RuleError) as info:
            compile_ruleset(str(path))
        e = info.value
        assert [(d.message, d.file, d.line, d.column) for d in diags] == [
            (e.message, e.location.file, e.location.line, e.location.column)], body


def test_a_file_that_is_not_text_is_one_error(tmp_path):
    path = tmp_path / "b.rules"
    path.write_bytes(b"extends nanchang\n\xff\xfe\n")
    [d] = lint_file(path)
    assert (d.code, d.line, d.message) == ("E001", 2, "the rule file is not UTF-8 text")


# ---- warnings: each fires, with its place ------------------------------------------------------------

WARNS = {
    "W101": ("pattern 碰碰胡 = sets 4 of 刻子/杠 + pair\nfan 碰碰胡 = x2 when pattern 碰碰胡\n", 2, 1),
    "W102": ("meld 风刻 pung = same 3\npattern 碰碰胡 = sets 4 of 刻子 + pair\n"
             "override pattern 平胡 = sets 4 of chow/刻子/杠 + pair\noverride pattern 大七对 = sets 4 of 刻子/杠 + pair\n", 2, 1),
    "W201": ("fan 怪 = x2 when self_drawn and discard\n", 2, 17),
    "W202": ("fan 一 = x1 when first_turn\n", 2, 9),
    "W203": ("fan 零 = x0 when first_turn\n", 2, 9),
    "W204": ("jing 负 = score n - 3 when n >= 1\n", 2, 16),
    "W301": ("override fan 大七对 = x2 when pattern 大七对\n", 2, 1),
    "W302": ("option 选 = a {\n  a: { }\n  b: { }\n}\n", 4, 3),
    "W303": ("set 下精 = at_end\noverride indicator lower \"下精\" = under upper, settle after deal\n", 3, 1),
}


def test_every_warning_code_has_a_case():
    assert set(WARNS) == {c for c, (sev, _) in CODES.items() if sev == "warning"}


@pytest.mark.parametrize("code", sorted(WARNS))
def test_warning_fires(tmp_path, code):
    body, line, column = WARNS[code]
    path, diags = lint(tmp_path, body)
    [d] = only(diags, code)
    assert (d.file, d.line, d.column, d.severity) == (str(path), line, column, "warning"), d.concise()
    assert d.end_line == line and d.end_column > column
    assert d.concise().startswith(f"{path}:{line}:{column}: {code} ")


@pytest.mark.parametrize("name", bundled_ruleset_names())
def test_no_warning_on_the_bundled_rulesets(name):
    assert [d.concise() for d in lint_file(resolve_ruleset_path(name))] == []


def test_warning_messages(tmp_path):
    _, d = lint(tmp_path, WARNS["W101"][0])
    assert only(d, "W101")[0].message == (
        "pattern 碰碰胡 matches exactly the hands pattern 大七对 matches: a hand is scored as one of them "
        "(the one that pays more, 大七对 on a tie); fan 碰碰胡 applies only when the hand is read as 碰碰胡")
    _, d = lint(tmp_path, WARNS["W201"][0])
    w = only(d, "W201")[0]
    assert w.message == "the condition of fan 怪 can never hold, so the fan never applies"
    assert (w.column, w.end_column) == (17, 39)  # `self_drawn and discard`
    _, d = lint(tmp_path, WARNS["W204"][0])
    assert only(d, "W204")[0].message == ("jing 负: the formula can be negative (a value as low as -2), "
                                          "which would turn who pays around")


@pytest.mark.parametrize("body", [
    "fan 好 = x2 when self_drawn and not discard\n",             # W201: possible
    "fan 好 = x2 when after_kong and self_drawn\n",              # a kong draw is a self-draw
    "fan 好 = x2 when discarder_is_dealer and not dealer_wins\n",
    "fan 好 = x2 when pattern 大七对 or pattern 小七对\n",
    "fan 好 = x2 when wilds_used and wilds >= 2\n",
    "fan 好 = +5 from discarder when discard\n",                  # W202: no x1 written
    "jing 正 = score n - 3 when n >= 3\n",                        # W204: bounded by its condition
    "jing 正 = score n * (n - 3) when n >= 5\n",
    "jing 正 = score n*(n-3) - n*(n-10)*(n >= 10) when n >= 5\n",  # W204: never negative (an interval says -∞)
    "override fan 大七对 = x4 when pattern 大七对\n",               # W301: a real change
    "option 选 = a {\n  a: { }\n  b: { override fan 大七对 = x4 when pattern 大七对 }\n}\n",  # W302: differs
    "pattern 碰碰胡 = sets 4 of 刻子 + pair\nfan 碰碰胡 = x2 when pattern 碰碰胡\n",  # W101: no 杠: not 大七对
])
def test_warning_does_not_fire(tmp_path, body):
    _, diags = lint(tmp_path, body)
    assert [d.concise() for d in diags] == []


def test_never_holds_needs_the_kinds_and_requirements():
    from engine.lang.compiler import compile_text
    from engine.lang.lint import satisfiable

    def cond(text):
        return compile_text(PARENT + f"fan 试 = x2 when {text}\n").fans["试"].when

    assert satisfiable(cond("discarder_is_dealer and self_drawn")) is False  # needs a discard
    assert satisfiable(cond("dealer_wins and discarder_is_dealer")) is False  # one dealer
    assert satisfiable(cond("robbed_kong and after_kong")) is False
    assert satisfiable(cond("pattern 大七对 and pattern 小七对")) is False      # one reading
    assert satisfiable(cond("first_turn and not first_turn")) is False        # same atom twice
    assert satisfiable(cond("wilds >= 2 and not (wilds >= 2)")) is False
    assert satisfiable(cond("first_turn and (discard or self_drawn)")) is True


# ---- noqa and selectors ----------------------------------------------------------------------------


def test_noqa_bare_and_with_codes(tmp_path):
    body = ("fan 一 = x1 when self_drawn and discard  # noqa\n"
            "fan 二 = x1 when self_drawn and discard  # noqa: W202\n"
            "fan 三 = x1 when self_drawn and discard  # noqa: W201, W202\n"
            "fan 四 = x1 when first_turn  # NOQA:W202\n")
    _, diags = lint(tmp_path, body)
    assert [(d.line, d.code) for d in diags] == [(3, "W201")]


def test_noqa_does_not_hide_errors(tmp_path):
    _, diags = lint(tmp_path, "fan 一 = x2 when discrad  # noqa\n")
    assert [d.code for d in diags] == ["E401"]


def test_selection_is_by_prefix(tmp_path):
    body = "fan 一 = x1 when self_drawn and discard\nfan 零 = x0 when first_turn\n"
    codes = lambda **kw: [d.code for d in lint(tmp_path, body, selection=Selection(**kw))[1]]  # noqa: E731
    assert codes() == ["W202", "W201", "W203"]  # in file order
    assert codes(select=["W202"]) == ["W202"]
    assert codes(select=["W20"], ignore=["W201"]) == ["W202", "W203"]
    assert codes(select=["W202"], extend_select=["w203"]) == ["W202", "W203"]
    assert codes(ignore=["W"]) == []


def test_cli_selectors_strict_and_several_files(tmp_path):
    warned = tmp_path / "w.rules"
    warned.write_text(PARENT + "fan 一 = x1 when self_drawn and discard\n", encoding="utf-8")
    clean = tmp_path / "c.rules"
    clean.write_text(PARENT + "fan 好 = x2 when discard\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(warned), str(clean)])
    assert r.exit_code == 0  # warnings alone exit 0
    lines = r.output.splitlines()
    assert f"{warned}:2:17: W201 the condition of fan 一 can never hold, so the fan never applies" in lines
    assert f"{warned}:2:9: W202 fan 一: x1 multiplies by 1 and changes nothing" in lines
    assert [x for x in lines if x.startswith("ok: ")] == ["ok: w (extends nanchang) — 南昌麻将",
                                                          "ok: c (extends nanchang) — 南昌麻将"]
    assert lines[-1] == "Found 0 errors, 2 warnings."
    assert runner.invoke(app, ["check", str(warned), "--strict"]).exit_code == 1
    r = runner.invoke(app, ["check", str(warned), "--strict", "--ignore", "W201,W202"])
    assert r.exit_code == 0 and "Found" not in r.output
    r = runner.invoke(app, ["check", str(warned), "--select", "W201"])
    assert "W202" not in r.output and "Found 0 errors, 1 warning." in r.output
    r = runner.invoke(app, ["check", str(warned), "--select", "X9"])
    assert r.exit_code == 2 and r.output.splitlines()[0] == "error: --select 'X9': no code starts with 'X9'"
    bad = tmp_path / "b.rules"
    bad.write_text(PARENT + "fan 新 = x2 when discrad\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(clean), str(bad), "nosuch"])
    assert r.exit_code == 2
    assert "ok: c (extends nanchang) — 南昌麻将" in r.output and "error: no bundled ruleset 'nosuch'" in r.output
    assert r.output.splitlines()[-1] == "Found 2 errors, 0 warnings."


def test_json_of_several_files(tmp_path):
    clean = tmp_path / "c.rules"
    clean.write_text(PARENT + "fan 一 = x1 when first_turn\n", encoding="utf-8")
    data = json.loads(runner.invoke(app, ["check", str(clean), "nanchang", "--json"]).stdout)
    assert data["ok"] is True and (data["errors"], data["warnings"]) == (0, 1)
    assert [f["ruleset"] for f in data["files"]] == ["c", "nanchang"]
    [d] = data["diagnostics"]
    assert d == {"code": "W202", "severity": "warning", "message": "fan 一: x1 multiplies by 1 and changes nothing",
                 "file": str(clean), "line": 2, "column": 9, "end": {"line": 2, "column": 11},
                 "hint": "drop the rule, or give the multiplier it means", "notes": []}
    one = json.loads(runner.invoke(app, ["check", "nanchang", "--json"]).stdout)
    assert one["ok"] is True and one["ruleset"] == "nanchang" and one["counts"]["fans"] == 12  # one file: as before


def test_lint_text_without_a_file():
    diags = lint_text(PARENT + "fan 一 = x1 when first_turn\n", "<editor>", base_dir=ROOT)
    assert [(d.code, d.file, d.line) for d in diags] == [("W202", "<editor>", 2)]


def test_codes_table_of_docs_is_the_codes():
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| `([EW]\d{3})` \| (error|warning) \|", text, flags=re.M))
    assert rows == {code: sev for code, (sev, _) in CODES.items()}


def test_check_compiles_every_choice_of_every_option(tmp_path):
    """Found by a review: `check` compiled only the chosen options, so a house file passed while a
    choice of its own option, or of a parent's option it broke by removing what that choice
    overrides, did not compile (a host learnt it at the table, from `-o`). Each choice is now
    compiled and each that fails is an error at its place."""
    own = tmp_path / "own.rules"
    own.write_text('ruleset own\nextends nanchang\noption z "z" = a {\n  a: { }\n'
                   '  b: { override fan 不存在 = x2 when self_drawn }\n}\n', encoding="utf-8")
    r = runner.invoke(app, ["check", str(own)])
    assert r.exit_code == 2
    assert f"{own}:5:8: error: option z = b does not compile: override of fan.不存在" in r.stderr
    broke = tmp_path / "broke.rules"
    broke.write_text("ruleset broke\nextends nanchang\nremove indicator lower\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(broke)])
    assert r.exit_code == 2 and "option 下精 = at_end does not compile: override of indicator.lower" in r.stderr
    assert f"{broke}:3:1: note: indicator.lower: remove here" in r.stderr  # the file's own line that broke it
    assert "this file removes or changes what that choice of a parent's option needs" in r.stderr
    assert runner.invoke(app, ["check", str(broke), "-o", "下精=declared"]).exit_code == 0  # chosen: left as chosen
    fine = tmp_path / "fine.rules"
    fine.write_text("ruleset fine\nextends nanchang\noverride fan 大七对 = x4 when pattern 大七对\n", encoding="utf-8")
    assert runner.invoke(app, ["check", str(fine)]).exit_code == 0
