"""The commands that stay running for another program: ``serve`` (the browser table and rule
playground, the ``serve`` extra) and ``lsp`` (the language server on stdio, the ``lsp``
extra). Each says plainly when its extra is not installed.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from engine.cli.output import err, fail, out
from engine.errors import MjError


def lsp() -> None:
    """Run the rule-file language server on stdin/stdout, for an editor (needs the `lsp` extra:
    pip install 'mjrules[lsp]'): diagnostics, hover, completion, go to definition, outline, formatting."""
    try:
        import pygls  # noqa: F401
    except ImportError:
        fail(MjError("`mjrules lsp` needs pygls, which is not installed",
                      hint="pip install 'mjrules[lsp]'"), False)
    from engine.tools.lsp import serve

    serve()


def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    data: Annotated[Path | None, typer.Option(metavar="DIR", help="The server's data folder (uploaded rule files, work files); default ~/.local/share/mjrules/serve.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Say where it listens as one line of JSON (url, data folder), and errors as JSON.")] = False,
) -> None:
    """Play and edit rules in a browser (needs the `serve` extra: pip install 'mjrules[serve]'):
    a table against three bots, replays, and a rule playground (diagnostics as you type, rule
    sheet, diff, scenarios, impact runs). Listens on 127.0.0.1 unless --host says otherwise."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        fail(MjError("`mjrules serve` needs starlette and uvicorn, which are not installed",
                      hint="pip install 'mjrules[serve]'"), as_json)
    from engine.tools.server import default_data_dir, listen
    from engine.tools.server import serve as run

    folder = data or default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(MjError(f"--data {folder}: cannot make the data folder: {exc.strerror or exc}"), as_json)
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"note: listening on {host}: anyone who can reach it can play and run rule files here", markup=False)
    try:  # bound before anything is said: a taken port is bad input, not a server that started
        sock = listen(host, port)
    except OSError as exc:
        fail(MjError(f"--port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}",
                      hint="another program uses that port: try another --port"), as_json)
    url = f"http://{host}:{port}/"
    if as_json:
        print(json.dumps({"url": url, "data": str(folder)}), flush=True)
    else:
        out.print(f"mjrules serve: {url}  (data folder {folder}; Ctrl-C stops it)", markup=False)
    run(host, port, folder, sock=sock)
