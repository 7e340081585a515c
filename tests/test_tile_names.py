"""Tiles as players write them (`5万`, `五万`, `南`, `南风`), read beside the codes from the
ruleset's own `suit` and `honours` declarations, by TileSet.parse, `mjrules score` and the
terminal of `mjrules play`; an unknown name is a clear error that says what is accepted."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from engine.cli import app
from engine.core.tiles import TileSet
from engine.errors import ScenarioError
from engine.lang.compiler import compile_ruleset

MJRULES = [sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()"]


@pytest.fixture(scope="module")
def tiles() -> TileSet:
    return TileSet(compile_ruleset("nanchang"))


@pytest.mark.parametrize("written, codes", [
    ("5万", "5m"), ("五万", "5m"), ("六条", "6s"), ("九筒", "9p"), ("55万", "55m"), ("四五六万", "456m"),
    ("南", "南"), ("南风", "南"), ("中", "中"), ("2z", "南"), ("123m东5z", "123m东白"),
    ("456万 7条 东风 北", "456m7s东北"),
])
def test_players_names_read_as_the_codes(tiles, written, codes):
    assert tiles.parse(written) == tiles.parse(codes)


@pytest.mark.parametrize("bad", ["十万", "红中", "5x", "5", "0万", "万"])
def test_an_unknown_name_says_what_is_accepted(tiles, bad):
    with pytest.raises(ScenarioError) as e:
        tiles.parse(bad)
    hint = e.value.hint
    assert "5万" in hint and "五万" in hint and "东风" in hint and "1z" in hint and "(m, p, s)" in hint


def test_the_names_come_from_the_rule_file_not_from_python():
    rs = compile_ruleset("nanchang")  # the same tiles, labelled in traditional characters
    suits = {k: v.model_copy(update={"label": {"万": "萬", "条": "條"}.get(v.label, v.label)}) for k, v in rs.suits.items()}
    honours = {k: v.model_copy(update={"label": {"风": "風"}.get(v.label, v.label)}) for k, v in rs.honours.items()}
    t = TileSet(rs.model_copy(update={"suits": suits, "honours": honours}))
    assert t.format(t.parse("5萬 五萬 六條 南風 南")) == "55m6s南南"
    for written in ("5万", "南风"):
        with pytest.raises(ScenarioError):
            t.parse(written)  # this file does not call them so


def test_score_takes_names_beside_codes():
    runner = CliRunner()
    base = ["score", "--rules", "nanchang", "--jing", "3p", "--json", "--by", "discard", "--from", "W", "--win", "S"]
    coded = runner.invoke(app, [*base, "--hand", "S=456m789m123s东西7p3p", "--tile", "南"])
    named = runner.invoke(app, [*base, "--jing", "三筒", "--hand", "S=四五六万789万123条东风西7筒3p", "--tile", "南风"])
    assert coded.exit_code == named.exit_code == 0, named.output
    assert json.loads(named.stdout) == json.loads(coded.stdout)
    bad = runner.invoke(app, [*[a for a in base if a != "--json"], "--hand", "S=456m789m123s东西7p3p", "--tile", "红中"])
    assert bad.exit_code == 2 and "红中" in bad.output and "hint:" in bad.output and "5万" in bad.output


def test_play_takes_a_discard_written_by_name():
    from engine.table.match import Match

    rs = compile_ruleset("nanchang")
    g = Match(rs, 3).deal()  # `play --seed 3`: the dealer E decides first
    assert g.dealer == "E" and g.to_act() == ["E"]
    suited = next(k for k in sorted(g.hands["E"].concealed) if g.tiles.kinds[k].is_suit)
    kind = g.tiles.kinds[suited]
    name = "一二三四五六七八九"[kind.rank - 1] + g.tiles.groups[kind.group].label  # 五万
    p = subprocess.run([*MJRULES, "play", "nanchang", "--seed", "3", "--seat", "E"], input=f"discard {name}\n",
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 1, p.stderr  # the input ends at the next decision
    assert f"E discards {kind.code}" in p.stdout or f"E discard {kind.code}" in p.stdout, p.stdout[-2000:]
    assert "type a number" not in p.stdout.split("your choice:")[1].split("your choice:")[0]
