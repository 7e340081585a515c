"""Shared by the server and browser tests: a real server (uvicorn) on a free port, in a thread,
with its own data folder; and small JSON helpers over urllib (no client library needed)."""
from __future__ import annotations

import json
import os
import socket
import threading
import time
import urllib.error
import urllib.request

import pytest

REQUIRED = os.environ.get("MJRULES_REQUIRE_BROWSER") == "1"  # CI: a missing piece is a failure


EXTRA_OF = {"selenium": "browser", "websockets": "browser", "psycopg": "postgres"}  # pyproject.toml's extras


def need(module: str):
    """Import ``module`` or skip (fail when MJRULES_REQUIRE_BROWSER=1)."""
    try:
        return __import__(module)
    except ImportError:
        if REQUIRED:
            pytest.fail(f"{module} is not installed, and MJRULES_REQUIRE_BROWSER=1")
        extra = EXTRA_OF.get(module, "serve")
        pytest.skip(f"{module} is not installed (pip install '.[{extra}]')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Running:
    """A server in a thread: ``url``, ``app`` (its state: ``app.state.server``), ``data``."""

    def __init__(self, data, **app_options):
        need("starlette")
        uvicorn = need("uvicorn")
        from engine.tools.server.app import create_app

        self.data = data
        self.app = create_app(data, **app_options)
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = uvicorn.Config(self.app, host="127.0.0.1", port=self.port, log_level="warning", ws="auto")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the server did not start")
            time.sleep(0.05)

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)

    def call(self, method: str, path: str, body=None, raw: bytes | None = None) -> tuple[int, dict]:
        """(status, JSON) of one request."""
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(self.url + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"} if data is not None else {})
        try:
            with urllib.request.urlopen(req, timeout=120) as r:
                text = r.read()
                status = r.status
        except urllib.error.HTTPError as e:
            text, status = e.read(), e.code
        try:
            return status, json.loads(text)
        except ValueError:
            return status, {"text": text.decode("utf-8", "replace")}

