"""Running blocks of hands on this machine's cores or on a Ray cluster: one place for it.

A *block* is a picklable function applied to picklable arguments; :func:`run_blocks` yields the
results in the order of the arguments whatever runs them, so a caller that merges them in that
order prints the same thing for one worker or many, on one machine or on Ray.

Backends: ``local`` (this process, or a process pool of ``workers``) and ``ray`` (Ray tasks, one
per block, on a local Ray of ``workers`` CPUs or on the cluster at ``address``). Ray is an
optional extra (``pip install 'mjrules[ray]'``), imported only when asked for.
"""
from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from types import FrameType, ModuleType
from typing import Any

from engine.errors import MjError

BACKENDS = ("local", "ray")
RAY_HINT = "pip install 'mjrules[ray]' (from a clone: pip install '.[ray]')"
RAY_TASKS_PER_CPU = 2      # Ray tasks in flight per cluster CPU: every CPU busy, memory bounded
RAY_POLL_SECONDS = 0.2     # how often the driver looks up from waiting for a task (to take Ctrl-C)
RAY_CONNECT_SECONDS = 10   # how long to wait for a cluster's address to answer before giving up


def run_blocks(fn: Callable[[Any], Any], blocks: Sequence[Any], workers: int = 1,
               backend: str = "local", address: str | None = None) -> Iterator[Any]:
    """Yield ``fn(b)`` for each ``b`` of ``blocks``, in order. ``fn`` is a module-level Python
    function (workers import it by name), ``blocks`` picklable.

    ``local``: ``workers`` <= 1 runs in this process; more runs a process pool of that many (at
    most one per block). ``ray``: each block is a Ray task. With ``address`` (``HOST:PORT`` of
    a cluster's head; ``auto``, the one ``ray start`` made here; ``ray://HOST:PORT``, Ray
    Client, untested), or else ``$RAY_ADDRESS``, it joins that cluster and the cluster's CPUs
    set how many run at once; with neither it starts a local Ray of ``workers`` CPUs, stopped
    again at the end. If this process is already connected to Ray, that connection is used.
    At most :data:`RAY_TASKS_PER_CPU` tasks per CPU are in flight, so memory stays bounded.
    On Ctrl-C or an error, blocks not started are dropped, not run (Ray tasks are cancelled).

    Raises ValueError for an unknown ``backend`` (the CLI offers only :data:`BACKENDS`);
    :class:`MjError` when Ray is not installed (hint: :data:`RAY_HINT`), when ``address``
    is malformed or does not answer, and for an error a Ray task raised (an :class:`MjError`
    from ``fn`` as it is, anything else as a one-line :class:`MjError`).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    if backend == "ray":
        yield from _ray_blocks(fn, blocks, workers, address)
        return
    if workers <= 1 or len(blocks) <= 1:
        for b in blocks:
            yield fn(b)
        return
    pool = ProcessPoolExecutor(max_workers=min(workers, len(blocks)), initializer=_worker_ignores_ctrl_c)
    try:
        yield from pool.map(fn, blocks)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def check_backend(backend: str, address: str | None = None) -> None:
    """Refuse a backend that cannot run here, before any work: :class:`MjError` for an unknown
    backend, ``--address`` without ``ray``, ``ray`` not installed, or an ``address`` that is not
    ``[ray://]HOST:PORT`` or where no gRPC server answers."""
    if backend not in BACKENDS:
        raise MjError(f"--backend {backend!r}: no such backend (backends: {', '.join(BACKENDS)})",
                      hint="e.g. --backend ray")
    if address is not None and backend != "ray":
        raise MjError(f"--address {address!r} is for --backend ray", hint="add --backend ray")
    if backend == "ray":
        _import_ray()
        if address not in (None, "auto"):
            _probe(address)


def _import_ray() -> ModuleType:
    try:
        import ray
    except ImportError:
        raise MjError("--backend ray: Ray is not installed", hint=RAY_HINT) from None
    return ray


def _probe(address: str, flag: str = "--address") -> None:
    """:class:`MjError` unless ``address`` (``[ray://]HOST:PORT``) accepts a connection within
    :data:`RAY_CONNECT_SECONDS` (Ray itself retries a dead address for minutes)."""
    import socket

    hostport = address.removeprefix("ray://")
    host, _, port = hostport.rpartition(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise MjError(f"{flag} {address!r} is not HOST:PORT",
                      hint="the head node's address as `ray start --head` prints it, e.g. --address 10.0.0.5:6379, or --address auto")
    hint = "start one with `ray start --head` on the head node, or leave out --address for a local Ray"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=RAY_CONNECT_SECONDS) as s:
            s.sendall(_H2_PREFACE)
            reply = b""
            while len(reply) < _H2_FRAME_HEAD and (more := s.recv(_H2_FRAME_HEAD - len(reply))):
                reply += more
    except OSError as exc:
        raise MjError(f"{flag} {address}: no Ray cluster answers there ({exc.strerror or exc})", hint=hint) from None
    # Ray's head speaks gRPC: its first frame is HTTP/2 SETTINGS (type 4 in byte 3 of the header)
    if len(reply) < _H2_FRAME_HEAD or reply[3] != _H2_SETTINGS:
        raise MjError(f"{flag} {address}: something answers there, but not a Ray cluster (no gRPC)", hint=hint)


# the HTTP/2 client preface, then an empty SETTINGS frame (length 0, type 4, flags 0, stream 0)
_H2_PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00"
_H2_FRAME_HEAD = 9  # bytes of an HTTP/2 frame header
_H2_SETTINGS = 4    # the frame type of SETTINGS


def _ray_blocks(fn: Callable[[Any], Any], blocks: Sequence[Any], workers: int, address: str | None) -> Iterator[Any]:
    import os

    ray = _import_ray()
    flag = "--address" if address else "RAY_ADDRESS"
    address = address or os.environ.get("RAY_ADDRESS") or None
    with _CtrlC() as ctrl_c:
        started = False
        if not ray.is_initialized():
            _ray_init(ray, workers, address, flag)
            started = True
        pending: deque[Any] = deque()  # Ray's ObjectRefs (Ray ships no type stubs)
        try:
            ctrl_c.check()
            cpus = int(ray.cluster_resources().get("CPU", 1)) or 1
            task = ray.remote(fn)
            todo = iter(blocks)
            for b in todo:
                pending.append(task.remote(b))
                if len(pending) >= cpus * RAY_TASKS_PER_CPU:
                    break
            while pending:
                yield _ray_get(ray, pending.popleft(), ctrl_c)
                nxt = next(todo, _END)
                if nxt is not _END:
                    pending.append(task.remote(nxt))
        finally:
            for ref in pending if not started else ():  # a Ray of our own is stopped whole below
                try:
                    ray.cancel(ref, force=True)
                except Exception:  # a task that already finished cannot be cancelled; nothing to do
                    pass
            if started:
                ray.shutdown()


_END = object()


def _ray_init(ray: ModuleType, workers: int, address: str | None, flag: str = "--address") -> None:
    """Start a quiet local Ray of ``workers`` CPUs, or connect to the cluster at ``address``
    (nothing on stdout: no dashboard, workers' output not forwarded, Ray's logging at ERROR)."""
    import logging

    if address not in (None, "auto"):
        _probe(address, flag)
    from ray.exceptions import RayError

    quiet = {"log_to_driver": False, "logging_level": logging.ERROR, "configure_logging": True}
    try:
        if address is None:
            ray.init(num_cpus=max(workers, 1), include_dashboard=False, **quiet)
        else:
            ray.init(address=address, **quiet)
    except (ConnectionError, ValueError, RuntimeError, RayError) as exc:  # RayError: e.g. no token
        first = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise MjError(f"--backend ray: cannot start or reach Ray: {first}",
                      hint="check --address, or leave it out for a local Ray; a cluster with token authentication "
                           "also needs RAY_AUTH_MODE=token and its token (RAY_AUTH_TOKEN or ~/.ray/auth_token)") from None


class _CtrlC:
    """While Ray runs, Ctrl-C only sets a flag, raised as KeyboardInterrupt from Python between
    short waits: an interrupt raised inside Ray's own wait left the driver crashing at exit
    (SIGSEGV instead of exit 130). Only the main thread can take signals; elsewhere a no-op."""

    def __init__(self) -> None:
        self.hit, self.installed = False, False
        self.old: Callable[[int, FrameType | None], Any] | int | None = None

    def __enter__(self) -> _CtrlC:
        import signal
        import threading

        if threading.current_thread() is threading.main_thread():
            self.old = signal.signal(signal.SIGINT, self._note)
            self.installed = True
        return self

    def _note(self, *_: Any) -> None:
        self.hit = True

    def check(self) -> None:
        """Raise KeyboardInterrupt if Ctrl-C was pressed."""
        if self.hit:
            self.hit = False
            raise KeyboardInterrupt

    def __exit__(self, *exc: Any) -> None:
        import signal

        if self.installed:
            signal.signal(signal.SIGINT, self.old if self.old is not None else signal.default_int_handler)


def _ray_get(ray: ModuleType, ref: Any, ctrl_c: _CtrlC) -> Any:
    """One task's result; the error it raised as an :class:`MjError`."""
    from ray.exceptions import RayError, RayTaskError

    try:
        while not ray.wait([ref], timeout=RAY_POLL_SECONDS)[0]:
            ctrl_c.check()
        ctrl_c.check()
        return ray.get(ref)
    except RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, MjError):
            raise cause from None
        what = cause or exc
        raise MjError(f"a Ray task failed: {type(what).__name__}: {str(what).splitlines()[0] if str(what) else ''}") from None
    except RayError as exc:
        raise MjError(f"a Ray task failed: {type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}",
                      hint="a node or worker was lost; run again (the output depends only on --seed)") from None


def _worker_ignores_ctrl_c() -> None:
    """Ctrl-C reaches every process of the terminal; a worker leaves it to the parent, which
    stops handing out blocks (no traceback from each worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
