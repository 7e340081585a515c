"""Fuzz the `mjrules` CLI with hostile input: mutated rule files, scenario files and hand records.

Every input goes through the real command-line entry point, in-process (``engine.cli.main`` with
``sys.argv`` set, exactly as the ``mjrules`` console script runs it, ``MJRULES_DEBUG=1`` so that an
internal error surfaces with its traceback instead of ``exit 3``). Each run is classified:

    ok        exit 0 or 1 (success, a difference, a failed test, a refused hand)
    bad input exit 2 (a clear MjError; a traceback in its output counts as internal)
    internal  exit 3, or any exception escaping main() (a bug: bad input must never do this)
    hang      over --timeout seconds of CPU time (ITIMER_PROF in-process: CPU time, so a busy
              machine makes no false hangs); a worker the alarm does not stop (C code: past
              2 x timeout + 5 s of CPU) or that is blocked (past 20 x timeout + 60 s of wall
              time) is killed by the parent and counted too
    memory    MemoryError (the address space of a worker is capped, --mem-cap) or a peak
              RSS over --mem-flag MB for one input
    other     any other exit status (the documented ones are 0, 1, 2, 130)

Seeds: the bundled rulesets (rulesets/*.rules), the scenario files (tests/cases/*.yaml), the
hostile corpus (benchmarks/fuzz_hostile/: inputs that once failed, each also run unmutated
first, :func:`hostile_cases`: each must be refused with exit 2), and records made at start-up by
``mjrules simulate RULES -n 20 --seed 1 --records DIR`` for each bundled ruleset. Each input is one to three mutations of a seed, drawn from a generator seeded
with ``(--seed, input number)`` alone, so a run is reproducible and independent of --workers.
Mutations: byte flips, non-UTF-8 and NUL bytes, deleting / duplicating / swapping lines and
tokens, numbers replaced by 0, -1, 10**30, floats and foreign digits, lines spliced from other
seeds, truncation, huge strings and lines, deep nesting (``(`` x 5000, ``not `` x 5000, ``[`` x
5000), ``extends`` pointing at a non-rule file / a cycle / a device, huge ``ranks 1..N``, wide
suits and honours groups with the wall resized to hold them; for
YAML, wrong types, removed and unknown keys, YAML features (billion-laughs anchors, tags, merge
keys, several documents, duplicate keys); for records, shuffled / dropped / invented actions,
rings, dice, seeds and a record pointing at a mutated rule file; for ``score``, mutated flags.

    python benchmarks/fuzz.py [--n 10000] [--seed 1] [--workers 2] [--timeout 5] [--json]
                              [--save DIR] [--kinds rules,scenario,record]

Exit status 1 when any input gave an internal error, a hang, a memory failure or an
undocumented exit status, or an input of the hostile corpus was not refused; else 0. The
progress line goes to stderr.
"""
from __future__ import annotations

import argparse
import contextlib
import copy
import io
import json
import os
import random
import re
import resource
import shutil
import signal
import sys
import tempfile
import time
import traceback
from collections import Counter, deque
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = ROOT / "benchmarks" / "fuzz_hostile"  # inputs that once failed: seeds, and run as they are
ENGINE = str(ROOT / "engine")
KINDS = ("rules", "scenario", "record")
OUTCOMES = ("ok", "bad_input", "internal", "hang", "memory", "other")
FAILURES = ("internal", "hang", "memory", "other")
GIB = 2**30


class Timeout(BaseException):
    """Raised by the CPU-time alarm (SIGPROF) in the case being run (a BaseException: no ``except Exception`` hides it)."""


# ---- seeds ----------------------------------------------------------------------------------------


@dataclass
class Seeds:
    """The inputs mutants start from: name → bytes, per kind; score flags from scenario cases."""

    rules: dict[str, bytes]
    scenario: dict[str, bytes]
    record: dict[str, bytes]
    score_flags: list[list[str]] = field(default_factory=list)

    def of(self, kind: str) -> dict[str, bytes]:
        return getattr(self, kind)

    @cached_property
    def trees(self) -> dict[tuple[str, str], object]:
        """Each scenario and record seed parsed once (mutants start from a deep copy)."""
        return {(kind, name): _load_tree(data) for kind in ("scenario", "record") for name, data in self.of(kind).items()}

    @cached_property
    def lines(self) -> list[bytes]:
        """Every non-blank line of every seed (for splicing)."""
        return [ln for d in (self.rules, self.scenario, self.record) for v in d.values() for ln in v.splitlines()
                if ln.strip()]


def load_seeds(workdir: Path, records_per_ruleset: int = 20) -> Seeds:
    """Read the bundled rulesets and the scenario files, and make records with ``mjrules simulate``
    (in-process) for every bundled ruleset into ``workdir``."""
    rules = {p.name: p.read_bytes() for p in sorted((ROOT / "rulesets").glob("*.rules"))}
    scen = {p.name: p.read_bytes() for p in sorted((ROOT / "tests" / "cases").glob("*.yaml"))}
    rules.update((f"hostile-{p.name}", p.read_bytes()) for p in sorted(HOSTILE.glob("*.rules")))
    scen.update((f"hostile-{p.name}", p.read_bytes()) for p in sorted(HOSTILE.glob("*.yaml")))
    records: dict[str, bytes] = {}
    for p in sorted((ROOT / "rulesets").glob("*.rules")):
        d = workdir / f"records-{p.stem}"
        code, output, _ = _call_cli(["simulate", p.stem, "-n", str(records_per_ruleset), "--seed", "1",
                                     "--records", str(d), "--json"])
        if code != 0:
            raise RuntimeError(f"mjrules simulate {p.stem} failed (exit {code}): {output[-2000:]}")
        for r in sorted(d.glob("*.yaml")):
            records[f"{p.stem}-{r.name}"] = r.read_bytes()
    return Seeds(rules, scen, records, _score_flags(scen))


def _score_flags(scen: dict[str, bytes]) -> list[list[str]]:
    """``mjrules score`` flags for every scenario case that gives hands (not a scripted game)."""
    from ruamel.yaml import YAML

    out = []
    for text in scen.values():
        doc = YAML(typ="safe").load(text)
        opts = [f"{k}={v}" for k, v in (doc.get("options") or {}).items()]
        for case in doc.get("cases") or []:
            if not isinstance(case.get("hands"), dict):
                continue
            flags = ["--rules", str(doc["ruleset"])]
            for seat, h in case["hands"].items():
                if isinstance(h, dict):
                    h = "; ".join([str(h.get("concealed", ""))] + [str(m) for m in h.get("melds") or []])
                flags += ["--hand", f"{seat}={h}"]
            for key in ("jing", "lower", "dealer", "floor"):
                if case.get(key) is not None:
                    flags += [f"--{key}", str(case[key])]
            for name, tile in (case.get("indicators") or {}).items():
                flags += ["--indicator", f"{name}={tile}"]
            w = case.get("win")
            if isinstance(w, dict):
                flags += ["--win", str(w.get("seat")), "--tile", str(w.get("tile")), "--by", str(w.get("by", "self_draw"))]
                if w.get("from"):
                    flags += ["--from", str(w["from"])]
                if w.get("first_turn"):
                    flags.append("--first-turn")
            for o in opts:
                flags += ["--option", o]
            out.append(flags)
    return out


# ---- mutators ---------------------------------------------------------------------------------------

NUMBERS = [b"0", b"-1", str(10**30).encode(), b"1.5", b"1e309", b"-0", b"99999999999", b"0x10", b"nan",
           b"007", "٣".encode(), "１".encode(), b"2147483648", b"-99999999999999999999"]
ODD_BYTES = [b"\x00", b"\xff\xfe", b"\xc3", b"\xed\xa0\x80", b"\t", b"\r", b"\r\n", "\u202e".encode(),
             "\ufeff".encode(), "𝟘".encode(), b"\x1b[31m", b"\\", b'"', b"'", b"#", b":", b"{", b"}", b"\x85"]


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def m_flip_bytes(rng, data, ctx):
    """1-8 random bytes XORed (often breaks UTF-8)."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        if b:
            b[rng.randrange(len(b))] ^= rng.randint(1, 255)
    return bytes(b)


def m_insert_bytes(rng, data, ctx):
    """NUL, non-UTF-8, control, bidi, BOM or quoting bytes inserted, once or 100 times."""
    i = rng.randint(0, len(data))
    return data[:i] + rng.choice(ODD_BYTES) * rng.choice([1, 1, 3, 100]) + data[i:]


def m_delete_line(rng, data, ctx):
    """1-3 lines deleted."""
    ls = _lines(data)
    for _ in range(rng.randint(1, 3)):
        if ls:
            del ls[rng.randrange(len(ls))]
    return b"\n".join(ls)


def m_duplicate_line(rng, data, ctx):
    """A line repeated 1 to 3000 times."""
    ls = _lines(data)
    i = rng.randrange(len(ls))
    ls[i:i] = [ls[i]] * rng.choice([1, 1, 2, 50, 3000])
    return b"\n".join(ls)


def m_swap_lines(rng, data, ctx):
    """Two lines swapped."""
    ls = _lines(data)
    i, j = rng.randrange(len(ls)), rng.randrange(len(ls))
    ls[i], ls[j] = ls[j], ls[i]
    return b"\n".join(ls)


def _tokens(data: bytes) -> list[bytes]:
    return re.split(rb"([ \t\n,:{}\[\]()=]+)", data)


def m_delete_token(rng, data, ctx):
    """1-3 words deleted."""
    t = _tokens(data)
    for _ in range(rng.randint(1, 3)):
        i = rng.randrange(0, len(t), 2)
        t[i] = b""
    return b"".join(t)


def m_duplicate_token(rng, data, ctx):
    """A word repeated 2 to 2000 times."""
    t = _tokens(data)
    i = rng.randrange(0, len(t), 2)
    t[i] = (t[i] + b" ") * rng.choice([2, 2, 10, 2000])
    return b"".join(t)


def m_swap_tokens(rng, data, ctx):
    """Two words swapped."""
    t = _tokens(data)
    i, j = rng.randrange(0, len(t), 2), rng.randrange(0, len(t), 2)
    t[i], t[j] = t[j], t[i]
    return b"".join(t)


def m_replace_token(rng, data, ctx):
    """A word replaced by a word of another seed (a known keyword or name in the wrong place)."""
    t = _tokens(data)
    donor = _tokens(rng.choice(ctx["lines"]))
    i = rng.randrange(0, len(t), 2)
    t[i] = donor[rng.randrange(0, len(donor), 2)]
    return b"".join(t)


def m_numbers(rng, data, ctx):
    """A number (or every number) replaced by 0, -1, 10**30, a float, a foreign digit ..."""
    nums = list(re.finditer(rb"\d+", data))
    if not nums:
        return data + b" " + rng.choice(NUMBERS)
    every = rng.random() < 0.2
    new = rng.choice(NUMBERS)
    if every:
        return re.sub(rb"\d+", lambda _: new, data)
    m = rng.choice(nums)
    return data[:m.start()] + new + data[m.end():]


def m_splice(rng, data, ctx):
    """1-4 lines of any seed inserted or put in place of a line."""
    ls = _lines(data)
    i = rng.randint(0, len(ls))
    ls[i:i + rng.choice([0, 1])] = [rng.choice(ctx["lines"]) for _ in range(rng.randint(1, 4))]
    return b"\n".join(ls)


def m_truncate(rng, data, ctx):
    """The file cut at a random byte."""
    return data[:rng.randint(0, len(data))]


def m_huge_string(rng, data, ctx):
    """A 100 KB - 1 MB string added to a line or as a line."""
    ls = _lines(data)
    i = rng.randrange(len(ls))
    what = rng.choice([b"a" * 2**20, b'"' + "字".encode() * 300_000 + b'"', b"x" * 100_000, b" " * 2**20,
                       b"1" * 100_000])
    if rng.random() < 0.5:
        ls[i] = ls[i] + b" " + what
    else:
        ls.insert(i, what)
    return b"\n".join(ls)


def m_empty(rng, data, ctx):
    """The whole file replaced by an empty or near-empty text."""
    return rng.choice([b"", b"\n", b" ", b"\xef\xbb\xbf", b"\x00", b"#", b"---", b"null", b"[]", b"{}", b"0"])


def m_bom_crlf(rng, data, ctx):
    """A BOM, CRLF / CR / NEL line ends, or tabs for spaces."""
    return rng.choice([b"\xef\xbb\xbf" + data, data.replace(b"\n", b"\r\n"), data.replace(b"\n", b"\r"),
                       data.replace(b" ", b"\t"), data.replace(b"\n", b"\x85")])


# rule files

def m_deep_nesting_rules(rng, data, ctx):
    """A `when` expression nested 5000 deep (parentheses, `not`, a long `and` chain)."""
    k = 5000
    deep = rng.choice([b"(" * k + b"self_drawn" + b")" * k, b"(" * k, b"not " * k + b"self_drawn",
                       b"self_drawn" + b" and self_drawn" * k, b"-" * k + b"1", b"1" + b" + 1" * k,
                       b"(" * 200 + b"self_drawn" + b")" * 200, b"not " * 300 + b"self_drawn"])
    if b"when " in data and rng.random() < 0.8:
        spots = [m.end() for m in re.finditer(rb"when ", data)]
        i = rng.choice(spots)
        return data[:i] + deep + b" " + data[i:]
    return data + b"\nfan deep = x2 when " + deep + b"\n"


EXTENDS_TARGETS = ["S.yaml", "rec.yaml", "bin.dat", "R.rules", "P.rules", "/dev/null", "/dev/zero", ".", "..",
                   "/", "nonexistent.rules", "x" * 5000, "a\x00b", "rulesets/../R.rules", "~/x.rules", ""]


def m_extends(rng, data, ctx):
    """`extends` naming a scenario, a record, a binary file, a device, a folder, itself, a cycle, a 5000-character name."""
    target = rng.choice(EXTENDS_TARGETS)
    ctx["extra_files"]["bin.dat"] = bytes(rng.randrange(256) for _ in range(512))
    if target in ("S.yaml", "rec.yaml"):
        ctx["extra_files"][target] = rng.choice(list(ctx["seeds"].scenario.values() if target == "S.yaml"
                                                      else ctx["seeds"].record.values()))
    if target == "P.rules":  # a two-file cycle
        ctx["extra_files"]["P.rules"] = b'ruleset p\nextends "R.rules"\n'
    line = b'extends "' + target.encode() + b'"' if rng.random() < 0.8 else b"extends " + target.encode()
    ls = _lines(data)
    at = next((i for i, ln in enumerate(ls) if ln.startswith(b"extends")), None)
    if at is not None and rng.random() < 0.7:
        ls[at] = line
    else:
        ls.insert(next((i + 1 for i, ln in enumerate(ls) if ln.startswith(b"ruleset")), 0), line)
    return b"\n".join(ls)


def m_huge_ranks(rng, data, ctx):
    """`ranks LOW..N` with N up to 10**30 or below LOW, `copies` huge or 0."""
    n = rng.choice([b"1000000000", str(10**30).encode(), b"0", b"-5", b"37", b"100000", b"36"])
    lo = rng.choice([b"1", b"0", b"-100000", b"9"])
    out, k = re.subn(rb"ranks \d+\.\.\d+", b"ranks " + lo + b".." + n, data, count=rng.choice([0, 1]))
    if rng.random() < 0.4:
        out = re.sub(rb"copies \d+", b"copies " + rng.choice([b"0", b"100000", b"17", str(10**30).encode()]), out)
    if not k:
        out += b"\nsuit big ranks " + lo + b".." + n + b" copies 4\n"
    return out


def m_wide_group(rng, data, ctx):
    """A suit of 8…36 ranks or an honours group of 5…36 tiles added *with the wall resized to
    hold it* (a 136-tile, four-seat, two-high table as the bundled ones), so that it passes the
    wall check and reaches the win-table limit (issue 16: 24 ranks x 2 copies ran for minutes)."""
    copies = rng.choice([1, 2, 4, 8])
    n = rng.choice([k for k in range(5, 37) if (k * copies) % 8 == 0] or [8])
    if rng.random() < 0.6:
        group = f"suit q ranks 1..{n} copies {copies}".encode()
    else:
        group = ("honours q = " + ", ".join(f"q{i}" for i in range(n)) + f" copies {copies}").encode()
    stacks = b"table stacks_per_seat = " + str((136 + n * copies) // 8).encode()
    out, k = re.subn(rb"table stacks_per_seat = \d+", stacks, data, count=1)
    return out + b"\n" + group + b"\n" + (b"" if k else b"override " + stacks + b"\n")


def m_override_remove(rng, data, ctx):
    """`override` / `remove` put in front of a line, or a `remove` of a real or unknown rule."""
    ls = _lines(data)
    i = rng.randrange(len(ls))
    ls[i] = rng.choice([b"override ", b"remove ", b"override override ", b""]) + ls[i]
    if rng.random() < 0.3:
        kind = rng.choice([b"fan", b"pattern", b"meld", b"suit", b"honours", b"table", b"jing", b"flow", b"indicator"])
        ls.append(b"remove " + kind + b" " + rng.choice([b"\xe5\xb9\xb3\xe8\x83\xa1", b"m", b"seats", b"nope", b"upper"]))
    return b"\n".join(ls)


def m_option_block(rng, data, ctx):
    """An `option` block that is empty, repeats a choice, nests options or extends."""
    blocks = [b'option o "x" = a { a: { } b: { remove fan \xe5\xb9\xb3\xe8\x83\xa1 } }',
              b'option o = 1 { 1: { } 1: { } }',
              b'option o = a { }',
              b'option o = a { a: { option p = b { b: { } } } }',
              b'option \xe6\x98\x8e\xe6\x9d\xa0\xe5\x88\x86 = declared { declared: { } }',
              b'option o = a { a: { extends nanchang } }']
    return data + b"\n" + rng.choice(blocks) + b"\n"


# YAML (scenarios, records) as text

def m_deep_nesting_yaml(rng, data, ctx):
    """A value replaced by `[`, `{` or `- ` nested up to 5000 deep (closed or not)."""
    k = rng.choice([5000, 5000, 300])
    deep = rng.choice([b"[" * k + b"]" * k, b"[" * k, b"{a: " * k + b"1" + b"}" * k, b"{" * k,
                       b"\n".join(b"  " * i + b"- " for i in range(min(k, 2000)))])
    ls = _lines(data)
    cands = [i for i, ln in enumerate(ls) if re.search(rb":\s*\S", ln)]
    if cands:
        i = rng.choice(cands)
        key = ls[i].split(b":", 1)[0]
        ls[i] = key + b": " + deep
    else:
        ls.append(b"x: " + deep)
    return b"\n".join(ls)


def m_yaml_features(rng, data, ctx):
    """Several documents, complex keys, tags, merge keys, unknown aliases, directives, tabs, a duplicate key."""
    extra = rng.choice([
        b"\n---\nruleset: nanchang\ncases: []\n",
        b"\n...\n\x00",
        b"\n? [complex, key]\n: 1\n",
        b"\nbad: !!python/object/apply:os.system [echo hi]\n",
        b"\nbad: !!binary aGVsbG8=\n",
        b"\nbad: !!timestamp 2001-12-14\n",
        b"\nbad: !!set {a, b}\n",
        b"\nbad: !unknown_tag x\n",
        b"\nbase: &b {a: 1}\nmerged: {<<: *b}\n",
        b"\nundefined: *nope\n",
        b"\n%YAML 1.1\n",
        b"\n\t- tab\n",
    ])
    if rng.random() < 0.3:  # a duplicate key at the top
        ls = _lines(data)
        tops = [ln for ln in ls if re.match(rb"^[a-z_]+:", ln)]
        if tops:
            return data + b"\n" + rng.choice(tops) + b"\n"
    return data + extra if rng.random() < 0.6 else extra.lstrip(b"\n") + b"\n" + data


# YAML as data (parsed, changed, dumped again)

def _nodes(tree, path=(), seen=None):
    """Every (path, node) of a YAML tree, each shared list or map once (a billion-laughs tree is small)."""
    seen = set() if seen is None else seen
    yield path, tree
    if isinstance(tree, (dict, list)):
        if id(tree) in seen or len(path) > 50:
            return
        seen.add(id(tree))
        for k, v in list(tree.items() if isinstance(tree, dict) else enumerate(tree)):
            yield from _nodes(v, path + (k,), seen)


def _set(tree, path, value):
    node = tree
    for p in path[:-1]:
        node = node[p]
    node[path[-1]] = value


def _laughs(depth=9, width=9):
    node = ["lol"] * width
    for _ in range(depth):
        node = [node] * width
    return node


def _odd_value(rng, tree):
    return rng.choice([None, True, False, 0, -1, 10**30, -10**30, 1.5, float("inf"), float("nan"), "", "x" * 100_000,
                       [], {}, [[[]]], {"a": 1}, "\x00", "东" * 10_000, [1, 2, 3], {"seat": None}, "1" * 5000,
                       rng.choice([n for _, n in _nodes(tree)])])


def t_wrong_type(rng, tree, ctx):
    """A node replaced by a value of another type (None, bools, huge ints, inf/nan, long strings, lists, maps, another node)."""
    paths = [p for p, _ in _nodes(tree) if p]
    if paths:
        _set(tree, rng.choice(paths), _odd_value(rng, tree))
    return tree


def t_remove_key(rng, tree, ctx):
    """A mapping key removed."""
    maps = [(p, n) for p, n in _nodes(tree) if isinstance(n, dict) and n]
    if maps:
        _, n = rng.choice(maps)
        del n[rng.choice(list(n))]
    return tree


def t_add_key(rng, tree, ctx):
    """A known or unknown key added with an odd value."""
    maps = [n for _, n in _nodes(tree) if isinstance(n, dict)]
    if maps:
        rng.choice(maps)[rng.choice(["unknown", "expect", "win", "hands", "format", "game", "ruleset", "", "0", 0, None,
                                     "actions", "ring", "dice"])] = _odd_value(rng, tree)
    return tree


def t_list_scale(rng, tree, ctx):
    """A list grown by one or by up to 20,000 copies, shuffled, shortened or reversed."""
    lists = [n for _, n in _nodes(tree) if isinstance(n, list) and n]
    if lists:
        lst = rng.choice(lists)
        how = rng.choice(["dup", "many", "shuffle", "drop", "reverse"])
        if how == "dup":
            lst.append(rng.choice(lst))
        elif how == "many":
            lst.extend([rng.choice(lst)] * rng.choice([100, 20_000]))
        elif how == "shuffle":
            rng.shuffle(lst)
        elif how == "drop":
            del lst[rng.randrange(len(lst))]
        else:
            lst.reverse()
    return tree


def t_laughs(rng, tree, ctx):
    """A node replaced by a billion-laughs list (9 levels of 9 shared lists: anchors and aliases in YAML)."""
    if ctx.get("json"):
        return t_wrong_type(rng, tree, ctx)
    paths = [p for p, _ in _nodes(tree) if p]
    if paths:
        _set(tree, rng.choice(paths), _laughs(rng.choice([6, 9]), 9))
    return tree


MAX_TREE_STRING = 100_000  # characters of a string a tree mutation makes (huge files: m_huge_string)


def t_string_edit(rng, tree, ctx):
    """A string value edited like a word: tiles, seats and actions with a character changed."""
    strs = [(p, n) for p, n in _nodes(tree) if p and isinstance(n, str)]
    if strs:
        p, s = rng.choice(strs)
        how = rng.choice(["char", "repeat", "digits", "swap", "drop"])
        if how == "char" and s:
            i = rng.randrange(len(s))
            s = s[:i] + rng.choice("0123456789mpsz东南西北中发白 ;=:,xX-") + s[i + 1:]
        elif how == "repeat":  # (at most MAX_TREE_STRING: ruamel's emitter takes minutes on some MB-long scalars)
            s = (s * rng.choice([2, 20, 2000]))[:MAX_TREE_STRING]
        elif how == "digits":
            s = re.sub(r"\d", lambda _: rng.choice(["0", "9", "10", "99999", "-1"]), s)
        elif how == "swap":
            w = s.split()
            rng.shuffle(w)
            s = " ".join(w)
        elif s:
            s = s[:-1]
        _set(tree, p, s)
    return tree


def t_record(rng, tree, ctx):
    """Record-specific: actions invented / shuffled, dice, seed, ring, and a mutated rule file."""
    if not isinstance(tree, dict):
        return tree
    how = rng.choice(["action", "actions", "dice", "seed", "ring", "ruleset_file", "options", "result", "dealer",
                      "previous", "wall"])
    acts = tree.get("actions") if isinstance(tree.get("actions"), list) else []
    if how == "action" and acts:
        i = rng.randrange(len(acts))
        acts[i] = rng.choice(["S discard 99x", "E win", "N kong 5555m", "X discard 1m", "S", "", "S chow 12m",
                              "E pung", "W pass", "S draw", "E discard 东东", "S kong 1m concealed", "N win win",
                              "E discard " + "1m" * 1000])
    elif how == "actions" and acts:
        rng.shuffle(acts) if rng.random() < 0.5 else acts.extend(acts * rng.choice([1, 50]))
    elif how == "dice":
        tree["dice"] = rng.choice([[], [[0, 0]], [[7, 1]], [[1]], [[1, 2, 3]], [[1] * 10000], [[-1, 1]], [["1", "2"]],
                                   [[1.5, 2]], [[True, True]], [[6, 6]] * 1000])
    elif how == "seed":
        tree["seed"] = rng.choice([-1, 0, 10**30, 1.5, "x", None, [], 2**64])
    elif how == "ring" and isinstance(tree.get("ring"), list):
        r = tree["ring"]
        choice = rng.random()
        if choice < 0.3 and r:
            del r[rng.randrange(len(r))]
        elif choice < 0.6:
            r.append(rng.choice(r) if r else "1m")
        elif choice < 0.8 and r:
            r[rng.randrange(len(r))] = rng.choice(["0m", "10m", "x", "", "1z", "8z", "东东", None, 5])
        else:
            tree["ring"] = r[: rng.randrange(len(r) + 1)]
    elif how == "ruleset_file":
        tree["ruleset_file"] = rng.choice(["R.rules", "R.rules", "/dev/null", "/dev/zero", ".", "rec.yaml", "x" * 5000])
        if tree["ruleset_file"] == "R.rules":
            ctx["want_rules_file"] = True
    elif how == "options":
        tree["options"] = rng.choice([{"下精": "nope"}, {"nope": 1}, {"明杠分": None}, [], "x", {None: None}])
    elif how == "result" and isinstance(tree.get("result"), dict):
        tree["result"][rng.choice(list(tree["result"]))] = _odd_value(rng, tree)
    elif how == "dealer":
        tree["dealer"] = rng.choice(["X", None, 0, "", "e", ["E"]])
    elif how == "previous":
        tree["previous_indicators"] = rng.choice([{"upper": "1m"}, {"upper": "x"}, {"nope": "1m"}, [], {"upper": None}])
    elif how == "wall":
        tree["wall"] = rng.choice([["1m"] * 200, [], ["1m"], None, "1m2m"])
        if rng.random() < 0.5:
            tree["ring"] = None
    return tree


def t_scenario(rng, tree, ctx):
    """Scenario-specific: the ruleset is a mutated rule file, hands / win / game edited."""
    if not isinstance(tree, dict):
        return tree
    how = rng.choice(["ruleset", "ruleset", "options", "win", "hand", "game", "expect", "cases"])
    cases = tree.get("cases") if isinstance(tree.get("cases"), list) else []
    cases = [c for c in cases if isinstance(c, dict)]  # (an earlier mutation may have made one a number)
    case = rng.choice(cases) if cases else None
    if how == "ruleset":
        tree["ruleset"] = rng.choice(["R.rules", "R.rules", "R.rules", "nope", "/dev/zero", ".", "S.yaml", None, 5,
                                      ["nanchang"]])
        if tree["ruleset"] == "R.rules":
            ctx["want_rules_file"] = True
    elif how == "options":
        tree["options"] = rng.choice([{"下精": "nope"}, {"nope": 1}, {"明杠分": None}, [], "x", {"下精": ["at_end"]}])
    elif case is None:
        return tree
    elif how == "win":
        case["win"] = rng.choice([{"seat": "S", "tile": "1m", "by": "discard"}, {"seat": "X", "tile": "1m"},
                                  {"seat": "S", "tile": "0m", "by": "rob_kong", "from": "S"}, {}, None, "S",
                                  {"seat": "S", "tile": "1m", "by": "kong_draw", "first_turn": "yes"}])
    elif how == "hand" and isinstance(case.get("hands"), dict) and case["hands"]:
        seat = rng.choice(list(case["hands"]))
        case["hands"][seat] = rng.choice(["1m" * 40, "", "0m", "123", "m", "1m; pung 777p from W", "东" * 5,
                                          {"concealed": "1m", "melds": ["kong 8888m concealed"] * 8},
                                          {"melds": "pung 777p"}, {"concealed": None}, "1z8z", "19m19p19s1234567z"])
    elif how == "game" and isinstance(case.get("game"), dict):
        g = case["game"]
        g[rng.choice(["draws", "replacements", "actions", "hands", "jing", "dealer", "wall"])] = _odd_value(rng, tree)
    elif how == "expect":
        case["expect"] = rng.choice([{"hand": {"S": 10**30}}, {"win": "maybe"}, {"fans": "平胡"}, {"phase": 5},
                                     {"settlements": [{}]}, {"hand": {"X": 1}}, None, [], {"total": []}])
    elif how == "cases":
        tree["cases"] = rng.choice([[], None, {}, [None], [case] * 2, [case] * 300, "x"])
    return tree


TEXT_GENERIC = [(m_flip_bytes, 3), (m_insert_bytes, 3), (m_delete_line, 4), (m_duplicate_line, 3), (m_swap_lines, 2),
                (m_delete_token, 4), (m_duplicate_token, 2), (m_swap_tokens, 3), (m_replace_token, 4),
                (m_numbers, 5), (m_splice, 3), (m_truncate, 2), (m_huge_string, 1), (m_empty, 1), (m_bom_crlf, 1)]
TEXT = {
    "rules": TEXT_GENERIC + [(m_deep_nesting_rules, 3), (m_extends, 4), (m_huge_ranks, 3), (m_override_remove, 3),
                             (m_option_block, 2), (m_wide_group, 2)],
    "scenario": TEXT_GENERIC + [(m_deep_nesting_yaml, 2), (m_yaml_features, 2)],
    "record": TEXT_GENERIC + [(m_deep_nesting_yaml, 2), (m_yaml_features, 2)],
}
TREE = {
    "scenario": [(t_wrong_type, 5), (t_remove_key, 3), (t_add_key, 2), (t_list_scale, 2), (t_laughs, 1),
                 (t_string_edit, 5), (t_scenario, 6)],
    "record": [(t_wrong_type, 4), (t_remove_key, 3), (t_add_key, 2), (t_list_scale, 2), (t_laughs, 1),
               (t_string_edit, 4), (t_record, 8)],
}


def _pick(rng, weighted):
    fns, weights = zip(*weighted)
    return rng.choices(fns, weights)[0]


_TREES: dict[bytes, object] = {}  # seed file -> its parsed tree (a few dozen seeds; some take seconds to parse)


def _load_tree(data: bytes):
    """The YAML tree of ``data``, a fresh copy each time (each seed is parsed once)."""
    if data not in _TREES:
        from ruamel.yaml import YAML

        if len(_TREES) >= 256:
            _TREES.clear()
        _TREES[data] = YAML(typ="safe").load(data)
    return copy.deepcopy(_TREES[data])


def _dump_tree(tree, as_json: bool) -> bytes:
    if as_json:
        return json.dumps(tree, ensure_ascii=False, indent=1, default=str).encode("utf-8", "surrogatepass")
    from ruamel.yaml import YAML

    y = YAML(typ="safe")
    y.allow_unicode = True
    y.default_flow_style = None
    y.width = 4096
    buf = io.StringIO()
    y.dump(tree, buf)
    return buf.getvalue().encode("utf-8", "surrogatepass")


def mutate(rng: random.Random, kind: str, data: bytes, ctx: dict) -> tuple[bytes, list[str]]:
    """One to three mutations of ``data`` (tree mutations first, for YAML kinds); their names."""
    names: list[str] = []
    count = rng.choice([1, 1, 2, 2, 3])
    if kind in TREE and rng.random() < 0.55:
        tree = copy.deepcopy(ctx["tree"]) if "tree" in ctx else _load_tree(data)
        for _ in range(rng.randint(1, 2)):
            fn = _pick(rng, TREE[kind])
            tree = fn(rng, tree, ctx)
            names.append(fn.__name__)
        data = _dump_tree(tree, ctx.get("json", False))
        count -= 1
    for _ in range(count):
        fn = _pick(rng, TEXT[kind])
        data = fn(rng, data, ctx)
        names.append(fn.__name__)
    return data, names


# ---- cases ----------------------------------------------------------------------------------------


@dataclass
class Case:
    """One fuzz input: a command line (``{dir}`` = the case's folder) and the files it reads."""

    index: int
    kind: str
    seed_name: str
    mutators: list[str]
    argv: list[str]
    files: dict[str, bytes]

    def args(self, folder: Path) -> list[str]:
        return [a.replace("{dir}", str(folder)) for a in self.argv]

    def shell(self) -> str:
        import shlex

        return "mjrules " + " ".join(shlex.quote(a.replace("{dir}/", "")) for a in self.argv)


def _score_argv(rng, seeds: Seeds, rules_ref: str | None) -> tuple[list[str], list[str]]:
    flags = list(rng.choice(seeds.score_flags))
    names = []
    if rules_ref:
        flags[1] = rules_ref
    for _ in range(rng.randint(0 if rules_ref else 1, 3)):
        how = rng.choice(["drop", "dup", "value", "value", "tiles", "huge", "unknown", "option"])
        names.append(f"flag_{how}")
        i = rng.randrange(len(flags))
        if how == "drop" and len(flags) > 2:
            del flags[i]
        elif how == "dup":
            flags.insert(i, flags[i])
        elif how == "value":
            flags[i] = rng.choice(["", "X", "0", "-1", str(10**30), "S=", "=", "S=1m", "nope=1m", "E=" + "1m" * 50,
                                   "东", "0m", "10m", "1.5", "self_draw", "discard", "rob_kong", "kong_draw", "W", "--win",
                                   "S=1m;;;;", "S=; pung", "S=1m; kong 1111m from S", "1z8z", "--json"])
        elif how == "tiles":
            flags[i] = re.sub(r"\d", lambda _: rng.choice("0123456789"), flags[i])
        elif how == "huge":
            flags += [rng.choice(["--floor", "--hand", "--jing", "--tile"]),
                      rng.choice([str(10**30), "-5", "0", "S=" + "1m" * 5000, "1m" * 5000])]
        elif how == "unknown":
            flags += [rng.choice(["--indicator", "--option", "--lower", "--dealer", "--from", "--by"]),
                      rng.choice(["left=5p", "upper=1m", "nope=1", "x", "X", "回头=3p", "下精=at_end", "S"])]
        else:
            flags += ["--option", rng.choice(["下精=at_end", "下精=nope", "nope=1", "明杠分=2", "x", "四归=yes"])]
    return ["score", *flags], names


def make_case(seeds: Seeds, seed: int, index: int, kind: str | None = None) -> Case:
    """Input number ``index`` of run ``seed`` (the same every time, on any worker)."""
    rng = random.Random(f"mjrules-fuzz/{seed}/{index}")
    kind = kind or KINDS[index % len(KINDS)]
    pool = seeds.of(kind)
    seed_name = rng.choice(sorted(pool))
    ctx = {"lines": seeds.lines, "seeds": seeds, "extra_files": {}}
    if (kind, seed_name) in seeds.trees:
        ctx["tree"] = seeds.trees[kind, seed_name]
    files: dict[str, bytes] = {}
    if kind == "rules":
        data, names = mutate(rng, kind, pool[seed_name], ctx)
        files["R.rules"] = data
        r = "{dir}/R.rules"
        cmd = rng.choices(["check", "check_json", "export", "export_json", "sheet", "diff", "diff_json", "score",
                           "test", "simulate"], [25, 5, 10, 5, 10, 10, 5, 10, 10, 4])[0]
        if cmd == "score":
            argv, more = _score_argv(rng, seeds, r)
            names += more
        elif cmd == "test":
            scen = seeds.scenario[rng.choice(sorted(seeds.scenario))]
            files["S.yaml"] = re.sub(rb"(?m)^ruleset: .*$", b"ruleset: R.rules", scen)
            argv = ["test", "{dir}/S.yaml"]
        elif cmd == "simulate":
            argv = ["simulate", r, "-n", "2", "--seed", str(rng.randrange(1000)), "--json"]
        elif cmd.startswith("diff"):
            argv = ["diff", "nanchang", r] if rng.random() < 0.7 else ["diff", r, "chongguan"]
        else:
            argv = [cmd.split("_")[0], r]
        if cmd.endswith("_json"):
            argv.append("--json")
        if cmd in ("check", "export", "sheet", "diff") and rng.random() < 0.1:
            argv += ["--option", rng.choice(["下精=at_end", "下精=nope", "nope=1", "x", "=", "明杠分=2"])]
            names.append("flag_option")
    elif kind == "scenario":
        if rng.random() < 0.15:  # score: the scenario's hands as mutated flags
            argv, names = _score_argv(rng, seeds, None)
            seed_name = "score flags"
        else:
            data, names = mutate(rng, kind, pool[seed_name], ctx)
            files["S.yaml"] = data
            argv = ["test", "{dir}/S.yaml"] + rng.choice([[], [], ["-v"], ["--json"]])
    else:
        as_json = rng.random() < 0.2
        ctx["json"] = as_json
        data, names = mutate(rng, kind, pool[seed_name], ctx)
        name = "rec.json" if as_json else "rec.yaml"
        files[name] = data
        argv = ["replay", "{dir}/" + name] + rng.choice([[], ["--json"]])
    if ctx.get("want_rules_file"):  # the scenario or record names a mutated rule file
        rname = rng.choice(sorted(seeds.rules))
        sub = random.Random(f"mjrules-fuzz/{seed}/{index}/rules")
        rctx = {k: v for k, v in ctx.items() if k not in ("tree", "json")}
        rdata, rnames = mutate(sub, "rules", seeds.rules[rname], rctx)
        files["R.rules"] = rdata
        names += [f"rules:{n}" for n in rnames]
        if kind == "record":  # the record's own file, by absolute path (as simulate writes it)
            files[name] = files[name].replace(b"R.rules", b"{dir}/R.rules")
    for k, v in ctx["extra_files"].items():
        files.setdefault(k, v)
    return Case(index, kind, seed_name, names, argv, files)


# ---- running one case --------------------------------------------------------------------------------


class _Capped(io.StringIO):
    """Captured output, kept to its first and last 64 KiB (a mutant may print a lot)."""

    LIMIT = 65536

    def __init__(self):
        super().__init__()
        self.size = 0
        self.tail = ""

    def write(self, s):
        self.size += len(s)
        if self.tell() < self.LIMIT:
            return super().write(s[: self.LIMIT])
        self.tail = (self.tail + s)[-self.LIMIT:]
        return len(s)

    def text(self) -> str:
        return self.getvalue() + self.tail


def _call_cli(argv: list[str], timeout: float | None = None):
    """``mjrules ARGV`` in-process, as the console script runs it: (exit code or exception, output, traceback)."""
    from engine import cli

    cap = _Capped()
    old_argv, old_debug = sys.argv, os.environ.get("MJRULES_DEBUG")
    sys.argv = ["mjrules", *argv]
    os.environ["MJRULES_DEBUG"] = "1"  # main() re-raises what it would report as `internal error` (exit 3)
    old_handler = None
    done = [False]  # the case has ended: a late alarm raises nothing
    if timeout:
        def _alarm(signum, frame):
            if not done[0]:
                raise Timeout()
        old_handler = signal.signal(signal.SIGPROF, _alarm)
        # repeating: an alarm that lands in a finalizer (run by the garbage collector) is
        # swallowed there, and a one-shot alarm would then never stop the case
        signal.setitimer(signal.ITIMER_PROF, timeout, timeout)
    try:
        with contextlib.redirect_stdout(cap), contextlib.redirect_stderr(cap):
            try:
                cli.main()
                code = 0
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
                if code == 0 and exc.code not in (0, None):
                    code = 1
            finally:
                done[0] = True
                if timeout:
                    signal.setitimer(signal.ITIMER_PROF, 0)
        return code, cap.text(), None
    except (Exception, Timeout) as exc:  # noqa: BLE001 -- the point is to catch everything
        done[0] = True
        if timeout:
            signal.setitimer(signal.ITIMER_PROF, 0)
        return exc, cap.text(), traceback.extract_tb(exc.__traceback__)
    finally:
        if old_handler is not None:
            signal.signal(signal.SIGPROF, old_handler)
        sys.argv = old_argv
        if old_debug is None:
            os.environ.pop("MJRULES_DEBUG", None)
        else:
            os.environ["MJRULES_DEBUG"] = old_debug


def _hwm_reset() -> bool:
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak_mb() -> float:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


@contextlib.contextmanager
def address_space(limit_bytes: int | None):
    """Cap this process's address space (soft RLIMIT_AS) for the block, then restore it."""
    if not limit_bytes:
        yield
        return
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = limit_bytes if hard == resource.RLIM_INFINITY else min(limit_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def _where(tb) -> str:
    """The innermost frame in engine/ (else the innermost frame): ``engine/x.py:LINE``."""
    if not tb:
        return "?"
    frames = [f for f in tb if f.filename.startswith(ENGINE)] or list(tb)
    f = frames[-1]
    try:
        name = str(Path(f.filename).relative_to(ROOT))
    except ValueError:
        name = Path(f.filename).name
    return f"{name}:{f.lineno}"


def run_case(case: Case, workdir: Path, timeout: float = 5.0, mem_cap: int | None = 4 * GIB,
             mem_flag_mb: float = 1024.0) -> dict:
    """Run one case through the CLI in-process and classify it (see the module docstring).

    Returns a dict: index, kind, seed, mutators, command, outcome, code, exception, where
    (innermost engine file:line), traceback (last frames), seconds, peak_mb, output_tail.
    """
    folder = workdir / f"case-{case.index}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (folder / name).write_bytes(data.replace(b"{dir}", str(folder).encode()))
    measured = _hwm_reset()
    start, cpu = time.perf_counter(), time.process_time()
    with address_space(mem_cap):
        result, output, tb = _call_cli(case.args(folder), timeout)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    peak = _peak_mb() if measured else 0.0
    shutil.rmtree(folder, ignore_errors=True)
    exc_name, where, frames = None, None, []
    if isinstance(result, BaseException):
        exc_name = type(result).__name__
        where = _where(tb)
        frames = [f"{Path(f.filename).name}:{f.lineno} in {f.name}: {f.line}" for f in tb[-8:]]
        outcome = "hang" if isinstance(result, Timeout) else "memory" if isinstance(result, MemoryError) else "internal"
        code = 3
        frames.append(f"{exc_name}: {str(result)[:500]}")
    else:
        code = result
        outcome = {0: "ok", 1: "ok", 2: "bad_input", 3: "internal"}.get(code, "other")
        if "Traceback (most recent call last)" in output:
            outcome, exc_name, where = "internal", "TracebackInOutput", "output"
        if code == 3:
            exc_name, where = "Exit3", "output"
    if outcome in ("ok", "bad_input") and peak > mem_flag_mb:
        outcome, exc_name, where = "memory", "PeakRSS", f">{mem_flag_mb:.0f}MB"
    return {"index": case.index, "kind": case.kind, "seed": case.seed_name, "mutators": case.mutators,
            "command": case.shell(), "outcome": outcome, "code": code, "exception": exc_name, "where": where,
            "traceback": frames, "seconds": round(seconds, 3), "cpu_s": round(cpu, 3), "peak_mb": round(peak, 1),
            "output_tail": output[-1500:] if outcome in FAILURES else ""}


# ---- many cases -------------------------------------------------------------------------------------


def hostile_cases() -> list[Case]:
    """The hostile corpus (benchmarks/fuzz_hostile/) as it is: each rule file through ``check``
    and ``simulate -n 12``, each scenario file through ``test``. Every one must be refused
    (exit 2): each was an internal error or a hang once (issue 16)."""
    cases = []
    for p in sorted(HOSTILE.iterdir()):
        if p.suffix == ".rules":
            argvs = [["check", "{dir}/R.rules"], ["simulate", "{dir}/R.rules", "-n", "12"]]
            name = "R.rules"
        elif p.suffix == ".yaml":
            argvs, name = [["test", "{dir}/S.yaml"]], "S.yaml"
        else:
            continue
        for argv in argvs:
            cases.append(Case(len(cases), "rules" if name == "R.rules" else "scenario", f"hostile-{p.name}",
                              ["hostile"], argv, {name: p.read_bytes()}))
    return cases


def run_hostile(workdir: Path, timeout: float = 5.0) -> list[dict]:
    """:func:`hostile_cases` run in this process; a result whose outcome is not ``bad_input``
    is a regression (its ``regressed`` is true)."""
    out = []
    for case in hostile_cases():
        r = run_case(case, workdir / "hostile", timeout)
        r["regressed"] = r["outcome"] != "bad_input"
        out.append(r)
    return out



def _worker(conn, seeds, seed, workdir, timeout, mem_cap, mem_flag, kinds):
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        index = conn.recv()
        if index is None:
            return
        case = make_case(seeds, seed, index, kinds[index % len(kinds)])
        conn.send(("start", index))
        res = run_case(case, Path(workdir), timeout, mem_cap, mem_flag)
        conn.send(("done", res))
        if res["outcome"] in ("hang", "memory"):
            return  # a fresh process for the next input


def _cpu_of(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has used; 0 where /proc cannot tell."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return 0.0


def run_many(seeds: Seeds, n: int, seed: int, workdir: Path, workers: int = 2, timeout: float = 5.0,
             mem_cap: int | None = 4 * GIB, mem_flag_mb: float = 1024.0, kinds=KINDS, progress=None) -> list[dict]:
    """Run inputs 0..n-1; ``workers`` 0 runs them in this process (no watchdog), else in that
    many forked processes with a parent watchdog: a worker past 2 x timeout + 5 s of CPU on one
    input (the alarm did not stop it: C code) or 20 x timeout + 60 s of wall time (blocked) is
    killed and its input counted as a hang. Results in input order."""
    results: dict[int, dict] = {}
    if workers <= 0:
        for i in range(n):
            results[i] = run_case(make_case(seeds, seed, i, kinds[i % len(kinds)]), workdir, timeout, mem_cap,
                                  mem_flag_mb)
            if progress:
                progress(results)
        return [results[i] for i in range(n)]

    import multiprocessing as mp
    from multiprocessing.connection import wait

    ctx = mp.get_context("fork")
    pending = deque(range(n))
    hard_cpu, hard_wall = timeout * 2 + 5, timeout * 20 + 60  # the alarm missed / blocked (not computing)
    live: dict = {}  # conn -> [process, index or None, started]

    def spawn():
        parent, child = ctx.Pipe()
        p = ctx.Process(target=_worker, args=(child, seeds, seed, str(workdir), timeout, mem_cap, mem_flag_mb, kinds),
                        daemon=True)
        p.start()
        child.close()
        live[parent] = [p, None, 0.0, 0.0]
        feed(parent)

    def feed(conn):
        if pending:
            i = pending.popleft()
            live[conn][1], live[conn][2:] = i, [time.perf_counter(), _cpu_of(live[conn][0].pid)]
            conn.send(i)
        else:
            conn.send(None)
            live[conn][1] = None

    def lost(conn, why):
        p, i, started, _ = live.pop(conn)
        if p.is_alive():
            p.kill()
        p.join()
        if i is not None and i not in results:
            case = make_case(seeds, seed, i, kinds[i % len(kinds)])
            results[i] = {"index": i, "kind": case.kind, "seed": case.seed_name, "mutators": case.mutators,
                          "command": case.shell(), "outcome": "hang" if why == "killed" else "internal",
                          "code": None, "exception": "WorkerKilled" if why == "killed" else f"WorkerDied({p.exitcode})",
                          "where": "worker", "traceback": [], "seconds": round(time.perf_counter() - started, 3), "cpu_s": 0.0,
                          "peak_mb": 0.0, "output_tail": ""}
        if pending:
            spawn()

    for _ in range(min(workers, max(n, 1))):
        spawn()
    while live:
        ready = wait(list(live), timeout=1.0)
        for conn in ready:
            try:
                what, payload = conn.recv()
            except (EOFError, OSError):
                lost(conn, "died")
                continue
            if what == "start":
                live[conn][2:] = [time.perf_counter(), _cpu_of(live[conn][0].pid)]
            else:
                results[payload["index"]] = payload
                if progress:
                    progress(results)
                if payload["outcome"] in ("hang", "memory"):
                    live[conn][1] = None  # the worker exits; replaced when its pipe closes
                else:
                    feed(conn)
                    if live[conn][1] is None:
                        p = live.pop(conn)[0]
                        p.join()
        now = time.perf_counter()
        for conn, (p, i, started, cpu0) in list(live.items()):
            if i is not None and (now - started > hard_wall or _cpu_of(p.pid) - cpu0 > hard_cpu):
                lost(conn, "killed")
    return [results[i] for i in range(n) if i in results]


# ---- summary ------------------------------------------------------------------------------------------


def classes(results: list[dict]) -> list[dict]:
    """Failures grouped by (exception type, innermost engine file:line), most frequent first; each
    with its count, kinds, commands and the smallest example."""
    groups: dict[tuple, list[dict]] = {}
    for r in results:
        if r["outcome"] in FAILURES:
            groups.setdefault((r["outcome"], r["exception"], r["where"]), []).append(r)
    out = []
    for (outcome, exc, where), rs in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        out.append({"outcome": outcome, "exception": exc, "where": where, "count": len(rs),
                    "kinds": dict(Counter(r["kind"] for r in rs)),
                    "commands": dict(Counter(r["command"].split()[1] for r in rs)),
                    "indices": [r["index"] for r in rs],
                    "example": min(rs, key=lambda r: r["index"])})
    return out


def summarize(results: list[dict], seconds: float) -> dict:
    """Counts per kind and outcome, exit codes, peak memory, time, and the failure classes."""
    by_kind = {}
    for kind in KINDS:
        rs = [r for r in results if r["kind"] == kind]
        if not rs:
            continue
        by_kind[kind] = {"inputs": len(rs), **{o: sum(r["outcome"] == o for r in rs) for o in OUTCOMES},
                         "exit_codes": dict(sorted(Counter(str(r["code"]) for r in rs).items())),
                         "peak_mb": max(r["peak_mb"] for r in rs), "cpu_s": round(sum(r["cpu_s"] for r in rs), 1),
                         "slowest_s": max(r["seconds"] for r in rs)}
    total = {"inputs": len(results), **{o: sum(r["outcome"] == o for r in results) for o in OUTCOMES},
             "exit_codes": dict(sorted(Counter(str(r["code"]) for r in results).items())),
             "peak_mb": max((r["peak_mb"] for r in results), default=0.0),
             "cpu_s": round(sum(r["cpu_s"] for r in results), 1),
             "slowest_s": max((r["seconds"] for r in results), default=0.0)}
    slow = max(results, key=lambda r: r["seconds"], default=None)  # the input nearest the hang timeout
    slowest = ({k: slow[k] for k in ("index", "kind", "command", "seconds", "cpu_s", "outcome")}
               if slow is not None else None)
    return {"seconds": round(seconds, 1), "kinds": by_kind, "total": total, "slowest": slowest,
            "classes": classes(results)}


def print_summary(s: dict, file=sys.stdout) -> None:
    """The summary as a table (a row per kind and a total) and a line per failure class."""
    cols = ["inputs", *OUTCOMES, "peak_mb", "slowest_s", "cpu_s"]
    print(f"{'kind':10s}" + "".join(f"{c:>11s}" for c in cols) + "   exit codes", file=file)
    for kind, row in [*s["kinds"].items(), ("total", s["total"])]:
        print(f"{kind:10s}" + "".join(f"{row[c]:>11}" if not isinstance(row[c], float) else f"{row[c]:>11.1f}"
                                      for c in cols) + "   " + " ".join(f"{k}:{v}" for k, v in row["exit_codes"].items()),
              file=file)
    print(f"{s['total']['inputs']} inputs in {s['seconds']:.0f} s wall, {s['total']['cpu_s']:.0f} s CPU in the CLI; "
          f"{len(s['classes'])} failure classes", file=file)
    if s.get("slowest"):
        w = s["slowest"]
        print(f"slowest: #{w['index']} ({w['kind']}, {w['outcome']}) {w['seconds']:.2f} s wall, {w['cpu_s']:.2f} s CPU: "
              f"{w['command'][:100]}", file=file)
    for c in s["classes"]:
        ex = c["example"]
        print(f"  {c['count']:5d} x {c['outcome']:8s} {c['exception']} at {c['where']}  "
              f"[{', '.join(f'{k} {v}' for k, v in c['commands'].items())}]  e.g. #{ex['index']}: {ex['command'][:100]}",
              file=file)


def _same(r: dict, want: dict) -> bool:
    if r["outcome"] != want["outcome"] or r["exception"] != want["exception"]:
        return False
    return r["outcome"] == "hang" or r["where"] == want["where"]  # a hang stops wherever it is


def minimize(case: Case, want: dict, workdir: Path, timeout: float = 5.0, budget_s: float = 60.0,
             max_trials: int = 400) -> tuple[Case, dict]:
    """A smaller input failing the same way (same outcome, exception and innermost engine line):
    each file's lines removed in halving chunks, then long lines cut, while the failure stays.
    Bounded by ``max_trials`` runs and ``budget_s`` seconds. Returns the case and its result."""
    started, trials = time.perf_counter(), 0
    best, best_r = case, want

    def attempt(files: dict[str, bytes]) -> bool:
        nonlocal best, best_r, trials
        trials += 1
        cand = Case(case.index, case.kind, case.seed_name, case.mutators + ["minimized"], case.argv, files)
        r = run_case(cand, workdir, timeout)
        if _same(r, want):
            best, best_r = cand, r
            return True
        return False

    def spent() -> bool:
        return trials >= max_trials or time.perf_counter() - started > budget_s

    for name in sorted(case.files, key=lambda k: -len(case.files[k])):
        lines = best.files[name].split(b"\n")
        chunk = max(len(lines) // 2, 1)
        while chunk >= 1 and not spent():
            i = 0
            while i < len(lines) and not spent():
                trial = lines[:i] + lines[i + chunk:]
                if trial != lines and attempt({**best.files, name: b"\n".join(trial)}):
                    lines = trial
                else:
                    i += chunk
            chunk //= 2
        for j in range(len(lines)):
            while len(lines[j]) > 200 and not spent():
                trial = lines[:j] + [lines[j][: len(lines[j]) // 2]] + lines[j + 1:]
                if not attempt({**best.files, name: b"\n".join(trial)}):
                    break
                lines = trial
    return best, best_r


def _write_input(d: Path, case: Case, r: dict | None) -> None:
    d.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (d / name).write_bytes(data.replace(b"{dir}/", b""))
    (d / "command.txt").write_text(
        f"cd {d} && {case.shell()}\n# mutators: {', '.join(case.mutators)}\n# seed file: {case.seed_name}\n"
        + ("".join(f"# {line}\n" for line in r["traceback"]) if r else ""), encoding="utf-8")


def save(s: dict, results: list[dict], seeds: Seeds, seed: int, kinds, out: Path, per_class: int = 5,
         minimize_s: float = 0.0, timeout: float = 5.0) -> None:
    """Each failure class in its own folder: up to ``per_class`` smallest inputs (their files and
    ``command.txt`` with the command and the traceback's last frames), with ``minimize_s`` > 0 a
    minimized one (``minimal/``, at most that many seconds per class), and ``classes.json``."""
    out.mkdir(parents=True, exist_ok=True)
    by_index = {r["index"]: r for r in results}
    listing = []
    for n, c in enumerate(s["classes"], 1):
        slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", f"{n:02d}-{c['outcome']}-{c['exception']}-{c['where']}")[:120]
        folder = out / slug
        folder.mkdir(exist_ok=True)
        cases = [make_case(seeds, seed, i, kinds[i % len(kinds)]) for i in c["indices"][:200]]
        cases.sort(key=lambda k: sum(len(v) for v in k.files.values()))
        for case in cases[:per_class]:
            _write_input(folder / f"input-{case.index}", case, by_index.get(case.index))
        entry = {"folder": slug, **{k: v for k, v in c.items() if k != "indices"}}
        if minimize_s > 0 and cases and cases[0].files and c["exception"] not in ("WorkerKilled",):
            with tempfile.TemporaryDirectory() as tmp:
                hang = c["outcome"] == "hang"
                small, r = minimize(cases[0], by_index[cases[0].index], Path(tmp), min(timeout, 2.0) if hang else timeout,
                                    minimize_s, 20 if hang else 400)
            _write_input(folder / "minimal", small, r)
            entry["minimal"] = {"command": small.shell(), "bytes": {k: len(v) for k, v in small.files.items()},
                                "traceback": r["traceback"]}
        listing.append(entry)
    (out / "classes.json").write_text(json.dumps(listing, ensure_ascii=False, indent=1), encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    """The command line (see the module docstring); returns the exit status."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=10_000, help="inputs in all (split evenly over the kinds)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=min(2, os.cpu_count() or 1),
                    help="processes (0: run in this process, no watchdog)")
    ap.add_argument("--timeout", type=float, default=5.0, help="seconds before an input counts as a hang")
    ap.add_argument("--mem-cap", type=float, default=4.0, help="address-space cap per worker, GiB (0: none)")
    ap.add_argument("--mem-flag", type=float, default=1024.0, help="peak RSS (MB) of one input counted as a failure")
    ap.add_argument("--records", type=int, default=20, help="records made per bundled ruleset as seeds")
    ap.add_argument("--kinds", default=",".join(KINDS), help="comma-separated subset of " + ",".join(KINDS))
    ap.add_argument("--save", type=Path, metavar="DIR", help="save failing inputs by class in DIR")
    ap.add_argument("--minimize", type=float, default=0.0, metavar="SECONDS",
                    help="with --save: also shrink each class's smallest input, for at most SECONDS per class")
    ap.add_argument("--json", action="store_true", help="print the summary as JSON")
    a = ap.parse_args(argv)
    kinds = tuple(k for k in a.kinds.split(",") if k)
    if not set(kinds) <= set(KINDS):
        ap.error(f"--kinds: choose from {', '.join(KINDS)}")
    started = time.perf_counter()
    tty = sys.stderr.isatty()
    last = [0.0]

    def progress(results):
        now = time.perf_counter()
        if now - last[0] < (0.5 if tty else 15) and len(results) < a.n:
            return
        last[0] = now
        c = Counter(r["outcome"] for r in results.values())
        rate = len(results) / max(now - started, 1e-9)
        print(("\r" if tty else "") + f"[{len(results):6d}/{a.n}] {rate:5.1f}/s  ok {c['ok']}  bad input {c['bad_input']}  "
              f"internal {c['internal']}  hang {c['hang']}  memory {c['memory']}  other {c['other']}",
              end="" if tty else "\n", file=sys.stderr, flush=True)

    with tempfile.TemporaryDirectory(prefix="mjrules-fuzz-") as tmp:
        seeds = load_seeds(Path(tmp), a.records)
        print(f"seeds: {len(seeds.rules)} rule files, {len(seeds.scenario)} scenario files, {len(seeds.record)} records, "
              f"{len(seeds.score_flags)} score command lines", file=sys.stderr)
        hostile = run_hostile(Path(tmp), a.timeout)
        results = run_many(seeds, a.n, a.seed, Path(tmp), a.workers, a.timeout, int(a.mem_cap * GIB) or None,
                           a.mem_flag, kinds, progress)
    if tty:
        print(file=sys.stderr)
    s = summarize(results, time.perf_counter() - started)
    s.update({"n": a.n, "seed": a.seed, "workers": a.workers, "timeout_s": a.timeout})
    s["hostile"] = [{k: r[k] for k in ("command", "outcome", "code", "exception", "where", "cpu_s", "regressed")}
                    for r in hostile]
    if a.save:
        with tempfile.TemporaryDirectory() as tmp:
            save(s, results, load_seeds(Path(tmp), a.records), a.seed, kinds, a.save, minimize_s=a.minimize,
                 timeout=a.timeout)
    if a.json:
        print(json.dumps(s, ensure_ascii=False, indent=1))
    else:
        print_summary(s)
        regressed = [h for h in s["hostile"] if h["regressed"]]
        print(f"hostile corpus: {len(s['hostile'])} inputs, {len(s['hostile']) - len(regressed)} refused (exit 2)"
              + "".join(f"\n  REGRESSED {h['outcome']} (exit {h['code']}): {h['command'][:100]}" for h in regressed))
    t = s["total"]
    return 1 if any(t[o] for o in FAILURES) or any(h["regressed"] for h in s["hostile"]) else 0


if __name__ == "__main__":
    sys.exit(main())
