"""Reading untrusted YAML (scenario files, hand records) safely, and checking it against a schema.

:func:`load_yaml` refuses, with ``file:line:col``, before constructing anything: a file over
:data:`MAX_FILE_BYTES`, a NUL byte, bytes that are not UTF-8, nesting deeper than
:data:`MAX_DEPTH`, more than :data:`MAX_NODES` nodes once every alias is expanded (so a
"billion laughs" file is refused after reading its few lines, not after expanding it), an alias
to its own anchor (a cycle), a line longer than :data:`MAX_LINE` and a scalar longer than
:data:`MAX_SCALAR` characters. What passes is loaded with ruamel.yaml's round-trip loader,
which keeps each mapping's and list's positions (``.lc``).

:func:`validate` checks the loaded data against a pydantic model and maps the first error's
``loc`` back to the YAML node's line and column. Both raise :class:`~engine.errors.ScenarioError`.
The limits are bounds on work, not rules; they live here so every reader shares them.
"""
from __future__ import annotations

import types
import typing
from pathlib import Path
from typing import Any, TypeAlias, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails
from ruamel.yaml import YAML
from ruamel.yaml.composer import Composer
from ruamel.yaml.error import MarkedYAMLError, StreamMark, YAMLError
from ruamel.yaml.events import AliasEvent, Event, ScalarEvent
from ruamel.yaml.nodes import Node

from engine.errors import Location, ScenarioError, did_you_mean

MAX_FILE_BYTES = 2 ** 20  # 1 MiB: a scenario file or a record is a few kB
MAX_DEPTH = 32  # nested mappings and lists
MAX_NODES = 50_000  # nodes after expanding aliases (ruamel reads ~30 000 nodes a second)
MAX_SCALAR = 2_000  # characters of one value (and below Python's 4300-digit int limit)
MAX_LINE = 3_000  # characters of one line (ruamel's scanner is slow on very long lines)

# Bounds the schemas of scenario files and records share (bounds on work, not rules).
MAX_WORD = 64  # a seat, a tile, an indicator or option name, an action's text
MAX_TEXT = 1_000  # a case name, a free-text `source`, a meld, a tile string
MAX_ITEMS = 1_000  # entries of one list or mapping (cases, actions, wall tiles …)
MAX_FLOOR = 1_000  # a 爬楼 floor
MAX_ZI = 10 ** 9  # an amount of 子 in an expectation or a record
MAX_SEED = 2 ** 63  # a seed's magnitude


# where a node sits in a loaded document: mapping keys and list indexes from the root (a pydantic ``loc``)
YamlPath: TypeAlias = tuple[str | int, ...]
M = TypeVar("M", bound=BaseModel)


class Strict(BaseModel):
    """Base of every schema: unknown keys are errors, no type coercion (``'3'`` is not 3)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)


def _pos(raw: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column (in characters) of a byte offset."""
    start = raw.rfind(b"\n", 0, offset) + 1
    col = len(raw[start:offset].decode("utf-8", errors="replace")) + 1
    return raw.count(b"\n", 0, offset) + 1, col


def read_text(path: Path, what: str = "file") -> str:
    """A file's text, read at most :data:`MAX_FILE_BYTES` of it; :class:`ScenarioError` when it
    cannot be read, is bigger, holds a NUL byte or is not UTF-8 (with the line and column)."""
    file = str(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise ScenarioError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
    if len(raw) > MAX_FILE_BYTES:
        raise ScenarioError(f"the {what} is bigger than {MAX_FILE_BYTES} bytes", Location(file, 1, 1),
                            hint="a scenario file or a record is a few kB; split it", source_text="")
    nul = raw.find(b"\0")
    if nul >= 0:
        raise ScenarioError(f"the {what} holds a NUL byte: it is not text", Location(file, *_pos(raw, nul)),
                            source_text="")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ScenarioError(f"the {what} is not UTF-8 text (byte 0x{raw[exc.start]:02x})",
                            Location(file, *_pos(raw, exc.start)),
                            hint="save it as UTF-8 (e.g. `iconv -f GBK -t UTF-8`)", source_text="") from None
    return text.removeprefix("\ufeff")


def _mark_loc(file: str, mark: StreamMark | None) -> Location:
    return Location(file, mark.line + 1, mark.column + 1) if mark is not None else Location(file, 1, 1)


def _check_lines(text: str, file: str) -> None:
    for n, line in enumerate(text.split("\n"), 1):
        if len(line) > MAX_LINE:
            raise ScenarioError(f"line {n} is {len(line)} characters long (at most {MAX_LINE})",
                                Location(file, n, MAX_LINE + 1), source_text="")  # not shown: too long


class _BoundedComposer(Composer):
    """ruamel's composer, refusing as it goes (before anything is constructed): nesting deeper
    than :data:`MAX_DEPTH`, more than :data:`MAX_NODES` nodes counting each alias as the nodes
    of its anchor, an alias inside its own anchor, a scalar longer than :data:`MAX_SCALAR`."""

    def __init__(self, loader: Any = None) -> None:  # ruamel's YAML object (as ruamel types it)
        super().__init__(loader)
        self.warn_double_anchors = False  # an anchor defined again is YAML; no warning on stderr
        self.sizes: dict[str, int] = {}  # anchor → nodes it stands for
        self.total = 0
        self.levels = 0

    def _refuse(self, message: str, event: Event, hint: str | None = None) -> ScenarioError:
        file, text = self.loader.mj_where
        return ScenarioError(message, _mark_loc(file, event.start_mark), hint=hint, source_text=text)

    def _count(self, n: int, event: Event) -> None:
        self.total += n
        if self.total > MAX_NODES:
            raise self._refuse(f"more than {MAX_NODES} values once aliases are expanded", event,
                               hint="aliases (*name) repeat what their anchor holds; use fewer")

    def compose_node(self, parent: Node | None, index: object) -> Node | None:
        event = self.parser.peek_event()
        if isinstance(event, AliasEvent):
            if event.anchor in self.anchors and event.anchor not in self.sizes:
                raise self._refuse(f"alias *{event.anchor} is inside its own anchor (a cycle)", event)
            self._count(self.sizes.get(event.anchor, 0), event)
            alias: Node | None = super().compose_node(parent, index)
            return alias
        if isinstance(event, ScalarEvent) and len(event.value) > MAX_SCALAR:
            raise self._refuse(f"a value of {len(event.value)} characters (at most {MAX_SCALAR})", event)
        self.levels += 1
        if self.levels > MAX_DEPTH:
            raise self._refuse(f"nested more than {MAX_DEPTH} levels deep", event)
        if event.anchor:
            self.sizes.pop(event.anchor, None)  # an anchor defined again: not usable inside itself
        start = self.total
        self._count(1, event)
        node: Node | None = super().compose_node(parent, index)
        self.levels -= 1
        if event.anchor:
            self.sizes[event.anchor] = self.total - start
        return node


class _WhereYAML(YAML):
    """ruamel's round-trip YAML object, carrying the file name and text its composer's errors quote."""

    def __init__(self, file: str, text: str) -> None:
        super().__init__(typ="rt")
        self.mj_where = (file, text)


WIDE_LOOKBACK = 2  # lines above a YAML error searched for the full-width mistake that made it (a bound)


def _wide_mistake(row: str) -> tuple[int, str, str] | None:
    """(column, character, the ASCII one meant) of an input method's full-width character that
    does YAML's work on a line: a ： ending a key (no ':' before it), a full-width space indenting."""
    code = row.split("#", 1)[0]
    indent = len(code) - len(code.lstrip(" \u3000"))
    if "\u3000" in code[:indent]:
        return code.index("\u3000") + 1, "\u3000", " "
    col = code.find("：")
    if col >= 0 and ":" not in code[:col]:
        return col + 1, "：", ":"
    return None


def _yaml_error(exc: MarkedYAMLError, file: str, text: str) -> ScenarioError:
    mark = exc.problem_mark or exc.context_mark
    where = _mark_loc(file, mark)
    rows = text.split("\n")
    # a full-width key colon or indent on the error's line or WIDE_LOOKBACK before it broke the file when
    # writing it half-width makes the error go away or come later: then say so, there
    for no in range(where.line, max(where.line - WIDE_LOOKBACK - 1, 0), -1):
        wide = _wide_mistake(rows[no - 1]) if no <= len(rows) else None
        if wide is None:
            continue
        col, ch, meant = wide
        row = rows[no - 1]
        fixed = rows[: no - 1] + [row[: col - 1] + meant + ("" if ch == "\u3000" else " ") + row[col:]] + rows[no:]
        try:
            _WhereYAML(file, text).load("\n".join(fixed))
        except MarkedYAMLError as again:
            if _mark_loc(file, again.problem_mark or again.context_mark).line <= where.line:
                continue
        except (YAMLError, ValueError, TypeError):
            continue
        what = "a full-width space" if ch == "\u3000" else f"a full-width {ch}"
        return ScenarioError(f"{what}: YAML wants the half-width {meant!r} here", Location(file, no, col),
                             hint="switch the input method to half-width (半角)", source_text=text)
    return ScenarioError(f"not valid YAML: {exc.problem or exc.context}", where, source_text=text)


def load_text(text: str, file: str) -> Any:
    """Parse YAML text keeping positions, refusing (with where) a line longer than
    :data:`MAX_LINE` before parsing, and what :class:`_BoundedComposer` refuses while
    composing: nothing is built past a bound."""
    _check_lines(text, file)
    yaml = _WhereYAML(file, text)
    yaml.Composer = _BoundedComposer
    try:
        return yaml.load(text)
    except MarkedYAMLError as exc:
        raise _yaml_error(exc, file, text) from None
    except (YAMLError, ValueError, TypeError) as exc:  # a value ruamel cannot construct
        raise ScenarioError(f"not valid YAML: {exc}", Location(file, 1, 1), source_text=text) from None


def load_yaml(path: Path, what: str = "file") -> tuple[Any, str]:
    """``(data, text)`` of a YAML file (JSON is YAML too), read through :func:`read_text` and
    :func:`load_text`; :class:`ScenarioError` with ``file:line:col`` for anything refused."""
    text = read_text(path, what)
    return load_text(text, str(path)), text


# ---- schemas -------------------------------------------------------------------------------------


def node_location(file: str, root: Any, path: YamlPath, *, key: bool = False) -> Location:
    """Where the node at ``path`` (keys and list indexes from ``root``) is written. A key not
    in its mapping (a missing key) points at the mapping; ``key=True`` points at the key
    itself rather than its value."""
    node, where = root, None
    for step in path:
        lc: Any = getattr(node, "lc", None)  # ruamel's positions; None raises AttributeError, caught below
        try:
            if isinstance(node, dict) and step in node:
                pos = lc.key(step) if key and step == path[-1] else lc.value(step)
                node = node[step]
            elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
                pos = lc.item(step)
                node = node[step]
            else:
                break
            where = Location(file, pos[0] + 1, pos[1] + 1)
        except (AttributeError, KeyError, IndexError, TypeError):
            break
    if where is not None and node is not None and getattr(node, "lc", None) is not None and not key:
        where = Location(file, node.lc.line + 1, node.lc.col + 1)
    if where is None and getattr(root, "lc", None) is not None:
        where = Location(file, root.lc.line + 1, root.lc.col + 1)
    return where or Location(file, 1, 1)


def _data_path(data: Any, loc: YamlPath, missing: bool = False) -> YamlPath:
    """The steps of a pydantic ``loc`` that walk the data (union tags such as ``str`` or a
    model's name are dropped), and for a ``missing`` error the key that is not there."""
    out: list[str | int] = []
    node = data
    for step in loc:
        if isinstance(node, dict) and step in node:
            out.append(step)
            node = node[step]
        elif isinstance(node, list) and isinstance(step, int) and 0 <= step < len(node):
            out.append(step)
            node = node[step]
        elif missing and isinstance(node, dict) and step == loc[-1]:
            out.append(step)  # a missing key or an unknown one
            break
    return tuple(out)


def _model_at(model: type[BaseModel], loc: YamlPath) -> type[BaseModel] | None:
    """The schema class that validates the node at a pydantic ``loc``, when it is a model."""
    t: Any = model
    for step in loc:
        t = _unwrap(t)
        if typing.get_origin(t) in _UNIONS:
            t = next((a for a in typing.get_args(t) if getattr(_unwrap(a), "__name__", None) == step), None)
            if t is not None:
                continue  # the step was the union member's tag
            return None
        if isinstance(t, type) and issubclass(t, BaseModel):
            field = next((f for n, f in t.model_fields.items() if (f.alias or n) == step), None)
            if field is None:
                return None
            t = field.annotation
        elif typing.get_origin(t) is list:
            t = typing.get_args(t)[0]
        elif typing.get_origin(t) is dict:
            t = typing.get_args(t)[1]
        else:
            return None
    t = _unwrap(t)
    return t if isinstance(t, type) and issubclass(t, BaseModel) else None


_UNIONS = (typing.Union, types.UnionType)


def _unwrap(t: Any) -> Any:
    """``Annotated[X, …]`` → X, ``Optional[X]`` → X (repeatedly)."""
    while True:
        if typing.get_origin(t) is typing.Annotated:
            t = typing.get_args(t)[0]
        elif typing.get_origin(t) in _UNIONS and type(None) in typing.get_args(t):
            rest = [a for a in typing.get_args(t) if a is not type(None)]
            t = rest[0] if len(rest) == 1 else typing.Union[tuple(rest)]  # noqa: UP007 (built at run time)
        else:
            return t


def _dotted(path: YamlPath) -> str:
    out = ""
    for step in path:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def validate(model: type[M], data: Any, file: str, text: str, *, prefix: YamlPath = (), root: Any = None) -> M:
    """``model.model_validate(data)``, or :class:`ScenarioError` at the YAML line and column
    of the first problem: an unknown key (at the key, with the keys allowed there), a missing
    key (at its mapping), a wrong type or a value out of bounds (at the value). ``prefix`` is
    where ``data`` sits inside ``root`` (the whole document), for positions and messages."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise schema_error(exc, model, data, file, text, prefix=prefix, root=root) from None


def schema_error(exc: ValidationError, model: type[BaseModel], data: Any, file: str, text: str, *,
                 prefix: YamlPath = (), root: Any = None) -> ScenarioError:
    """The first error of ``exc`` as a :class:`ScenarioError` (see :func:`validate`)."""
    errors = exc.errors(include_url=False)
    found = [(_data_path(data, tuple(e["loc"]), e["type"] == "missing"), e) for e in errors]
    root = data if root is None else root
    # a union's members fail at the same node: the one that got further is the one meant
    specific = [(p, e) for p, e in found if not any(len(q) > len(p) and q[:len(p)] == p for q, _ in found)]

    def order(item: tuple[YamlPath, ErrorDetails]) -> tuple[int, int]:
        where = node_location(file, root, prefix + item[0], key=item[1]["type"] == "extra_forbidden")
        return where.line, where.column

    path, first = min(specific, key=order)
    same = [e for p, e in found if p == path]
    full = prefix + path
    kind = first["type"]
    hint = None
    if kind == "extra_forbidden":
        msg = f"{_dotted(full[:-1]) + ': ' if full[:-1] else ''}unknown key {path[-1]!r}"
        where = node_location(file, root, full, key=True)
        parent = _model_at(model, tuple(first["loc"])[:-1])
        if parent is not None:
            keys = [f.alias or n for n, f in parent.model_fields.items()]
            close = did_you_mean(str(path[-1]), keys)
            hint = (f"{close} " if close else "") + "keys here: " + ", ".join(keys)
    elif kind == "missing":
        msg = f"{_dotted(full[:-1]) + ': ' if full[:-1] else ''}missing key `{path[-1]}`"
        where = node_location(file, root, full[:-1])
    else:
        reasons: list[str] = []
        for e in same:
            why = e["msg"].removeprefix("Value error, ")
            why = why if not reasons else why.removeprefix("Input should be ")
            if why not in reasons:
                reasons.append(why)
        got = repr(first.get("input"))
        got = got if len(got) <= MAX_WORD else got[:MAX_WORD] + "…"
        if "[key]" in first["loc"]:  # a mapping's key, not its value, is wrong
            msg = f"{_dotted(full[:-1]) or 'the file'}: key {path[-1]!r}: {' or '.join(reasons)}"
            where = node_location(file, root, full, key=True)
        else:
            msg = f"{_dotted(full) or 'the file'}: {' or '.join(reasons)}, not {got}"
            where = node_location(file, root, full)
    return ScenarioError(msg, where, hint=hint, source_text=text)
