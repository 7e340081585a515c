"""An installed wheel works outside the repository: grammar and rulesets ship as package data."""
from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

from .conftest import ROOT
from .extras import need_extra

hatchling = need_extra("hatchling.builders.wheel", "test")  # builds the wheel


def test_wheel_carries_grammar_and_rulesets_and_runs_outside_repo(tmp_path: Path):
    builder = hatchling.WheelBuilder(str(ROOT))
    wheel = Path(next(iter(builder.build(directory=str(tmp_path / "dist"), versions=["standard"]))))
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        assert "engine/grammar/mjrules.lark" in names
        assert {"engine/rulesets/nanchang.rules", "engine/rulesets/nanchang-table.rules"} <= names
        assert "engine/docs/language.md" in names  # the language server's hover text
        assert "engine/py.typed" in names  # PEP 561: a user's type checker reads the package's types
        assert {f"engine/tools/server/static/{f}" for f in ("index.html", "app.js", "app.css")} <= names  # serve's page
        site = tmp_path / "site"
        z.extractall(site)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    code = ("from engine import compile_ruleset; import engine; "
            "rs = compile_ruleset('nanchang-table'); print(rs.extends, engine.__file__)")
    env = dict(os.environ, PYTHONPATH=str(site))
    out = subprocess.run([sys.executable, "-c", code], cwd=elsewhere, env=env, capture_output=True, text=True,
                         check=True).stdout
    assert out.startswith("['nanchang']")
    assert str(site) in out
