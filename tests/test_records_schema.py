"""Hand records are hostile input too: read through a schema (RecordSpec) and the bounded YAML
reader; a record names its rule files by sha256 and replay refuses one whose files changed; and
replay compares every field of the recorded result, so an emptied or edited result never
replays as identical."""
from __future__ import annotations

import copy
import json
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from engine import Scorer, compile_ruleset
from engine.cli import app
from engine.errors import MjError, ScenarioError
from engine.lang.resources import rulesets_dir
from engine.table.bots import BOTS
from engine.table.game import Game
from engine.table.records import ResultSpec, dump, game_record, load, replay, to_yaml

runner = CliRunner()


def play(ref: str, seed: int = 11) -> Game:
    scorer = Scorer(compile_ruleset(ref))
    g = Game(scorer.rs, seed, scorer=scorer)
    bots = {s: BOTS["greedy"](i) for i, s in enumerate(g.seats)}
    while not g.over:
        seat = g.to_act()[0]
        g.apply(bots[seat](g, seat))
    return g


@pytest.fixture(scope="module")
def record() -> dict:
    return game_record(play("nanchang-table"))


def replay_file(path: Path):
    return runner.invoke(app, ["replay", str(path)])


# ---- the ruleset's content hash --------------------------------------------------------------------


def test_a_record_names_every_rule_file_by_sha256(record):
    import hashlib

    want = {name: hashlib.sha256((rulesets_dir() / name).read_bytes()).hexdigest()
            for name in ("nanchang-table.rules", "nanchang.rules")}  # the file and the one it extends
    assert record["ruleset_sha256"] == want
    _, diffs = replay(record)
    assert diffs == []


def test_replay_refuses_a_record_whose_rule_file_changed(tmp_path):
    house = tmp_path / "house.rules"
    shutil.copy(rulesets_dir() / "nanchang.rules", house)
    rec = game_record(play(str(house), seed=3))
    assert list(rec["ruleset_sha256"]) == [str(house)]
    f = tmp_path / "hand.yaml"
    dump(rec, f)
    assert replay_file(f).exit_code == 0
    house.write_text(house.read_text(encoding="utf-8") + "# one more comment\n", encoding="utf-8")
    r = replay_file(f)
    assert r.exit_code == 2
    assert f"error: the ruleset file {house} changed since the record was made" in r.output
    assert "hint: replay it with the rule files it was made with" in r.output
    house.unlink()
    r = replay_file(f)
    assert r.exit_code == 2 and f"error: the record's ruleset file {house} is not there" in r.output


def test_a_chain_file_with_no_surviving_declaration_is_hashed_too(tmp_path):
    """A middle file that only extends (nothing of it survives in the IR) is still one of the
    record's files: adding a rule to it later makes replay refuse the record."""
    mid = tmp_path / "mid.rules"
    mid.write_text('ruleset mid "only extends"\nextends nanchang\n', encoding="utf-8")
    top = tmp_path / "top.rules"
    top.write_text('ruleset top "x"\nextends "mid.rules"\n', encoding="utf-8")
    rec = game_record(play(str(top), seed=3))
    assert list(rec["ruleset_sha256"]) == [str(top), str(mid), "nanchang.rules"]
    f = tmp_path / "hand.yaml"
    dump(rec, f)
    assert replay_file(f).exit_code == 0
    mid.write_text(mid.read_text(encoding="utf-8") + "remove meld 风顺\n", encoding="utf-8")
    r = replay_file(f)
    assert r.exit_code == 2 and f"error: the ruleset file {mid} changed since the record was made" in r.output


def test_replay_refuses_a_changed_parent_and_a_wrong_hash(record, tmp_path):
    rec = copy.deepcopy(record)
    rec["ruleset_sha256"]["nanchang.rules"] = "0" * 64
    with pytest.raises(MjError, match=r"the ruleset file .*nanchang\.rules changed since the record was made"):
        replay(rec)
    rec = copy.deepcopy(record)
    del rec["ruleset_sha256"]["nanchang.rules"]
    with pytest.raises(MjError, match="the ruleset's files changed since the record was made: nanchang.rules is now read"):
        replay(rec)
    rec = copy.deepcopy(record)
    rec["ruleset_sha256"]["nanchang.rules"] = "not a hash"
    with pytest.raises(ScenarioError, match=r"ruleset_sha256\.nanchang\.rules: String should match pattern"):
        replay(rec)
    rec = copy.deepcopy(record)
    del rec["ruleset_sha256"]
    with pytest.raises(ScenarioError, match="missing key `ruleset_sha256`"):
        replay(rec)


# ---- every field of the result is compared ---------------------------------------------------------


def test_an_emptied_result_is_refused(record, tmp_path):
    f = tmp_path / "hand.yaml"
    for empty, says in [("result: {}\n", "result: missing key `winner`"),
                        ("result:\n", "result: Input should be a valid dictionary")]:
        text = to_yaml({k: v for k, v in record.items() if k != "result"}) + empty
        f.write_text(text, encoding="utf-8")
        r = replay_file(f)
        assert r.exit_code == 2, r.output
        assert says in r.output
    line = text.count("\n") - 1  # `result: {}`, the last line: the error points at its `{}`
    f.write_text(text.replace("result:\n", "result: {}\n"), encoding="utf-8")
    assert f"{f}:{line + 1}:9: error: result: missing key `winner`" in replay_file(f).output
    f.write_text(to_yaml({k: v for k, v in record.items() if k != "result"}), encoding="utf-8")
    r = replay_file(f)  # no result at all: an unfinished hand's record; this one is over, so it differs
    assert r.exit_code == 1 and "the record has no result to compare with" in r.output


EDITS = {
    "winner": lambda v: "N" if v != "N" else "E",
    "by": lambda v: "rob_kong" if v != "rob_kong" else "discard",
    "reading": lambda v: f"{v}x",
    "fans": lambda v: [*v, "天胡"],
    "follow_first": lambda v: not v,
    "net": lambda v: {**v, "end:hand": {s: n + 1 for s, n in v["end:hand"].items()}},
    "total": lambda v: {s: n + (1 if i == 0 else 0) for i, (s, n) in enumerate(v.items())},
    "settlements": lambda v: [{**v[0], "amount": v[0]["amount"] + 1}, *v[1:]],
}


def test_the_edits_cover_every_result_field():
    assert set(EDITS) == set(ResultSpec.model_fields)


@pytest.mark.parametrize("key", sorted(EDITS))
def test_any_edited_result_field_differs(record, key):
    rec = copy.deepcopy(record)
    rec["result"][key] = EDITS[key](rec["result"][key])
    _, diffs = replay(rec)
    assert len(diffs) == 1 and diffs[0].startswith(f"{key}: " if key != "settlements" else "settlements: transfer 1")


def test_an_extra_or_missing_result_field_is_refused(record):
    rec = copy.deepcopy(record)
    rec["result"]["bonus"] = 1
    with pytest.raises(ScenarioError, match="result: unknown key 'bonus'"):
        replay(rec)
    rec = copy.deepcopy(record)
    del rec["result"]["settlements"]
    with pytest.raises(ScenarioError, match="result: missing key `settlements`"):
        replay(rec)


# ---- the schema and the safe reader ------------------------------------------------------------------


def test_record_schema_errors_have_line_and_column(record, tmp_path):
    f = tmp_path / "hand.yaml"
    good = to_yaml(record)
    for old, new, col, says in [("seed:", "sead:", 1, "unknown key 'sead'"),
                                ("dealer: E", "dealer: [E]", 9, "dealer: Input should be a valid string"),
                                ("floor: 1", "floor: 10000", 8, "floor: `floor` must be a whole number"),
                                ("floor: 1", "floor: 1.5", 8, "floor: Input should be a valid integer")]:
        text = good.replace(old, new, 1)
        f.write_text(text, encoding="utf-8")
        line = next(i for i, r in enumerate(text.splitlines(), 1) if r.startswith(new.split(":")[0] + ":"))
        r = replay_file(f)
        assert r.exit_code == 2, (old, r.output)
        assert f"{f}:{line}:{col}: error: {says}" in r.output, r.output


def test_json_records_replay_and_are_read_safely(record, tmp_path):
    f = tmp_path / "hand.json"
    dump(record, f)
    r = runner.invoke(app, ["replay", str(f), "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["identical"] is True
    f.write_bytes(f.read_bytes().replace(b'"dealer"', b'"deal\xff"', 1))
    with pytest.raises(ScenarioError, match=r"the record is not UTF-8 text \(byte 0xff\)"):
        load(f)


def test_billion_laughs_record_is_refused(tmp_path):
    rows = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        rows.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 10) + "]")
    f = tmp_path / "lol.yaml"
    f.write_text("format: mjrules-record/1\n" + "\n".join(rows) + "\n", encoding="utf-8")
    r = replay_file(f)
    assert r.exit_code == 2 and f"{f}:6:" in r.output and "values once aliases are expanded" in r.output


def test_nul_and_not_a_record(tmp_path):
    f = tmp_path / "x.yaml"
    f.write_bytes(b"format: mjrules-record/1\nseed: 1\0\n")
    r = replay_file(f)
    assert r.exit_code == 2 and f"{f}:2:8: error: the record holds a NUL byte" in r.output
    f.write_text("- 1\n- 2\n", encoding="utf-8")
    r = replay_file(f)
    assert r.exit_code == 2 and f"{f} is not an mjrules record" in r.output
