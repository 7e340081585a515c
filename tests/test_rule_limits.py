"""Hostile rule files: each limit of engine/lang/limits.py gives a RuleError with its message,
line and column, before the work it bounds (never a RecursionError, a hang or a memory blow-up);
options and choices are declared once; files that are not rule text are refused where they are
named. Every test builds its input from the limit's constant, so the tests follow the limits.
"""
from __future__ import annotations

import random
import re
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import MjError, RuleError
from engine.lang import limits as L
from engine.lang.compiler import compile_ruleset, compile_text
from engine.lang.resources import rulesets_dir

runner = CliRunner()
PARENT = "extends nanchang\n"


def bad(tmp_path: Path, text: str, name: str = "bad.rules") -> RuleError:
    """Compile ``text`` written to tmp_path/name; the RuleError it raises."""
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RuleError) as info:
        compile_ruleset(str(path))
    return info.value


def where(err: RuleError) -> tuple[int, int]:
    assert err.location is not None, err
    return err.location.line, err.location.column


# ---- the whole file ----------------------------------------------------------------------------


def test_file_size(tmp_path):
    text = PARENT + ("# " + "x" * 98 + "\n") * (L.MAX_FILE_BYTES // 100 + 1)
    err = bad(tmp_path, text)
    assert err.message == f"the rule file is larger than {L.MAX_FILE_BYTES} bytes"
    assert where(err) == (1, 1)
    assert "\n  " not in err.render()  # nothing echoed
    with pytest.raises(RuleError, match="larger than"):
        compile_text(text, "t.rules")


def test_line_length(tmp_path):
    err = bad(tmp_path, PARENT + "#" * L.MAX_LINE_CHARS + "Z" + "#" * 500 + "\n")
    assert err.message == f"line 2 is {L.MAX_LINE_CHARS + 501} characters long (at most {L.MAX_LINE_CHARS})"
    assert where(err) == (2, L.MAX_LINE_CHARS + 1)
    shown, caret = err.render().splitlines()[1:3]
    assert len(shown) < 3 * 100  # the echo is a window around the column, not the whole line
    assert shown.startswith("  …") and shown.endswith("…")
    assert shown[caret.index("^")] == "Z"  # and the caret still points at the column


@pytest.mark.parametrize("body", [
    "fan z = x2 when " + "(\n" * 3000 + "discard" + "\n)" * 3000,
    "suit q ranks 1..1" + "0" * 30 + " copies 4",
    "fan " + "n" * 500 + " = x2 when discard",
])
def test_cli_exits_2_on_a_limit(tmp_path, body):
    path = tmp_path / "big.rules"
    path.write_text(PARENT + body + "\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 2, r.output
    assert r.output.startswith(f"{path}:2:")


def test_statement_count(tmp_path):
    text = PARENT + "".join(f"fan f{i} = x2 when discard\n" for i in range(L.MAX_DECLARATIONS + 1))
    err = bad(tmp_path, text)
    assert err.message == f"more than {L.MAX_DECLARATIONS} statements in one file"
    assert where(err) == (L.MAX_DECLARATIONS + 2, 1)


def test_nul_byte_is_positioned(tmp_path):
    err = bad(tmp_path, PARENT + "fan a = x2\x00 when discard\n")
    assert err.message == "the rule file holds a NUL byte, so it is not a text file"
    assert where(err) == (2, 11)
    with pytest.raises(RuleError) as info:
        compile_text(PARENT + "fan a\x00", "t.rules")
    assert where(info.value) == (2, 6)


def test_not_utf8_is_positioned(tmp_path):
    path = tmp_path / "gbk.rules"
    path.write_bytes(PARENT.encode() + "fan 德国 = x2 when discard\n".encode("gbk"))
    with pytest.raises(RuleError) as info:
        compile_ruleset(str(path))
    assert info.value.message == "the rule file is not UTF-8 text"
    assert where(info.value) == (2, 5)
    assert "\n  " not in info.value.render()


# ---- tokens -------------------------------------------------------------------------------------


def test_name_length(tmp_path):
    name = "n" * (L.MAX_NAME_CHARS + 1)
    err = bad(tmp_path, PARENT + f"fan {name} = x2 when discard\n")
    assert err.message == f"name {'n' * 12}… is {L.MAX_NAME_CHARS + 1} characters long (at most {L.MAX_NAME_CHARS})"
    assert where(err) == (2, 5)


def test_name_length_inside_an_expression(tmp_path):
    # Lark skips the lexer's NAME callback where keywords share its pattern: the tree check catches it
    name = "b" * (L.MAX_NAME_CHARS + 1)
    err = bad(tmp_path, PARENT + f"fan a = x2 when {name}\n")
    assert err.message == f"name {'b' * 12}… is {L.MAX_NAME_CHARS + 1} characters long (at most {L.MAX_NAME_CHARS})"
    assert where(err) == (2, 17)


def test_string_length(tmp_path):
    err = bad(tmp_path, f'ruleset big "{"s" * (L.MAX_STRING_CHARS + 1)}"\n' + PARENT)
    assert err.message == (f'string "{"s" * 11}… is {L.MAX_STRING_CHARS + 1} characters long '
                           f"(at most {L.MAX_STRING_CHARS})")
    assert where(err) == (1, 13)


def test_a_huge_number_is_refused_at_once(tmp_path):
    """`ranks 1..10**30`: refused by the lexer, before anything counts to it."""
    err = bad(tmp_path, "suit m ranks 1..1" + "0" * 30 + " copies 4\npayment base = 1\n")
    assert err.message == f"number 100000000000… (31 digits) is too large (at most {L.MAX_NUMBER})"
    assert where(err) == (1, 17)
    digits = "9" * 5000  # past Python's own int-from-string limit: still our error
    err = bad(tmp_path, PARENT + "fan z = x2 when n >\n" + digits[:L.MAX_LINE_CHARS] + "\n")
    assert where(err) == (3, 1) and err.message.startswith("number 999999999999… (1000 digits)")


def test_number_in_a_formula(tmp_path):
    err = bad(tmp_path, PARENT + f"fan z = x2 when jing_count > {L.MAX_NUMBER + 1}\n")
    assert err.message == f"number {L.MAX_NUMBER + 1} is too large (at most {L.MAX_NUMBER})"
    assert where(err) == (2, 30)


def test_multiplier(tmp_path):
    err = bad(tmp_path, PARENT + f"fan z = x{L.MAX_MULTIPLIER + 1} when discard\n")
    assert err.message == f"multiplier x{L.MAX_MULTIPLIER + 1} is too large (at most x{L.MAX_MULTIPLIER})"
    assert where(err) == (2, 9)


def test_option_value_number(tmp_path):
    err = bad(tmp_path, PARENT + f"option o = 1 {{ 1: {{}} {L.MAX_NUMBER + 1}: {{}} }}\n")
    assert err.message == f"number {L.MAX_NUMBER + 1} is too large (at most {L.MAX_NUMBER})"
    assert where(err) == (2, 22)


# ---- the range of each number ---------------------------------------------------------------------

RANGES = [
    # (line 2 of a file extending nanchang, message, column)
    (f"suit q ranks 1..{L.MAX_RANK + 1} copies 4", f"suit q: rank {L.MAX_RANK + 1} is out of range (0..{L.MAX_RANK})", 17),
    (f"suit q ranks 1..{L.MAX_RANKS + 1} copies 4", f"suit q: {L.MAX_RANKS + 1} ranks; a suit has at most {L.MAX_RANKS}", 17),
    (f"suit q ranks 1..9 copies {L.MAX_COPIES + 1}", f"copies {L.MAX_COPIES + 1} is out of range (1..{L.MAX_COPIES})", 26),
    ("suit q ranks 1..9 copies 0", f"copies 0 is out of range (1..{L.MAX_COPIES})", 26),
    ("honours q = " + ", ".join(f"q{i}" for i in range(L.MAX_RANKS + 1)) + " copies 4",
     f"honours q: {L.MAX_RANKS + 1} tiles; a group has at most {L.MAX_RANKS}", 1),
    (f"table hand = {L.MAX_TABLE_NUMBER + 1}", f"table hand: number {L.MAX_TABLE_NUMBER + 1} is out of range (0..{L.MAX_TABLE_NUMBER})", 14),
    (f"meld q chow = run {L.MAX_SET_TILES + 1} in suits", f"run {L.MAX_SET_TILES + 1} is out of range (1..{L.MAX_SET_TILES})", 19),
    ("meld q chow = distinct 0 in winds", f"distinct 0 is out of range (1..{L.MAX_SET_TILES})", 24),
    (f"meld q pung = same {L.MAX_SET_TILES + 1}", f"same {L.MAX_SET_TILES + 1} is out of range (1..{L.MAX_SET_TILES})", 20),
    (f"pattern q = sets {L.MAX_HAND_TILES + 1} + pair", f"sets {L.MAX_HAND_TILES + 1} is out of range (0..{L.MAX_HAND_TILES})", 18),
    ("pattern q = pairs 0", f"pairs 0 is out of range (1..{L.MAX_HAND_TILES})", 19),
    (f"pattern q = rotten gap {L.MAX_RANKS + 1}", f"rotten gap {L.MAX_RANKS + 1} is out of range (1..{L.MAX_RANKS})", 24),
    (f"pattern q = sets 4 + pair, honours >= {L.MAX_HAND_TILES + 1}",
     f"honours >= {L.MAX_HAND_TILES + 1} is out of range (0..{L.MAX_HAND_TILES})", 39),
    (f"fan q = +{L.MAX_AMOUNT + 1} from discarder when discard", f"amount {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 10),
    (f"fan q = fixed {L.MAX_AMOUNT + 1} each when discard", f"amount {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 15),
    (f"override payment base = {L.MAX_AMOUNT + 1}", f"payment base {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 25),
    (f"exhaustive q = dealer pays {L.MAX_AMOUNT + 1} each", f"amount {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 28),
    (f"jing q = concealed {L.MAX_AMOUNT + 1}, exposed 1", f"kong points {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 20),
    (f"jing q = main {L.MAX_AMOUNT + 1}, next 1", f"精 value {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 15),
    (f"jing q = {L.MAX_AMOUNT + 1} each per jing kong", f"amount {L.MAX_AMOUNT + 1} is out of range (0..{L.MAX_AMOUNT})", 10),
]


@pytest.mark.parametrize("line, message, column", RANGES, ids=[r[0].split(" =")[0] for r in RANGES])
def test_number_ranges(tmp_path, line, message, column):
    err = bad(tmp_path, PARENT + line + "\n")
    assert err.message == message
    assert where(err) == (2, column)


# ---- expressions: depth and size, never a RecursionError ----------------------------------------------

DEEP = 3_000  # far past the recursion limit of the tree walks (~3 levels of the parse tree each)


@pytest.mark.parametrize("expr", [
    "(\n" * DEEP + "discard" + "\n)" * DEEP,
    "not\n" * DEEP + "discard",
    "-\n" * DEEP + "1 > 0",
    " +\n".join(["1"] * DEEP) + " > 0",
    "(" * (L.MAX_EXPR_DEPTH + 1) + "discard" + ")" * (L.MAX_EXPR_DEPTH + 1),
], ids=["parentheses", "not", "minus", "plus-chain", "one-past-the-limit"])
def test_expression_depth(tmp_path, expr):
    err = bad(tmp_path, PARENT + "fan z = x2 when " + expr + "\n")
    assert err.message == f"this expression nests more than {L.MAX_EXPR_DEPTH} levels deep"
    assert where(err) == (2, 17)


def test_expression_at_the_depth_limit_compiles():
    rs = compile_text(PARENT + "fan z = x2 when " + "(" * L.MAX_EXPR_DEPTH + "discard" + ")" * L.MAX_EXPR_DEPTH,
                      "t.rules")
    assert "z" in rs.fans


def test_expression_size(tmp_path):
    err = bad(tmp_path, PARENT + "fan z = x2 when " + " and\n".join(["discard"] * (2 * L.MAX_EXPR_NODES)) + "\n")
    assert err.message == f"this expression has more than {L.MAX_EXPR_NODES} names, numbers and operators"
    assert where(err) == (2, 17)
    # a product of many facts: bounded by size and depth, so its value stays computable
    err = bad(tmp_path, PARENT + "factor z = " + " * ".join(["jing_count"] * (L.MAX_EXPR_DEPTH + 2)) + " on win\n")
    assert where(err) == (2, 12)


# ---- extends -------------------------------------------------------------------------------------


def test_extends_chain_length(tmp_path):
    (tmp_path / "f0.rules").write_text(PARENT, encoding="utf-8")
    for i in range(1, L.MAX_EXTENDS_DEPTH + 1):
        (tmp_path / f"f{i}.rules").write_text(f'# {i}\nextends "f{i - 1}.rules"\n', encoding="utf-8")
    with pytest.raises(RuleError) as info:
        compile_ruleset(str(tmp_path / f"f{L.MAX_EXTENDS_DEPTH}.rules"))
    assert info.value.message == f"the `extends` chain is longer than {L.MAX_EXTENDS_DEPTH} files"
    assert info.value.location.file == str(tmp_path / "f1.rules")
    assert where(info.value) == (2, 9)
    compile_ruleset(str(tmp_path / f"f{L.MAX_EXTENDS_DEPTH - 2}.rules"))  # one file short of the limit


@pytest.mark.parametrize("target, message", [
    ("/etc/passwd", "cannot extend '/etc/passwd': not a .rules file"),
    ("notes.yaml", "cannot extend 'notes.yaml': not a .rules file"),
    ("sub", "no bundled ruleset 'sub'"),
])
def test_extends_a_file_that_is_not_a_rule_file(tmp_path, target, message):
    (tmp_path / "notes.yaml").write_text("ruleset: nanchang\n", encoding="utf-8")
    (tmp_path / "sub").mkdir()
    err = bad(tmp_path, f'# child\nextends "{target}"\n')
    assert err.message == message
    assert where(err) == (2, 9) and err.location.file == str(tmp_path / "bad.rules")
    text = err.render()
    assert "root:" not in text and "ruleset: nanchang" not in text


@pytest.mark.parametrize("content", [bytes(range(256)), b"fan a = x2 when discard\n\x00\x01", "南昌".encode("gbk")])
def test_extends_a_binary_file(tmp_path, content):
    """A .rules path whose bytes are not text: the error is at the child's extends line; the
    parent's bytes are never echoed (a note gives where they went wrong)."""
    (tmp_path / "bin.rules").write_bytes(content)
    err = bad(tmp_path, '# child\nextends "bin.rules"\n')
    assert err.message == "cannot extend 'bin.rules': not a rule file"
    assert where(err) == (2, 9) and err.location.file == str(tmp_path / "bad.rules")
    assert err.related and err.related[0][1].file == str(tmp_path / "bin.rules")
    assert err.render().splitlines()[1] == '  extends "bin.rules"'


# ---- options -------------------------------------------------------------------------------------


def test_duplicate_choice(tmp_path):
    err = bad(tmp_path, PARENT + "option o = a {\n  a: {}\n  b: {}\n  a: { remove fan 德国 }\n}\n")
    assert err.message == "option o: choice 'a' is given twice"
    assert where(err) == (5, 3)
    assert [str(loc) for _, loc in err.related] == [f"{tmp_path / 'bad.rules'}:3:3"]


def test_duplicate_option(tmp_path):
    err = bad(tmp_path, PARENT + "option o = a { a: {} }\noption o = b { b: {} }\n")
    assert err.message == "option o is already declared"
    assert where(err) == (3, 1)
    assert [str(loc) for _, loc in err.related] == [f"{tmp_path / 'bad.rules'}:2:1"]


def test_option_of_the_parent_declared_again(tmp_path):
    name = next(iter(compile_ruleset("nanchang").options))
    err = bad(tmp_path, PARENT + f"option {name} = a {{ a: {{}} }}\n")
    assert err.message == f"option {name} is already declared"
    assert where(err) == (2, 1)
    assert err.related[0][1].file == str(rulesets_dir() / "nanchang.rules")


# ---- the CLI: echoed lines are literal, option errors are about the flag --------------------------------


def test_echoed_line_keeps_markup_and_emoji_codes(tmp_path):
    path = tmp_path / "m.rules"
    path.write_text(PARENT + "fan :x: [bold]x = x2 when [red] :smile:\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 2
    lines = r.output.splitlines()
    assert lines[0] == f"{path}:2:5: error: unexpected `:`; expected a name"
    assert lines[1] == "  fan :x: [bold]x = x2 when [red] :smile:"
    assert lines[2] == "      ^"


def test_echoed_line_shows_control_characters_as_marks(tmp_path):
    path = tmp_path / "c.rules"
    path.write_text(PARENT + "fan \x1b[31m = x2\n", encoding="utf-8")
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 2 and "\x1b" not in r.output
    assert r.output.splitlines()[1:3] == ["  fan ?[31m = x2", "      ^"]


def test_unknown_option_names_the_flag():
    r = runner.invoke(app, ["check", "nanchang", "--option", "nosuch=1"])
    assert r.exit_code == 2
    first = r.output.splitlines()[0]
    assert first == "error: --option nosuch=1: unknown option 'nosuch'"
    assert "nanchang.rules:" not in r.output


def test_unknown_choice_names_the_flag_and_lists_choices():
    opt = compile_ruleset("nanchang").options
    name, info = next(iter(opt.items()))
    r = runner.invoke(app, ["check", "nanchang", "-o", f"{name}=nosuch"])
    assert r.exit_code == 2
    assert r.output.splitlines() == [f"error: --option {name}=nosuch: option {name} has no choice 'nosuch'",
                                     f"hint: choose one of: {', '.join(info.choices)}"]
    r = runner.invoke(app, ["diff", "nanchang", "nanchang", "--option-b", f"{name}=nosuch"])
    assert r.exit_code == 2
    assert r.output.splitlines()[0] == f"error: --option-b {name}=nosuch: option {name} has no choice 'nosuch'"
    for cmd in (["export", "nanchang"], ["sheet", "nanchang"], ["simulate", "nanchang", "-n", "1"]):
        r = runner.invoke(app, [*cmd, "-o", f"{name}=nosuch"])
        assert r.exit_code == 2, cmd
        assert r.output.startswith(f"error: --option {name}=nosuch: "), cmd


# ---- mutations of the bundled rulesets: only MjError, always ------------------------------------------


def _mutate(rng: random.Random, text: str) -> str:
    for _ in range(rng.randint(1, 3)):
        rows = text.split("\n")
        k = rng.randrange(6)
        i = rng.randrange(len(text) or 1)
        if k == 0:
            text = text[:i] + text[i + 1:]
        elif k == 1:
            text = text[:i] + rng.choice(["(", ")", "not ", "-", " and ", "\"", "{", "}", ":", "\x00", "\t", "x"]) + text[i:]
        elif k == 2:
            nums = list(re.finditer(r"\d+", text))
            if nums:
                m = rng.choice(nums)
                text = text[:m.start()] + rng.choice(["0", "99", "1000001", "9" * 40]) + text[m.end():]
        elif k == 3:
            rows.insert(rng.randrange(len(rows)), rng.choice(rows))
            text = "\n".join(rows)
        elif k == 4:
            del rows[rng.randrange(len(rows))]
            text = "\n".join(rows)
        else:
            a, b = rng.randrange(len(rows)), rng.randrange(len(rows))
            rows[a], rows[b] = rows[b], rows[a]
            text = "\n".join(rows)
    return text


def test_mutated_bundled_rulesets_raise_only_mjerror():
    rng = random.Random(7)
    texts = [p.read_text(encoding="utf-8") for p in sorted(rulesets_dir().glob("*.rules"))]
    outcomes = {"ok": 0, "error": 0}
    for _ in range(40):
        text = _mutate(rng, rng.choice(texts))
        try:
            compile_text(text, "mutant.rules", base_dir=rulesets_dir())
            outcomes["ok"] += 1
        except MjError as exc:
            exc.render()
            outcomes["error"] += 1
    assert outcomes["ok"] and outcomes["error"]


def test_compile_text_refuses_an_unknown_option():
    from engine.errors import OptionError

    with pytest.raises(OptionError) as info:
        compile_text(PARENT, "t.rules", options={"nosuch": "1"})
    assert (info.value.message, info.value.option, info.value.value) == ("unknown option 'nosuch'", "nosuch", "1")


def test_labels_are_printed_literally(tmp_path):
    path = tmp_path / "l.rules"
    path.write_text('ruleset x ":smile: [red]hi[/red]"\n' + PARENT, encoding="utf-8")
    r = runner.invoke(app, ["check", str(path)])
    assert r.exit_code == 0
    assert r.output.splitlines()[0] == "ok: x (extends nanchang) — :smile: [red]hi[/red]"
