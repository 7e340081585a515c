"""benchmarks/notes.py (what a note between two servers costs): it runs against PostgreSQL
(``MJRULES_TEST_PG``) and reports each side's CPU a note and the peer's game step; bad flags
exit 2 with a message naming the flag."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from .extras import need_extra
from .test_rooms_restart import pg_database

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "benchmarks" / "notes.py"


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_notes_through_postgresql_are_measured_on_both_sides():
    need_extra("psycopg", "postgres")
    db = pg_database()
    out = _run("--pg", db, "--notes", "200", "--batch", "4", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["notes"] == 200 and report["batch"] == 4
    pg = report["pg"]
    assert pg["send_ms"] > 0 and pg["receive_ms"] > 0
    assert abs(pg["both_ms"] - pg["send_ms"] - pg["receive_ms"]) < 1e-9
    assert report["peer_game_step_ms"] > 0
    assert abs(pg["in_game_steps"] - pg["both_ms"] / report["peer_game_step_ms"]) < 1e-9
    assert "redis" not in report  # measured only when asked


def test_bad_flags_exit_2_naming_the_flag():
    out = _run("--pg", "postgresql://x", "--batch", "0")
    assert out.returncode == 2 and "--batch must be 1 to 1000 (got 0)" in out.stderr
    out = _run()
    assert out.returncode == 2 and "give --pg URL, --redis URL or both" in out.stderr


def test_a_database_it_cannot_reach_exits_2_saying_why():
    need_extra("psycopg", "postgres")
    out = _run("--pg", "postgresql://nobody:wrong@127.0.0.1:1/none", "--notes", "10")
    assert out.returncode == 2 and "notes.py: pg: OperationalError" in out.stderr
    assert "Traceback" not in out.stderr


def test_it_needs_no_server_extra():
    """The peer is benchmarks/peer.py, not rooms.py (which needs orjson and uvloop, the serve
    extra's): with those unimportable, a run still gets to the database and says what is wrong."""
    need_extra("psycopg", "postgres")
    code = ("import runpy, sys; sys.modules['orjson'] = None; sys.modules['uvloop'] = None; "
            f"sys.argv = ['notes.py', '--pg', 'postgresql://nobody:wrong@127.0.0.1:1/none', '--notes', '10']; "
            f"runpy.run_path({str(SCRIPT)!r}, run_name='__main__')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert out.returncode == 2, out.stderr
    assert "notes.py: pg: OperationalError" in out.stderr and "orjson" not in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1  # one line, psycopg's message joined
