"""``mjrules serve``: the table and the rule playground in a browser (docs/serve.md).

Needs the ``serve`` extra (starlette, uvicorn with websockets): ``pip install 'mjrules[serve]'``.
:func:`serve` runs the app of :mod:`engine.tools.server.app` with uvicorn.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from engine.tools.server.caps import DEFAULT_PORT, LOCALHOST

if TYPE_CHECKING:
    import socket


def default_data_dir() -> Path:
    """Where the server keeps its files: ``$XDG_DATA_HOME/mjrules/serve`` (``~/.local/share/…``)."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "mjrules" / "serve"


def listen(host: str = LOCALHOST, port: int = DEFAULT_PORT) -> socket.socket:
    """A listening socket on ``host:port`` (IPv4 or IPv6 as the host resolves), made before
    anything is printed. Raises :class:`OSError` when the port is taken or the host is not
    this machine's."""
    import socket

    family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
    return socket.create_server((host, port), family=family)


def serve(host: str = LOCALHOST, port: int = DEFAULT_PORT, data_dir: Path | None = None,
          sock: socket.socket | None = None, db: str | None = None, preselect: dict[str, object] | None = None,
          grace: float | None = None, lease: float | None = None, joins: int | None = None, workers: int = 1) -> None:
    """Run the server until Ctrl-C (uvicorn), on ``sock`` (from :func:`listen`) or on a socket
    it opens; ``db``, ``preselect``, ``grace``, ``lease`` and ``joins`` as :func:`~engine.tools.server.app.create_app`
    takes them. ``workers`` > 1: that many processes share the socket and, through ``db`` (a
    PostgreSQL URL), the rooms (docs/serve.md "Several processes"); this process waits for them
    and stops them on Ctrl-C or SIGTERM. Raises :class:`OSError` when it cannot bind."""
    sock = sock or listen(host, port)
    if workers <= 1:
        _run(data_dir, sock, db, preselect, grace, lease, joins, None)
        return
    import multiprocessing
    import signal

    ctx = multiprocessing.get_context("fork")  # the listening socket is inherited
    procs = [ctx.Process(target=_run, args=(data_dir, sock, db, preselect, grace, lease, joins, i),
                         name=f"mjrules-serve-w{i}") for i in range(workers)]
    for p in procs:
        p.start()

    def stop(signum: int, _frame: object) -> None:
        for p in procs:
            if p.is_alive() and p.pid is not None:
                os.kill(p.pid, signal.SIGTERM)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    for p in procs:
        p.join()


def _run(data_dir: Path | None, sock: socket.socket, db: str | None, preselect: dict[str, object] | None,
         grace: float | None, lease: float | None, joins: int | None, worker: int | None) -> None:
    import uvicorn

    from engine.tools.rooms.caps import MAX_FRAME_BYTES
    from engine.tools.server.app import create_app

    app = create_app(data_dir or default_data_dir(), db=db, preselect=preselect, grace=grace, lease=lease, joins=joins,
                     worker=worker)
    # a websocket message past the cap is refused by uvicorn itself (close 1009), never buffered whole;
    # no per-message deflate: compressing every table cost more CPU than all the rest (docs/serve.md Speed)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", ws="auto", ws_max_size=4 * MAX_FRAME_BYTES,
                                           ws_per_message_deflate=False))
    server.run(sockets=[sock])
