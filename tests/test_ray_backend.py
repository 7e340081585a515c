"""The Ray backend for real: `simulate --backend ray` prints the same JSON, byte
for byte, as `--workers 2` for the same seed, on a Ray it starts itself and on a cluster it
joins with --address; nothing of Ray's reaches stdout.

Skipped when Ray is not installed, unless MJRULES_REQUIRE_RAY=1 (set by .ci/run, which installs
the ray extra): then a missing Ray fails the suite. One local Ray of two CPUs, started once for
the module, plays the cluster (with Ray's default token authentication: Ray keeps the token in
~/.ray/auth_token, made by the first local Ray if missing)."""
from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import MjError

try:
    import ray
except ImportError:
    if os.environ.get("MJRULES_REQUIRE_RAY") == "1":
        pytest.fail("MJRULES_REQUIRE_RAY=1 but Ray is not installed: pip install '.[ray]'", pytrace=False)
    pytest.skip("Ray is not installed (pip install '.[ray]')", allow_module_level=True)

ROOT = Path(__file__).resolve().parent.parent
MJRULES = [sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()"]
ARGS = ["simulate", "nanchang", "-n", "100", "--seed", "7", "--json"]
runner = CliRunner()


@pytest.fixture(scope="module")
def local_two_workers() -> str:
    """`--workers 2` on local processes: the output every Ray run must equal."""
    r = runner.invoke(app, [*ARGS, "--workers", "2"])
    assert r.exit_code == 0, r.output
    return r.stdout


@pytest.fixture(scope="module", autouse=True)
def ray_environment():
    """No RAY_ADDRESS from outside. A local Ray turns on token authentication by setting
    RAY_AUTH_MODE=token in this process's environment (so its children, and the --address run,
    use ~/.ray/auth_token): put both variables back as they were after the module."""
    saved = {k: os.environ.get(k) for k in ("RAY_AUTH_MODE", "RAY_ADDRESS")}
    os.environ.pop("RAY_ADDRESS", None)  # the tests' own Ray, not a cluster named outside
    yield
    for k, v in saved.items():
        os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


@pytest.fixture(scope="module")
def cluster():
    """A local Ray of two CPUs for the module: its GCS address, for --address."""
    assert not ray.is_initialized()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, logging_level="ERROR")
    try:
        yield ray.get_runtime_context().gcs_address
    finally:
        ray.shutdown()


def test_ray_started_for_the_run_gives_the_same_json_as_two_workers(local_two_workers):
    # before the module's cluster: run_blocks starts a Ray of --workers CPUs and stops it
    assert not ray.is_initialized()
    r = runner.invoke(app, [*ARGS, "--backend", "ray", "--workers", "2"])
    assert r.exit_code == 0, r.output
    assert r.stdout == local_two_workers
    assert not ray.is_initialized()


def test_ray_cluster_by_address_gives_the_same_json_byte_for_byte(cluster, local_two_workers):
    done = subprocess.run([*MJRULES, *ARGS, "--backend", "ray", "--address", cluster], capture_output=True,
                          cwd=ROOT, timeout=300, env=os.environ.copy())
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode("utf-8") == local_two_workers  # pure JSON: nothing of Ray's on stdout
    assert b"Traceback" not in done.stderr


def test_impact_on_ray_gives_the_same_json_as_two_workers(cluster):
    args = ["impact", "nanchang", "nanchang-table", "-n", "50", "--seed", "3", "--json"]
    local = runner.invoke(app, [*args, "--workers", "2"])
    assert local.exit_code == 0, local.output
    done = subprocess.run([*MJRULES, *args, "--backend", "ray", "--address", cluster], capture_output=True,
                          cwd=ROOT, timeout=300, env=os.environ.copy())
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == local.stdout


def test_impact_with_a_search_bot_on_ray_is_the_local_run(cluster):
    args = ["impact", "nanchang-app", "ganzhou-app", "-n", "2", "--seed", "3", "--json",
            "--bots", "search,value,value,value", "--search-playouts", "4"]
    local = runner.invoke(app, args)
    assert local.exit_code == 0, local.output
    done = subprocess.run([*MJRULES, *args, "--backend", "ray", "--address", cluster], capture_output=True,
                          cwd=ROOT, timeout=300, env=os.environ.copy())
    assert done.returncode == 0, done.stderr.decode()
    assert done.stdout.decode() == local.stdout


def test_ray_records_are_the_local_records(cluster, tmp_path: Path):
    args = ["simulate", "nanchang", "-n", "30", "--seed", "3", "--json", "--records"]
    here = runner.invoke(app, [*args, str(tmp_path / "local"), "--workers", "2"])
    there = runner.invoke(app, [*args, str(tmp_path / "ray"), "--backend", "ray"])
    assert here.exit_code == there.exit_code == 0, there.output
    assert here.stdout == there.stdout
    local = sorted((tmp_path / "local").iterdir())
    assert len(local) == 30
    assert [p.read_bytes() for p in local] == [(tmp_path / "ray" / p.name).read_bytes() for p in local]


def test_an_error_in_a_ray_task_is_the_mjerror_it_raised(cluster):
    from engine.tools.runner import run_blocks
    from engine.tools.simulate import play_block

    with pytest.raises(MjError) as info:
        list(run_blocks(play_block, [("no-such-ruleset", {}, 1, 0, 1, ["greedy"] * 4, False)], backend="ray"))
    assert "no-such-ruleset" in info.value.message


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_where_nothing_answers_is_refused_at_once():
    port = _free_port()
    r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--backend", "ray", "--address", f"127.0.0.1:{port}", "--json"])
    assert r.exit_code == 2
    assert f"--address 127.0.0.1:{port}: no Ray cluster answers there" in r.stdout


@pytest.mark.parametrize("address", ["nowhere", "host:", ":6379", "host:99999", "host:port"])
def test_an_address_that_is_not_host_port_is_refused(address):
    r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--backend", "ray", "--address", address])
    assert r.exit_code == 2
    assert f"error: --address '{address}' is not HOST:PORT" in r.output


def test_an_address_that_is_not_ray_is_refused():
    """A web server answers, but not in gRPC: refused in seconds (Ray itself retries for minutes)."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()

    def answer_http():
        conn, _ = server.accept()
        with conn:
            conn.recv(1024)
            conn.sendall(b"HTTP/1.0 400 Bad Request\r\n\r\n")

    t = threading.Thread(target=answer_http, daemon=True)
    t.start()
    port = server.getsockname()[1]
    try:
        r = runner.invoke(app, ["simulate", "nanchang", "-n", "1", "--backend", "ray", "--address", f"127.0.0.1:{port}"])
    finally:
        server.close()
    assert r.exit_code == 2
    assert f"error: --address 127.0.0.1:{port}: something answers there, but not a Ray cluster (no gRPC)" in r.output
