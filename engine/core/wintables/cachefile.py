"""How a table is stored on disk, and read back as untrusted input.

One file per table under a hash of its shape spec (and of :data:`CACHE_VERSION` and the
packing widths, so a file of another layout is never even looked at), in
``$XDG_CACHE_HOME/mjrules`` (or ``~/.cache/mjrules``); ``MJRULES_NO_CACHE=1`` turns it off.
Files are written atomically (temp file + rename) and read as untrusted input: a fixed binary
layout parsed with bounds and a SHA-256 of the body; anything unexpected reads as None and the
caller rebuilds the table.

Layout: :data:`HEADER` (``MAGIC``, version, entry count, SHA-256 of the body), then the body:
a sparse table's sorted keys (uint64) then their values (uint32), little-endian; a dense
table's one byte per count vector (engine/core/wintables/forms.py).
"""
from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import sys
import tempfile
from array import array
from pathlib import Path

from engine.core.wintables.packing import FIELD_BITS, VALUE_BITS

CACHE_VERSION = 3  # part of every file name (spec_hash) and header: a file of another layout is never read
MAGIC = b"MJWT"  # cache file: MAGIC, version, entry count, SHA-256 of the body, body
HEADER = struct.Struct("<4sII32s")
ENTRY_BYTES = array("Q").itemsize + array("I").itemsize  # a key (uint64) and a value (uint32)
MAX_CACHE_ENTRIES = 2_000_000  # a cache file claiming more is not read
MAX_CACHE_FILES = 64  # table files kept in the cache directory


def cache_dir() -> Path | None:
    """Where tables are cached, or None when ``MJRULES_NO_CACHE=1``."""
    if os.environ.get("MJRULES_NO_CACHE") == "1":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mjrules"


def spec_hash(spec: object) -> str:
    """The cache name of a table: a hash of its shape spec (plain data: JSON-serialisable) and
    the file layout version."""
    text = json.dumps([CACHE_VERSION, FIELD_BITS, VALUE_BITS, spec], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def table_path(d: Path, name: object) -> Path:
    """The file of the table named ``name`` (plain data) in the cache folder ``d``."""
    return d / f"table-{spec_hash(name)}.bin"


def encode(table: dict[int, int]) -> bytes:
    """A sparse table file: header, sorted keys, their values."""
    keys = array("Q", sorted(table))
    values = array("I", [table[k] for k in keys])
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    body = keys.tobytes() + values.tobytes()
    return HEADER.pack(MAGIC, CACHE_VERSION, len(table), hashlib.sha256(body).digest()) + body


def encode_dense(dense: bytes | bytearray) -> bytes:
    """A dense table file: header (the entry count is the body's length), then the bytes."""
    return HEADER.pack(MAGIC, CACHE_VERSION, len(dense), hashlib.sha256(dense).digest()) + dense


def sparse_bytes(entries: int) -> int:
    """The most bytes a sparse file of at most ``entries`` entries takes."""
    return HEADER.size + min(entries, MAX_CACHE_ENTRIES) * ENTRY_BYTES


def _arrays(data: bytes, most: int = MAX_CACHE_ENTRIES) -> tuple[array[int], array[int]] | None:
    """(keys, values) arrays of an intact table file (magic, version, a count of at most
    ``most`` entries, the body's length and SHA-256 all right), or None."""
    if len(data) < HEADER.size:
        return None
    magic, version, count, digest = HEADER.unpack_from(data)
    if magic != MAGIC or version != CACHE_VERSION or count > min(most, MAX_CACHE_ENTRIES):
        return None
    body = memoryview(data)[HEADER.size:]
    if len(body) != count * ENTRY_BYTES or hashlib.sha256(body).digest() != digest:
        return None
    keys, values = array("Q"), array("I")
    keys.frombytes(body[: count * keys.itemsize])
    values.frombytes(body[count * keys.itemsize:])
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    return keys, values


def decode(data: bytes, max_key: int, value_bits: int, most: int = MAX_CACHE_ENTRIES) -> dict[int, int] | None:
    """The table in ``data``, or None when it is not a well-formed, intact table file of at most
    ``most`` entries whose keys are at most ``max_key`` and values below ``2**value_bits``."""
    got = _arrays(data, most)
    if got is None:
        return None
    keys, values = got
    out = dict(zip(keys, values))
    if keys and (len(out) != len(keys) or max(keys) > max_key or max(values) >> value_bits):
        return None
    return out


def decode_arrays(data: bytes, max_key: int, value_bits: int,
                  most: int = MAX_CACHE_ENTRIES) -> tuple[array[int], array[int]] | None:
    """(keys, values) arrays of the table in ``data``, or None when it is not a well-formed,
    intact table file. Entries are checked on lookup (:class:`~.forms.LazyTable`), not here: a
    file whose keys are out of order or whose values are out of range (which the hash cannot
    rule out, any more than wrong values in range) gives "cannot complete" answers, never an
    error."""
    got = _arrays(data, most)
    if got is None:
        return None
    keys, values = got
    if keys and keys[-1] > max_key:
        return None
    return keys, values


def decode_dense(data: bytes, size: int) -> memoryview | None:
    """The dense table in ``data`` (a view, not a copy) when it is an intact file of ``size``
    entries, else None. A byte is any value: :data:`~.forms.UNPACK` reads every one."""
    if len(data) < HEADER.size:
        return None
    magic, version, count, digest = HEADER.unpack_from(data)
    body = memoryview(data)[HEADER.size:]
    if magic != MAGIC or version != CACHE_VERSION or count != size or len(body) != size:
        return None
    if hashlib.sha256(body).digest() != digest:
        return None
    return body


def read_bounded(path: Path, most: int) -> bytes:
    """A cache file's bytes, or b"" (read as damaged) when it is not a regular file of at most
    ``most`` bytes: opened without blocking (a FIFO would block a plain ``open``), checked on
    the open descriptor, and read no further than that. Raises OSError as ``os.open`` does."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO would block a plain open
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > most:
            return b""
        return f.read(most + 1)


def write_atomic(d: Path, path: Path, data: bytes) -> bool:
    """Write a cache file (temp file + rename, the directory kept bounded); False on an OS error."""
    try:
        d.mkdir(parents=True, exist_ok=True)
        _trim(d)
        fd, tmp = tempfile.mkstemp(dir=d, prefix=".table-", suffix=".tmp")
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(data)
            os.replace(tmp, path)
        except BaseException:
            os.unlink(tmp)
            raise
    except OSError:
        return False
    return True


def _trim(d: Path) -> None:
    """Keep the cache bounded: past :data:`MAX_CACHE_FILES` table files, the least recently
    written go (many house rules or mutated rule files each add their own tables)."""
    files = sorted(d.glob("table-*.bin"), key=lambda f: f.stat().st_mtime)
    for f in files[: max(len(files) - MAX_CACHE_FILES + 1, 0)]:
        try:
            f.unlink()
        except OSError:
            pass
