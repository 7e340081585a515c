"""Hostile command lines: every bad flag value exits 2 with a message naming the flag, work is
bounded before it starts, a closed pipe or Ctrl-C stops cleanly, and the exit codes are the ones
docs/cli.md tables (each produced by some command)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

import engine.cli as cli
from engine.cli import EXIT_CODES, MAX_HANDS, MAX_PLAY_HANDS, MAX_SEED, app, main

ROOT = Path(__file__).resolve().parent.parent
runner = CliRunner()
MJRULES = [sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()"]

HAND = ["--hand", "S=456m789m123s东西7p3p"]
SCORE = ["score", "--rules", "nanchang", "--jing", "3p", *HAND]
WIN = ["--win", "S", "--tile", "南", "--by", "discard", "--from", "W"]


def run(args: list[str]):
    return runner.invoke(app, args)


# ---- score --------------------------------------------------------------------------------------


@pytest.mark.parametrize("extra, says", [
    (["--tile", "南"], "--tile describes a win, but no --win is given"),
    (["--by", "discard"], "--by describes a win, but no --win is given"),
    (["--from", "W"], "--from describes a win, but no --win is given"),
    (["--first-turn"], "--first-turn describes a win, but no --win is given"),
    (["--tile", "南", "--from", "W"], "--tile/--from describe a win, but no --win is given"),
])
def test_score_refuses_win_flags_without_win(extra, says):
    r = run(SCORE + extra)
    assert r.exit_code == 2, r.output
    assert says in r.stderr
    assert "hint: add --win SEAT, or leave out" in r.stderr


@pytest.mark.parametrize("change, says", [
    ({"--win": "X"}, "error: --win 'X' is not a seat"),
    ({"--from": "Q"}, "error: --from 'Q' is not a seat"),
    ({"--by": "nonsense"}, "error: --by 'nonsense' is not one of discard, self_draw, kong_draw, rob_kong"),
    ({"--tile": "9x"}, "error: --tile '9x': no tile '9x'"),
    ({"--tile": "南南"}, "error: --tile '南南': expected one tile, got 2"),
    ({"--jing": "3x"}, "error: --jing '3x': no tile '3x'"),
    ({"--from": "S"}, "error: --from S is the winner"),
])
def test_score_bad_values_name_the_flag(change, says):
    args = SCORE + WIN
    for flag, value in change.items():
        args[args.index(flag) + 1] = value
    r = run(args)
    assert r.exit_code == 2, r.output
    assert says in r.stderr
    assert "Traceback" not in r.output


@pytest.mark.parametrize("extra, says", [
    (["--lower", "0p"], "error: --lower '0p'"),
    (["--dealer", "Z"], "error: --dealer 'Z' is not a seat"),
    (["--indicator", "upper"], "error: --indicator 'upper' is not NAME=VALUE"),
    (["--indicator", "left=5p"], "error: --indicator left=5p: the ruleset declares no indicator 'left'"),
    (["--indicator", "lower=xx"], "error: --indicator 'lower=xx': cannot read tile"),
    (["--hand", "Q=1m"], "error: --hand 'Q=1m': no seat 'Q'"),
    (["--hand", "N=1s; pung 777x from W"], "error: --hand 'N=1s; pung 777x from W':"),
    (["--hand", "N=1s; pong 777p from W"], "error: --hand 'N=1s; pong 777p from W': cannot read meld"),
    (["--hand", "N"], "error: --hand 'N': write SEAT=TILES"),
    (["--indicator", "lower=1m", "--indicator", "lower=2m"], "error: --indicator gives 'lower' twice"),
])
def test_score_more_bad_values_name_the_flag(extra, says):
    r = run(SCORE + WIN + extra)
    assert r.exit_code == 2, r.output
    assert says in r.stderr


@pytest.mark.parametrize("floor", ["0", "-5", "10001", "99999999999999999999"])
def test_score_floor_is_bounded(floor):
    r = run(SCORE + WIN + ["--floor", floor])
    assert r.exit_code == 2
    assert "Invalid value for '--floor'" in r.stderr


def test_score_needs_from_on_a_discard():
    r = run(SCORE + ["--win", "S", "--tile", "南", "--by", "discard"])
    assert r.exit_code == 2
    assert "--by discard needs --from SEAT" in r.stderr


def test_score_without_jing_says_so():
    args = ["score", "--rules", "nanchang", *HAND, *WIN]
    r = run(args)
    assert r.exit_code == 1  # without 精 this hand does not win
    assert r.stderr.startswith("note: no --jing given: scored with no ")  # the note explains the refusal
    assert "error: seat S has no winning hand" in r.stderr
    ok = run(["score", "--rules", "nanchang", "--hand", "E=1m"])
    assert ok.exit_code == 0
    assert ok.stderr.startswith("note: no --jing given: scored with no ")
    assert "(no 精 wilds, no 精 settlement)" in ok.stderr
    data = json.loads(run(["score", "--rules", "nanchang", "--hand", "E=1m", "--json"]).stdout)
    assert data["notes"] and data["notes"][0].startswith("no --jing given")
    assert json.loads(run(SCORE + WIN + ["--json"]).stdout)["notes"] == []
    assert "note:" not in run(SCORE + WIN).stderr


def test_score_a_hand_that_does_not_win_is_exit_1_not_2():
    r = run(["score", "--rules", "nanchang", "--jing", "3p", "--hand", "E=147m257p36s东南西北中", "--win", "E", "--tile", "发"])
    assert r.exit_code == 1 and "no winning hand" in r.stderr


# ---- bounds on the work ---------------------------------------------------------------------------


@pytest.mark.parametrize("args, says", [
    (["simulate", "nanchang", "-n", str(MAX_HANDS + 1)], f"error: -n/--hands {MAX_HANDS + 1}: at most 1,000,000 hands"),
    (["simulate", "nanchang", "-n", "1", "--workers", str(10**9)], "error: --workers 1000000000: at most"),
    (["diff", "nanchang", "chongguan", "--impact", str(10**8)], "error: --impact 100000000: at most 1,000,000"),
    (["play", "nanchang", "--auto", "--hands", str(MAX_PLAY_HANDS + 1)], f"error: --hands {MAX_PLAY_HANDS + 1}: at most 1,000 hands"),
])
def test_too_much_work_is_refused_before_it_starts(args, says):
    r = run(args)
    assert r.exit_code == 2, r.output
    assert says in r.stderr


@pytest.mark.parametrize("args, flag", [
    (["simulate", "nanchang", "-n", "0"], "'-n' / '--hands'"),
    (["simulate", "nanchang", "-n", "-3"], "'-n' / '--hands'"),
    (["simulate", "nanchang", "-n", "1", "--workers", "0"], "'--workers'"),
    (["simulate", "nanchang", "-n", "1", "--seed", "-1"], "'--seed'"),
    (["simulate", "nanchang", "-n", "1", "--seed", str(MAX_SEED + 1)], "'--seed'"),
    (["simulate", "nanchang", "-n", "1", "--seed", "x"], "'--seed'"),
    (["play", "nanchang", "--auto", "--seed", "-4"], "'--seed'"),
    (["play", "nanchang", "--auto", "--hands", "0"], "'--hands'"),
    (["diff", "nanchang", "chongguan", "--impact", "-1"], "'--impact'"),
    (["diff", "nanchang", "chongguan", "--impact", "2", "--seed", str(2**40)], "'--seed'"),
])
def test_out_of_range_numbers_name_the_flag(args, flag):
    r = run(args)
    assert r.exit_code == 2
    assert f"Invalid value for {flag}" in r.stderr


@pytest.mark.parametrize("args, says", [
    (["simulate", "nanchang", "-n", "1", "--records", "{file}"], "--records: cannot write records in {file}: File exists"),
    (["play", "nanchang", "--auto", "--record", "{file}"], "--record: cannot write records in {file}: File exists"),
    (["simulate", "nanchang", "-n", "1", "--records", "/proc/mjrules-nope"], "--records: cannot write records in /proc/mjrules-nope"),
    (["sheet", "nanchang", "-O", "/missing/dir/x.md"], "error: --output /missing/dir/x.md: no folder /missing/dir"),
    (["sheet", "nanchang", "-O", "{dir}"], "error: --output {dir}: cannot write the sheet there: Is a directory"),
    (["simulate", "nanchang", "-n", "1", "--bots", "greedy,foo"], "error: --bots 'greedy,foo': 'foo': no such bot"),
    (["simulate", "nanchang", "-n", "1", "--bots", "greedy,random"], "error: --bots 'greedy,random': give one kind, or one per seat in seat order (4: "),
    (["play", "nanchang", "--auto", "--bots", "foo"], "error: --bots 'foo': no such bot"),
    (["play", "nanchang", "--auto", "--bots", "search:0"], "error: --bots 'search:0': the budget is a whole number"),
    (["play", "nanchang", "--seat", "X"], "error: --seat 'X': no seat 'X'"),
    (["diff", "nanchang", "chongguan", "--seed", "3"], "error: --seed is the seed of the --impact hands, and no --impact"),
])
def test_unusable_paths_and_names_exit_2(tmp_path: Path, args, says):
    blocker = tmp_path / "a-file"
    blocker.write_text("x", encoding="utf-8")
    fill = {"file": str(blocker), "dir": str(tmp_path)}
    r = run([a.format(**fill) for a in args])
    assert r.exit_code == 2, r.output
    assert says.format(**fill) in r.stderr
    assert blocker.read_text(encoding="utf-8") == "x"


def test_sheet_writes_where_it_may(tmp_path: Path):
    r = run(["sheet", "nanchang", "-O", str(tmp_path / "s.md")])
    assert r.exit_code == 0
    assert (tmp_path / "s.md").read_text(encoding="utf-8").startswith("# ")


# ---- --json: the commands that take it -----------------------------------------------------------


def test_every_command_but_play_and_sheet_takes_json():
    """What README.md and docs/cli.md say: every command but play, sheet and lsp takes --json."""
    group = typer.main.get_command(app)
    takes = {name for name, cmd in group.commands.items()
             if any("--json" in p.opts for p in cmd.params)}
    assert set(group.commands) - takes == {"play", "sheet", "lsp"}
    docs = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    line = next(ln for ln in docs.splitlines() if "take `--json`" in ln)
    assert set(re.findall(r"`(\w+)`", line.split("take")[0])) == takes
    assert "Every command but `play`, `sheet` and `lsp` takes `--json`" in (ROOT / "README.md").read_text(encoding="utf-8")


# ---- exit codes ----------------------------------------------------------------------------------


def documented_codes() -> dict[int, str]:
    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    section = text.split("## Exit status", 1)[1].split("\n## ", 1)[0]
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\| (\d+) \| (.+) \|$", section, re.M)}


def test_exit_codes_are_one_table_everywhere():
    docs = documented_codes()
    assert set(docs) == set(EXIT_CODES) == {0, 1, 2, 3, 130, 141}
    epilog = " ".join(run(["--help"]).stdout.split())
    doc = cli.__doc__
    for code in EXIT_CODES:
        assert re.search(rf"\b{code} ", epilog.split("Exit status:", 1)[1]), code
        assert re.search(rf"\b{code} ", doc), code
    assert "a bug in mjrules" in docs[3] and "a bug in mjrules" in EXIT_CODES[3]
    assert "docs/cli.md" in (ROOT / "README.md").read_text(encoding="utf-8")


def _in_process(monkeypatch, capsys, argv: list[str]) -> tuple[int, str, str]:
    """Run main() as the console script would, with ``argv``; (exit code, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["mjrules", *argv])
    with pytest.raises(SystemExit) as exc:
        main()
    cap = capsys.readouterr()
    return exc.value.code, cap.out, cap.err


def test_an_internal_error_is_exit_3_in_one_line(monkeypatch, capsys):
    import engine.tools.sheet

    def boom(rs):
        raise RuntimeError("planted bug")

    monkeypatch.setattr(engine.tools.sheet, "rule_sheet", boom)
    monkeypatch.delenv("MJRULES_DEBUG", raising=False)
    code, _, err = _in_process(monkeypatch, capsys, ["sheet", "nanchang"])
    assert code == 3
    assert err.splitlines()[0] == "internal error: RuntimeError: planted bug"
    assert "Traceback" not in err

    def long_bug(rs):
        raise RuntimeError("x" * 5000 + "\nsecond line")

    monkeypatch.setattr(engine.tools.sheet, "rule_sheet", long_bug)
    code, _, err = _in_process(monkeypatch, capsys, ["sheet", "nanchang"])
    first, second = err.splitlines()
    assert code == 3 and first.startswith("internal error: RuntimeError: xxx") and first.endswith("x …")
    assert len(first) < 400 and second.startswith("this is a bug in mjrules")


def test_ctrl_c_anywhere_is_exit_130_with_one_line(monkeypatch, capsys):
    import engine.tools.sheet

    def interrupted(rs):
        raise KeyboardInterrupt

    monkeypatch.setattr(engine.tools.sheet, "rule_sheet", interrupted)
    code, out, err = _in_process(monkeypatch, capsys, ["sheet", "nanchang"])
    assert code == 130
    assert err.strip().splitlines() == ["interrupted (Ctrl-C): stopped, nothing more done"]
    assert out == ""


def _closed_stdout(args: list[str]) -> tuple[int, str]:
    p = subprocess.Popen([*MJRULES, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
    p.stdout.close()  # the reader is gone before the first line is written
    err = p.stderr.read().decode("utf-8", "replace")
    return p.wait(timeout=120), err


@pytest.mark.parametrize("args", [["check", "nanchang"], ["sheet", "nanchang"], ["check", "nanchang", "--json"],
                                  ["simulate", "nanchang", "-n", "2"], ["diff", "nanchang", "chongguan"]], ids=" ".join)
def test_a_closed_pipe_stops_silently_with_141(args):
    code, err = _closed_stdout(args)
    assert (code, err) == (141, "")


def test_head_of_a_pipe_is_quiet():
    done = subprocess.run(["bash", "-c", 'mjrules check nanchang | head -1; echo "status ${PIPESTATUS[0]}"'],
                          capture_output=True, cwd=ROOT, timeout=120,
                          env={**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"})
    lines = done.stdout.decode().splitlines()
    assert lines[0].startswith("ok: nanchang")
    assert lines[1] in ("status 0", "status 141")
    assert done.stderr == b""


def test_ctrl_c_in_a_real_process_is_130():
    """A terminal's Ctrl-C (SIGINT to the process group) while play waits for a move."""
    # as a terminal starts it: SIGINT at its default (a job started in the background of a
    # script, as `.ci/run &` is, inherits SIGINT ignored, and then Ctrl-C rightly does nothing)
    p = subprocess.Popen([*MJRULES, "play", "nanchang", "--seed", "1"], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    first = p.stdout.readline().decode()  # main() is running: the match has begun
    assert "seed 1; you are S" in first
    os.killpg(p.pid, signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err.decode()[-2000:]
    assert err.decode().strip().splitlines() == ["interrupted (Ctrl-C): stopped, nothing more done"]


def test_non_utf8_arguments_are_echoed_escaped(tmp_path: Path):
    bad = os.fsencode(tmp_path) + b"/bad\xfe.rules"
    Path(os.fsdecode(bad)).write_text('ruleset x "y"\nextends nanchang\nfan 中 = x2 when nonsense\n', encoding="utf-8")
    done = subprocess.run([os.fsencode(a) for a in MJRULES] + [b"check", bad], capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert b"bad\\udcfe.rules:3:17: error: unknown fact 'nonsense'" in done.stderr
    done = subprocess.run([os.fsencode(a) for a in MJRULES] + [b"score", b"--rules", b"nanchang", b"--hand", b"S=\xff"],
                          capture_output=True, cwd=ROOT, timeout=120)
    assert done.returncode == 2
    assert done.stderr.startswith(b"error: --hand 'S=\\udcff':")


def test_every_documented_code_is_produced(monkeypatch, capsys, tmp_path):
    """0, 1, 2 from ordinary commands; 3, 130 and 141 as the tests above produce them."""
    produced = {
        run(["check", "nanchang"]).exit_code,
        run(["diff", "nanchang", "chongguan"]).exit_code,
        run(["check", "nanchan"]).exit_code,
        _closed_stdout(["check", "nanchang"])[0],
    }
    import engine.tools.sheet

    for exc, in ((RuntimeError("bug"),), (KeyboardInterrupt(),)):
        def raise_it(rs, exc=exc):
            raise exc

        monkeypatch.setattr(engine.tools.sheet, "rule_sheet", raise_it)
        produced.add(_in_process(monkeypatch, capsys, ["sheet", "nanchang"])[0])
    assert produced == set(EXIT_CODES) == set(documented_codes())


def test_score_exit_2_for_a_table_play_cannot_produce_and_1_for_no_win():
    """An impossible snapshot is bad input (2); a possible one that does not win is a 'no' (1)."""
    base = ["score", "-r", "nanchang", "--jing", "3p", "-H", "S=123m456m789s东南西3p", "--win", "S",
            "--by", "discard", "--from", "W"]
    r = runner.invoke(app, [*base, "--tile", "中", "--first-turn"])
    assert r.exit_code == 2, r.output
    assert "a first-turn discard is the dealer's, and W is not the dealer (E)" in r.output
    r = runner.invoke(app, [*base[:4], "1s", "-H", "S=123m456m789s东南西2p", *base[7:], "--tile", "9p"])
    assert r.exit_code == 1, r.output
    assert "no winning hand" in r.output


def test_payments_past_the_bound_are_a_clear_error_not_an_overflow(tmp_path):
    """120 fans of x1000 that all fire made `simulate` crash averaging a 10^360 子 payment
    (OverflowError, exit 3); a transfer past MAX_AMOUNT is now a RuleError naming the rules."""
    big = tmp_path / "big.rules"
    big.write_text('ruleset big "x"\nextends nanchang\n' + "".join(
        f"fan big{i} = x1000 when discard or self_drawn or robbed_kong\n" for i in range(120)), encoding="utf-8")
    r = runner.invoke(app, ["simulate", str(big), "-n", "8"])
    assert r.exit_code == 2, r.output
    assert "子 a transfer" in r.output and "fan.big1 x1000" in r.output
    assert "lower them" in r.output


def test_a_usage_error_is_json_with_json(tmp_path):
    """A flag value click refuses before the command runs (here -n 0) exits 2 like the command's
    own errors, and with --json says so as JSON on stdout."""
    import json as _json
    import subprocess
    import sys

    run = [sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()"]
    done = subprocess.run([*run, "simulate", "nanchang", "-n", "0", "--json"], capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 2
    got = _json.loads(done.stdout)
    assert got["error"] == "Invalid value for '-n' / '--hands': Input should be greater than or equal to 1"
    assert got["hint"] == "mjrules simulate --help"
    plain = subprocess.run([*run, "simulate", "nanchang", "-n", "0"], capture_output=True, text=True,
                           cwd=tmp_path, timeout=120)
    assert plain.returncode == 2 and plain.stdout == "" and "Invalid value for '-n'" in plain.stderr


def test_usage_errors_have_the_shape_of_every_other_error(tmp_path):
    """A usage error click finds (a missing argument, an unknown command) reads as the command's
    own errors do: ``error:``, the usage, ``hint:`` naming the right --help; a bare ``mjrules``
    prints its help and exits 0 (it printed nothing and exited 2)."""
    import subprocess
    import sys

    run = [sys.executable, "-c", "import sys; from engine.cli import main; sys.argv[0] = 'mjrules'; main()"]

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([*run, *args], capture_output=True, text=True, cwd=tmp_path, timeout=120)

    missing = cli("simulate")
    assert missing.returncode == 2 and missing.stdout == ""
    assert missing.stderr.splitlines() == ["error: Missing argument 'RULES'.",
                                           "usage: mjrules simulate [OPTIONS] {RULES}", "hint: mjrules simulate --help"]
    unknown = cli("nosuch")
    assert unknown.returncode == 2
    assert unknown.stderr.splitlines()[0] == "error: No such command 'nosuch'."
    assert unknown.stderr.splitlines()[-1] == "hint: mjrules --help"
    bare = cli()
    assert bare.returncode == 0 and bare.stdout.startswith("Usage: mjrules [OPTIONS] COMMAND") and "simulate" in bare.stdout
