"""grammar/mjrules.tmLanguage.json, the TextMate grammar editors highlight `.rules` files with
(docs/editors.md).

No light TextMate engine is on PyPI, so this file carries a small interpreter of the subset the
grammar uses: ``match`` rules with ``name`` or ``captures``, one-line ``begin``/``end`` rules, and
``include`` of repository rules; at each place the rule whose match starts first wins, the first
listed on a tie (TextMate's own choice). Its regular expressions are written in the part of
Oniguruma that Python's ``re`` reads the same way (checked: each compiles).

Checked: every character but whitespace of every bundled ruleset gets a scope; every keyword of
grammar/mjrules.lark (derived from the Lark file, so a new keyword without highlighting fails)
is a keyword here; names, numbers, strings and comments get their own scopes.
"""
from __future__ import annotations

import json
import re

import pytest

from .conftest import ROOT

GRAMMAR = json.loads((ROOT / "grammar" / "mjrules.tmLanguage.json").read_text(encoding="utf-8"))
LARK = (ROOT / "grammar" / "mjrules.lark").read_text(encoding="utf-8")
RULESETS = sorted((ROOT / "rulesets").glob("*.rules"))


def _rules(patterns: list[dict]) -> list[dict]:
    """The grammar's patterns with every ``include`` replaced by what it names, in order."""
    out = []
    for p in patterns:
        if "include" in p:
            assert p["include"].startswith("#"), p
            out += _rules([GRAMMAR["repository"][p["include"][1:]]])
        elif "patterns" in p and "match" not in p and "begin" not in p:
            out += _rules(p["patterns"])
        else:
            out.append(p)
    return out


RULES = _rules(GRAMMAR["patterns"])


def scopes(line: str) -> list[str | None]:
    """The scope of each character of one line (None: no rule classified it)."""
    out: list[str | None] = [None] * len(line)
    pos = 0
    while pos < len(line):
        best = None
        for rule in RULES:
            m = re.compile(rule.get("match") or rule["begin"]).search(line, pos)
            if m and (best is None or m.start() < best[0].start()):
                best = (m, rule)
        if best is None:
            break
        m, rule = best
        end = m.end()
        if "begin" in rule:
            e = re.compile(rule["end"]).search(line, m.end())
            end = e.end() if e else len(line)
        for i in range(m.start(), end):
            out[i] = rule.get("name")
        for group, cap in rule.get("captures", {}).items():
            if m.group(int(group)) is not None:
                for i in range(m.start(int(group)), m.end(int(group))):
                    out[i] = cap["name"]
        pos = max(end, pos + 1)
    return out


def lark_keywords() -> set[str]:
    """Every keyword of the rule language: the words the Lark grammar quotes, and the words of
    its keyword terminals (``KIND: /(suit|honours|…)\\b/``, ``WITH_KONGS: /with\\s+kongs/`` …)."""
    body = "\n".join(line.split("//")[0] for line in LARK.splitlines())
    words = {w for w in re.findall(r'"([^"\\]+)"', body) if re.fullmatch(r"[^\W\d]\w*", w)}
    for m in re.finditer(r"^([A-Z_]+)(?:\.\d+)?:\s*/(.*)/\s*$", body, re.M):
        if m.group(1) in ("NAME", "RULESET_NAME", "INT", "STRING", "COMMENT", "MULT"):
            continue
        words |= set(re.findall(r"[a-z_]+", m.group(2).replace(r"\b", " ").replace(r"\s+", " ")))
    return words


def test_the_grammar_is_well_formed():
    assert GRAMMAR["scopeName"] == "source.mjrules" and GRAMMAR["fileTypes"] == ["rules"]
    for rule in RULES:
        for key in ("match", "begin", "end"):
            if key in rule:
                re.compile(rule[key])
        assert "name" in rule or "captures" in rule, rule
        if "begin" in rule:
            assert "$" in rule["end"], "a begin/end rule ends with its line (the interpreter reads lines)"


@pytest.mark.parametrize("path", RULESETS, ids=lambda p: p.name)
def test_every_token_of_a_bundled_ruleset_is_classified(path):
    unclassified = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for col, (ch, scope) in enumerate(zip(line, scopes(line)), 1):
            if not ch.isspace() and scope is None:
                unclassified.append(f"{path.name}:{n}:{col}: {ch!r} in {line.strip()!r}")
    assert not unclassified, "\n".join(unclassified[:20])


def test_every_keyword_of_the_lark_grammar_is_highlighted_as_one():
    words = lark_keywords()
    assert {"ruleset", "fan", "when", "instead", "kongs", "adders", "points", "discarder", "正", "副"} <= words
    missing = []
    for w in sorted(words):
        got = set(scopes(f" {w} ")[1:-1])
        if len(got) != 1 or next(iter(got)).split(".")[0] not in ("keyword", "storage"):
            missing.append(f"{w}: {got}")
    assert not missing, missing


def _scope_of(line: str, word: str) -> str | None:
    i = line.index(word)
    got = set(scopes(line)[i:i + len(word)])
    assert len(got) == 1, (word, got)
    return got.pop()


@pytest.mark.parametrize("line,word,scope", [
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "德国", "entity.name.function.mjrules"),
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "x2", "constant.numeric.multiplier.mjrules"),
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "wilds_used", "variable.other.mjrules"),
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "# 000 §14", "comment.line.number-sign.mjrules"),
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "not", "keyword.operator.logical.mjrules"),
    ('fan 德国 = x2, +5 from discarder else each when not wilds_used  # 000 §14', "fan", "storage.type.mjrules"),
    ('ruleset nanchang-table "南昌麻将 (003 算子表)"', "nanchang-table", "entity.name.type.ruleset.mjrules"),
    ('ruleset nanchang-table "南昌麻将 (003 算子表)"', '"南昌麻将 (003 算子表)"', "string.quoted.double.mjrules"),
    ('source "unterminated', '"unterminated', "string.quoted.double.mjrules"),
    ("suit m \"万\" ranks 1..9 cyclic copies 4", "..", "keyword.operator.mjrules"),
    ("suit m \"万\" ranks 1..9 cyclic copies 4", "9", "constant.numeric.integer.mjrules"),
    ("flow 弃先胡后 = pass_lock(until: own_turn, scope: any)", "pass_lock", "entity.name.function.policy.mjrules"),
    ("flow 弃先胡后 = pass_lock(until: own_turn, scope: any)", "until", "variable.parameter.mjrules"),
    ("jing 冲关 = score n * (n - 3) when n >= 5", ">=", "keyword.operator.mjrules"),
    ("jing 杠精 = 10 each per jing kong instead of kong points", "points", "keyword.other.mjrules"),
    ("override jing kong = concealed 2, exposed ×2", "×2", "constant.numeric.multiplier.mjrules"),
])
def test_scopes_of_tokens(line, word, scope):
    assert _scope_of(line, word) == scope
