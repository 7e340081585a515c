"""The per-ruleset generated code of the win tables (engine/core/wintables/codegen.py): only
integers go into its text, its source is in linecache (a traceback shows its lines),
``MJRULES_DUMP_TABLES=DIR`` writes it out, and when the wild-free check cannot be generated
(more patterns than one value holds) every hand takes the general path with the same answers."""
from __future__ import annotations

import linecache
import random
import traceback
from pathlib import Path

import pytest

from engine import Scorer, compile_ruleset
from engine.core.wintables import codegen

MANY_PATTERNS = """\
ruleset many "more patterns than one wild-free value holds"
extends nanchang
pattern 碰碰胡 = sets 4 of pung + pair
pattern 对对 = pairs 7
"""


@pytest.mark.parametrize("value", ["1", 1.0, True, None, "0) or __import__('os').system('x')#"])
def test_only_integers_go_into_the_source(value):
    with pytest.raises(TypeError, match="integers only"):
        codegen.line("        sub = (key >> {shift}) & 31", shift=value)
    assert codegen.line("        sub = (key >> {shift}) & 31", shift=5) == "        sub = (key >> 5) & 31"


def test_names_in_generated_code_must_be_identifiers():
    with pytest.raises(ValueError, match="not a name"):
        codegen.generated("fits", ["    return 1"], **{"a b": 1})
    with pytest.raises(ValueError, match="not a name"):
        codegen.generated("x; import os", ["    return 1"])


def test_a_traceback_through_generated_code_shows_its_line():
    boom = codegen.generated("boom", ["    def boom(x):", "        return ONE // x", "    return boom"], ONE=1)
    with pytest.raises(ZeroDivisionError) as info:
        boom(0)
    text = "".join(traceback.format_exception(info.value))
    assert "return ONE // x" in text and "<win tables " in text and ": boom>" in text


def test_the_checkers_generated_functions_are_in_linecache():
    scorer = Scorer(compile_ruleset("nanchang"))
    ev, t = scorer.hands, scorer.tiles
    hand = t.parse("123m456m789m123p5s")
    wild = frozenset(t.parse("5s"))
    assert ev.is_win(hand + t.parse("5s"), [], wild, hand[-1])  # loads the full tables
    fits = [p.fit for p in ev.tables.plans if p.fit is not None]
    assert fits
    for fn in fits:
        name = fn.__code__.co_filename
        assert linecache.getline(name, 1).startswith("def make(")
        assert linecache.getline(name, fn.__code__.co_firstlineno).strip().startswith("def fits(")


def test_dump_tables_writes_each_source(tmp_path, monkeypatch):
    monkeypatch.setenv("MJRULES_DUMP_TABLES", str(tmp_path / "dump"))
    scorer = Scorer(compile_ruleset("nanchang"))
    ev, t = scorer.hands, scorer.tiles
    hand = t.parse("123m456m789m123p55s")
    assert ev.readings(hand, [], frozenset(t.parse("5s")), hand[-1])  # generates fits and fewest
    dumped = sorted(p.name for p in (tmp_path / "dump").iterdir())
    assert any(n.endswith("-sets_fit.py") for n in dumped) and any(n.endswith("-sets_fewest.py") for n in dumped)
    plan = next(p for p in ev.tables.plans if p.fit is not None)
    path = plan.fit.__code__.co_filename  # compiled under the dump's name: a traceback opens it
    assert path.startswith(str(tmp_path / "dump"))
    source = Path(path).read_text(encoding="utf-8")
    assert source.startswith("def make(") and "def fits(key, w, pair):" in source
    compile(source, path, "exec")  # a dump is the source itself


def test_an_unwritable_dump_folder_is_no_error(tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("MJRULES_DUMP_TABLES", str(tmp_path / "file" / "below"))
    f = codegen.generated("ok", ["    return ONE"], ONE=1)
    assert f == 1


def test_too_many_patterns_for_the_wild_free_check_take_the_general_path(tmp_path):
    """The wild-free tables hold one field per pattern in one value; with more patterns than fit
    (seven here, in 32 bits) there is no wild-free check: every hand goes through the full
    tables, with the recursive evaluator's answers."""
    f = tmp_path / "many.rules"
    f.write_text(MANY_PATTERNS, encoding="utf-8")
    scorer = Scorer(compile_ruleset(str(f)))
    ev, t = scorer.hands, scorer.tiles
    assert len(ev.plans) == 7 and ev.tables.wild_free is None
    assert Scorer(compile_ruleset("nanchang")).hands.tables.wild_free is not None  # five patterns fit
    none = frozenset()
    for text, win in (("123m456m789m123p55s", True), ("111m222m333p444s55s", True),
                      ("11m22m33m44p55p66s77s", True), ("123m456m789m123p56s", False)):
        hand = t.parse(text)
        assert ev.is_win(hand, [], none, hand[-1]) == win == ev.recursive.is_win(hand, [], none, hand[-1])
        assert ev.readings(hand, [], none, hand[-1]) == ev.recursive.readings(hand, [], none, hand[-1])
    rng = random.Random(16)
    wall = [k for k in range(len(t)) for _ in range(t.kinds[k].copies)]
    for _ in range(300):
        hand = rng.sample(wall, 14)
        assert ev.is_win(hand, [], none, hand[-1]) == ev.recursive.is_win(hand, [], none, hand[-1]), t.format(hand)


def test_linecache_keeps_a_bounded_number_of_sources(monkeypatch):
    monkeypatch.setattr(codegen, "MAX_SOURCES", 3)
    made = [codegen.generated("bounded", ["    return ONE"], ONE=1) for _ in range(5)]
    assert made == [1] * 5
    ours = [name for name in linecache.cache if name.startswith("<win tables ") and name.endswith(": bounded>")]
    assert len(ours) == 3
