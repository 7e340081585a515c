"""Start-up: the pre-built parser (engine/lang/parsergen.py) and the lazy imports.

The committed standalone parser must be the one the grammar gives (same trees, same errors), be
replaced by one generated in memory when the grammar changed, read and write no cache, and keep
``lark`` out of the process; ``mjrules --help`` and ``mjrules check`` import only what they need.
No timing here: benchmarks/startup.py measures.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from engine.lang import parsergen
from engine.lang.resources import grammar_text, rulesets_dir

from .conftest import ROOT

RULESETS = sorted(rulesets_dir().glob("*.rules"))
BROKEN = [  # syntax errors of several kinds: unexpected token, character, end of file
    "ruleset x\nfan = 2\n",
    "ruleset x\nfan z = x2 when \u201cn\u201d >= 1\n",
    "ruleset x\nfan z = x2 when (jing_count > 1\n",
    "ruleset x\nextends ./a.rules\n",
    "ruleset x\nfan z = x 2 when discard\n",
    "ruleset x\nfan z = x2 when discard and\n",
    "ruleset x\npatern p = sets 4 + pair\n",
]


def _plain(tree):
    """A parse tree as nested tuples: rule names, token types, values and positions."""
    if hasattr(tree, "children"):
        return (str(tree.data), tree.meta.line if not tree.meta.empty else None,
                [_plain(c) for c in tree.children])
    return (tree.type, str(tree), tree.line, tree.column, tree.end_line, tree.end_column)


def _lark_now():
    """The parser Lark builds from the grammar today, as the compiler did before the pre-built parser."""
    from lark import Lark

    return Lark(grammar_text(), parser="lalr", propagate_positions=True, maybe_placeholders=False)


def _outcome(parse, text):
    try:
        return ("tree", _plain(parse(text)))
    except Exception as exc:  # both parsers' exceptions, compared by kind and place
        return (type(exc).__name__, getattr(exc, "line", None), getattr(exc, "column", None),
                sorted(getattr(exc, "expected", None) or []))


def test_committed_parser_is_for_this_grammar():
    from engine.lang import standalone_parser

    assert parsergen.grammar_sha256() == standalone_parser.GRAMMAR_SHA256
    assert parsergen.main(["--check"]) == 0
    assert parsergen.parser_module() is standalone_parser


@pytest.mark.parametrize("text", [p.read_text(encoding="utf-8") for p in RULESETS] + BROKEN,
                         ids=[p.stem for p in RULESETS] + [f"broken{i}" for i in range(len(BROKEN))])
def test_committed_parser_parses_as_lark_builds_it_now(text):
    from engine.lang import standalone_parser

    mine = standalone_parser.Lark_StandAlone(propagate_positions=True)
    assert _outcome(mine.parse, text) == _outcome(_lark_now().parse, text)


def test_an_edited_grammar_takes_effect_without_regenerating(monkeypatch):
    from engine.lang import standalone_parser

    edited = grammar_text() + "\n// an edit\n"
    monkeypatch.setattr(parsergen, "grammar_text", lambda: edited)
    before = sorted(os.listdir(parsergen.FILE.parent)), parsergen.FILE.stat().st_mtime_ns
    module = parsergen.parser_module()
    assert module is not standalone_parser
    assert parsergen.grammar_sha256(edited) == module.GRAMMAR_SHA256
    tree = module.Lark_StandAlone(propagate_positions=True).parse(RULESETS[0].read_text(encoding="utf-8"))
    assert _plain(tree) == _plain(_lark_now().parse(RULESETS[0].read_text(encoding="utf-8")))
    assert sys.modules["engine.lang.standalone_parser"] is standalone_parser  # not replaced
    assert (sorted(os.listdir(parsergen.FILE.parent)), parsergen.FILE.stat().st_mtime_ns) == before  # nothing written
    assert parsergen.main(["--check"]) == 1  # and the committed file is reported stale


def test_stale_tables_are_not_used(monkeypatch):
    """Tables (standalone_parser.json) made from another grammar than the module: regenerated."""
    from engine.lang import standalone_parser

    monkeypatch.setattr(standalone_parser, "TABLES_SHA256", "0" * 64)
    module = parsergen.parser_module()
    assert module is not standalone_parser and parsergen.grammar_sha256() == module.GRAMMAR_SHA256


def test_parsergen_usage(capsys):
    assert parsergen.main(["--bogus"]) == 2
    assert "usage: python -m engine.lang.parsergen [--check]" in capsys.readouterr().err


def _run(code: str, tmp_path, *argv: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter with an empty HOME and cache dir under ``tmp_path``."""
    home, cache, cwd = tmp_path / "home", tmp_path / "cache", tmp_path / "cwd"
    for d in (home, cache, cwd):
        d.mkdir()
    env = {**os.environ, "HOME": str(home), "XDG_CACHE_HOME": str(cache), "PYTHONDONTWRITEBYTECODE": "1",
           "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *argv], env=env, cwd=cwd, capture_output=True, text=True)


# runs mjrules, then prints (as JSON) the modules it imported
_MODULES = """
import json, sys
from engine.cli import main
sys.argv[0] = "mjrules"
try:
    main()
except SystemExit as exc:
    code = exc.code
print(json.dumps({"code": code, "modules": sorted(sys.modules)}))
"""


def _imported(tmp_path, *argv: str) -> tuple[int, set[str]]:
    done = _run(_MODULES, tmp_path, *argv)
    last = json.loads(done.stdout.strip().splitlines()[-1])
    return last["code"], set(last["modules"])


def _under(modules: set[str], *prefixes: str) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes))


def test_help_imports_no_compiler_nor_rich(tmp_path):
    code, modules = _imported(tmp_path, "--help")
    assert code == 0
    assert _under(modules, "rich", "pydantic", "lark", "hypothesis", "ruamel", "engine.lang.compiler",
                  "engine.lang.standalone_parser", "engine.core", "engine.table", "engine.tools") == []


def test_check_imports_no_lark_nor_the_game(tmp_path):
    code, modules = _imported(tmp_path, "check", str(ROOT / "rulesets" / "nanchang.rules"))
    assert code == 0
    assert "engine.lang.standalone_parser" in modules and "engine.lang.compiler" in modules
    assert _under(modules, "lark", "hypothesis", "ruamel", "rich.table", "engine.core", "engine.table",
                  "engine.tools") == []


def test_check_writes_nothing(tmp_path):
    done = _run("import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()", tmp_path,
                "check", str(ROOT / "rulesets" / "nanchang.rules"))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok: ")
    assert [p for p in tmp_path.rglob("*") if p.is_file()] == []  # no cache in HOME, XDG_CACHE_HOME, cwd


def test_lexer_limits_hold_with_the_committed_parser():
    """The lexer callbacks (engine/lang/limits.py) are passed to the pre-built parser."""
    from engine.errors import RuleError
    from engine.lang.compiler import compile_text

    with pytest.raises(RuleError) as exc:
        compile_text("ruleset x\nfan z = x2000 when discard\n", "t.rules")
    assert exc.value.message == "multiplier x2000 is too large (at most x1000)"
    assert (exc.value.location.line, exc.value.location.column) == (2, 9)


# A sanity bound, not a speed claim (benchmarks/startup.py measures speed): measured at most
# 0.36 s of CPU (`mjrules check`; `--help` 0.09 s, `python -c pass` 0.01 s), so 10 s is ~28×
# that. It fails on a hang or a gross regression (a win table built at start-up, say), never on
# a busy machine (CPU time, not wall time).
SANITY_CPU_S = 10.0


def test_startup_benchmark_runs(capsys):
    """benchmarks/startup.py measures the three commands (one run each here): each takes some CPU
    time, under a sanity bound; no speed figure is asserted."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("startup_bench", ROOT / "benchmarks" / "startup.py")
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    assert bench.main(["--runs", "1", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert set(report["results"]) == {"python -c pass", "mjrules --help", "mjrules check rulesets/nanchang.rules"}
    for r in report["results"].values():
        assert r["runs"] == 1 and 0 < r["cpu_s"] < SANITY_CPU_S and r["ratio_to_python"] > 0
