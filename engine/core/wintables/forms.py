"""The forms a full table is read through: lazy (:class:`LazyTable`), dense (one byte per
count vector, :func:`dense_index`) and natural-only (:class:`NaturalTable`).

The checker reads the full tables lazily rather than building a dict of every entry on load:
an entry is found on its first lookup in the table's dense form (indexed by three list
lookups), or, for a group too large for one, by bisecting the cache file's sorted arrays.
Encoding: engine/core/wintables/packing.py.
"""
from __future__ import annotations

import bisect
import functools
from array import array
from typing import TypeAlias

from engine.core.wintables.packing import (
    FIELD_BITS,
    MISSING,
    NONE,
    TABLE_VALUE_BITS,
    VALUE_BITS,
)

MAX_LAZY_ENTRIES = 1 << 18  # entries a lazy table keeps in its dict; past that, looked up each time
DENSE_MAX = 1 << 21  # most entries of a dense table (a 9-rank suit of four copies has 5**9)
CHUNK = 3  # kinds per step of the dense index (a list over 2**15 packed values)
CHUNK_BITS = FIELD_BITS * CHUNK
CHUNK_MASK = (1 << CHUNK_BITS) - 1
DENSE_BITS = 4  # bits per field (a, b) of a dense table's byte
DENSE_NONE = (1 << DENSE_BITS) - 1
Dense: TypeAlias = bytes | bytearray | memoryview  # a dense table: one byte per count vector
UNPACK = [(NONE if x & DENSE_NONE == DENSE_NONE else x & DENSE_NONE)
          | (NONE if x >> DENSE_BITS == DENSE_NONE else x >> DENSE_BITS) << VALUE_BITS
          for x in range(1 << (DENSE_BITS + DENSE_BITS))]  # a dense byte → its table value


class LazyTable(dict[int, int]):
    """A full table read lazily, an entry moved into the dict on its first lookup, from either
    the cache file's sorted key and value arrays (bisect) or a dense array over every count
    vector (:func:`dense_index`). ``table[key]`` gives the value, or :data:`MISSING` for a key
    with no entry; never raises KeyError. Loading costs a file read and a hash instead of
    building ~10⁵ dict entries. An entry is checked when it is looked up: a value
    out of range reads as "cannot complete"."""

    __slots__ = ("_keys", "_values", "_dense", "_maps", "_max")

    def __init__(self, keys: array[int] | None = None, values: array[int] | None = None,
                 full: dict[int, int] | None = None, dense: Dense | None = None, n: int = 0, base: int = 0):
        super().__init__(full or ())
        self._keys = keys if keys is not None else array("Q")
        self._values = values if values is not None else array("I")
        self._dense = dense
        self._maps = chunk_maps(n, base) if dense is not None else ()
        self._max = (1 << (FIELD_BITS * n)) - 1

    @property
    def dense_entries(self) -> int | None:
        """Entries of the dense array it reads from, or None when it reads sorted keys."""
        return None if self._dense is None else len(self._dense)

    @property
    def stored_keys(self) -> int:
        """Keys in the sorted arrays it reads from (0 when it reads a dense array or none)."""
        return len(self._keys)

    def __missing__(self, key: int) -> int:
        dense = self._dense
        if dense is not None:
            v = MISSING
            if 0 <= key <= self._max:
                i, k = 0, key
                for m in self._maps:
                    i += m[k & CHUNK_MASK]
                    k >>= CHUNK_BITS
                if i < len(dense):
                    v = UNPACK[dense[i]]
        else:
            keys = self._keys
            i = bisect.bisect_left(keys, key) if 0 <= key < 1 << 64 else len(keys)
            v = self._values[i] if i < len(keys) and keys[i] == key else MISSING
            if v >> TABLE_VALUE_BITS:
                v = MISSING  # out of range: a damaged file
        if len(self) < MAX_LAZY_ENTRIES:
            self[key] = v
        return v


class NaturalTable(dict[int, int]):
    """A full table seen by a group whose tiles must all be natural (``honours natural``):
    ``a`` and ``b`` are 0 where the group completes with no wild and "cannot" (:data:`NONE`)
    elsewhere, so the checks read it as any other table."""

    __slots__ = ("_base",)

    def __init__(self, base: LazyTable):
        super().__init__()
        self._base = base

    def __missing__(self, key: int) -> int:
        v = self._base[key]
        v = (0 if v & NONE == 0 else NONE) | (0 if v >> VALUE_BITS == 0 else NONE) << VALUE_BITS
        self[key] = v
        return v


def dense_base(copies: tuple[int, ...]) -> int | None:
    """The digit base of a dense table over count vectors with these copies (every count
    0..max copies), or None when the table would pass :data:`DENSE_MAX` entries."""
    base = max(copies, default=0) + 1
    return base if base ** len(copies) <= DENSE_MAX else None


@functools.lru_cache(maxsize=64)
def chunk_maps(n: int, base: int) -> tuple[list[int], ...]:
    """For a group of ``n`` kinds: per chunk of :data:`CHUNK` kinds, a list from the chunk's
    packed counts to its share of the dense index (counts as base-``base`` digits). A count
    of ``base`` or more maps past the end of the dense table."""
    size: int = base ** n
    maps: list[list[int]] = []
    for c0 in range(0, n, CHUNK):
        width = min(CHUNK, n - c0)
        m = [size] * (1 << (FIELD_BITS * width))
        cells = [(0, 0)]
        for i in range(width):
            cells = [(p + (d << (FIELD_BITS * i)), x + d * base ** (c0 + i)) for p, x in cells for d in range(base)]
        for p, x in cells:
            m[p] = x
        maps.append(m)
    return tuple(maps)


def dense_index(key: int, n: int, base: int) -> int:
    """The dense table index of the packed count vector ``key`` of ``n`` kinds."""
    i = 0
    for m in chunk_maps(n, base):
        i += m[key & CHUNK_MASK]
        key >>= CHUNK_BITS
    return i


def build_dense(table: dict[int, int], n: int, base: int) -> bytearray:
    """The dense form of a full table: one byte per count vector, ``a | b << DENSE_BITS`` with
    all ones for "cannot" (a group that is not empty never needs more than 13 wilds: the tables
    stop at ``limit`` ≤ 14 tiles); :data:`UNPACK` turns a byte back into a table value."""
    size: int = base ** n
    dense = bytearray([DENSE_NONE | DENSE_NONE << DENSE_BITS]) * size
    for key, v in table.items():
        a, b = v & NONE, v >> VALUE_BITS
        dense[dense_index(key, n, base)] = min(a, DENSE_NONE) | min(b, DENSE_NONE) << DENSE_BITS
    return dense
