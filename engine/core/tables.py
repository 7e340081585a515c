"""Win tables compiled from the meld shapes, and the table-driven win check (issue 8).

For one tile group (a suit, the winds, the dragons — whatever the ruleset declares) and one set
of allowed set templates (every set, or pungs only for ``sets N of pung``), the table maps a
group's count vector to the fewest wilds that complete it into sets (``a``) and into sets plus
the pair (``b``). It is built from the declared shapes alone: every complete vector of at most
``limit`` tiles (unions of templates, and the pair), then tiles are taken away one at a time
(breadth first), each step costing one wild. An entry is kept only when it can occur in a hand
(every count within the kind's copies) and can complete within ``limit`` tiles; a vector with
no entry cannot complete with the wilds a hand can hold.

Packed keys: a count vector is an int with :data:`FIELD_BITS` bits per kind (kind ``i`` of the
group at bits ``FIELD_BITS*i``); the value is ``a | b << VALUE_BITS`` with :data:`NONE` for
"cannot". A whole hand packs the same way over all kinds (groups are contiguous kind ranges),
so a group's key is a shift and a mask of the hand's key.

Disk cache: one file per table under a hash of its shape spec, in ``$XDG_CACHE_HOME/mjrules``
(or ``~/.cache/mjrules``); ``MJRULES_NO_CACHE=1`` turns it off. Files are written atomically
(temp file + rename) and read as untrusted input: a fixed binary layout parsed with bounds and a
SHA-256 of the body; anything unexpected is ignored and the table rebuilt. The checker reads
the full tables lazily (:class:`LazyTable`) rather than building a dict of every entry on load:
an entry is found on its first lookup in the table's dense form (one byte per count vector,
indexed by three list lookups: :func:`dense_index`), or, for a group too large for one, by
bisecting the file's sorted arrays. The innermost loops over a ruleset's groups (the wild-free
check, a sets pattern's fit and fewest wilds) are generated once per ruleset
(:func:`_generated`: integers and table objects only, no rule text).

:class:`TableChecker` answers :meth:`HandEvaluator.is_win` and :meth:`HandEvaluator.readings`
from the tables with the same results as the recursive evaluator (RULES.md §1 Winning hands,
精, 德国, 精钓), which stays as the fallback and the test oracle.
"""
from __future__ import annotations

import bisect
import functools
import hashlib
import itertools
import json
import math
import os
import stat
import struct
import sys
import tempfile
from array import array
from pathlib import Path
from typing import NamedTuple


class Reading(NamedTuple):
    """One way to read a winning hand: the pattern and the facts the score depends on
    (a named tuple: cheap to make, immutable). ``wilds``: 精 standing as wilds; ``jing_wait``:
    the 精钓 reading (RULES.md §1)."""

    pattern: str
    wilds: int
    jing_wait: bool

FIELD_BITS = 5  # bits per kind in a packed count vector: counts up to 15, plus a carry bit
FIELD_MASK = (1 << (FIELD_BITS - 1)) - 1  # the count part of a field (≤ 15)
MAX_PACKED_TILES = FIELD_MASK  # a hand of more concealed tiles goes to the recursive evaluator
VALUE_BITS = 5
ZERO_VALUE_BITS = 32  # a wild-free table's value: one field per pattern and an honour count
NONE = (1 << VALUE_BITS) - 1  # "cannot complete" in a table value
CACHE_VERSION = 3
MAGIC = b"MJWT"  # cache file: MAGIC, version, entry count, SHA-256 of the body, body
_HEADER = struct.Struct("<4sII32s")
_ENTRY_BYTES = array("Q").itemsize + array("I").itemsize  # a key (uint64) and a value (uint32)
MAX_CACHE_ENTRIES = 2_000_000  # a cache file claiming more is not read
MAX_CACHE_FILES = 64  # table files kept in the cache directory
MAX_FIT_MEMO = 4096  # meld combinations whose fitting patterns a checker remembers
MAX_LAZY_ENTRIES = 1 << 18  # entries a lazy table keeps in its dict; past that, looked up each time
MAX_KEPT = 32  # tables (and wild-free checks) a process keeps, the latest ones


# ---- building ------------------------------------------------------------------------------
def build_table(n: int, templates: tuple[tuple[int, ...], ...], pair_size: int, limit: int,
                copies: tuple[int, ...]) -> dict[int, int]:
    """The table of one group: packed count vector → ``a | b << VALUE_BITS``.

    ``n`` kinds, ``templates`` the set shapes as positions within the group, ``pair_size``
    tiles in the pair (0: no pair), ``limit`` the most tiles a hand of the pattern holds,
    ``copies`` per kind. Cost: about a second for a 9-rank suit with runs and pungs.
    """
    one = [1 << (FIELD_BITS * p) for p in range(n)]
    tkeys = sorted({(sum(one[p] for p in t), len(t)) for t in templates if t})
    complete: dict[int, int] = {0: 0}  # key → tile count
    stack = [(0, 0, 0)]
    while stack:
        key, size, start = stack.pop()
        for j in range(start, len(tkeys)):
            tk, ts = tkeys[j]
            if size + ts <= limit:
                nk = key + tk
                if nk not in complete:
                    complete[nk] = size + ts
                    stack.append((nk, size + ts, j))
    with_pair: dict[int, int] = {}
    if pair_size:
        for key, size in complete.items():
            if size + pair_size <= limit:
                for p in range(n):
                    with_pair.setdefault(key + pair_size * one[p], size + pair_size)
    a = _fewest_by_removal(complete, one)
    b = _fewest_by_removal(with_pair, one)
    cap_ok = _within_copies(copies)
    out: dict[int, int] = {}
    for key in set(a) | set(b):
        if cap_ok(key):
            out[key] = min(a.get(key, NONE), NONE) | min(b.get(key, NONE), NONE) << VALUE_BITS
    return out


def _fewest_by_removal(complete: dict[int, int], one: list[int]) -> dict[int, int]:
    """Breadth first from the complete vectors: each tile taken away costs one wild."""
    dist = dict.fromkeys(complete, 0)
    front = list(complete)
    d = 0
    while front:
        d += 1
        nxt = []
        for u in front:
            for o in one:
                if (u // o) & FIELD_MASK:
                    v = u - o
                    if v not in dist:
                        dist[v] = d
                        nxt.append(v)
        front = nxt
    return dist


def _within_copies(copies: tuple[int, ...]):
    add, carry = over_copies_masks(copies)
    return lambda key: not ((key + add) & carry)


def over_copies_masks(copies) -> tuple[int, int]:
    """(add, carry): ``(key + add) & carry`` is nonzero iff some count exceeds its copies."""
    add = carry = 0
    for p, c in enumerate(copies):
        add |= (FIELD_MASK - min(c, FIELD_MASK)) << (FIELD_BITS * p)
        carry |= (FIELD_MASK + 1) << (FIELD_BITS * p)
    return add, carry


# ---- disk cache ----------------------------------------------------------------------------
def cache_dir() -> Path | None:
    """Where tables are cached, or None when ``MJRULES_NO_CACHE=1``."""
    if os.environ.get("MJRULES_NO_CACHE") == "1":
        return None
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "mjrules"


def spec_hash(spec: tuple) -> str:
    """The cache name of a table: a hash of its shape spec and the file layout version."""
    text = json.dumps([CACHE_VERSION, FIELD_BITS, VALUE_BITS, spec], separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:32]


def _encode(table: dict[int, int]) -> bytes:
    keys = array("Q", sorted(table))
    values = array("I", [table[k] for k in keys])
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    body = keys.tobytes() + values.tobytes()
    return _HEADER.pack(MAGIC, CACHE_VERSION, len(table), hashlib.sha256(body).digest()) + body


def _arrays(data: bytes, most: int = MAX_CACHE_ENTRIES):
    """(keys, values) arrays of an intact table file (magic, version, a count of at most
    ``most`` entries, the body's length and SHA-256 all right), or None."""
    if len(data) < _HEADER.size:
        return None
    magic, version, count, digest = _HEADER.unpack_from(data)
    if magic != MAGIC or version != CACHE_VERSION or count > min(most, MAX_CACHE_ENTRIES):
        return None
    body = memoryview(data)[_HEADER.size:]
    if len(body) != count * _ENTRY_BYTES or hashlib.sha256(body).digest() != digest:
        return None
    keys, values = array("Q"), array("I")
    keys.frombytes(body[: count * keys.itemsize])
    values.frombytes(body[count * keys.itemsize:])
    if sys.byteorder != "little":
        keys.byteswap()
        values.byteswap()
    return keys, values


def _decode(data: bytes, max_key: int, value_bits: int, most: int = MAX_CACHE_ENTRIES) -> dict[int, int] | None:
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


def _decode_arrays(data: bytes, max_key: int, value_bits: int, most: int = MAX_CACHE_ENTRIES):
    """(keys, values) arrays of the table in ``data``, or None when it is not a well-formed,
    intact table file. Entries are checked on lookup (:class:`LazyTable`), not here: a file
    whose keys are out of order or whose values are out of range (which the hash cannot rule
    out, any more than wrong values in range) gives "cannot complete" answers, never an error."""
    got = _arrays(data, most)
    if got is None:
        return None
    keys, values = got
    if keys and keys[-1] > max_key:
        return None
    return keys, values


class LazyTable(dict):
    """A full table read lazily, an entry moved into the dict on its first lookup, from either
    the cache file's sorted key and value arrays (bisect) or a dense array over every count
    vector (:func:`dense_index`). ``table[key]`` gives the value, or ``NONE | NONE <<
    VALUE_BITS`` for a key with no entry; never raises KeyError. Loading costs a file read and
    a hash instead of building ~10⁵ dict entries (issue 8). An entry is checked when it is
    looked up: a value out of range reads as "cannot complete"."""

    __slots__ = ("_keys", "_values", "_dense", "_maps", "_max")

    def __init__(self, keys=None, values=None, full: dict[int, int] | None = None, dense=None,
                 n: int = 0, base: int = 0):
        super().__init__(full or ())
        self._keys = keys if keys is not None else array("Q")
        self._values = values if values is not None else array("I")
        self._dense = dense
        self._maps = _chunk_maps(n, base) if dense is not None else ()
        self._max = (1 << (FIELD_BITS * n)) - 1

    def __missing__(self, key: int) -> int:
        dense = self._dense
        if dense is not None:
            v = NONE | NONE << VALUE_BITS
            if 0 <= key <= self._max:
                i, k = 0, key
                for m in self._maps:
                    i += m[k & _CHUNK_MASK]
                    k >>= _CHUNK_BITS
                if i < len(dense):
                    v = _UNPACK[dense[i]]
        else:
            keys = self._keys
            i = bisect.bisect_left(keys, key) if 0 <= key < 1 << 64 else len(keys)
            v = self._values[i] if i < len(keys) and keys[i] == key else NONE | NONE << VALUE_BITS
            if v >> (VALUE_BITS + VALUE_BITS):
                v = NONE | NONE << VALUE_BITS  # out of range: a damaged file
        if len(self) < MAX_LAZY_ENTRIES:
            self[key] = v
        return v


class NaturalTable(dict):
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


_NATURAL: dict[tuple, NaturalTable] = {}


def natural_table(spec: tuple) -> NaturalTable:
    """:func:`load_table_lazy` of ``spec`` as a :class:`NaturalTable` (one per spec)."""
    got = _NATURAL.get(spec)
    if got is None:
        got = _keep(_NATURAL, spec, NaturalTable(load_table_lazy(spec)))
    return got


DENSE_MAX = 1 << 21  # most entries of a dense table (a 9-rank suit of four copies has 5**9)
_CHUNK = 3  # kinds per step of the dense index (a list over 2**15 packed values)
_CHUNK_BITS = FIELD_BITS * _CHUNK
_CHUNK_MASK = (1 << _CHUNK_BITS) - 1


def dense_base(copies: tuple[int, ...]) -> int | None:
    """The digit base of a dense table over count vectors with these copies (every count
    0..max copies), or None when the table would pass :data:`DENSE_MAX` entries."""
    base = max(copies, default=0) + 1
    return base if base ** len(copies) <= DENSE_MAX else None


@functools.lru_cache(maxsize=64)
def _chunk_maps(n: int, base: int) -> tuple[list[int], ...]:
    """For a group of ``n`` kinds: per chunk of :data:`_CHUNK` kinds, a list from the chunk's
    packed counts to its share of the dense index (counts as base-``base`` digits). A count
    of ``base`` or more maps past the end of the dense table."""
    size = base ** n
    maps = []
    for c0 in range(0, n, _CHUNK):
        width = min(_CHUNK, n - c0)
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
    for m in _chunk_maps(n, base):
        i += m[key & _CHUNK_MASK]
        key >>= _CHUNK_BITS
    return i


def build_dense(table: dict[int, int], n: int, base: int) -> bytearray:
    """The dense form of a full table: one byte per count vector, ``a | b << DENSE_BITS`` with
    all ones for "cannot" (a group that is not empty never needs more than 13 wilds: the tables stop at
    ``limit`` ≤ 14 tiles); :data:`_UNPACK` turns a byte back into a table value."""
    dense = bytearray([_DENSE_NONE | _DENSE_NONE << DENSE_BITS]) * base ** n
    for key, v in table.items():
        a, b = v & NONE, v >> VALUE_BITS
        dense[dense_index(key, n, base)] = min(a, _DENSE_NONE) | min(b, _DENSE_NONE) << DENSE_BITS
    return dense


DENSE_BITS = 4  # bits per field (a, b) of a dense table's byte
_DENSE_NONE = (1 << DENSE_BITS) - 1
_UNPACK = [(NONE if x & _DENSE_NONE == _DENSE_NONE else x & _DENSE_NONE)
           | (NONE if x >> DENSE_BITS == _DENSE_NONE else x >> DENSE_BITS) << VALUE_BITS
           for x in range(1 << (DENSE_BITS + DENSE_BITS))]


_LAZY: dict[tuple, LazyTable] = {}


def load_table_lazy(spec: tuple) -> LazyTable:
    """The full table of ``spec`` as :func:`load_table`, as a :class:`LazyTable`."""
    got = _LAZY.get(spec)
    if got is not None:
        return got
    name = ("full", spec)
    full = _LOADED.get(name)
    got = None
    d = cache_dir()
    n, base = spec[0], dense_base(spec[4])
    if full is not None and d is not None and base is not None:
        _load_or_build_dense(d, spec, n, base, full)  # built with the table: the next process reads it
    elif full is None and d is not None and base is not None:
        dense = _load_or_build_dense(d, spec, n, base)
        if dense is not None:
            got = LazyTable(dense=dense, n=n, base=base)
    elif full is None and d is not None:
        try:
            most = vectors(spec[4])
            arrays = _decode_arrays(_read_bounded(d / f"table-{spec_hash(name)}.bin", _sparse_bytes(most)),
                                    (1 << (FIELD_BITS * n)) - 1, 2 * VALUE_BITS, most)
        except OSError:
            arrays = None
        if arrays is not None:
            got = LazyTable(*arrays)
    if got is None:
        got = LazyTable(full=load_table(spec))
    return _keep(_LAZY, spec, got)


def _load_or_build_dense(d: Path, spec: tuple, n: int, base: int, full: dict | None = None):
    """The dense form of ``spec``'s full table from the cache file, else built from the full
    table and written (None when it cannot be written: the caller uses the dict). With the
    ``full`` table already in memory, only makes sure the file is there."""
    path = d / f"table-{spec_hash(('dense', spec))}.bin"
    size = base ** n
    try:
        if full is not None and path.exists():
            return None
    except OSError:  # a folder it may not search
        return None
    try:
        data = _read_bounded(path, _HEADER.size + size) if full is None else b""
    except OSError:
        data = b""
    dense = _decode_dense(data, size)
    if dense is None:
        dense = build_dense(full if full is not None else load_table(spec), n, base)
        if not _write_atomic(d, path, _HEADER.pack(MAGIC, CACHE_VERSION, size, hashlib.sha256(dense).digest()) + dense):
            return None
    return dense


def _decode_dense(data: bytes, size: int) -> memoryview | None:
    """The dense table in ``data`` (a view, not a copy) when it is an intact file of ``size``
    entries, else None. A byte is any value: :data:`_UNPACK` reads every one."""
    if len(data) < _HEADER.size:
        return None
    magic, version, count, digest = _HEADER.unpack_from(data)
    body = memoryview(data)[_HEADER.size:]
    if magic != MAGIC or version != CACHE_VERSION or count != size or len(body) != size:
        return None
    if hashlib.sha256(body).digest() != digest:
        return None
    return body


_ZERO: dict[tuple, "_ZeroGroups | None"] = {}  # wild-free checks already in this process, by what they depend on
_LOADED: dict[tuple, dict[int, int]] = {}  # tables already in this process, by name


def load_table(spec: tuple, part: str = "full") -> dict[int, int]:
    """The table of ``spec`` = (n, templates, pair_size, limit, copies): from this process's
    tables, else the disk cache when an intact file is there, else built (and cached when the
    cache directory is writable). ``part="complete"``: only the entries that complete with no
    wild. Callers must not change the table."""
    if part == "complete":
        def build():
            return {k: v for k, v in load_table(spec).items() if not v & NONE or not v >> VALUE_BITS}
    else:
        def build():
            return build_table(*spec)
    return cached_table((part, spec), build, spec[0], 2 * VALUE_BITS, vectors(spec[4]))


def vectors(copies) -> int:
    """How many count vectors a group with these copies has: no table of it holds more entries."""
    return math.prod(min(c, FIELD_MASK) + 1 for c in copies)


def _sparse_bytes(entries: int) -> int:
    return _HEADER.size + min(entries, MAX_CACHE_ENTRIES) * _ENTRY_BYTES


def cached_table(name, build, n_kinds: int, value_bits: int, most: int = MAX_CACHE_ENTRIES) -> dict[int, int]:
    """A packed table named ``name`` (plain data: its hash is the file name) of at most ``most``
    entries: from this process, else from the disk cache, else ``build()`` (then written to the
    cache, atomically)."""
    got = _LOADED.get(name)
    if got is None:
        got = _keep(_LOADED, name, _load_or_build(name, build, n_kinds, value_bits, most))
    return got


def _keep(cache: dict, key, value):
    """``cache[key] = value``, the oldest entries dropped past :data:`MAX_KEPT` (a process that
    compiles many rulesets, a server, keeps the tables of the latest few)."""
    while len(cache) >= MAX_KEPT:
        del cache[next(iter(cache))]
    cache[key] = value
    return value


def _load_or_build(name, build, n_kinds: int, value_bits: int, most: int = MAX_CACHE_ENTRIES) -> dict[int, int]:
    d = cache_dir()
    path = d / f"table-{spec_hash(name)}.bin" if d else None
    max_key = (1 << (FIELD_BITS * n_kinds)) - 1
    if path is not None:
        try:
            got = _decode(_read_bounded(path, _sparse_bytes(most)), max_key, value_bits, most)
        except OSError:
            got = None
        if got is not None:
            return got
    table = build()
    if path is not None:
        _write_atomic(d, path, _encode(table))
    return table



def _read_bounded(path: Path, most: int) -> bytes:
    """A cache file's bytes, or b"" (read as damaged) when it is not a regular file of at most
    ``most`` bytes: opened without blocking (a FIFO would block a plain ``open``), checked on
    the open descriptor, and read no further than that. Raises OSError as ``os.open`` does."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO would block a plain open
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > most:
            return b""
        return f.read(most + 1)


def _write_atomic(d: Path, path: Path, data: bytes) -> bool:
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


# ---- the table-driven checker --------------------------------------------------------------
class _ZeroGroups:
    """The wild-free check, its tables read (or built) on the first wild-free hand: a process
    that only meets hands holding 精 or melds never loads them."""

    __slots__ = ("specs", "checks", "loaded")

    def __init__(self, specs: list[tuple], checks: tuple):
        self.specs = specs  # (shift, mask, table name, kinds, most entries, build)
        self.checks = checks  # (per tile count: (sel, pat, ones, counted)), low, high, fmask, hshift, allbig
        self.loaded = None  # the check function, once read

    def load(self):
        """``check(key, n) -> bool``: whether the packed wild-free hand ``key`` of ``n`` tiles
        completes some pattern — the groups' values summed (one field per pattern), then each
        pattern's field compared with its need at once (a zero-field test of the sum xor the
        needs), the patterns that also count honours one by one."""
        if self.loaded is None:
            combined, low, high, fmask, hshift, allbig = self.checks
            groups = [(shift, mask, cached_table(name, build, n, ZERO_VALUE_BITS, most).get)
                      for shift, mask, name, n, most, build in self.specs]
            total = " + ".join(f"g{i}((key >> {int(shift)}) & {int(mask)}, d)" for i, (shift, mask, _) in enumerate(groups))
            lines = ["    def check(key, n):"]
            for n, (sel, pat, ones, counted) in sorted(combined.items()):
                lines += [f"        if n == {int(n)}:",
                          f"            total = {total or '0'}",
                          f"            x = ((total ^ {int(pat)}) & {int(sel)}) | {int(ones)}",
                          f"            if (x - {int(low)}) & ~x & {int(high)}:",
                          "                return True"]
                for sh, need, hmin in counted:
                    lines += [f"            if (total >> {int(sh)}) & {int(fmask)} == {int(need)}"
                              f" and total >> {int(hshift)} >= {int(hmin)}:",
                              "                return True"]
                lines += ["            return False"]
            lines += ["        return False", "    return check"]
            self.loaded = _generated(lines, d=allbig, **{f"g{i}": get for i, (_, _, get) in enumerate(groups)})
        return self.loaded


def _generated(lines: list[str], **names):
    """The function ``make(**names)`` defined by ``lines`` returns. The win checks' innermost
    loops are written out per ruleset (a loop over four or five groups costs as much as the
    work in it); only integers and the given objects go into the code, never rule text."""
    scope: dict = {}
    exec(compile("\n".join([f"def make({', '.join(names)}):"] + lines), "<win tables>", "exec"), scope)
    return scope["make"](**names)


def _sets_fewest(cp: "_Plan", pair_size: int, profile):
    """``fewest(key, jing, jbits, top, gw, pair_removed, total, n_melds) -> (fewest or None,
    rest, broken)`` of a plain ``sets`` pattern (no natural-honour counts, no group limits),
    written out for its groups: the groups without 精 looked up once, each group holding 精
    (``jing``: group → its 精; ``jbits``: their bits) by its ``profile`` (the checker's
    :meth:`TableChecker._profile`, folded by :func:`_fold` when two groups hold 精); the fewest
    ``u`` with ``base + A[u] + min(pair, delta) ≤ u`` or ``base + B[u] ≤ u``. ``top``: the 精
    held (the most wilds any split gives); past it, no split fits.

    ``rest`` and ``broken``: with ``gw`` a group index (the winning tile's), the wilds the
    groups without 精 other than ``gw`` need without the pair, and whether one of them cannot
    complete — what :meth:`TableChecker._sets_jing_wait` starts from; with ``gw = -1``, or a
    pattern that has no reading where a 精钓 reading implies a plain one (``wait_implies_reading``),
    the loop may stop early (``rest`` is then meaningless)."""
    lines = ["    def fewest(key, jing, jbits, top, gw, pair_removed, total, n_melds):",
             "        pair = CPAIR and not pair_removed",
             "        k = SETS - n_melds",
             "        fits = k >= 0 and total == SIZE * k + (PS if pair else 0)",
             "        stop = gw < 0 or IMPLIES",  # no reading: no 精钓 one either (wait_implies_reading)
             "        if not fits and stop:",
             "            return None, 0, True",
             "        base = 0", "        delta = NONE", "        rest = 0", "        broken = False",
             "        bound = top + NONE if pair else top",  # a group that must hold the pair adds NONE
             "        A = B = None"]
    for i, (shift, mask, _, _) in enumerate(cp.groups):
        lines += [f"        sub = (key >> {int(shift)}) & {int(mask)}",
                  f"        if jbits & {1 << i}:",
                  "            if fits:",
                  f"                pa, pb = profile(t{i}, sub, jing[{i}])",
                  "                if A is None:",
                  "                    A, B = pa, pb",
                  "                else:",
                  "                    A, B = fold(A, B, pa, pb)",
                  "        elif sub:",
                  f"            v = t{i}[sub]",
                  "            a = v & NONE",
                  "            b = v >> VB",
                  f"            if gw != {i}:",
                  "                if a == NONE:",
                  "                    broken = True",
                  "                else:",
                  "                    rest += a",
                  "            if fits:",
                  "                if a == NONE and (not pair or b == NONE):",
                  "                    fits = False",
                  "                    if stop or broken:",
                  "                        return None, rest, broken",
                  "                else:",
                  "                    base += a",
                  "                    if base > bound:",  # more wilds than the 精 held
                  "                        fits = False",
                  "                        if stop or broken:",
                  "                            return None, rest, broken",
                  "                    elif b - a < delta:",
                  "                        delta = b - a"]
    lines += ["        if not fits:", "            return None, rest, broken",
              "        extra = PS if delta > PS else delta",
              "        if A is None:",
              "            need = base + extra if pair else base",
              "            return (0 if need <= 0 else None), rest, broken",
              # need(u) ≥ base + min(delta, 0) (A, B ≥ 0): no u below that fits
              "        if pair:",
              "            u = base + delta if delta < 0 else base",
              "            for u in range(u if u > 0 else 0, len(A)):",
              "                need = base + A[u] + extra",
              "                if base + B[u] < need:",
              "                    need = base + B[u]",
              "                if need <= u:",
              "                    return u, rest, broken",
              "        else:",
              "            for u in range(base, len(A)):",
              "                if base + A[u] <= u:",
              "                    return u, rest, broken",
              "        return None, rest, broken",
              "    return fewest"]
    return _generated(lines, NONE=NONE, VB=VALUE_BITS, PS=pair_size, CPAIR=bool(cp.pair), SETS=cp.sets,
                      SIZE=cp.set_size, IMPLIES=bool(cp.wait_implies_reading), profile=profile, fold=_fold,
                      **{f"t{i}": table for i, (_, _, table, _) in enumerate(cp.groups)})


def _fold(A: list[int], B: list[int], pa: list[int], pb: list[int]) -> tuple[list[int], list[int]]:
    """Two groups holding 精: their profiles combined (min-plus over how the wilds divide)."""
    n = len(A) + len(pa) - 1
    A2, B2 = [NONE + NONE] * n, [NONE + NONE] * n
    for i, (x, y) in enumerate(zip(A, B)):
        for j, (p, q) in enumerate(zip(pa, pb)):
            if x + p < A2[i + j]:
                A2[i + j] = x + p
            r = y + p if y + p < x + q else x + q
            if r < B2[i + j]:
                B2[i + j] = r
    return A2, B2


def _sets_fit(groups: list[tuple], pair_size: int):
    """``fits(key, w, pair) -> bool`` for a ``sets`` pattern's groups (shift, mask, table, _):
    whether the natural tiles ``key`` complete with ``w`` wilds — each group's
    fewest wilds without the pair (``a``) summed, plus the least extra a group needs to hold
    the pair (``b − a``, at most a pair of wilds), or the pair's group forced when another
    group cannot do without it."""
    lines = ["    def fits(key, w, pair):", "        base = 0", "        delta = NONE"]
    for i, (shift, mask, _, _) in enumerate(groups):
        lines += [f"        sub = (key >> {int(shift)}) & {int(mask)}",
                  "        if sub:",
                  f"            v = t{i}[sub]",
                  "            a = v & NONE",
                  "            b = v >> VB","            if a == NONE and (not pair or b == NONE):",
                  "                return False",
                  "            base += a",  # a NONE here is the pair's group: delta takes it back
                  "            if base > w and not pair:",
                  "                return False",
                  "            if b - a < delta:",
                  "                delta = b - a"]
    lines += ["        if not pair:", "            return base <= w",
              "        return base + (PS if PS < delta else delta) <= w", "    return fits"]
    return _generated(lines, NONE=NONE, VB=VALUE_BITS, PS=pair_size,
                      **{f"t{i}": table for i, (_, _, table, _) in enumerate(groups)})


class _Plan:
    """A pattern compiled for the table check."""

    __slots__ = ("name", "plan", "kind", "groups", "pair", "min_honours",
                 "honours_natural", "quads", "needs_splits", "set_size", "sets", "pairs", "specs", "free", "mode",
                 "paired", "one_kind", "fit", "fewest", "wait_implies_reading")


class TableChecker:
    """Table-driven :meth:`is_win` / :meth:`readings` for one :class:`HandEvaluator`.

    Same answers as the recursive evaluator (tests/test_tables.py compares them); a hand it
    cannot pack (more than :data:`MAX_PACKED_TILES` concealed tiles, or a count over the copies)
    goes back to the recursive evaluator.
    """

    def __init__(self, ev):
        self.ev = ev
        tiles = ev.tiles
        nk = len(tiles)
        self.one = [1 << (FIELD_BITS * k) for k in range(nk)]
        self.add, self.carry = over_copies_masks([k.copies for k in tiles.kinds])
        low = sum(self.one)
        self.low = low
        self.high = low * (FIELD_MASK - 1)  # mask: bits of a count ≥ 2
        self.nonzero_add = low * FIELD_MASK  # (key + this) carries out of every nonzero count
        self.honour_carry = sum(self.one[k] for k in ev.honour_kinds) << (FIELD_BITS - 1)
        self.honour_low = sum(self.one[k] for k in ev.honour_kinds)
        self.ps = ev.pair_size
        self.two = 1 + 1  # pair size of the parity bit trick
        self.hand_size = ev.hand_size
        self.plans: list[_Plan] = []
        self._full = False  # the full tables are loaded on the first hand holding 精 or melds
        self._fit_memo: dict[tuple, tuple] = {}  # melds (kind, tiles) → the plans they fit
        self._kind_group = {}  # kind → (group index, its field's bit within the group's key)
        for gi, (_, lo, hi) in enumerate(ev.group_spans):
            for k in range(lo, hi):
                self._kind_group[k] = (gi, 1 << (FIELD_BITS * (k - lo)))
        self._profiles: dict[tuple, tuple] = {}  # (table, natural, group key, 精 in it) → (A, B)
        self._split_memo: dict[tuple, tuple] = {}  # (精 counts, locked, 精) → _held_jing
        self._jing_masks: dict = {}  # 精 kinds → the mask of their count fields
        for name, plan in ev.plans.items():
            p = plan.pattern
            cp = _Plan()
            cp.name, cp.plan = name, plan
            cp.honours_natural, cp.min_honours, cp.quads = p.honours_natural, p.min_honours, p.quads_as_pairs
            cp.needs_splits = bool(p.honours_natural or p.min_honours)
            cp.set_size, cp.sets, cp.pairs = ev.set_size, plan.sets, plan.pairs
            cp.pair = plan.pair_needed
            cp.groups, cp.specs = [], []
            if plan.rotten_gap:
                cp.kind = "rotten"
                for g, lo, hi in ev.group_spans:
                    if g.is_suit:
                        cp.groups.append((FIELD_BITS * lo, (1 << (FIELD_BITS * (hi - lo))) - 1,
                                          self._rotten_rooms(g, plan.rotten_gap), True))
                    elif not p.honours_natural:
                        cp.groups.append((FIELD_BITS * lo, (1 << (FIELD_BITS * (hi - lo))) - 1, hi - lo, False))
            elif plan.pairs:
                cp.kind = "pairs"
            else:
                cp.kind = "sets"
                limit = ev.set_size * plan.sets + (ev.pair_size if plan.pair_needed else 0)
                for (lo, hi, tid, cap), (g, _, _) in zip(ev._spans(plan), ev.group_spans):
                    spec = (hi - lo, ev._templates_by_id[tid], ev.pair_size if plan.pair_needed else 0, limit,
                            tuple(tiles.kinds[k].copies for k in g.kinds))
                    cp.specs.append(spec)
                    cp.groups.append([FIELD_BITS * lo, (1 << (FIELD_BITS * (hi - lo))) - 1, None, cap == 0])
            # a wild may stand for any tile anywhere in the pattern (no natural honours, no
            # counted honours, no group limits): more wilds never hurt
            cp.free = not (cp.needs_splits or p.one_of or p.only or (
                cp.kind == "sets" and any(g[3] for g in cp.groups)))
            # how readings() finds the fewest wilds: per-group profiles (plain sets), the pairs
            # count (two-tile pairs), or a check per split of the held 精
            plain = not (cp.min_honours or p.one_of or p.only)
            cp.mode = ("profiled" if plain and cp.kind == "sets" else
                       "pairs" if plain and cp.kind == "pairs" and self.ps == self.two else "splits")
            cp.paired = bool(cp.pair or cp.pairs)  # a pattern with a pair (or pairs) can be 精钓
            # a 精钓 reading (the pair = the winning tile + a 精 standing as a wild) is then also a
            # plain one: with no plain reading, none is looked for (two-tile pairs only)
            cp.wait_implies_reading = cp.free and self.ps == self.two
            # every set one kind (pungs): natural tiles of more kinds than sets + pair never fit
            cp.one_kind = cp.kind == "sets" and cp.free and all(len(set(t)) == 1 for spec in cp.specs for t in spec[1])
            self.plans.append(cp)
        self._build_zero()
        self._build_zero_tuple()

    # ---- the wild-free fast path -----------------------------------------------------------
    def _build_zero(self) -> None:
        """Tables for a hand with no 精 and no melds: per group, a packed key → the sum of one
        field per pattern (0: complete, 1: complete holding the pair, ``big``: not complete) and
        a count of honour kinds held; a hand wins when a pattern's field sums to what it needs.
        Off (None) when a pattern constrains groups (``one of``/``only``) or when a group could
        be complete both with and without the pair."""
        ev = self.ev
        self.zero = None
        if any(cp.plan.pattern.one_of or cp.plan.pattern.only for cp in self.plans):
            return
        if ev.set_size and self.ps % ev.set_size == 0:
            return
        memo_key = (self.ps, ev.set_size, self.hand_size,
                    tuple((g.is_suit, lo, hi, tuple(ev.tiles.kinds[k].copies for k in g.kinds),
                           tuple(ev.tiles.kinds[k].rank for k in g.kinds)) for g, lo, hi in ev.group_spans),
                    tuple((cp.kind, cp.sets, cp.pair, cp.pairs, cp.quads, cp.min_honours,
                           cp.plan.rotten_gap, cp.honours_natural, tuple(cp.specs)) for cp in self.plans))
        if memo_key not in _ZERO:
            _keep(_ZERO, memo_key, self._zero_tables(memo_key))
        self.zero = _ZERO[memo_key]

    def _zero_tables(self, memo_key: tuple) -> "_ZeroGroups | None":
        ev = self.ev
        n_groups = len(ev.group_spans)
        big = n_groups + 1
        fb = (big * n_groups).bit_length()
        fmask = (1 << fb) - 1
        hshift = fb * len(self.plans)
        if hshift + max(hi - lo for _, lo, hi in ev.group_spans).bit_length() > ZERO_VALUE_BITS:
            return None  # too many patterns for one value: every hand takes the general path
        allbig = sum(big << (fb * i) for i in range(len(self.plans)))
        groups = []
        for gi, (g, lo, hi) in enumerate(ev.group_spans):
            n = hi - lo
            copies = [ev.tiles.kinds[k].copies for k in g.kinds]
            ranks = tuple(ev.tiles.kinds[k].rank for k in g.kinds)
            name = ("zero", self.ps, ev.set_size, self.hand_size, g.is_suit, n, copies, ranks, big, fb, hshift,
                    [(cp.kind, cp.sets, cp.pair, cp.pairs, cp.quads, cp.plan.rotten_gap, cp.honours_natural,
                      cp.specs[gi] if cp.specs else None) for cp in self.plans])
            groups.append((FIELD_BITS * lo, (1 << (FIELD_BITS * n)) - 1, json.dumps(name), n, vectors(copies),
                           functools.partial(self._zero_group, gi, g, lo, n, copies, big, fb, hshift)))
        checks: dict[int, list] = {}
        for i, cp in enumerate(self.plans):
            if cp.kind == "sets":
                total, want = ev.set_size * cp.sets + (self.ps if cp.pair else 0), (1 if cp.pair else 0)
            elif cp.kind == "pairs":
                total, want = self.ps * cp.pairs, 0
            else:
                total, want = self.hand_size, 0
            checks.setdefault(total, []).append((fb * i, want, cp.min_honours))
        low = sum(1 << (fb * i) for i in range(len(self.plans)))
        high = low << (fb - 1)
        # per tile count: the patterns without an honour count, checked at once ("a field equal
        # to its need" is "a zero field" of the sum xor the needs), then the others one by one
        combined = {}
        for total, want in checks.items():
            sel = pat = 0
            for sh, need, hmin in want:
                if not hmin:
                    sel |= fmask << sh
                    pat |= need << sh
            combined[total] = (sel, pat, low & ~sel, [w for w in want if w[2]])
        return _ZeroGroups(groups, (combined, low, high, fmask, hshift, allbig))

    def _build_zero_tuple(self) -> None:
        if self.zero is not None:
            self.zero = (self.one.__getitem__, self.carry, {}, self.zero)

    def _zero_group(self, gi: int, g, lo: int, n: int, copies: list[int], big: int, fb: int, hshift: int) -> dict:
        fields = [self._zero_fields(cp, gi, n, copies, big) for cp in self.plans]
        add, carry = over_copies_masks(copies)
        keys = {0}.union(*fields)
        zg = {}
        for key in keys:
            if (key + add) & carry:
                continue
            val = 0
            for i, f in enumerate(fields):
                val |= f.get(key, big) << (fb * i)
            if not g.is_suit:
                val |= ((key + self.nonzero_add) & (self.carry >> (FIELD_BITS * lo))).bit_count() << hshift
            zg[key] = val
        return zg

    def _zero_fields(self, cp: _Plan, gi: int, n: int, copies: list[int], big: int) -> dict[int, int]:
        """One pattern's wild-free field per group key: 0 complete, 1 complete with the pair;
        keys not listed are ``big`` (not complete)."""
        one = self.one
        if cp.kind == "sets":
            out = {}
            for key, v in load_table(cp.specs[gi], "complete").items():
                if not v & NONE:
                    out[key] = 0
                elif cp.pair and not v >> VALUE_BITS:
                    out[key] = 1
            return out
        if cp.kind == "pairs":
            if not self.ps:
                return {0: 0}
            keys = [0]
            for i, c in enumerate(copies):
                steps = range(self.ps, (c if cp.quads else min(c, self.ps)) + 1, self.ps)
                keys += [k + m * one[i] for k in keys for m in steps
                         if sum((k >> (FIELD_BITS * j)) & FIELD_MASK for j in range(i)) + m <= self.ps * cp.pairs]
            return dict.fromkeys(keys, 0)
        spans = {shift: rooms for shift, _, rooms, suit in cp.groups if suit}
        rooms = spans.get(self.ev.group_spans[gi][1] * FIELD_BITS)
        out = {}
        for bits in itertools.product((0, 1), repeat=n):
            key = sum(one[i] for i in range(n) if bits[i])
            if rooms is None or rooms[key] >= 0:
                out[key] = 0
        return out

    def _rotten_rooms(self, g, gap: int) -> dict[int, int]:
        """Suit group, counts ≤ 1: packed key → free ranks left by the gap rule, -1 if broken."""
        return _rotten_rooms(tuple(self.ev.tiles.kinds[k].rank for k in g.kinds), gap)


    # ---- one pattern on a packed natural hand with w wilds --------------------------------
    def _fits(self, cp: _Plan, key: int, w: int, total: int, n_melds: int, pair_removed: bool) -> bool:
        """``total``: natural tiles + wilds. Mirrors HandEvaluator._fits."""
        if cp.mode == "splits":  # group limits or counted honours
            ev = self.ev
            p = cp.plan.pattern
            if (p.one_of or p.only) and not ev._groups_fit(
                    p, {ev.tiles.kinds[k].group for k in range(len(self.one)) if (key >> (FIELD_BITS * k)) & FIELD_MASK}):
                return False
            if cp.min_honours and ((key + self.nonzero_add) & self.honour_carry).bit_count() < cp.min_honours:
                return False
        if cp.kind == "sets":
            pair = cp.pair and not pair_removed
            k = cp.sets - n_melds
            if k < 0 or total != cp.set_size * k + (self.ps if pair else 0):
                return False
            return cp.fit(key, w, pair)
        if cp.kind == "pairs":
            return self._pairs(cp, key, w, total, cp.pairs - (1 if pair_removed else 0))
        return self._rotten(cp, key, w, total)

    def _pairs(self, cp: _Plan, key: int, w: int, total: int, n: int) -> bool:
        size = self.ps
        if total != size * n:
            return False
        if size == self.two:  # bit tricks: a count's lowest bit is its parity
            odd = key & self.low
            if not cp.quads and ((key >> 1) & key & self.low | (key >> 2) & self.low | (key >> 3) & self.low):
                return False  # some count above the pair size
            if cp.honours_natural and odd & self.honour_low:
                return False
            return odd.bit_count() <= w
        singles = 0
        for k in range(len(self.one)):
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c > size and not cp.quads:
                return False
            if c % size:
                if cp.honours_natural and k in self.ev.honour_kinds:
                    return False
                singles += size - c % size
                if singles > w:
                    return False
        return True

    def _rotten(self, cp: _Plan, key: int, w: int, total: int) -> bool:
        if total != self.hand_size or key & self.high:
            return False
        room = 0
        for shift, mask, rooms, suit in cp.groups:
            sub = (key >> shift) & mask
            if suit:
                r = rooms[sub]
                if r < 0:
                    return False
                room += r
            else:
                room += rooms - sub.bit_count()
        return w <= room

    # ---- public entry points ---------------------------------------------------------------
    def pack(self, concealed: list[int]) -> int | None:
        """The packed count vector of ``concealed``, or None when it cannot be packed."""
        if len(concealed) > MAX_PACKED_TILES:
            return None
        key = sum(map(self.one.__getitem__, concealed))
        if (key + self.add) & self.carry:
            return None
        return key

    def _held_jing(self, key: int, wild_kinds, locked: int | None) -> tuple[list, dict, list, dict, int]:
        """What the held 精 allow, memoised by the 精 counts: (split deltas: (wilds, key to
        subtract) fewest wilds first; group index → ((field bit in the group, count), …); per
        split, what the 精 kinds' natural counts (a natural winning tile included) add to a pairs
        check: (odd counts, odd honour counts, whether a count ≥ 3 is left), a slot for
        :meth:`_pairs_answers` and the 精 kinds' field mask; the 精钓 variants
        by winning tile (:meth:`_jing_waits`); the bits of the groups holding 精)."""
        mask = self._jing_masks.get(wild_kinds)
        if mask is None:
            if len(self._jing_masks) >= MAX_FIT_MEMO:
                self._jing_masks.clear()
            mask = self._jing_masks[wild_kinds] = sum(FIELD_MASK << (FIELD_BITS * k) for k in set(wild_kinds))
        mkey = (key & mask, locked, wild_kinds)
        got = self._split_memo.get(mkey)
        if got is None:
            rows = [(0, 0, 0, 0, False)]  # (wilds, delta, odd natural 精, of them honours, a count ≥ 3)
            groups: dict[int, tuple] = {}
            honours = self.ev.honour_kinds
            for k in sorted(wild_kinds):
                held = (key >> (FIELD_BITS * k)) & FIELD_MASK
                c = held - (1 if k == locked else 0)  # the winning tile taken from a discard stays natural
                h = k in honours
                if c > 0:
                    o = self.one[k]
                    rows = [(u + x, d + x * o, p + (held - x) % 2, q + (held - x) % 2 * h, b or held - x > 2)
                            for u, d, p, q, b in rows for x in range(c + 1)]
                    gi, go = self._kind_group[k]
                    groups[gi] = groups.get(gi, ()) + ((go, c),)
                elif held:  # only the natural winning tile: natural in every split
                    rows = [(u, d, p + held % 2, q + held % 2 * h, b or held > 2) for u, d, p, q, b in rows]
            rows.sort(key=_first)
            if len(self._split_memo) >= MAX_FIT_MEMO:
                self._split_memo.clear()
            got = self._split_memo[mkey] = ([r[:2] for r in rows], groups, [[r[2:] for r in rows], None, mask], {},
                                            sum(1 << gi for gi in groups))
        return got

    def _jing_waits(self, key: int, wild_kinds, win_tile: int) -> list[tuple]:
        """The 精钓 variants of a hand: per 精 ``j`` held besides the winning tile, (0 if ``j``
        is the winning tile's kind else 1, what to take from the key — the winning tile and
        ``j`` —, :meth:`_held_jing` of the rest). They depend on the 精 counts alone: memoised
        with them (under :meth:`_held_jing`'s entry, by winning tile)."""
        rest = key - self.one[win_tile]
        out = []
        for j in sorted(wild_kinds):
            if (rest >> (FIELD_BITS * j)) & FIELD_MASK:
                take = self.one[win_tile] + self.one[j]
                out.append((0 if j == win_tile else 1, take, self._held_jing(key - take, wild_kinds, None)))
        return out

    def _splits(self, key: int, wild_kinds, locked: int | None) -> list[tuple[int, int]]:
        """(wilds, natural key) per split of the held 精, fewest wilds first (as _splits)."""
        return [(u, key - d) for u, d in self._held_jing(key, wild_kinds, locked)[0]]

    def is_win(self, concealed, melds, wild_kinds, win_tile, win_tile_natural=False) -> bool:
        """As :meth:`HandEvaluator.is_win`. A hand holding no 精 and no melds takes the wild-free
        path: one lookup per group and a sum."""
        zero = self.zero
        n = len(concealed)
        if zero is not None and not melds and n <= MAX_PACKED_TILES:
            one_get, carry, adds, check = zero
            key = sum(map(one_get, concealed))
            try:
                add = adds.get(wild_kinds)
            except TypeError:
                add = None
            if add is None:
                add = self._wild_add(wild_kinds)
            if not (key + add) & carry:  # no count over its copies, no 精 held
                return (check.loaded or check.load())(key, n)
            if not (key + self.add) & self.carry:  # 精 held, counts within the copies
                return self._is_win_general(concealed, melds, wild_kinds, win_tile, win_tile_natural, key)
        return self._is_win_general(concealed, melds, wild_kinds, win_tile, win_tile_natural)

    def _wild_add(self, wild_kinds) -> int:
        """The copies check's addend, also carrying out of any held 精's count."""
        add = self.add
        for k in set(wild_kinds):
            add = (add & ~(FIELD_MASK << (FIELD_BITS * k))) | (FIELD_MASK << (FIELD_BITS * k))
        self.zero[2][frozenset(wild_kinds)] = add
        return add

    def _load_full(self) -> None:
        for cp in self.plans:
            for group, spec in zip(cp.groups, cp.specs):
                group[2] = load_table_lazy(spec) if not group[3] else natural_table(spec)
            cp.groups = [tuple(g) for g in cp.groups]
            if cp.kind == "sets":
                cp.fit = _sets_fit(cp.groups, self.ps)
                cp.fewest = _sets_fewest(cp, self.ps, self._profile)
        self._full = True

    def _is_win_general(self, concealed, melds, wild_kinds, win_tile, win_tile_natural=False,
                        key: int | None = None) -> bool:
        """``key``: the packed hand when the caller has it (already checked by :meth:`pack`)."""
        if not self._full:
            self._load_full()
        if key is None:
            key = self.pack(concealed)
        if key is None:
            return self.ev._is_win_recursive(concealed, melds, wild_kinds, win_tile, win_tile_natural)
        total = len(concealed)
        n_melds = len(melds)
        w = 0
        nat = key
        for k in wild_kinds:
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c:
                if win_tile_natural and k == win_tile:
                    c -= 1
                w += c
                nat -= c * self.one[k]
        splits = None
        kinds = None
        for cp in self._fitting(melds) if melds else self.plans:
            if cp.kind == "rotten" and nat & self.high:
                continue  # a count ≥ 2 that no split of the 精 lowers
            if cp.one_kind:
                if kinds is None:
                    kinds = ((nat + self.nonzero_add) & self.carry).bit_count()
                if kinds > cp.sets - n_melds + (1 if cp.pair else 0):
                    continue  # natural tiles of more kinds than one-kind sets and the pair hold
            if cp.needs_splits and w:
                if splits is None:
                    splits = self._splits(key, wild_kinds, win_tile if win_tile_natural else None)
                if any(self._fits(cp, nk, u, total, n_melds, False) for u, nk in splits):
                    return True
            elif self._fits(cp, nat, w, total, n_melds, False):
                return True
        return False

    def _fitting(self, melds) -> tuple:
        """The plans whose pattern the declared ``melds`` fit (HandEvaluator._melds_fit), memoised
        by the melds' kinds and tiles (bounded: cleared past :data:`MAX_FIT_MEMO` entries)."""
        key = tuple([(m.meld_kind, m.tiles) for m in melds])
        got = self._fit_memo.get(key)
        if got is None:
            if len(self._fit_memo) >= MAX_FIT_MEMO:
                self._fit_memo.clear()
            got = self._fit_memo[key] = tuple(cp for cp in self.plans if self.ev._melds_fit(cp.plan, melds))
        return got

    def could_win_on_claim(self, concealed, melds, wild_kinds) -> bool:
        """False only when no tile ``t`` makes ``concealed + [t]`` a win with ``t`` natural (a
        claimed discard or robbed kong): the claim check can then skip :meth:`is_win`. True
        may still be no win (a necessary condition, not a sufficient one). No self-drawn tile
        completes it either: a drawn tile that is no 精 counts as a natural one, and a drawn 精
        is one more wild, which is what this check tries.

        Why it holds: a hand that completes with a natural ``t`` and ``w`` wilds completes with
        ``t`` taken out and ``w + 1`` wilds, the extra wild standing where ``t`` stood — for
        set and pair patterns whose groups all take wilds. Patterns where a wild may not stand
        everywhere (natural honours, counted honours, a natural-only group) and gapped
        patterns answer True unless a count ≥ 2 rules them out.
        """
        if not self._full:
            self._load_full()
        key = self.pack(concealed)
        if key is None:
            return True
        total = len(concealed) + 1
        w = 0
        nat = key
        for k in wild_kinds:
            c = (key >> (FIELD_BITS * k)) & FIELD_MASK
            if c:
                w += c
                nat -= c * self.one[k]
        for cp in self._fitting(melds) if melds else self.plans:
            if cp.kind == "rotten":
                if not nat & self.high and total == self.hand_size:
                    return True
            elif not cp.free:
                return True
            elif self._fits(cp, nat, w + 1, total, len(melds), False):
                return True
        return False

    def _profile(self, table, sub: int, held: tuple) -> tuple[list[int], list[int]]:
        """For a group holding 精: ``(A, B)`` where ``A[u]`` / ``B[u]`` is the fewest wilds the
        group's natural tiles need without / with the pair, over the splits that make ``u`` of
        its 精 wild (the table values of :meth:`_fits`). Memoised, bounded."""
        mkey = (id(table), sub, held)
        got = self._profiles.get(mkey)
        if got is not None:
            return got
        top = sum(c for _, c in held)
        A = [NONE + NONE] * (top + 1)
        B = [NONE + NONE] * (top + 1)
        deltas = [(0, 0)]
        for o, c in held:
            deltas = [(u + x, d + x * o) for u, d in deltas for x in range(c + 1)]
        for u, d in deltas:
            nk = sub - d
            if nk:
                v = table[nk]
                a, b = v & NONE, v >> VALUE_BITS
            else:
                a, b = 0, NONE  # no tiles left here: the pair goes elsewhere (or is all wilds)
            if a < A[u]:
                A[u] = a
            if b < B[u]:
                B[u] = b
        if len(self._profiles) >= MAX_FIT_MEMO:
            self._profiles.clear()
        got = self._profiles[mkey] = (A, B)
        return got

    def _sets_jing_wait(self, cp: _Plan, k2: int, held2: dict[int, tuple], total: int, n_melds: int, top: int,
                        rest: int, gw: int, jg: int) -> int | None:
        """``cp.fewest`` (:func:`_sets_fewest`) of a 精钓 variant ``k2`` (the hand less the winning tile
        and one 精, the pair removed) when the hand's 精 all sit in group ``jg``: only the
        winning tile's group ``gw`` and ``jg`` differ from the hand, ``rest`` (from the hand's
        own call) covers the others."""
        k = cp.sets - n_melds
        if k < 0 or total != cp.set_size * k:
            return None
        base = rest
        if gw != jg:
            shift, mask, table, _ = cp.groups[gw]
            sub = (k2 >> shift) & mask
            if sub:
                a = table[sub] & NONE
                if a == NONE:
                    return None
                base += a
        if base > top:
            return None
        shift, mask, table, _ = cp.groups[jg]
        sub = (k2 >> shift) & mask
        held = held2.get(jg)
        if held is None:  # no 精 left in it
            if sub:
                a = table[sub] & NONE
                if a == NONE:
                    return None
                base += a
            return 0 if base <= 0 else None
        A = self._profile(table, sub, held)[0]
        for u in range(base, len(A)):
            if base + A[u] <= u:
                return u
        return None

    def _fewest(self, cp: _Plan, key: int, deltas, total: int, n_melds: int, pair_removed: bool) -> int | None:
        """Fewest wilds with which ``key`` less one of the split ``deltas`` (:meth:`_held_jing`)
        fits a pattern that is neither a plain ``sets`` one (``cp.fewest`` (:func:`_sets_fewest`)) nor
        a plain pairs one (:meth:`_pairs_fewest`)."""
        if cp.kind == "rotten" and (key - deltas[-1][1]) & self.high:
            return None  # a count ≥ 2 even with every 精 wild
        if not cp.needs_splits:
            u, d = deltas[-1]  # every held 精 wild: if that fails, every split fails
            if not self._fits(cp, key - d, u, total, n_melds, pair_removed):
                return None
        fits = self._fits
        for u, d in deltas:
            if fits(cp, key - d, u, total, n_melds, pair_removed):
                return u
        return None

    def _pairs_fewest(self, cp: _Plan, nat: int, deltas, odd: list, total: int, pair_removed: bool) -> int | None:
        """:meth:`_fewest` of a pairs pattern of two-tile pairs with no group or honour-count
        rule, without a check per split: ``nat`` is the hand with every 精 taken out; a split
        needs one wild per odd count — the natural tiles' and its natural 精's — and fails on a
        count ≥ 3 (unless quads count as two pairs) or an odd honour (``honours natural``)."""
        if total != self.two * (cp.pairs - (1 if pair_removed else 0)):
            return None
        nat &= ~odd[2]  # the 精 kinds' counts (a natural winning tile among them) are in the splits'
        low = self.low
        quads = cp.quads
        if not quads and ((nat >> 1) & nat & low | (nat >> 2) & low | (nat >> 3) & low):
            return None
        singles = nat & low
        hn = cp.honours_natural
        if hn and singles & self.honour_low:
            return None
        singles = singles.bit_count()
        answers = odd[1]
        if answers is None:  # first needed for these 精 counts
            answers = odd[1] = self._pairs_answers(deltas, odd[0])
        ans = answers[quads, hn]
        return ans[singles] if singles < len(ans) else None

    def _pairs_answers(self, deltas, odd: list) -> dict:
        """For :meth:`_pairs_fewest`: per (quads allowed, honours natural), the fewest wilds by
        the natural tiles' odd counts (a list; past its end, none). Kept in the split memo."""
        out = {}
        for quads in (False, True):
            for hn in (False, True):
                ans = []
                for s in range(deltas[-1][0] + 1):
                    best = None
                    for (u, _), (p, q, big) in zip(deltas, odd):
                        if s + p <= u and (quads or not big) and not (hn and q):
                            best = u
                            break
                    ans.append(best)
                out[quads, hn] = ans
        return out

    def readings(self, concealed, melds, wild_kinds, win_tile, win_tile_natural=False):
        """As :meth:`HandEvaluator.readings`."""
        if not self._full:
            self._load_full()
        key = self.pack(concealed)
        if key is None or not (key >> (FIELD_BITS * win_tile)) & FIELD_MASK:
            return self.ev._readings_recursive(concealed, melds, wild_kinds, win_tile, win_tile_natural)
        total = len(concealed)
        n_melds = len(melds)
        deltas, jing, odd, waits, jbits = self._held_jing(key, wild_kinds, win_tile if win_tile_natural else None)
        top, every = deltas[-1]
        nat = key - every  # every held 精 taken out
        gw = self._kind_group[win_tile][0]
        jg = next(iter(jing)) if len(jing) == 1 else None  # the one group holding 精 (else: no shortcut)
        variants = None  # 精钓: (1 if the 精 stands as a wild, key less it and the winning tile, its 精)
        out = []
        kinds = None  # natural kinds held (every 精 wild), for the one-kind-sets filter
        for cp in self._fitting(melds) if melds else self.plans:
            mode = cp.mode
            if cp.one_kind and cp.wait_implies_reading:
                if kinds is None:
                    kinds = ((nat + self.nonzero_add) & self.carry).bit_count()
                if kinds > cp.sets - n_melds + (1 if cp.pair else 0):
                    continue  # no reading (the pattern is free: no 精钓 one either)
            if mode == "profiled":
                w, rest_need, broken = cp.fewest(key, jing, jbits, top, gw, False, total, n_melds)
            elif mode == "pairs":
                w = self._pairs_fewest(cp, nat, deltas, odd, total, False)
            elif cp.kind == "rotten" and nat & self.high:
                continue  # a count ≥ 2 even with every 精 wild (and no pair: no 精钓)
            else:
                w = self._fewest(cp, key, deltas, total, n_melds, False)
            if w is not None:
                out.append(_new_reading(Reading, (cp.name, w, False)))
            if not cp.paired or (w is None and cp.wait_implies_reading):
                continue  # no reading with the 精 free to stand anywhere: none with one beside the winning tile
            if variants is None:
                variants = waits.get(win_tile)
                if variants is None:
                    variants = waits[win_tile] = self._jing_waits(key, wild_kinds, win_tile)
            best = None
            for as_wild, take, (d2, j2, o2, _, jb2) in variants:  # less the winning tile and the 精
                k2 = key - take
                if mode == "profiled":
                    if jg is None:
                        jw = cp.fewest(k2, j2, jb2, d2[-1][0], -1, True, total - 2, n_melds)[0]
                    elif broken:
                        jw = None
                    else:
                        jw = self._sets_jing_wait(cp, k2, j2, total - 2, n_melds, d2[-1][0], rest_need, gw, jg)
                elif mode == "pairs":
                    jw = self._pairs_fewest(cp, k2 - d2[-1][1], d2, o2, total - 2, True)
                else:
                    jw = self._fewest(cp, k2, d2, total - 2, n_melds, True)
                if jw is not None and (best is None or jw + as_wild < best):
                    best = jw + as_wild
            if best is not None:
                out.append(_new_reading(Reading, (cp.name, best, True)))
        return out


_new_reading = tuple.__new__  # Reading(*fields) without the named tuple's keyword handling


@functools.lru_cache(maxsize=64)
def _rotten_rooms(ranks: tuple[int, ...], gap: int) -> dict[int, int]:
    """Suit ranks, counts ≤ 1: packed key → free ranks left by the gap rule, -1 if broken.
    Kept in the table cache (stored plus one: cache values are unsigned)."""
    stored = cached_table(json.dumps(["rotten", ranks, gap]), lambda: {k: v + 1 for k, v in _rooms(ranks, gap).items()},
                          len(ranks), 2 * VALUE_BITS, 1 << len(ranks))
    if len(stored) != 1 << len(ranks) or any(v > len(ranks) + 1 for v in stored.values()):
        return _rooms(ranks, gap)  # a damaged (well-hashed) file: every key must be there
    return {k: v - 1 for k, v in stored.items()}


def _rooms(ranks: tuple[int, ...], gap: int) -> dict[int, int]:
    from engine.core.hands import _max_spread

    out = {}
    n = len(ranks)
    for held in itertools.product((0, 1), repeat=n):
        key = sum(1 << (FIELD_BITS * i) for i in range(n) if held[i])
        hr = tuple(ranks[i] for i in range(n) if held[i])
        most = _max_spread(ranks, hr, gap)
        out[key] = -1 if most < 0 else most - len(hr)
    return out


def _first(pair: tuple) -> int:
    return pair[0]
