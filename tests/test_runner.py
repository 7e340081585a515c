"""engine.tools.runner without a real Ray: the ray backend against a stand-in ``ray`` module
(results in order, tasks in flight bounded, a Ray of its own stopped, cancelled tasks, errors
as MjError), and what the CLI says when Ray is not installed. tests/test_ray_backend.py runs
the real thing."""
from __future__ import annotations

import itertools
import sys
import types

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import MjError
from engine.tools.runner import RAY_HINT, RAY_TASKS_PER_CPU, run_blocks


class RayTaskError(Exception):
    def __init__(self, cause):
        super().__init__(str(cause))
        self.cause = cause


class FakeRay(types.ModuleType):
    """Just enough of ``ray``: tasks run when their result is asked for."""

    def __init__(self, cpus: int, initialized: bool = False):
        super().__init__("ray")
        self.cpus, self.initialized = cpus, initialized
        self.init_kwargs, self.shut, self.cancelled = None, False, []
        self.tasks, self.ids, self.most_in_flight, self.submitted = {}, itertools.count(), 0, 0

    def is_initialized(self):
        return self.initialized

    def init(self, **kwargs):
        self.init_kwargs, self.initialized = kwargs, True

    def shutdown(self):
        self.shut, self.initialized = True, False

    def cluster_resources(self):
        return {"CPU": float(self.cpus)}

    def remote(self, fn):
        ray = self

        class Task:
            def remote(self, arg):
                ref = next(ray.ids)
                ray.tasks[ref] = (fn, arg)
                ray.submitted += 1
                ray.most_in_flight = max(ray.most_in_flight, len(ray.tasks))
                return ref

        return Task()

    def wait(self, refs, timeout):
        return refs, []

    def get(self, ref):
        fn, arg = self.tasks.pop(ref)
        try:
            return fn(arg)
        except Exception as exc:
            raise RayTaskError(exc) from None

    def cancel(self, ref, force):
        self.cancelled.append(ref)


@pytest.fixture
def fake_ray(monkeypatch):
    monkeypatch.delenv("RAY_ADDRESS", raising=False)

    def install(cpus: int, initialized: bool = False) -> FakeRay:
        ray = FakeRay(cpus, initialized)
        exceptions = types.ModuleType("ray.exceptions")
        exceptions.RayError, exceptions.RayTaskError = Exception, RayTaskError
        monkeypatch.setitem(sys.modules, "ray", ray)
        monkeypatch.setitem(sys.modules, "ray.exceptions", exceptions)
        return ray
    return install


def _square(x: int) -> int:
    return x * x


def _refuse(x: int) -> int:
    raise MjError(f"block {x} refused", hint="a hint from the task")


def test_ray_results_in_order_bounded_in_flight_and_own_ray_stopped(fake_ray):
    ray = fake_ray(cpus=3)
    assert list(run_blocks(_square, list(range(40)), workers=3, backend="ray")) == [x * x for x in range(40)]
    assert ray.most_in_flight == 3 * RAY_TASKS_PER_CPU
    assert ray.init_kwargs["num_cpus"] == 3 and ray.init_kwargs["include_dashboard"] is False
    assert ray.init_kwargs["log_to_driver"] is False
    assert ray.shut and not ray.cancelled  # its own Ray is stopped whole


def test_ray_stopped_early_runs_no_more_blocks(fake_ray):
    ray = fake_ray(cpus=1)
    blocks = run_blocks(_square, list(range(100)), workers=1, backend="ray")
    assert next(blocks) == 0
    blocks.close()
    assert ray.shut and ray.submitted == RAY_TASKS_PER_CPU  # the first ones in flight, no more


def test_ray_on_a_cluster_already_joined_cancels_its_tasks_and_leaves_it_running(fake_ray):
    ray = fake_ray(cpus=2, initialized=True)
    blocks = run_blocks(_square, list(range(100)), workers=8, backend="ray", address="auto")
    assert [next(blocks), next(blocks)] == [0, 1]
    blocks.close()
    assert ray.init_kwargs is None and not ray.shut
    assert sorted(ray.cancelled) == [2, 3, 4]  # in flight when stopped


def test_ray_task_errors_are_mjerrors(fake_ray):
    fake_ray(cpus=2)
    with pytest.raises(MjError) as info:
        list(run_blocks(_refuse, [5, 6], backend="ray"))
    assert info.value.message == "block 5 refused" and info.value.hint == "a hint from the task"
    fake_ray(cpus=2)
    with pytest.raises(MjError) as info:
        list(run_blocks(lambda x: 1 // x, [0], backend="ray"))
    assert info.value.message == "a Ray task failed: ZeroDivisionError: integer division or modulo by zero"


def test_unknown_backend_is_refused():
    with pytest.raises(ValueError, match="unknown backend 'spark'"):
        list(run_blocks(_square, [1], backend="spark"))
    r = CliRunner().invoke(app, ["simulate", "nanchang", "-n", "1", "--backend", "spark"])
    assert r.exit_code == 2
    assert "error: --backend 'spark': no such backend (backends: local, ray)" in r.output


def test_ray_not_installed_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "ray", None)  # `import ray` raises ImportError
    r = CliRunner().invoke(app, ["simulate", "nanchang", "-n", "1", "--backend", "ray"])
    assert r.exit_code == 2
    assert "error: --backend ray: Ray is not installed" in r.output and f"hint: {RAY_HINT}" in r.output
    assert RAY_HINT == "pip install 'mjrules[ray]' (from a clone: pip install '.[ray]')"
    with pytest.raises(MjError, match="Ray is not installed"):
        list(run_blocks(_square, [1], backend="ray"))


def test_address_needs_the_ray_backend():
    r = CliRunner().invoke(app, ["simulate", "nanchang", "-n", "1", "--address", "10.0.0.5:6379"])
    assert r.exit_code == 2
    assert "error: --address '10.0.0.5:6379' is for --backend ray" in r.output and "hint: add --backend ray" in r.output


def test_ray_address_from_the_environment_joins_that_cluster(fake_ray, monkeypatch):
    ray = fake_ray(cpus=4)
    monkeypatch.setenv("RAY_ADDRESS", "auto")
    assert list(run_blocks(_square, [2, 3], workers=2, backend="ray")) == [4, 9]
    assert ray.init_kwargs["address"] == "auto" and "num_cpus" not in ray.init_kwargs


def test_a_bad_ray_address_from_the_environment_is_named_as_such(fake_ray, monkeypatch):
    fake_ray(cpus=1)
    monkeypatch.setenv("RAY_ADDRESS", "nowhere")
    with pytest.raises(MjError) as info:
        list(run_blocks(_square, [2], backend="ray"))
    assert info.value.message == "RAY_ADDRESS 'nowhere' is not HOST:PORT"
