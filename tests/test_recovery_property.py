"""Error recovery never invents an error nor swallows a statement: a file of good statements
with one bad one, the bad one in any indentation, after any leading comment, gives exactly one
error, at the bad line (the tutorial's `myhouse.rules` begins with a comment)."""
from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from engine.lang.compiler import check_text

GOOD = [
    "override fan 大七对 = x4 when pattern 大七对",
    "fan 海底 = x2 when self_drawn and floor >= 3",
    "override jing kong = concealed 2, exposed 2, added 2",
    "factor 好运 = 2 on win when dealer_wins",
    "remove flow 抄庄",
    "override exhaustive 荒庄 = dealer pays 10 each",
    "source \"a table's own rules\"",
    'option 底 "base" = a {\n    a: { }\n    b: { override fan 大七对 = x4 when pattern 大七对 }\n}',
    "set 四归 = no",
    "indicator 镜 = each tile where n >= 5, settle after deal",
]
BAD = [
    "fan 坏 = x2 when ]",
    "fan = x2 when self_drawn",
    "override fan 大七对 = x4 when pattern",
    "factor 坏 x2 on win",
    "pattern 坏 = sets",
    "fan 坏 = x2 when not",
    "set 四归 =",
]
COMMENTS = ["", "# my house rules\n", "# 我家的规矩\n\n", "\n# two\n# comments\n"]


@settings(max_examples=150, deadline=None)
@given(goods=st.lists(st.sampled_from(GOOD), min_size=1, max_size=6, unique=True),
       bad=st.sampled_from(BAD), at=st.integers(0, 6), indent=st.sampled_from(["", " ", "  ", "    ", "\t"]),
       comment=st.sampled_from(COMMENTS), good_indent=st.sampled_from(["", "  "]))
def test_one_bad_statement_gives_exactly_one_error_at_its_line(goods, bad, at, indent, comment, good_indent):
    at = min(at, len(goods))
    body = [good_indent + g.replace("\n", "\n" + good_indent) for g in goods]
    body.insert(at, indent + bad)
    head = comment + "ruleset myhouse\nextends nanchang\n"
    text = head + "\n".join(body) + "\n"
    bad_line = head.count("\n") + sum(b.count("\n") + 1 for b in body[:at]) + 1
    checked = check_text(text, "myhouse.rules")
    where = [(e.location.line if e.location else None, e.message) for e in checked.errors]
    assert [line for line, _ in where] == [bad_line], (text, where)


def test_the_tutorials_file_with_a_typo_gives_one_error():
    """A comment first, then a syntax error: no false '`ruleset NAME` comes first' at line 2."""
    text = "# my house\nruleset myhouse\nextends nanchang\nfan 德国 = x3 when not wilds_used ]\n"
    checked = check_text(text, "myhouse.rules")
    assert [(e.location.line, e.location.column) for e in checked.errors] == [(4, 33)]


def test_an_indented_bad_line_keeps_the_statement_before_it_and_the_errors_after_it():
    text = "ruleset myhouse\nextends nanchang\n  fan 德国 = x3 when not wilds_used ]\nremove flow 抄装\n"
    errors = check_text(text, "myhouse.rules").errors
    assert [e.location.line for e in errors] == [3, 4]
    assert "declares no tiles" not in " ".join(e.message for e in errors)
    assert errors[1].hint == "did you mean flow.抄庄?"


def test_the_grammars_reserved_words_are_the_statement_starts():
    """The grammar's NAME refuses the words that begin a statement (engine/lang/syntax.py's
    STATEMENT_STARTS, which recovery and the language server read), but for the three that are
    also written as values: `exhaustive` (a flow value), `suit` and `honours` (group words)."""
    import re

    from engine.lang.resources import grammar_text
    from engine.lang.syntax import STATEMENT_STARTS

    name = next(line for line in grammar_text().splitlines() if line.startswith("NAME:"))
    reserved = set(re.search(r"\(\?:([^)]*)\)", name).group(1).split("|"))
    assert reserved == set(STATEMENT_STARTS) - {"exhaustive", "suit", "honours"}
