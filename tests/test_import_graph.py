"""engine/ has no import cycle: the graph of its modules' imports (every ``import`` and
``from … import`` anywhere in a file, a function-level one included, relative ones resolved;
``from pkg import name`` counts as importing ``pkg.name`` when that is a module) has no
cycle (issue 16). A cycle is reported as the chain of modules that closes it."""
from __future__ import annotations

import ast
from pathlib import Path

from .conftest import ROOT

ENGINE = ROOT / "engine"


def _module_name(path: Path, root: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def import_graph(engine: Path = ENGINE) -> dict[str, set[str]]:
    """Module → the engine modules it imports (only modules found under ``engine``)."""
    root = engine.parent
    files = {_module_name(f, root): f for f in sorted(engine.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for mod, f in files.items():
        package = mod.split(".") if f.name == "__init__.py" else mod.split(".")[:-1]
        deps: set[str] = set()
        for node in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[: len(package) - node.level + 1] if node.level else []
                src = ".".join(base + ([node.module] if node.module else []))
                # `from pkg import sub` runs pkg's __init__ too: it imports the package as well
                # (but a package's __init__ naming its own submodules is no import of itself)
                targets = ([src] if src in files and src != mod else []) + \
                    [f"{src}.{a.name}" if f"{src}.{a.name}" in files else src for a in node.names]
            for t in targets:
                while t and t not in files:  # `import a.b.c` of a name inside a.b: the module a.b
                    t = t.rpartition(".")[0]
                if t and t != mod:
                    deps.add(t)
                elif t == mod and isinstance(node, ast.ImportFrom) and node.module:
                    deps.add(t)  # a module importing itself
        graph[mod] = deps
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """One closed chain (first module repeated at the end) per strongly connected set of
    modules that import one another (Tarjan's algorithm, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                members = []
                while True:
                    m = stack.pop()
                    on_stack.discard(m)
                    members.append(m)
                    if m == node:
                        break
                if len(members) > 1 or node in graph[node]:
                    out.append(_chain(graph, set(members)))
    return out


def _chain(graph: dict[str, set[str]], members: set[str]) -> list[str]:
    """A shortest closed path through the first of ``members`` (breadth first)."""
    first = min(members)
    prev: dict[str, str] = {}
    front = [first]
    while front:
        nxt = []
        for m in front:
            for d in sorted(graph[m] & members):
                if d == first:
                    path = [m]
                    while path[-1] != first:
                        path.append(prev[path[-1]])
                    return [*reversed(path), first]
                if d not in prev:
                    prev[d] = m
                    nxt.append(d)
        front = nxt
    return [first, first]


def test_no_import_cycle_in_engine():
    found = cycles(import_graph())
    assert not found, "import cycles in engine/:\n" + "\n".join(" → ".join(c) for c in found)


def test_the_graph_sees_the_real_imports():
    """The graph is not empty by mistake: known edges are in it (an absolute, a relative, a
    package's module named in ``from pkg import mod``)."""
    g = import_graph()
    assert "engine.core.patterns" in g["engine.core.hands"]
    assert "engine.core.wintables.checker" in g["engine.core.hands"]
    assert "engine.core.wintables.cachefile" in g["engine.core.wintables.store"]


def test_a_planted_cycle_is_found(tmp_path):
    """Three modules importing one another in a ring (absolute, relative, and a function-level
    import), beside a module outside the ring, give one cycle naming the three."""
    core = tmp_path / "engine" / "core"
    core.mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (core / "__init__.py").write_text("")
    (core / "a.py").write_text("from engine.core.b import thing\n")
    (core / "b.py").write_text("from . import c\n")
    (core / "c.py").write_text("def late():\n    from .a import other\n")
    (core / "d.py").write_text("import engine.core.a\n")
    found = cycles(import_graph(tmp_path / "engine"))
    assert found == [["engine.core.a", "engine.core.b", "engine.core.c", "engine.core.a"]]
    (core / "c.py").write_text("")
    assert cycles(import_graph(tmp_path / "engine")) == []


def test_a_cycle_through_a_package_init_is_found(tmp_path):
    """``from pkg import sub`` runs pkg's __init__: a submodule importing that way while the
    __init__ imports the submodule (even inside a function) is a cycle."""
    pkg = tmp_path / "engine" / "tools"
    pkg.mkdir(parents=True)
    (tmp_path / "engine" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("def run():\n    from engine.tools.app import main\n")
    (pkg / "app.py").write_text("from engine.tools import work\n")
    (pkg / "work.py").write_text("")
    assert cycles(import_graph(tmp_path / "engine")) == [["engine.tools", "engine.tools.app", "engine.tools"]]
    (pkg / "app.py").write_text("import engine.tools.work as work\n")
    assert cycles(import_graph(tmp_path / "engine")) == []
