"""Ruleset names: a bare name (no `/`, no `.rules` suffix) is ALWAYS a bundled ruleset; a file is
given as a path (./x.rules, house/a.rules, x.rules, absolute). A local file never stands in for
a bundled ruleset — on the command line, in `extends`, or in a scenario file.
"""
from __future__ import annotations

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.errors import RuleError, ScenarioError
from engine.lang.compiler import compile_ruleset
from engine.lang.resources import bundled_ruleset_names, is_bundled_ref, resolve_ruleset_path, rulesets_dir
from engine.tools.scenario import run_file

runner = CliRunner()
BUNDLED = bundled_ruleset_names()
NAME = "nanchang" if "nanchang" in BUNDLED else BUNDLED[0]


@pytest.fixture
def local_copy(tmp_path, monkeypatch):
    """A changed copy of a bundled ruleset, under the same name, in the working directory."""
    text = (rulesets_dir() / f"{NAME}.rules").read_text(encoding="utf-8")
    (tmp_path / f"{NAME}.rules").write_text(text + "\nfan 本地 = x2 when discard\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.parametrize("ref, bundled", [
    ("nanchang", True), ("nanchang-table", True), ("wuhan", True), ("notes.yaml", True),
    ("x.rules", False), ("./nanchang", False), ("house/a.rules", False), ("/abs/x.rules", False),
])
def test_what_is_a_bare_name(ref, bundled):
    assert is_bundled_ref(ref) is bundled


def test_a_bare_name_is_bundled_even_beside_a_local_file(local_copy):
    assert resolve_ruleset_path(NAME) == rulesets_dir() / f"{NAME}.rules"
    assert "本地" not in compile_ruleset(NAME).fans
    assert "本地" in compile_ruleset(f"./{NAME}.rules").fans
    assert "本地" in compile_ruleset(f"{NAME}.rules").fans  # a .rules suffix makes it a path


def test_diff_of_a_bundled_name_and_a_local_file_of_the_same_name(local_copy):
    r = runner.invoke(app, ["diff", NAME, f"./{NAME}.rules"])
    assert r.exit_code == 1, r.output
    assert "+ fan.本地 = x2 when discard" in r.output
    assert r.output.rstrip().endswith("1 difference: 1 added, 0 removed, 0 changed")
    # the two sides read differently: the bundled file is marked as such (the fresh-clone review)
    assert f"--- {NAME}  (<bundled>/{NAME}.rules)" in r.output and f"+++ {NAME}  ({NAME}.rules)" in r.output


def test_extends_a_bare_name_is_bundled_even_beside_a_local_file(local_copy):
    child = local_copy / "child.rules"
    child.write_text(f"extends {NAME}\n", encoding="utf-8")
    assert "本地" not in compile_ruleset(str(child)).fans
    child.write_text(f'extends "{NAME}.rules"\n', encoding="utf-8")
    assert "本地" in compile_ruleset(str(child)).fans


def test_a_bare_name_that_is_not_bundled(tmp_path, monkeypatch):
    (tmp_path / "wuhan.rules").write_text("extends nanchang\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(RuleError) as info:
        compile_ruleset("wuhan")
    assert info.value.message == "no bundled ruleset 'wuhan'"
    assert info.value.hint == f"bundled rulesets: {', '.join(BUNDLED)}; to use a file, give a path like ./wuhan.rules"
    r = runner.invoke(app, ["check", "wuhan"])
    assert r.exit_code == 2
    assert r.output.splitlines() == ["error: no bundled ruleset 'wuhan'", f"hint: {info.value.hint}"]
    assert runner.invoke(app, ["check", "./wuhan.rules"]).exit_code == 0


def test_paths_of_every_form(tmp_path, monkeypatch):
    sub = tmp_path / "house"
    sub.mkdir()
    (sub / "a.rules").write_text(f"extends {NAME}\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    for ref in ("house/a.rules", "./house/a.rules", str(sub / "a.rules")):
        assert compile_ruleset(ref).name == "a", ref
    with pytest.raises(RuleError) as info:
        compile_ruleset("house/b.rules")
    assert info.value.message == "no rule file 'house/b.rules'"
    with pytest.raises(RuleError) as info:
        compile_ruleset("./house")
    assert info.value.message == "'./house' is a directory, not a rule file"


def test_a_path_that_cannot_be_a_file():
    for ref in ("", "a\x00b.rules", "x/" + "y" * 5000 + ".rules"):
        with pytest.raises(RuleError):
            compile_ruleset(ref)
    r = runner.invoke(app, ["check", "/dev/null"])
    assert r.exit_code == 2 and r.output.startswith("error: '/dev/null' is not a regular file")


def test_scenario_ruleset_path_is_relative_to_the_scenario(tmp_path, monkeypatch):
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "house.rules").write_text(f"extends {NAME}\n", encoding="utf-8")
    (tmp_path / "house.rules").write_text("this is not the file\n", encoding="utf-8")
    scen = tmp_path / "cases" / "s.yaml"
    scen.write_text("ruleset: house.rules\ncases: []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    # the ruleset compiled (from cases/house.rules, not ./house.rules): the next check speaks
    with pytest.raises(ScenarioError, match="cases: List should have at least 1 item"):
        run_file(scen)
    scen.write_text(f"ruleset: {NAME}\ncases: []\n", encoding="utf-8")
    (tmp_path / "cases" / f"{NAME}.rules").write_text("not a rule file\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match="cases: List should have at least 1 item"):
        run_file(scen)  # the bare name is the bundled ruleset, not the file beside the scenario


SECRET = "root:TOPSECRET:0:0\n"


@pytest.fixture()
def secret(tmp_path):
    """A file that is not a rule file, as /etc/shadow would be, and a link to it named x.rules."""
    s = tmp_path / "shadow"
    s.write_text(SECRET, encoding="utf-8")
    (tmp_path / "x.rules").symlink_to(s)
    return s


@pytest.mark.parametrize("how", ["check", "scenario", "record", "extends", "link"])
def test_no_route_reads_a_file_that_is_not_a_rule_file(secret, tmp_path, how):
    """Found by the fresh-clone review: a scenario's `ruleset:` or a record's `ruleset_file:`
    naming /etc/shadow printed its first line in the syntax error. Only a file whose name (and
    whose link's target) ends in .rules is read as rules; the error shows none of the file."""
    if how == "check":
        r = runner.invoke(app, ["check", str(secret)])
    elif how == "scenario":
        (tmp_path / "s.yaml").write_text(f"ruleset: {secret}\ncases:\n  - name: a\n    win: {{seat: S, tile: 1m, by: self_draw}}\n"
                                         "    hands: {S: 1m}\n    expect: {hand: {S: 1}}\n", encoding="utf-8")
        r = runner.invoke(app, ["test", str(tmp_path / "s.yaml")])
    elif how == "record":
        from engine.table.records import dump, game_record
        from tests.test_records_schema import play
        rec = game_record(play("nanchang", seed=3))
        rec["ruleset_file"] = str(secret)
        dump(rec, tmp_path / "rec.yaml")
        r = runner.invoke(app, ["replay", str(tmp_path / "rec.yaml")])
    elif how == "extends":
        (tmp_path / "h.rules").write_text(f'ruleset h "x"\nextends "{secret}"\n', encoding="utf-8")
        r = runner.invoke(app, ["check", str(tmp_path / "h.rules")])
    else:
        (tmp_path / "h.rules").write_text('ruleset h "x"\nextends "x.rules"\n', encoding="utf-8")
        r = runner.invoke(app, ["check", str(tmp_path / "h.rules")])
    assert r.exit_code == 2, r.output
    assert "TOPSECRET" not in r.output
    assert "not a .rules file" in r.output
