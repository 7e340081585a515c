"""What every route of the server shares: the refusal it raises, how it reads a request's
JSON body and its options (within the caps of :mod:`engine.tools.server.caps`), and how its
answers name files (never where the server keeps or installs them)."""
from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from starlette import status as http
from starlette.requests import Request

from engine.lang.resources import BUNDLED_SHOWN, rulesets_dir
from engine.tools.server.caps import MAX_BODY_BYTES, MAX_OPTIONS


class Refused(Exception):
    """A request refused with an HTTP status and an error body."""

    def __init__(self, status: int, message: str, hint: str | None = None):
        super().__init__(message)
        self.status, self.body = status, {"error": message, "file": None, "line": None, "column": None, "hint": hint}


async def read_body(request: Request) -> dict[str, Any]:
    """The request's JSON object, read no further than MAX_BODY_BYTES."""
    size = request.headers.get("content-length")
    if size is not None and (not size.isdigit() or int(size) > MAX_BODY_BYTES):
        raise Refused(http.HTTP_413_CONTENT_TOO_LARGE, f"the request is larger than {MAX_BODY_BYTES} bytes")
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_BODY_BYTES:
            raise Refused(http.HTTP_413_CONTENT_TOO_LARGE, f"the request is larger than {MAX_BODY_BYTES} bytes")
    try:
        data = json.loads(raw or b"{}")
    except (ValueError, UnicodeDecodeError, RecursionError):
        raise Refused(http.HTTP_400_BAD_REQUEST, "the request body is not JSON") from None
    if not isinstance(data, dict):
        raise Refused(http.HTTP_400_BAD_REQUEST, "the request body must be a JSON object")
    return data


def read_options(data: dict[str, Any], key: str = "options") -> dict[str, str]:
    v = data.get(key) or {}
    if not isinstance(v, dict) or not all(isinstance(k, str) and isinstance(x, (str, int)) for k, x in v.items()):
        raise Refused(http.HTTP_400_BAD_REQUEST, f"`{key}`: a mapping of option name to value")
    if len(v) > MAX_OPTIONS:
        raise Refused(http.HTTP_400_BAD_REQUEST, f"`{key}`: too many options")
    return {k: str(x) for k, x in v.items()}


def clean_error(body: dict[str, Any], data: Path) -> dict[str, Any]:
    """An error's JSON as :func:`clean_paths` shows it, its ``file`` a file of the data folder
    ``data`` by its name."""
    out: dict[str, Any] = clean_paths(body, data)
    if isinstance(body.get("file"), str) and str(data) in body["file"]:
        out["file"] = Path(body["file"]).name
    return out


def clean_paths(value: Any, data: Path) -> Any:
    """``value`` (JSON: its strings, at any depth: an error, its notes' places, a check's
    diagnostics) with the files of the data folder ``data`` shown by their names
    (``edited.rules:2:1``) and the bundled rule files as ``<bundled>/NAME.rules``: where the
    server keeps its files and is installed is its own."""
    if isinstance(value, dict):
        return {k: clean_paths(v, data) for k, v in value.items()}
    if isinstance(value, list):
        return [clean_paths(v, data) for v in value]
    if not isinstance(value, str):
        return value
    if str(data) in value:  # first: the data folder may lie below the bundled files' folder
        value = re.sub(re.escape(str(data)) + r"[^\s:'\"]*?([\w.-]+\.(rules|yaml))", r"\1", value)
    for bundled in {str(rulesets_dir()), str(rulesets_dir().resolve())}:
        value = value.replace(bundled + os.sep, BUNDLED_SHOWN)
    return value
