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
                      hint="pip install 'mjrules[lsp]' (from a clone: pip install '.[lsp]')"), False)
    from engine.tools.lsp import serve

    serve()


def serve(
    host: Annotated[str, typer.Option(metavar="HOST", help="Address to listen on (default: this machine only).")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port to listen on.")] = 8000,
    data: Annotated[Path | None, typer.Option(metavar="DIR", help="The server's data folder (uploaded rule files, work files); default ~/.local/share/mjrules/serve.")] = None,
    rules: Annotated[str | None, typer.Option("--rules", metavar="RULESET", help="The ruleset the pages start with: a bundled name or a .rules file (copied into the data folder's uploads). Default: the bundled ruleset the others extend.")] = None,
    option: Annotated[list[str] | None, typer.Option("--option", "-o", metavar="NAME=VALUE", help="An option of --rules the pages start with (repeatable).")] = None,
    db: Annotated[str | None, typer.Option("--db", metavar="URL", help="Where rooms are kept: postgresql://user@host/db (the `postgres` extra) or a SQLite file; default DIR/rooms.db.")] = None,
    grace: Annotated[float, typer.Option(min=0, max=3600, help="Seconds a seat may be away before a bot plays for it (托管).")] = 30.0,
    joins: Annotated[int, typer.Option(min=1, max=100_000, help="Rooms made and websockets joined per client address per 10 s, beyond which they are refused (429 / 4429). Raise it for a load test on loopback.")] = 30,
    lease: Annotated[float, typer.Option(min=1, max=600, help="Seconds this server holds a room it serves (renewed while it runs); another server on the same --db takes a room over once its owner's lease has run out.")] = 15.0,
    workers: Annotated[int, typer.Option(min=1, max=64, help="Server processes sharing the port and, through --db postgresql://…, the rooms: a seat's socket may reach any of them (docs/serve.md \"Several processes\").")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Say where it listens as one line of JSON (url, data folder, the servers' ids), and errors as JSON.")] = False,
) -> None:
    """Play and edit rules in a browser (needs the `serve` extra: pip install 'mjrules[serve]'):
    a table against three bots, replays, and a rule playground (diagnostics as you type, rule
    sheet, diff, scenarios, impact runs). Listens on 127.0.0.1 unless --host says otherwise."""
    try:
        import starlette  # noqa: F401
        import uvicorn  # noqa: F401
    except ImportError:
        fail(MjError("`mjrules serve` needs starlette and uvicorn, which are not installed",
                      hint="pip install 'mjrules[serve]' (from a clone: pip install '.[serve]')"), as_json)
    from engine.tools.server import default_data_dir, listen
    from engine.tools.server import serve as run

    folder = data or default_data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        fail(MjError(f"--data {folder}: cannot make the data folder: {exc.strerror or exc}"), as_json)
    preselect = _preselect(rules, option, folder, as_json)
    store_url = _open_db(db, folder, as_json)
    if workers > 1 and not store_url.startswith(("postgresql://", "postgres://")):
        fail(MjError(f"--workers {workers}: several processes share the rooms through PostgreSQL",
                     hint="add --db postgresql://user:password@host/dbname (the `postgres` extra)"), as_json)
    if host not in ("127.0.0.1", "localhost", "::1"):
        err.print(f"note: listening on {host}: anyone who can reach it can play and run rule files here", markup=False)
    try:  # bound before anything is said: a taken port is bad input, not a server that started
        sock = listen(host, port)
    except OSError as exc:
        fail(MjError(f"--port {port}: cannot listen on {host}:{port}: {exc.strerror or exc}",
                      hint="another program uses that port: try another --port"), as_json)
    url = f"http://{host}:{port}/"
    from engine.tools.server.rooms_api import server_id

    servers = [server_id(folder)] if workers == 1 else [server_id(folder, i) for i in range(workers)]
    if as_json:
        print(json.dumps({"url": url, "data": str(folder), "servers": servers}), flush=True)
    else:
        out.print(f"mjrules serve: {url}  (data folder {folder}; Ctrl-C stops it)", markup=False)
    run(host, port, folder, sock=sock, db=store_url, preselect=preselect, grace=grace, lease=lease, joins=joins,
        workers=workers)


def _preselect(rules: str | None, option: list[str] | None, folder: Path, as_json: bool) -> dict[str, object] | None:
    """``{"ruleset", "options"}`` for the pages from ``--rules``/``--option`` (compiled first: a
    bad file or option is exit 2), None without ``--rules``. A file is copied into the uploads
    under its name."""
    import shutil

    from engine.cli.inputs import compile_or_fail, parse_options
    from engine.lang.resources import bundled_ruleset_names
    from engine.tools.server.work import safe_name

    if rules is None:
        if option:
            fail(MjError("--option needs --rules: the ruleset whose options they are",
                         hint="e.g. mjrules serve --rules RULESET --option NAME=VALUE"), as_json)
        return None
    ref = rules
    compile_or_fail(ref, option, as_json)
    name = ref
    if ref not in bundled_ruleset_names():
        src = Path(ref)
        name = safe_name(src.stem) or "rules"  # as an upload is named
        uploads = folder / "rules"
        uploads.mkdir(parents=True, exist_ok=True)
        dest = uploads / f"{name}.rules"
        if src.resolve() != dest.resolve():
            shutil.copyfile(src, dest)
        try:
            compile_or_fail(str(dest), option, as_json)  # its `extends` must resolve from there too
        except SystemExit:
            dest.unlink(missing_ok=True)
            raise
    try:
        options = parse_options(option)
    except MjError as exc:
        fail(exc, as_json)
    return {"ruleset": name, "options": options}


def _open_db(db: str | None, folder: Path, as_json: bool) -> str:
    """The rooms' database URL, checked by connecting (a bad URL is exit 2, not a traceback)."""
    url = db or str(folder / "rooms.db")
    try:
        from engine.tools.rooms.store import Store

        Store(url).dispose()
    except ImportError as exc:
        fail(MjError(f"--db {url}: {exc}", hint="pip install 'mjrules[serve]' (and 'mjrules[postgres]' for PostgreSQL; from a clone: '.[serve,postgres]')"), as_json)
    except Exception as exc:  # SQLAlchemy's errors: a URL it cannot read or a database it cannot reach
        fail(MjError(f"--db {url}: cannot open the rooms' database: {str(exc).splitlines()[0][:300]}",
                     hint="postgresql://user:password@host/dbname, or a SQLite file path"), as_json)
    return url
