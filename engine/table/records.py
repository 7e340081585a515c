"""Hand records: everything needed to play a hand again exactly, and what it settled.

A record (YAML or JSON, format ``mjrules-record/1``) holds the ruleset (name, file, options, and
the sha256 of every rule file it was compiled from), the seed, dealer and floor, the wall (the shuffled ring, or a scripted linear wall), every
dice throw, the previous hand's indicators, every action as text (``S discard 5p``) and the
result (winner, reading, fans, net 子 per part, and every settlement transfer). :func:`replay` rebuilds the game from it and
reports any difference from the recorded result. A record is read through :class:`RecordSpec`
(the safe YAML reading and the schema of :mod:`engine.lang.yamlio`).
"""
from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Literal, NotRequired, TypedDict

from pydantic import AfterValidator, Field, StringConstraints
from ruamel.yaml import YAML

from engine.core.scoring import Scorer
from engine.errors import MjError, ScenarioError
from engine.lang.compiler import compile_ruleset
from engine.lang.playable import DIE_FACES
from engine.lang.resources import is_bundled_file, rulesets_dir
from engine.lang.ruleset import Ruleset
from engine.lang.yamlio import (
    MAX_FILE_BYTES,
    MAX_FLOOR,
    MAX_ITEMS,
    MAX_SEED,
    MAX_TEXT,
    MAX_WORD,
    MAX_ZI,
    Strict,
    load_yaml,
    validate,
)
from engine.table.game import Action, Game

FORMAT = "mjrules-record/1"

# ---- the schema ------------------------------------------------------------------------------------

Word = Annotated[str, StringConstraints(max_length=MAX_WORD)]
Text = Annotated[str, StringConstraints(max_length=MAX_TEXT)]
Zi = Annotated[int, Field(ge=-MAX_ZI, le=MAX_ZI)]
Nets = Annotated[dict[Word, Zi], Field(max_length=MAX_WORD)]
Sha256 = Annotated[str, StringConstraints(pattern=r"^[0-9a-f]{64}$")]


def _floor(v: int) -> int:
    if not 1 <= v <= MAX_FLOOR:
        raise ValueError(f"`floor` must be a whole number ≥ 1 (at most {MAX_FLOOR})")
    return v


class TransferSpec(Strict):
    """One settlement transfer of the result."""

    when: Word
    part: Word
    payer: Word
    payee: Word
    amount: Zi
    rule: Text | None
    factors: Annotated[list[Text], Field(max_length=MAX_WORD)]


class ResultSpec(Strict):
    """The recorded outcome (:func:`result_summary`); every key is required and compared."""

    winner: Word | None
    by: Word
    reading: Text | None
    fans: Annotated[list[Text], Field(max_length=MAX_ITEMS)]
    follow_first: bool
    net: Annotated[dict[Text, Nets], Field(max_length=MAX_ITEMS)]
    total: Nets
    settlements: Annotated[list[TransferSpec], Field(max_length=MAX_ITEMS)]


class RecordSpec(Strict):
    """A record (format ``mjrules-record/1``). ``result`` may be left out (an unfinished hand),
    not emptied; ``ruleset_sha256`` maps each rule file (a bundled one by its file name) to the
    sha256 of its bytes."""

    format: Literal["mjrules-record/1"]
    ruleset: Text
    ruleset_file: Text | None = None
    ruleset_sha256: Annotated[dict[Text, Sha256], Field(min_length=1, max_length=MAX_WORD)]
    options: Annotated[dict[Word, Word | int | bool], Field(max_length=MAX_ITEMS)] = {}
    seed: Annotated[int, Field(ge=-MAX_SEED, le=MAX_SEED)] | None = None
    dealer: Word | None = None
    floor: Annotated[int, AfterValidator(_floor)] = 1
    ring: Annotated[list[Word], Field(max_length=MAX_ITEMS)] | None = None
    wall: Annotated[list[Word], Field(max_length=MAX_ITEMS)] | None = None
    dice: Annotated[list[Annotated[list[Annotated[int, Field(ge=1, le=DIE_FACES)]], Field(max_length=MAX_WORD)]],
                    Field(max_length=MAX_WORD)]
    previous_indicators: Annotated[dict[Word, Word], Field(max_length=MAX_WORD)] = {}
    actions: Annotated[list[Text], Field(max_length=MAX_ITEMS * MAX_WORD)]
    result: ResultSpec = None  # type: ignore[assignment]  # absent: an unfinished hand; null is refused


# ---- the ruleset's files ---------------------------------------------------------------------------


def _origin_files(rs: Ruleset) -> list[str]:
    """The rule files a ruleset was compiled from: its own file, then each file of its
    ``extends`` chain (:attr:`Ruleset.files`), whether or not a declaration of it survived."""
    return list(rs.files) or [rs.file]


def _file_key(file: str) -> str:
    """A bundled rule file by its file name (the record stays valid on another machine),
    another by its path."""
    return Path(file).name if is_bundled_file(file) else file


def _key_path(key: str) -> Path:
    bundled = rulesets_dir() / key
    return bundled if key == Path(key).name and bundled.is_file() else Path(key)


def file_sha256(path: Path) -> str:
    """The sha256 (hex) of a rule file's bytes; :class:`MjError` when it is not a readable
    ``.rules`` file of at most :data:`~engine.lang.yamlio.MAX_FILE_BYTES`."""
    try:
        if path.suffix != ".rules":
            raise MjError(f"the record names {path} as a ruleset file, which is not a .rules file")
        if not path.is_file():
            raise MjError(f"the record's ruleset file {path} is not there")
        if path.stat().st_size > MAX_FILE_BYTES:
            raise MjError(f"the record's ruleset file {path} is bigger than {MAX_FILE_BYTES} bytes")
        return hashlib.sha256(path.read_bytes()).hexdigest()
    except OSError as exc:
        raise MjError(f"cannot read the record's ruleset file {path}: {exc.strerror or exc}") from None


_HASHES: dict[int, tuple[Ruleset, dict[str, str]]] = {}


def ruleset_hashes(rs: Ruleset) -> dict[str, str]:
    """``{file: sha256}`` for every rule file ``rs`` was compiled from (see :func:`_file_key`)."""
    hit = _HASHES.get(id(rs))
    if hit is None or hit[0] is not rs:
        if len(_HASHES) > MAX_WORD:
            _HASHES.clear()
        hit = _HASHES[id(rs)] = (rs, {_file_key(f): file_sha256(Path(f)) for f in _origin_files(rs)})
    return dict(hit[1])


class TransferRow(TypedDict):
    """One settlement transfer of a result (:class:`TransferSpec` reads it back)."""

    when: str
    part: str
    payer: str
    payee: str
    amount: int
    rule: str | None
    factors: list[str]


class ResultSummary(TypedDict):
    """A finished hand's outcome (:class:`ResultSpec` reads it back)."""

    winner: str | None
    by: str
    reading: str | None
    fans: list[str]
    follow_first: bool
    net: dict[str, dict[str, int]]
    total: dict[str, int]
    settlements: list[TransferRow]


class Record(TypedDict):
    """A record as :func:`game_record` makes it (:class:`RecordSpec` reads it back)."""

    format: str
    ruleset: str
    ruleset_file: str | None
    ruleset_sha256: dict[str, str]
    options: dict[str, str]
    seed: int | None
    dealer: str
    floor: int
    ring: list[str] | None
    wall: list[str] | None
    dice: list[list[int]]
    previous_indicators: dict[str, str]
    actions: list[str]
    result: NotRequired[ResultSummary]


def result_summary(g: Game) -> ResultSummary:
    """The recorded outcome of a finished game: winner, how, reading, fans and nets by part."""
    r = g.result
    assert r is not None, "the game is finished"
    parts: dict[str, dict[str, int]] = {}
    for when, part, lg in r.parts:
        key = f"{when}:{part}"
        acc = parts.setdefault(key, dict.fromkeys(g.seats, 0))
        for s, v in lg.net(g.seats).items():
            acc[s] += v
    transfers = [TransferRow(when=when, part=part, payer=t.payer, payee=t.payee, amount=t.amount, rule=t.rule,
                             factors=list(t.factors)) for when, part, lg in r.parts for t in lg.transfers]
    return ResultSummary(winner=r.winner, by=r.win.by if r.win else "exhaustive", reading=r.reading,
                         fans=list(r.fans), follow_first=r.follow_first, net=parts, total=r.net(g.seats),
                         settlements=transfers)


def game_record(g: Game) -> Record:
    """A finished (or unfinished) game as a record dict, ready for YAML or JSON."""
    code = g.tiles.code
    rec = Record(
        format=FORMAT,
        ruleset=g.rs.name,
        # a bundled ruleset is named; another file is kept by its path
        ruleset_file=None if is_bundled_file(g.rs.file) else g.rs.file,
        ruleset_sha256=ruleset_hashes(g.rs),
        options={k: o.chosen for k, o in g.rs.options.items()},
        seed=g.seed,
        dealer=g.dealer,
        floor=g.floor,
        ring=[code(t) for t in g.ring] if g.ring is not None else None,
        wall=None if g.ring is not None else [code(t) for t in g.wall.tiles],
        dice=[list(r) for r in g.dice_rolls],
        previous_indicators={k: code(v) for k, v in g.previous_indicators.items()},
        actions=[a.text(g.scorer) for a in g.actions],
    )
    if g.result is not None:
        rec["result"] = result_summary(g)
    return rec


def to_yaml(data: object, compact: bool = True) -> str:
    """YAML text in the data's key order (ruamel.yaml); ``compact`` writes short lists inline."""
    y = YAML()
    y.allow_unicode = True
    y.default_flow_style = None if compact else False
    buf = io.StringIO()
    y.dump(data, buf)
    return buf.getvalue()


def dump(rec: Record | Mapping[str, object], path: Path) -> None:
    """Write a record as JSON (``.json``) or YAML (anything else)."""
    if path.suffix == ".json":
        path.write_text(json.dumps(rec, ensure_ascii=False, indent=1), encoding="utf-8")
    else:
        path.write_text(to_yaml(rec), encoding="utf-8")


def load(path: Path) -> dict[str, object]:
    """Read a record file (YAML or JSON) through the safe reader and :class:`RecordSpec`;
    :class:`ScenarioError` with file:line:col if it is not a record."""
    rec, text = load_yaml(path, "record")
    if not isinstance(rec, dict) or rec.get("format") != FORMAT:
        raise ScenarioError(f"{path} is not an mjrules record (format {FORMAT})")
    validate(RecordSpec, rec, str(path), text)
    return rec


def _check_ruleset(rec: RecordSpec) -> None:
    """Every rule file the record names is there with the bytes it had; :class:`MjError`
    naming the first that is missing or changed."""
    for key, want in rec.ruleset_sha256.items():
        path = _key_path(key)
        if file_sha256(path) != want:
            raise MjError(f"the ruleset file {path} changed since the record was made (sha256 {want}, "
                          f"now {file_sha256(path)})",
                          hint="replay it with the rule files it was made with")


def replay(rec: Record | Mapping[str, object]) -> tuple[Game, list[str]]:
    """Play a record again. Returns the game and the differences from the recorded result
    ([] when identical). Raises :class:`MjError` if the record cannot be played."""
    if not isinstance(rec, dict):
        raise MjError("a record is a mapping (format mjrules-record/1)")
    try:
        spec = validate(RecordSpec, rec, "<record>", "")
    except ScenarioError as exc:  # a record given as data has no lines to point at
        raise ScenarioError(exc.message, hint=exc.hint) from None
    _check_ruleset(spec)
    own = spec.ruleset_file
    if own and not Path(own).is_file():
        raise MjError(f"the record's ruleset file {own} is not there")
    rs = compile_ruleset(own or spec.ruleset, {k: str(v) for k, v in spec.options.items()})
    if rs.name != spec.ruleset:
        raise MjError(f"the record is of ruleset {spec.ruleset!r}, but {own or spec.ruleset} is {rs.name!r}")
    now = ruleset_hashes(rs)
    if set(now) != set(spec.ruleset_sha256):
        other = sorted(set(now) ^ set(spec.ruleset_sha256))[0]
        raise MjError(f"the ruleset's files changed since the record was made: {other} is "
                      + ("now read" if other in now else "no longer read"),
                      hint="replay it with the rule files it was made with")
    scorer = Scorer(rs)
    seats = [str(v) for v in rs.table["seats"].values]
    if spec.dealer is not None and spec.dealer not in seats:
        raise MjError(f"the record's dealer {spec.dealer!r} is not a seat", hint=f"seats: {' '.join(seats)}")
    parse = scorer.tiles.parse_one
    ring = [parse(c) for c in spec.ring] if spec.ring else None
    wall = [parse(c) for c in spec.wall] if spec.wall else None
    g = Game(rs, spec.seed, dealer=spec.dealer, floor=spec.floor, ring=ring, wall=wall,
             dice=[tuple(r) for r in spec.dice],
             previous_indicators={k: parse(v) for k, v in spec.previous_indicators.items()},
             scorer=scorer)
    for i, text in enumerate(spec.actions):
        try:
            g.apply(Action.parse(text, scorer))
        except MjError as exc:
            raise MjError(f"action {i + 1} ({text!r}) cannot be replayed: {exc.message}", hint=exc.hint) from None
    diffs = []
    if "result" not in rec or spec.result is None:
        diffs.append("the record has no result to compare with")
        return g, diffs
    if g.result is None:
        diffs.append(f"the actions end before the hand is over (phase {g.phase})")
        return g, diffs
    summary = result_summary(g)
    got: dict[str, object] = dict(summary)
    recorded: dict[str, object] = spec.result.model_dump()
    for key in ResultSpec.model_fields:  # the schema made every key present: each is compared
        want = recorded[key]
        if key == "settlements" and got[key] != want:
            rows, wanted = summary["settlements"], spec.result.model_dump()["settlements"]
            first = next((i for i, (a, b) in enumerate(zip(wanted, rows)) if a != b), min(len(wanted), len(rows)))
            w = wanted[first] if first < len(wanted) else None
            r = rows[first] if first < len(rows) else None
            diffs.append(f"settlements: transfer {first + 1} recorded {_plain(w)!r}, replayed {r!r}")
        elif got[key] != want:
            diffs.append(f"{key}: recorded {_plain(want)!r}, replayed {got[key]!r}")
    return g, diffs


def _plain(v: object) -> object:
    """ruamel's mappings and lists as plain ones (for messages)."""
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v
