"""What every route of the server shares: the refusal it raises and how it reads a request's
JSON body and its options (within the caps of :mod:`engine.tools.server.caps`)."""
from __future__ import annotations

import json
from typing import Any

from starlette import status as http
from starlette.requests import Request

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
