"""benchmarks/wincheck.py refuses what it cannot measure with one line and exit 2, never a
worker's traceback (a fresh machine without the peer gave ``CalledProcessError``). No timing here."""
from __future__ import annotations

import os
import subprocess
import sys

from .conftest import ROOT

SCRIPT = str(ROOT / "benchmarks" / "wincheck.py")


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, SCRIPT, *args], capture_output=True, text=True, cwd=ROOT,
                          env=env, timeout=60)


def test_bad_counts_are_refused():
    out = _run("--checks", "0")
    assert out.returncode == 2
    assert "--checks and --repeat must be at least 1" in out.stderr
    assert "Traceback" not in out.stderr


def test_missing_peer_is_named(tmp_path):
    # the peer hidden from this one run: a meta-path finder (installed by sitecustomize) refuses it
    (tmp_path / "sitecustomize.py").write_text(
        "import sys\n"
        "class _Hide:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name == 'mahjong' or name.startswith('mahjong.'):\n"
        "            raise ModuleNotFoundError(name)\n"
        "        return None\n"
        "sys.meta_path.insert(0, _Hide())\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    out = _run("--checks", "10", "--repeat", "1", env=env)
    assert out.returncode == 2
    assert "the peer is not installed" in out.stderr and "pip install" in out.stderr
    assert "Traceback" not in out.stderr
