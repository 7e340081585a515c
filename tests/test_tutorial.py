"""docs/tutorial.md, replayed: every command it shows still prints what it shows.

The page is read in order. Single-line HTML comments (invisible once rendered) say what the
reader does that the page shows only in prose:

- ``<!-- file: NAME -->``: the next fenced block is the whole of file NAME (created or overwritten);
- ``<!-- append: NAME -->``: the next fenced block is appended to NAME, after a blank line;
- ``<!-- contents: NAME -->``: the next fenced block is what NAME holds at that point (checked);
- ``<!-- run: COMMAND -->``: a shell command run at that point, its output not shown.

Every ```console block is one test, named after its step heading (and every ``contents`` block
one more). Its state is built in a fresh folder by replaying everything above it (the file blocks, the ``run`` comments, and the earlier
console commands that are not ``mjrules`` ones, such as ``sed``: ``mjrules`` commands do not
write files); then each ``$ …`` line runs through bash in that folder, ``mjrules`` being
``python -m engine``, and what it prints (stdout and stderr) must be the lines below it up to the
next ``$`` line. A line that is exactly ``…`` stands for any number of lines; the folder's path
reads ``/tmp/house`` (the folder the tutorial was run in), any path up to ``/rulesets/`` reads
``…/rulesets/`` (where mjrules is installed), trailing spaces and blank lines at the end are
ignored. Tables are rendered at COLUMNS=80 without colour.

The fresh folder has a short path (``/tmp/house-XXXXXXXX``) rather than one under pytest's
``tmp_path``: ``mjrules export`` prints YAML folded at 80 columns, and a path as long as
``tmp_path``'s folds the ``file:`` lines, where ``/tmp/house`` does not.
"""
from __future__ import annotations

import difflib
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
SHOWN_DIR = "/tmp/house"  # the folder the tutorial's outputs were made in
COLUMNS = "80"  # the width the tutorial's tables were rendered at
ELLIPSIS = "…"

DIRECTIVE = re.compile(r"^<!--\s*(\w+):\s*(.*?)\s*-->$")
FENCE = re.compile(r"^```(\w*)\s*$")
MJRULES = re.compile(r"(^|[|;&(]\s*)mjrules(?=\s|$)")
RULESETS = re.compile(r"\S*/rulesets/")


# ---- reading the page ---------------------------------------------------------------------------


@dataclass
class Step:
    """One thing the reader does, in page order."""

    kind: str  # file | append | contents | run | console
    line: int  # where it is in docs/tutorial.md
    heading: str  # the ``## …`` it is under
    name: str = ""  # the file of file/append/contents
    text: str = ""  # the block of file/append/contents, the command of run
    commands: list[tuple[str, list[str]]] = field(default_factory=list)  # console: (command, output)

    @property
    def where(self) -> str:
        return f"docs/tutorial.md:{self.line}"


def console_commands(lines: list[str], start: int) -> list[tuple[str, list[str]]]:
    out: list[tuple[str, list[str]]] = []
    for i, line in enumerate(lines):
        if line.startswith("$ "):
            out.append((line[2:].strip(), []))
        elif out:
            out[-1][1].append(line)
        elif line.strip():
            raise AssertionError(f"docs/tutorial.md:{start + i}: console output before any `$` line")
    return [(cmd, trim(shown)) for cmd, shown in out]


def parse(path: Path = TUTORIAL) -> list[Step]:
    steps: list[Step] = []
    lines = path.read_text(encoding="utf-8").splitlines()
    heading, pending, i = "", None, 0
    while i < len(lines):
        line, n = lines[i], i + 1
        if line.startswith("<!--") and "-->" not in line:  # a comment of several lines: not ours
            while i < len(lines) and "-->" not in lines[i]:
                i += 1
        elif m := DIRECTIVE.match(line.strip()):
            kind, arg = m.groups()
            assert kind in ("file", "append", "contents", "run"), f"docs/tutorial.md:{n}: unknown `{kind}:`"
            assert pending is None, f"docs/tutorial.md:{n}: `{pending.kind}:` is followed by no block"
            if kind == "run":
                steps.append(Step("run", n, heading, text=arg))
            else:
                pending = Step(kind, n, heading, name=arg)
        elif line.startswith("## "):
            heading = line[3:].strip()
        elif m := FENCE.match(line):
            lang, body, start = m.group(1), [], n + 1
            i += 1
            while i < len(lines) and lines[i].rstrip() != "```":
                body.append(lines[i])
                i += 1
            assert i < len(lines), f"docs/tutorial.md:{n}: the block is not closed"
            if pending is not None:
                pending.text = "\n".join(body) + "\n"
                steps.append(pending)
                pending = None
            elif lang == "console":
                steps.append(Step("console", n, heading, commands=console_commands(body, start)))
        elif line.strip() and pending is not None:
            raise AssertionError(f"docs/tutorial.md:{pending.line}: `{pending.kind}:` is not right before a block")
        i += 1
    assert pending is None, f"docs/tutorial.md:{pending.line}: `{pending.kind}:` is followed by no block"
    return steps


def trim(lines: list[str]) -> list[str]:
    out = [ln.rstrip() for ln in lines]
    while out and not out[-1]:
        out.pop()
    return out


STEPS = parse()
CHECKED = [s for s in STEPS if s.kind in ("console", "contents")]


def step_ids(steps: list[Step]) -> list[str]:
    ids, seen = [], {}
    for s in steps:
        base = s.heading if s.kind == "console" else f"{s.heading} — {s.name} as shown"
        seen[base] = seen.get(base, 0) + 1
        ids.append(base if seen[base] == 1 else f"{base} ({seen[base]})")
    return ids


# ---- running it ---------------------------------------------------------------------------------


def environment() -> dict[str, str]:
    env = dict(os.environ)
    env.update(COLUMNS=COLUMNS, LINES="50", NO_COLOR="1", TERM="dumb", PYTHONIOENCODING="utf-8", PYTHONUTF8="1")
    env.pop("FORCE_COLOR", None)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def shell(command: str, folder: Path) -> tuple[int, str]:
    """Run one tutorial command through bash in FOLDER; ``mjrules`` is this interpreter's engine."""
    mjrules = f"{shlex.quote(sys.executable)} -m engine"
    command = MJRULES.sub(lambda m: m.group(1) + mjrules, command)
    done = subprocess.run(["bash", "-c", command], cwd=folder, env=environment(), stdout=subprocess.PIPE,
                          stderr=subprocess.STDOUT, timeout=120)
    return done.returncode, done.stdout.decode("utf-8", errors="replace")


def normalise(text: str, folder: Path) -> list[str]:
    for path in sorted({str(folder), str(folder.resolve())}, key=len, reverse=True):
        text = text.replace(path, SHOWN_DIR)
    return trim(RULESETS.sub(f"{ELLIPSIS}/rulesets/", text).splitlines())


def calls_mjrules(command: str) -> bool:
    return bool(MJRULES.search(command))


def replay(before: Step, folder: Path) -> None:
    """Bring FOLDER to the state the reader's folder is in just before step BEFORE."""
    for s in STEPS:
        if s is before:
            return
        target = folder / s.name
        if s.kind == "file":
            target.write_text(s.text, encoding="utf-8")
        elif s.kind == "append":
            old = target.read_text(encoding="utf-8") if target.exists() else ""
            sep = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
            target.write_text(old + sep + s.text, encoding="utf-8")
        elif s.kind == "run":
            code, out = shell(s.text, folder)
            assert code == 0, f"{s.where}: `{s.text}` failed ({code}):\n{out}"
        elif s.kind == "console":  # only the commands that change files
            for command, _ in s.commands:
                if not calls_mjrules(command):
                    code, out = shell(command, folder)
                    assert code == 0, f"{s.where}: `{command}` failed ({code}):\n{out}"
    raise AssertionError("the step is not in the page")


# ---- comparing ----------------------------------------------------------------------------------


def expand(shown: list[str], actual: list[str]) -> list[str]:
    """SHOWN with each ``…`` line replaced by the ACTUAL lines it stands for, where they match.

    The result equals ACTUAL exactly when ACTUAL matches SHOWN; otherwise a diff of the two shows
    only the lines that differ. Segments between ``…`` are matched leftmost (glob matching), the
    first one at the start and the last one at the end.
    """
    segments, seg = [], []
    for line in shown:
        if line == ELLIPSIS:
            segments.append(seg)
            seg = []
        else:
            seg.append(line)
    segments.append(seg)
    if len(segments) == 1:
        return shown
    head, *middle, tail = segments
    out, pos = list(head), len(head)
    end = max(pos, len(actual) - len(tail))
    for seg in middle:
        at = next((k for k in range(pos, end - len(seg) + 1) if actual[k:k + len(seg)] == seg), None)
        if at is None:  # not found: show it where the gap starts, with nothing skipped
            out += seg
            pos += len(seg)
        else:
            out += actual[pos:at] + seg
            pos = at + len(seg)
    return out + actual[pos:end] + tail


def difference(command: str, shown: list[str], actual: list[str]) -> str:
    expected = expand(shown, actual)
    if expected == actual:
        return ""
    diff = difflib.unified_diff(expected, actual, "the tutorial", "what it prints now", lineterm="")
    return f"$ {command}\n" + "\n".join(diff)


def test_expand_matches_like_a_glob() -> None:
    got = ["a", "b", "c", "d", "e"]
    assert expand(["a", ELLIPSIS, "e"], got) == got
    assert expand(["a", ELLIPSIS, "c", ELLIPSIS, "e"], got) == got
    assert expand([ELLIPSIS], got) == got
    assert expand(["a", "b", ELLIPSIS, "c", "d", "e"], got) == got  # … may stand for no line
    assert expand(["a", ELLIPSIS, "x", ELLIPSIS], got) != got
    assert expand(["b", ELLIPSIS], got) != got
    assert difference("x", ["a", ELLIPSIS, "E"], got).splitlines()[-2:] == ["-E", "+e"]


def test_every_file_block_is_claimed() -> None:
    """Every ```rules and ```yaml block of the page says which file it writes (or shows)."""
    claimed = {s.line for s in STEPS if s.kind in ("file", "append", "contents")}
    lines = TUTORIAL.read_text(encoding="utf-8").splitlines()
    fences, inside = [], False
    for n, line in enumerate(lines, 1):
        if line.rstrip() == "```" and inside:
            inside = False
        elif m := FENCE.match(line):
            inside = True
            if m.group(1) in ("rules", "yaml"):
                fences.append(n)
    unclaimed = [n for n in fences if n - 1 not in claimed]
    assert not unclaimed, f"docs/tutorial.md: blocks at lines {unclaimed} have no <!-- file/append/contents: --> comment"
    assert sum(s.kind == "console" for s in STEPS) >= 10


@pytest.fixture
def house(tmp_path: Path):
    """The reader's empty folder: short, like /tmp/house (see the module's docstring)."""
    base = Path("/tmp")
    if not (base.is_dir() and os.access(base, os.W_OK)):
        folder = tmp_path / "house"
        folder.mkdir()
        yield folder
        return
    folder = Path(tempfile.mkdtemp(prefix="house-", dir=base))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("step", CHECKED, ids=step_ids(CHECKED))
def test_tutorial_step(step: Step, house: Path) -> None:
    replay(step, house)
    if step.kind == "contents":
        now = (house / step.name).read_text(encoding="utf-8")
        if now != step.text:
            diff = difflib.unified_diff(step.text.splitlines(), now.splitlines(), "the tutorial",
                                        f"{step.name} after the steps above", lineterm="")
            pytest.fail(f"{step.where}: {step.name} is not what the page shows\n" + "\n".join(diff), pytrace=False)
        return
    problems = []
    for command, shown in step.commands:
        _, out = shell(command, house)
        if diff := difference(command, shown, normalise(out, house)):
            problems.append(diff)
    if problems:
        pytest.fail(f"{step.where} ({step.heading}): the output changed\n\n" + "\n\n".join(problems), pytrace=False)
