"""`mjrules fmt`: one canonical layout, idempotent and meaning-preserving.

Properties, over the bundled rulesets and hypothesis mutants of them (the mutator of
tests/test_mutated_rulesets.py, benchmarks/mutate_rulesets.py): formatting twice changes
nothing; the formatted file compiles to the same IR (origins, which are lines and columns, set
aside) or fails with the same error, and keeps every comment in order; the same holds for a file
whose statements are spread over other lines with comments put between tokens; re-spacing a
file's lines does not change its layout. The
bundled rulesets are kept formatted (`mjrules fmt --check rulesets/`).
"""
from __future__ import annotations

import json
import os
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import MjError, RuleError
from engine.lang import limits as L
from engine.lang.compiler import compile_text, parse_text
from engine.lang.fmt import format_text, parse_with_tokens
from engine.lang.resources import rulesets_dir

from .conftest import ROOT
from .test_mutated_rulesets import TEXTS, mutants

runner = CliRunner()


def _no_origin(data):
    """The exported IR without where each value was written (lines move when a file is formatted)."""
    if isinstance(data, dict):
        return {k: _no_origin(v) for k, v in data.items() if k not in ("origin", "file")}
    if isinstance(data, list):
        return [_no_origin(v) for v in data]
    return data


def _meaning(text: str, file: str = "x.rules"):
    """What ``text`` compiles to: the IR without origins, or the error's kind and message."""
    try:
        return _no_origin(compile_text(text, file, base_dir=rulesets_dir()).model_dump(mode="json"))
    except MjError as exc:
        return (type(exc).__name__, exc.message)


def _check_properties(text: str, file: str = "x.rules") -> str:
    """Format ``text`` and check idempotence and meaning; the formatted text."""
    once = format_text(text, file)
    assert format_text(once, file) == once, "formatting twice changes the text"
    comments = [str(t).strip() for t in parse_with_tokens(text.removeprefix("\ufeff"))[1] if t.type == "COMMENT"]
    assert [str(t).strip() for t in parse_with_tokens(once)[1] if t.type == "COMMENT"] == comments
    assert _meaning(once, file) == _meaning(text, file)
    return once


def _respace(text: str, rng: random.Random) -> str:
    """``text`` with one to three extra spaces or tabs put between tokens of the same line, and
    trailing spaces: a different layout of the same lines."""
    _, toks = parse_with_tokens(text.removeprefix("\ufeff"))
    out, pos = [], 0
    for t in toks:
        gap = text[pos:t.start_pos]
        if "\n" not in gap and pos and rng.random() < 0.5:
            gap += rng.choice([" ", "  ", "\t", "   "])
        out.append(gap + text[t.start_pos:t.end_pos])
        pos = t.end_pos
    return "".join(out) + text[pos:].replace("\n", "  \n", 1)


def _relayout(text: str, rng: random.Random) -> str:
    """``text`` with its line breaks moved: between tokens, a break removed, one to three added
    (with any indent), or a comment put in; the same statements over other lines."""
    _, toks = parse_with_tokens(text)
    out, pos, prev = [], 0, None
    for t in toks:
        gap, r = text[pos:t.start_pos], rng.random()
        if prev is not None and prev.type == "COMMENT":
            gap = "\n" * rng.randint(1, 3) + " " * rng.randint(0, 6)
        elif pos and r < 0.15:
            gap = " "
        elif pos and r < 0.25:
            gap = "\n" * rng.randint(1, 3) + " " * rng.randint(0, 9)
        elif pos and r < 0.3:
            gap = f" # n{rng.randint(0, 99)}\n" + " " * rng.randint(0, 5)
        out.append(gap + text[t.start_pos:t.end_pos])
        pos, prev = t.end_pos, t
    return "".join(out) + text[pos:]


# ---- the bundled rulesets ------------------------------------------------------------------------


def test_bundled_rulesets_are_formatted():
    """`mjrules fmt --check rulesets/` passes: the bundled files are in the canonical layout."""
    r = runner.invoke(app, ["fmt", "--check", str(ROOT / "rulesets")])
    assert r.exit_code == 0, r.output
    assert "0 files would be reformatted, 7 files already formatted" in r.output


@pytest.mark.parametrize("name", mutants.BUNDLED)
def test_bundled_ruleset_is_a_fixed_point_with_the_same_ir(name):
    text = TEXTS[name]
    assert _check_properties(text, str(rulesets_dir() / f"{name}.rules")) == text


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(mutants.BUNDLED), seed=st.integers(0, 2**32 - 1), steps=st.integers(1, 3),
       respace=st.booleans())
def test_a_mutant_formats_idempotently_to_the_same_meaning(name, seed, steps, respace):
    """A mutant that parses formats idempotently to a file of the same meaning (the same IR, or
    the same error); one that does not parse is refused at the parser's own place."""
    rng = random.Random(seed)
    text, what = mutants.mutate(TEXTS[name], rng, steps)
    try:
        parse_text(text, "m.rules")
    except RuleError as exc:
        with pytest.raises(RuleError) as refused:
            format_text(text, "m.rules")
        assert str(refused.value) == str(exc), what
        return
    if respace:
        text = _respace(text, rng)
    _check_properties(text, "m.rules")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(mutants.BUNDLED), seed=st.integers(0, 2**32 - 1))
def test_a_file_over_other_lines_formats_idempotently_to_the_same_meaning(name, seed):
    """Statements split over lines, joined on one, comments between any two tokens: the layout
    still comes out idempotent, with the same IR and every comment in order."""
    text = _relayout(TEXTS[name], random.Random(seed))
    assert text != TEXTS[name]
    _check_properties(text, "r.rules")


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(mutants.BUNDLED), seed=st.integers(0, 2**32 - 1))
def test_respacing_a_file_does_not_change_its_layout(name, seed):
    """Spaces between the tokens of a line carry no layout: a re-spaced file formats as the original."""
    text = TEXTS[name]
    noisy = _respace(text, random.Random(seed))
    assert noisy != text
    assert format_text(noisy) == format_text(text)


# ---- the layout ----------------------------------------------------------------------------------

MESSY = '''

# head comment   \n\
ruleset  x   "X"   # trailing
extends   nanchang



override   pattern 小七对=pairs 7,quads as pairs ,concealed   # reordered
override indicator lower "下精" = under upper , settle at end,hidden
override fan 德国 = +5 from discarder else each , x3 when not wilds_used
override jing 冲关 = score n*(n-3)+ -n when n>=5 and not(n==6)
override fan 精钓 = x2 when jing_wait and
  # why this
    (self_drawn or first_turn)   # c2
   table   hand=13 table dice = 2
override factor 爬楼 = floor on win , jing after
   adders
option o "lab" = a {   # about o

  a: { }   b : {override table hand = 13}
  c: {
     # inner
  }
  d: { remove fan 德国   remove fan 抢杠 }  # two

  # before close

}
override flow 弃先胡后=pass_lock( until : own_turn , scope : any )
override meld 顺子 chow = run 3 in m+p|same 3
# end



'''

TIDY = '''# head comment
ruleset x "X"  # trailing
extends nanchang

override pattern 小七对 = pairs 7, concealed, quads as pairs  # reordered
override indicator lower "下精" = under upper, hidden, settle at end
override fan 德国 = x3, +5 from discarder else each when not wilds_used
override jing 冲关 = score n * (n - 3) + -n when n >= 5 and not (n == 6)
override fan 精钓 = x2 when jing_wait and
    # why this
    (self_drawn or first_turn)  # c2
table hand = 13
table dice = 2
override factor 爬楼 = floor on win, jing after adders
option o "lab" = a {  # about o
    a: { }
    b: { override table hand = 13 }
    c: {
        # inner
    }
    d: {
        remove fan 德国
        remove fan 抢杠
    }  # two

    # before close
}
override flow 弃先胡后 = pass_lock(until: own_turn, scope: any)
override meld 顺子 chow = run 3 in m + p | same 3
# end
'''


def test_the_canonical_layout():
    """Spacing, clause order, statements split, blocks indented, comments kept in place."""
    assert format_text(MESSY) == TIDY
    assert format_text(TIDY) == TIDY


def test_the_messy_file_means_what_the_tidy_one_does():
    messy = MESSY.replace("ruleset  x", "ruleset  x").replace("table   hand=13 table dice = 2", "")
    tidy = format_text(messy)
    assert _meaning(tidy) == _meaning(messy)
    assert _meaning(tidy)["patterns"]["小七对"]["quads_as_pairs"] is True


def test_trailing_comments_align_in_blocks_and_long_lines_keep_their_own():
    text = ("table hand = 13 # a\ntable stacks_per_seat = 17 # b\n\ntable dice = 2 # c\n"
            f"table deal = {' '.join(['4'] * 40)} # d\ntable dealer_extra = 1 # e\n")
    assert format_text(text).splitlines() == [
        "table hand = 13             # a",
        "table stacks_per_seat = 17  # b",
        "",
        "table dice = 2          # c",
        f"table deal = {' '.join(['4'] * 40)}  # d",
        "table dealer_extra = 1  # e",
    ]


def test_wide_characters_count_two_columns_when_aligning():
    out = format_text("meld 将 pair = same 2 # x\nmeld a pair = same 2 # y\n").splitlines()
    assert out == ["meld 将 pair = same 2  # x", "meld a pair = same 2   # y"]


def test_line_ends_byte_order_mark_tabs_and_empty_files():
    assert format_text("\ufeffruleset x\r\n\r\n\r\n\r\ntable\thand = 13\r\n# c \r\n") == \
        "ruleset x\n\ntable hand = 13\n# c\n"
    assert format_text("") == "" and format_text("\n \n\t\n") == ""
    assert format_text("# only\n\n\n# two") == "# only\n\n# two\n"


def test_a_clause_list_over_several_lines_keeps_its_order():
    text = "override pattern 小七对 = pairs 7, quads as pairs,\n    concealed\n"
    assert format_text(text) == text


def test_a_file_that_does_not_parse_is_refused_at_its_place():
    with pytest.raises(RuleError) as e:
        format_text("table hand = 13\nfan 德国 = x2 when\n", "bad.rules")
    assert (e.value.location.line, e.value.location.column) == (2, 17)
    assert e.value.message.startswith("the file ends in the middle of a declaration")
    with pytest.raises(RuleError) as e:
        format_text("table " + "n" * (L.MAX_NAME_CHARS + 1) + " = 1\n", "long.rules")
    assert e.value.message == f"name {'n' * 12}… is {L.MAX_NAME_CHARS + 1} characters long (at most {L.MAX_NAME_CHARS})"


def test_a_line_formatting_would_make_too_long_is_refused():
    """Joining a choice's statement onto one line must not make a line the parser refuses."""
    half = " E" * 300
    text = f"option o = a {{\n    a: {{ }}\n    b: {{\n        override table seats ={half}\n{half}\n    }}\n}}\n"
    assert max(len(row) for row in text.splitlines()) < L.MAX_LINE_CHARS
    with pytest.raises(RuleError) as e:
        format_text(text, "w.rules")
    assert e.value.message.startswith("formatted, this line would be ")
    assert e.value.message.endswith(f"characters long (at most {L.MAX_LINE_CHARS})")
    assert (e.value.location.file, e.value.location.line) == ("w.rules", 3)


# ---- the command ---------------------------------------------------------------------------------


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def test_fmt_rewrites_in_place_and_reports(tmp_path):
    a = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13\n")
    (tmp_path / "sub").mkdir()
    b = _write(tmp_path / "sub" / "b.rules", "extends nanchang\n")
    _write(tmp_path / "notes.txt", "not a rule file")
    os.chmod(a, 0o640)
    r = runner.invoke(app, ["fmt", str(tmp_path)])
    assert r.exit_code == 0, r.output
    assert r.output.strip() == "1 file reformatted, 1 file left unchanged"
    assert a.read_text(encoding="utf-8") == "extends nanchang\noverride table hand = 13\n"
    assert oct(a.stat().st_mode & 0o777) == "0o640"
    assert b.read_text(encoding="utf-8") == "extends nanchang\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.rules", "notes.txt", "sub"]  # no temporary left
    r = runner.invoke(app, ["fmt", str(a), str(tmp_path)])  # a file named twice is formatted once
    assert r.output.strip() == "0 files reformatted, 2 files left unchanged"


def test_fmt_check_writes_nothing_and_exits_1(tmp_path):
    a = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13\n")
    _write(tmp_path / "b.rules", "extends nanchang\n")
    r = runner.invoke(app, ["fmt", "--check", str(tmp_path)])
    assert r.exit_code == 1
    assert r.output.splitlines() == [f"would reformat: {a}", "1 file would be reformatted, 1 file already formatted"]
    assert a.read_text(encoding="utf-8") == "extends nanchang\noverride table hand=13\n"


def test_fmt_diff_prints_a_unified_diff_and_writes_nothing(tmp_path):
    a = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13")
    r = runner.invoke(app, ["fmt", "--diff", str(a)])
    assert r.exit_code == 1
    assert r.stdout == (f"--- {a}\n+++ {a}\n@@ -1,2 +1,2 @@\n extends nanchang\n-override table hand=13\n"
                        "\\ No newline at end of file\n+override table hand = 13\n")
    assert "1 file would be reformatted, 0 files already formatted" in r.stderr
    assert a.read_text(encoding="utf-8") == "extends nanchang\noverride table hand=13"
    r = runner.invoke(app, ["fmt", "--diff", str(ROOT / "rulesets")])
    assert r.exit_code == 0 and r.stdout == ""


def test_fmt_reads_stdin_and_writes_stdout():
    r = runner.invoke(app, ["fmt", "-"], input="extends nanchang\noverride table hand=13\n")
    assert r.exit_code == 0 and r.stdout == "extends nanchang\noverride table hand = 13\n"
    r = runner.invoke(app, ["fmt", "--check", "-"], input="extends nanchang\noverride table hand=13\n")
    assert r.exit_code == 1 and "would reformat: -" in r.stdout
    r = runner.invoke(app, ["fmt", "--check", "-"], input="extends nanchang\n")
    assert r.exit_code == 0
    r = runner.invoke(app, ["fmt", "-"], input=b"table hand = \xff\n")
    assert r.exit_code == 2
    assert "<stdin>:1:14: error: the rule file is not UTF-8 text" in r.stderr
    r = runner.invoke(app, ["fmt", "-", "x.rules"])
    assert r.exit_code == 2 and "- (standard input) cannot be formatted together with files" in r.stderr


def test_a_bad_file_is_reported_and_nothing_is_written(tmp_path):
    good = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13\n")
    bad = _write(tmp_path / "b.rules", "extends nanchang\noverride table hand =\n")
    worse = _write(tmp_path / "c.rules", "extends nanchang\nfan 德国 = x2 wen x\n")
    r = runner.invoke(app, ["fmt", str(tmp_path)])
    assert r.exit_code == 2
    said = r.stderr
    assert f"{bad}:2:22: error: the file ends in the middle of a declaration" in said
    assert f"{worse}:2:13: error: unexpected `wen`" in said
    assert said.index(f"{bad}:") < said.index(f"{worse}:")
    assert good.read_text(encoding="utf-8") == "extends nanchang\noverride table hand=13\n"
    assert bad.read_text(encoding="utf-8") == "extends nanchang\noverride table hand =\n"
    r = runner.invoke(app, ["fmt", str(tmp_path / "missing.rules")])
    assert r.exit_code == 2 and f"error: {tmp_path / 'missing.rules'}: no such file or folder" in r.stderr


def test_check_with_a_bad_file_still_names_the_files_that_would_change(tmp_path):
    """Found by a fresh-clone walkthrough: `fmt --check` with one file that does not parse said
    only that, not which of the others would change (ruff format --check names both)."""
    good = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13\n")
    _write(tmp_path / "b.rules", "extends nanchang\noverride table hand =\n")
    _write(tmp_path / "c.rules", "extends nanchang\n")
    r = runner.invoke(app, ["fmt", "--check", str(tmp_path)])
    assert r.exit_code == 2
    assert r.stdout == f"would reformat: {good}\n" and "the file ends in the middle of a declaration" in r.stderr


def test_a_folder_without_rule_files(tmp_path):
    r = runner.invoke(app, ["fmt", str(tmp_path)])
    assert r.exit_code == 0 and "warning: no .rules files found" in r.stderr


def test_fmt_json(tmp_path):
    a = _write(tmp_path / "a.rules", "extends nanchang\noverride table hand=13\n")
    r = runner.invoke(app, ["fmt", "--check", "--json", str(a)])
    assert r.exit_code == 1
    assert json.loads(r.stdout) == {"files": [{"file": str(a), "changed": True}], "reformatted": 1, "unchanged": 0,
                                    "written": 0}
    r = runner.invoke(app, ["fmt", "--json", str(a)])  # written: the files rewritten
    assert json.loads(r.stdout)["written"] == 1
    r = runner.invoke(app, ["fmt", "--json", str(a)])  # already formatted: nothing written
    assert json.loads(r.stdout)["written"] == 0
    r = runner.invoke(app, ["fmt", "--json", "-"], input="extends nanchang\n")
    assert json.loads(r.stdout)["files"] == [{"file": "-", "changed": False, "text": "extends nanchang\n"}]
    bad = _write(tmp_path / "b.rules", "fan =\n")
    r = runner.invoke(app, ["fmt", "--json", str(bad)])
    assert r.exit_code == 2
    assert json.loads(r.stdout)["line"] == 1 and json.loads(r.stdout)["column"] == 5


def test_a_link_stays_a_link_and_its_target_is_formatted(tmp_path):
    target = _write(tmp_path / "real.rules", "extends nanchang\noverride table hand=13\n")
    (tmp_path / "links").mkdir()
    link = tmp_path / "links" / "link.rules"
    link.symlink_to(target)
    r = runner.invoke(app, ["fmt", str(link)])
    assert r.exit_code == 0, r.output
    assert link.is_symlink() and target.read_text(encoding="utf-8") == "extends nanchang\noverride table hand = 13\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["links", "real.rules"]


def test_many_comment_lines_format_in_one_pass():
    """Each own-line comment finds the code after it without scanning ahead (a file of comments
    only, as large as a rule file may be, is linear work)."""
    text = "# c\n" * (L.MAX_FILE_BYTES // 4)
    assert format_text(text) == text


def test_clauses_are_put_in_the_grammars_order():
    text = ("pattern p = rotten gap 3, only m, honours >= 7, one of m plus p, honours natural, quads as pairs, concealed\n"
            "indicator u = top of dice stack from tail, settle at end with kongs, hidden, wild\n"
            "fan f = fixed 3 each, +5 from each, x2 when a\n")
    assert format_text(text) == (
        "pattern p = rotten gap 3, concealed, honours natural, honours >= 7, quads as pairs, one of m plus p, only m\n"
        "indicator u = top of dice stack from tail, wild, hidden, settle at end with kongs\n"
        "fan f = x2, +5 from each, fixed 3 each when a\n")


def test_every_token_of_several_words_is_written_with_single_spaces():
    """A terminal of several words (``/first\\s+claimed/``) is one token whose inner spacing the
    writer chose; fmt writes each with single spaces. Found by a review: `exposed from
    discarder` and `first claimed` kept their extra spaces and line breaks."""
    import re

    from engine.lang.syntax import spaced_terminals

    grammar = (ROOT / "grammar" / "mjrules.lark").read_text(encoding="utf-8")
    spaced = set(re.findall(r"^([A-Z_]+): /[^/\n]*\\s\+[^/\n]*/", grammar, flags=re.M))
    assert {"FIRST_CLAIMED", "INSTEAD_KONG", "EXPOSED_FROM_DISCARDER"} <= spaced
    assert set(spaced_terminals()) == spaced  # read from the parser: every one of them
    assert spaced_terminals()["INSTEAD_KONG"] == "instead of kong points"
    text = ("extends nanchang\n"
            "override jing 包冲关 = liability over 冲关 on first   claimed discard of upper\n"
            "override jing 杠精 = 10 each per jing kong exposed  from\n    discarder instead of kong points\n")
    want = ("extends nanchang\n"
            "override jing 包冲关 = liability over 冲关 on first claimed discard of upper\n"
            "override jing 杠精 = 10 each per jing kong exposed from discarder instead of kong points\n")
    assert format_text(text) == want
