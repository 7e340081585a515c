"""Where a table comes from in this process: the tables already kept, else the disk cache
(engine/core/wintables/cachefile.py), else built (engine/core/wintables/build.py) and written.

A process keeps the latest :data:`MAX_KEPT` tables of each kind (a server that compiles many
rulesets keeps those of the latest few). Callers must not change a table they are given.
"""
from __future__ import annotations

import functools
import json
from collections.abc import Callable
from pathlib import Path
from typing import TypeAlias, TypeVar

from engine.core.wintables import cachefile
from engine.core.wintables.build import SpecFields, TableSpec, build_table, rotten_rooms
from engine.core.wintables.cachefile import (
    MAX_CACHE_ENTRIES,
    cache_dir,
    decode,
    decode_arrays,
    decode_dense,
    encode,
    encode_dense,
    read_bounded,
    sparse_bytes,
    table_path,
    write_atomic,
)
from engine.core.wintables.forms import Dense, LazyTable, NaturalTable, build_dense, dense_base
from engine.core.wintables.packing import (
    FIELD_BITS,
    NONE,
    TABLE_VALUE_BITS,
    VALUE_BITS,
    vectors,
)

MAX_KEPT = 32  # tables (and wild-free checks) a process keeps, the latest ones

TableName: TypeAlias = str | tuple[str, TableSpec]  # a cached table's name (plain data: hashed for its file)
K = TypeVar("K")
V = TypeVar("V")

# The process's table caches (a test empties them, as a fresh process has them):
LAZY_TABLES: dict[TableSpec, LazyTable] = {}  # full tables read lazily, by spec
LOADED_TABLES: dict[TableName, dict[int, int]] = {}  # tables already in this process, by name
_NATURAL: dict[SpecFields, NaturalTable] = {}  # natural-only views, by spec


def keep(cache: dict[K, V], key: K, value: V) -> V:
    """``cache[key] = value``, the oldest entries dropped past :data:`MAX_KEPT` (a process that
    compiles many rulesets, a server, keeps the tables of the latest few)."""
    while len(cache) >= MAX_KEPT:
        del cache[next(iter(cache))]
    cache[key] = value
    return value


def load_table(spec: SpecFields, part: str = "full") -> dict[int, int]:
    """The table of ``spec`` (a :class:`~.build.TableSpec`, or a plain tuple of its fields):
    from this process's tables, else the disk cache when an intact file is there, else built
    (and cached when the cache directory is writable). ``part="complete"``: only the entries
    that complete with no wild. Callers must not change the table."""
    shape = TableSpec(*spec)
    build: Callable[[], dict[int, int]]
    if part == "complete":
        def build() -> dict[int, int]:
            return {k: v for k, v in load_table(shape).items() if not v & NONE or not v >> VALUE_BITS}
    else:
        def build() -> dict[int, int]:
            return build_table(*shape)
    return cached_table((part, shape), build, shape.kinds, TABLE_VALUE_BITS, vectors(shape.copies))


def load_table_lazy(spec: SpecFields) -> LazyTable:
    """The full table of ``spec`` as :func:`load_table`, as a :class:`LazyTable`."""
    spec = TableSpec(*spec)
    got = LAZY_TABLES.get(spec)
    if got is not None:
        return got
    name = ("full", spec)
    full = LOADED_TABLES.get(name)
    got = None
    d = cache_dir()
    n, base = spec.kinds, dense_base(spec.copies)
    if full is not None and d is not None and base is not None:
        _load_or_build_dense(d, spec, n, base, full)  # built with the table: the next process reads it
    elif full is None and d is not None and base is not None:
        dense = _load_or_build_dense(d, spec, n, base)
        if dense is not None:
            got = LazyTable(dense=dense, n=n, base=base)
    elif full is None and d is not None:
        try:
            most = vectors(spec.copies)
            arrays = decode_arrays(read_bounded(table_path(d, name), sparse_bytes(most)),
                                   (1 << (FIELD_BITS * n)) - 1, TABLE_VALUE_BITS, most)
        except OSError:
            arrays = None
        if arrays is not None:
            got = LazyTable(*arrays)
    if got is None:
        got = LazyTable(full=load_table(spec))
    return keep(LAZY_TABLES, spec, got)


def natural_table(spec: SpecFields) -> NaturalTable:
    """:func:`load_table_lazy` of ``spec`` as a :class:`NaturalTable` (one per spec)."""
    got = _NATURAL.get(spec)
    if got is None:
        got = keep(_NATURAL, spec, NaturalTable(load_table_lazy(spec)))
    return got


def _load_or_build_dense(d: Path, spec: TableSpec, n: int, base: int,
                         full: dict[int, int] | None = None) -> Dense | None:
    """The dense form of ``spec``'s full table from the cache file, else built from the full
    table and written (None when it cannot be written: the caller uses the dict). With the
    ``full`` table already in memory, only makes sure the file is there."""
    path = table_path(d, ("dense", spec))
    size = base ** n
    try:
        if full is not None and path.exists():
            return None
    except OSError:  # a folder it may not search
        return None
    try:
        data = read_bounded(path, cachefile.HEADER.size + size) if full is None else b""
    except OSError:
        data = b""
    dense = decode_dense(data, size)
    if dense is not None:
        return dense
    built = build_dense(full if full is not None else load_table(spec), n, base)
    return built if write_atomic(d, path, encode_dense(built)) else None


def cached_table(name: TableName, build: Callable[[], dict[int, int]], n_kinds: int, value_bits: int,
                 most: int = MAX_CACHE_ENTRIES) -> dict[int, int]:
    """A packed table named ``name`` (plain data: its hash is the file name) of at most ``most``
    entries: from this process, else from the disk cache, else ``build()`` (then written to the
    cache, atomically)."""
    got = LOADED_TABLES.get(name)
    if got is None:
        got = keep(LOADED_TABLES, name, load_or_build(name, build, n_kinds, value_bits, most))
    return got


def load_or_build(name: TableName, build: Callable[[], dict[int, int]], n_kinds: int, value_bits: int,
                  most: int = MAX_CACHE_ENTRIES) -> dict[int, int]:
    """:func:`cached_table` without this process's tables: the disk cache, else ``build()``
    (written when the cache folder is writable)."""
    d = cache_dir()
    path = table_path(d, name) if d is not None else None
    max_key = (1 << (FIELD_BITS * n_kinds)) - 1
    if path is not None:
        try:
            got = decode(read_bounded(path, sparse_bytes(most)), max_key, value_bits, most)
        except OSError:
            got = None
        if got is not None:
            return got
    table = build()
    if d is not None and path is not None:
        write_atomic(d, path, encode(table))
    return table


@functools.lru_cache(maxsize=64)
def cached_rotten_rooms(ranks: tuple[int, ...], gap: int) -> dict[int, int]:
    """:func:`~.build.rotten_rooms` of one suit, kept in the table cache (stored plus one:
    cache values are unsigned)."""
    stored = cached_table(json.dumps(["rotten", ranks, gap]),
                          lambda: {k: v + 1 for k, v in rotten_rooms(ranks, gap).items()},
                          len(ranks), TABLE_VALUE_BITS, 1 << len(ranks))
    if len(stored) != 1 << len(ranks) or any(v > len(ranks) + 1 for v in stored.values()):
        return rotten_rooms(ranks, gap)  # a damaged (well-hashed) file: every key must be there
    return {k: v - 1 for k, v in stored.items()}
