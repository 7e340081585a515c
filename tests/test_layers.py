"""engine/ is layered: lang (rule text → IR) < core (what a hand is worth) < table (playing
hands) < env (the PettingZoo environments, the ``rl`` extra) < tools (what people run);
``engine.errors`` sits below them all and ``engine.cli`` above. Each module imports only from
its own layer or the layers below."""
from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT

ENGINE = ROOT / "engine"
ORDER = ["errors", "lang", "core", "table", "env", "tools", "cli"]


def _layer(module: str) -> str | None:
    """The layer of a dotted module path inside engine (``engine.core.hands`` → ``core``)."""
    parts = module.split(".")
    if parts[0] != "engine" or len(parts) < 2:
        return None
    return parts[1] if parts[1] in ORDER else None


def _imports(path) -> list[tuple[int, str]]:
    """(line, absolute module) for every import in a file, relative ones resolved."""
    rel = path.relative_to(ROOT).with_suffix("")
    pkg = list(rel.parts[:-1]) if rel.name != "__init__" else list(rel.parts[:-1])
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out += [(node.lineno, f"{mod}.{a.name}" if not node.module else mod) for a in node.names]
    return out


def upward_imports(root=ENGINE) -> list[str]:
    bad = []
    for f in sorted(root.rglob("*.py")):
        own = _layer(".".join(f.relative_to(ROOT).with_suffix("").parts))
        if own is None:  # engine/__init__.py, __main__.py: the package's front door
            continue
        for line, mod in _imports(f):
            dep = _layer(mod)
            if dep is not None and ORDER.index(dep) > ORDER.index(own):
                bad.append(f"{f.relative_to(ROOT)}:{line}: {own} imports {mod} ({dep})")
    return bad


def test_no_module_imports_a_layer_above_its_own():
    assert not upward_imports(), "\n".join(upward_imports())


def test_every_module_is_in_a_layer():
    loose = [f.name for f in ENGINE.glob("*.py") if f.stem not in ("__init__", "__main__", "errors")]
    assert not loose, f"modules outside a layer: {loose}"


def test_the_layer_check_can_fail(tmp_path):
    """A planted core module that imports the table layer is reported."""
    fake = tmp_path / "engine" / "core"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from engine.table.game import Game\nfrom ..tools import diff\n")
    import tests.test_layers as T
    old = T.ROOT
    try:
        T.ROOT = tmp_path
        bad = upward_imports(tmp_path / "engine")
    finally:
        T.ROOT = old
    assert len(bad) == 2 and "core imports engine.table.game (table)" in bad[0] and "(tools)" in bad[1]


def _upward_in(root: Path) -> list[str]:
    """:func:`upward_imports` of a fake tree under ``root`` (its paths reported from ``root``)."""
    import tests.test_layers as T
    old = T.ROOT
    try:
        T.ROOT = root
        return upward_imports(root / "engine")
    finally:
        T.ROOT = old


def test_the_cli_package_is_the_top_layer(tmp_path):
    """engine/cli/ is a package: each of its modules is layer cli, and a lower layer importing one
    is reported."""
    assert {_layer(f"engine.cli.{f.stem}") for f in (ENGINE / "cli").glob("*.py")} == {"cli"}
    fake = tmp_path / "engine" / "tools"
    fake.mkdir(parents=True)
    (fake / "bad.py").write_text("from engine.cli.output import fail\n")
    assert _upward_in(tmp_path) == ["engine/tools/bad.py:1: tools imports engine.cli.output (cli)"]


def test_the_env_package_sits_above_the_table(tmp_path):
    """engine/env/ is a layer of its own: it may import the table, and a table module importing
    it is reported (nothing below needs pettingzoo)."""
    assert {_layer(f"engine.env.{f.stem}") for f in (ENGINE / "env").glob("*.py")} == {"env"}
    fake = tmp_path / "engine"
    (fake / "table").mkdir(parents=True)
    (fake / "env").mkdir()
    (fake / "table" / "bad.py").write_text("from engine.env.aec import MahjongEnv\n")
    (fake / "env" / "good.py").write_text("from engine.table.game import Game\n")
    assert _upward_in(tmp_path) == ["engine/table/bad.py:1: table imports engine.env.aec (env)"]
