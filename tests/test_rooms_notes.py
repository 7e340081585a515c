"""The notes servers send each other (engine/tools/rooms/bus.py): a frame the owner ships to a
follower arrives as the seats get it, compressed when it would not fit in PostgreSQL's 8000
bytes, without a body when it would not fit even so; a malformed or oversized note is refused,
never sent on. No database needed: these are the notes' formats."""
from __future__ import annotations

import base64
import random
import re
import zlib

import pytest

from .extras import need_extra

orjson = need_extra("orjson", "serve")

from engine.tools.rooms.bus import frame_note, frame_text, parse_note  # noqa: E402
from engine.tools.rooms.caps import FRAME_BYTES, NOTE_BYTES  # noqa: E402
from engine.tools.rooms.store import CHANNEL, channel  # noqa: E402


def _frame(n_discards: int, seed: int = 1) -> str:
    rng = random.Random(seed)
    tiles = [f"{rng.randint(1, 9)}{rng.choice('mps')}" for _ in range(n_discards)]
    return orjson.dumps({"type": "state", "seat": "S", "version": 7, "view": {"discards": tiles,
                                                                             "label": "南昌麻将 正精 副精"}}).decode()


def _arrived(note: str) -> dict:
    msg = parse_note(note)
    assert msg is not None
    return msg


def test_a_small_frame_arrives_as_it_was_built():
    frame = _frame(20)
    note = frame_note("r1", "b", 7, "S", frame)
    assert len(note.encode()) <= NOTE_BYTES
    msg = _arrived(note)
    assert (msg["k"], msg["room"], msg["to"], msg["version"], msg["seat"], msg["z"]) == ("frame", "r1", "b", 7, "S", False)
    assert frame_text(msg) == frame  # the very text: the follower sends it on unparsed


def test_a_large_frame_is_compressed_to_fit_and_unpacks_to_the_same_text():
    frame = _frame(3_000)  # about 20 KB of JSON, Chinese included
    assert len(frame.encode()) > NOTE_BYTES
    note = frame_note("r1", "b", 9, None, frame)
    assert len(note.encode()) <= NOTE_BYTES
    msg = _arrived(note)
    assert msg["z"] is True and msg["seat"] is None  # a spectators' frame
    assert frame_text(msg) == frame


def test_a_frame_that_does_not_fit_even_compressed_goes_without_a_body():
    rng = random.Random(3)
    noise = "".join(rng.choice("abcdefghijklmnopqrstuvwxyz0123456789") for _ in range(40_000))
    frame = orjson.dumps({"type": "state", "view": noise}).decode()
    note = frame_note("r1", "b", 4, "E", frame)
    assert len(note.encode()) <= NOTE_BYTES
    msg = _arrived(note)
    assert "body" not in msg and msg["z"] is None
    assert frame_text(msg) is None  # the follower builds it from its replica


def test_a_compressed_body_that_unpacks_past_the_bound_is_refused():
    bomb = base64.b64encode(zlib.compress(b"0" * (FRAME_BYTES + 1), 9)).decode()
    assert len(bomb) < NOTE_BYTES  # it would fit in a note
    head = orjson.dumps({"k": "frame", "room": "r1", "to": "b", "version": 1, "seat": "E", "z": True}).decode()
    with pytest.raises(ValueError, match="unpacks past"):
        frame_text(_arrived(f"{head}\n{bomb}"))
    with pytest.raises(ValueError):
        frame_text(_arrived(f"{head}\nnot base64 at all!"))


def test_a_note_whose_header_is_not_a_json_object_is_dropped():
    assert parse_note("not json\n{}") is None
    assert parse_note("[1, 2]") is None
    assert parse_note('{"k": "moved", "room": "r"}') == {"k": "moved", "room": "r"}  # no body: none added


def test_each_server_has_a_channel_of_its_own_besides_the_common_one():
    a, b = channel("31017a40acb2c6fa1599dd8a183063a4-w1"), channel("31017a40acb2c6fa1599dd8a183063a4-w2")
    assert channel() == CHANNEL
    assert len({a, b, CHANNEL}) == 3
    for name in (a, b):  # LISTEN takes it unquoted; PostgreSQL keeps 63 bytes of a name
        assert re.fullmatch(r"[a-z_][a-z0-9_]*", name) and len(name) <= 63
