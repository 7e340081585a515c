"""Running blocks of hands on this machine's cores (and, later, elsewhere): one place for it.

A *block* is a picklable function applied to picklable arguments; :func:`run_blocks` yields the
results in the order of the arguments whatever runs them, so a caller that merges them in that
order prints the same thing for one worker or many.
"""
from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from typing import Any, Callable, Iterable, Iterator, Sequence

BACKENDS = ("local",)


def run_blocks(fn: Callable[[Any], Any], blocks: Sequence[Any], workers: int = 1,
               backend: str = "local") -> Iterator[Any]:
    """Yield ``fn(b)`` for each ``b`` of ``blocks``, in order.

    ``workers`` <= 1 runs in this process; more runs a process pool of that many (at most one per
    block). On Ctrl-C or an error, blocks not started are dropped, not run.
    Raises ValueError for an unknown ``backend`` (the CLI offers only :data:`BACKENDS`).
    """
    if backend not in BACKENDS:
        raise ValueError(f"unknown backend {backend!r}")
    if workers <= 1 or len(blocks) <= 1:
        for b in blocks:
            yield fn(b)
        return
    pool = ProcessPoolExecutor(max_workers=min(workers, len(blocks)), initializer=_worker_ignores_ctrl_c)
    try:
        yield from pool.map(fn, blocks)
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _worker_ignores_ctrl_c() -> None:
    """Ctrl-C reaches every process of the terminal; a worker leaves it to the parent, which
    stops handing out blocks (no traceback from each worker)."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
