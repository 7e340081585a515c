"""A file that passes `check` plays: mutate the bundled rulesets and play every mutant.

Each mutant of a bundled rule file (numbers changed in `table`, `suit`, `honours`, `meld`,
`pattern`, `indicator`, `payment`/`fan`/`jing` lines; a declaration line deleted or duplicated;
a keyword swapped for another of its kind; an option dropped; a seat dropped or added) must either fail to compile with
a positioned MjError, or play ``--hands`` random-bot hands and score them with no exception but
the project's own (MjError subclasses). Anything else is a crash; a mutant that takes longer than
``--timeout`` seconds is a hang.

    python benchmarks/mutate_rulesets.py --n 3000 --seed 1

tests/test_mutated_rulesets.py runs the same check under hypothesis with a few dozen mutants.
"""
from __future__ import annotations

import argparse
import random
import re
import signal
import sys
import time
import traceback
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from engine.errors import MjError  # noqa: E402
from engine.lang.compiler import compile_text  # noqa: E402
from engine.lang.resources import rulesets_dir  # noqa: E402
from engine.table.bots import RandomBot  # noqa: E402
from engine.table.match import Match  # noqa: E402

BUNDLED = ("nanchang", "chongguan", "ganzhou", "nanchang-table")
NUMBER_KINDS = ("table", "suit", "honours", "meld", "pattern", "indicator", "payment", "fan", "jing",
                "exhaustive", "factor", "override")
NUMBERS = (0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14, 16, 17, 18, 34, 35, 36, 100)
# keywords swapped for another of the same kind
SWAPS = [
    ("chow", "pung", "kong", "pair"),
    ("run", "distinct"),
    ("head", "tail"),
    ("under", "left of", "right of"),
    ("discard", "self_drawn", "robbed_kong", "after_kong", "first_turn", "dealer_wins"),
    ("discarder", "others", "each", "dealer"),
    ("two_rolls", "one_roll"),
    ("wild", "hidden"),
    ("after deal", "at end"),
    ("previous", "any"),
    ("sets", "pairs"),
]
OPTIONS = (", wild", ", hidden", " cyclic", " declared", ", concealed", ", quads as pairs", " with kongs",
           ", settle after deal", ", settle at end", ", honours natural", " instead of all", " + pair")


def source(name: str) -> str:
    """A bundled rule file's text."""
    return (rulesets_dir() / f"{name}.rules").read_text(encoding="utf-8")


def _decl_lines(lines: list[str]) -> list[int]:
    return [i for i, ln in enumerate(lines) if ln.strip() and not ln.lstrip().startswith(("#", "}", "option", "source",
                                                                                          "ruleset", "extends"))]


def mutate(text: str, rng: random.Random, steps: int = 1) -> tuple[str, list[str]]:
    """``text`` with ``steps`` random mutations, and what each one was."""
    lines = text.splitlines()
    done: list[str] = []
    for _ in range(steps):
        decl = _decl_lines(lines)
        if not decl:
            break
        op = rng.choice(("number", "number", "number", "delete", "duplicate", "swap", "drop", "seats"))
        i = rng.choice(decl)
        ln = lines[i]
        code, _, comment = ln.partition("#")
        if op == "number":
            cands = [i for i in decl if lines[i].split("#")[0].split() and lines[i].split()[0] in NUMBER_KINDS
                     and re.search(r"\d", lines[i].split("#")[0])]
            if not cands:
                continue
            i = rng.choice(cands)
            code, _, comment = lines[i].partition("#")
            nums = list(re.finditer(r"(?<![\w\"])\d+(?![\w\"])", code))
            if not nums:
                continue
            m = rng.choice(nums)
            old = int(m.group())
            new = rng.choice(NUMBERS + (old + 1, max(old - 1, 0), old * 2))
            code = code[: m.start()] + str(new) + code[m.end():]
            lines[i] = code
            done.append(f"line {i + 1}: {old} → {new}")
        elif op == "seats":
            rows = [j for j in decl if re.match(r"\s*(override\s+)?table\s+seats\b", lines[j])]
            if not rows:
                continue
            i = rows[0]
            head, _, names = lines[i].split("#")[0].partition("=")
            seats = names.split()
            k = rng.randrange(len(seats))
            seats = seats[:k] + seats[k + 1:] if rng.random() < 0.5 else seats + [rng.choice(seats + ["X"])]
            lines[i] = f"{head}= {' '.join(seats)}"
            done.append(f"line {i + 1}: seats {' '.join(seats) or '(none)'}")
        elif op == "delete":
            del lines[i]
            done.append(f"line {i + 1} deleted")
        elif op == "duplicate":
            lines.insert(i + 1, code)
            done.append(f"line {i + 1} duplicated")
        elif op == "swap":
            hits = [(grp, w) for grp in SWAPS for w in grp if re.search(rf"(?<!\w){re.escape(w)}(?!\w)", code)]
            if not hits:
                continue
            grp, w = rng.choice(hits)
            new = rng.choice([x for x in grp if x != w])
            lines[i] = re.sub(rf"(?<!\w){re.escape(w)}(?!\w)", new, code, count=1)
            done.append(f"line {i + 1}: {w} → {new}")
        else:
            hits = [o for o in OPTIONS if o in code]
            if not hits:
                continue
            o = rng.choice(hits)
            lines[i] = code.replace(o, "", 1)
            done.append(f"line {i + 1}: dropped {o.strip(', ')!r}")
    return "\n".join(lines) + "\n", done


def repair(text: str, file: str = "mutant.rules", rounds: int = 3) -> str:
    """Follow the compiler's hints for the wall and the deal (`write table stacks_per_seat = N`,
    `table deal = …`), so that more mutants get past the geometry and reach the game."""
    for _ in range(rounds):
        try:
            compile_text(text, file, base_dir=rulesets_dir())
            return text
        except MjError as exc:
            m = re.search(r"`(table (?:stacks_per_seat|deal) = [\d ]+)`", exc.hint or "")
            if not m:
                return text
            text += f"override {m.group(1)}\n"
    return text


@dataclass
class Outcome:
    """What became of one mutant: ``refused`` (a positioned MjError at compile), ``played``,
    ``play_error`` (an MjError while playing), ``unpositioned`` (a compile error without a
    place) or ``crash`` (any other exception)."""

    kind: str
    detail: str = ""


def run_mutant(text: str, hands: int, seed: int, file: str = "mutant.rules") -> Outcome:
    """Compile ``text`` and, if it compiles, play ``hands`` random-bot hands."""
    try:
        rs = compile_text(text, file, base_dir=rulesets_dir())
    except MjError as exc:
        if exc.location is None:
            return Outcome("unpositioned", str(exc))
        return Outcome("refused", str(exc))
    except Exception:  # noqa: BLE001 - that is what we are looking for
        return Outcome("crash", "compile: " + traceback.format_exc(limit=-4))
    try:
        match = Match(rs, seed)
        bots = {s: RandomBot(seed + k) for k, s in enumerate(match.seats)}
        match.play(bots, hands)
        for g in match.games:
            g.result.net(g.seats)
    except MjError as exc:
        return Outcome("play_error", f"{type(exc).__name__}: {exc}")
    except Exception:  # noqa: BLE001
        return Outcome("crash", "play: " + traceback.format_exc(limit=-4))
    return Outcome("played")


class _Timeout(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=500, help="mutants to try")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--hands", type=int, default=20, help="random-bot hands per compiled mutant")
    ap.add_argument("--steps", type=int, default=2, help="most mutations per mutant")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds per mutant before it counts as a hang")
    ap.add_argument("--show", type=int, default=3, help="examples of each failure to print")
    ap.add_argument("--repair", type=float, default=0.5,
                    help="share of mutants whose wall and deal are repaired by the compiler's hints")
    ap.add_argument("--every", type=int, default=250, help="print the counts so far every N mutants")
    a = ap.parse_args(argv)
    rng = random.Random(a.seed)
    texts = {name: source(name) for name in BUNDLED}
    counts: Counter = Counter()
    shown: Counter = Counter()

    def alarm(*_):
        raise _Timeout()

    signal.signal(signal.SIGALRM, alarm)
    start = time.time()
    for k in range(a.n):
        name = rng.choice(BUNDLED)
        text, what = mutate(texts[name], rng, rng.randint(1, a.steps))
        if rng.random() < a.repair:
            text = repair(text)
        signal.setitimer(signal.ITIMER_REAL, a.timeout)
        try:
            out = run_mutant(text, a.hands, a.seed * 100_003 + k)
        except _Timeout:
            out = Outcome("hang", f"over {a.timeout}s")
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        counts[out.kind] += 1
        if out.kind in ("crash", "hang", "unpositioned", "play_error") and shown[out.kind] < a.show:
            shown[out.kind] += 1
            print(f"--- {out.kind}: mutant {k} of {name}: {'; '.join(what)}\n{out.detail}", flush=True)
        if a.every and (k + 1) % a.every == 0 and k + 1 < a.n:
            print(f"{k + 1} mutants so far: " + ", ".join(f"{x} {v}" for x, v in counts.most_common()), flush=True)
    took = time.time() - start
    print(f"{a.n} mutants in {took:.0f}s: " + ", ".join(f"{k} {v}" for k, v in counts.most_common()))
    return 1 if counts["crash"] or counts["hang"] or counts["unpositioned"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
