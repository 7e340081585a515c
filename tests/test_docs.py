"""The language, its reference and the tutorial cannot drift apart (Ludii-style).

- Every ```rules block of docs/language.md and docs/tutorial.md compiles: appended to
  ``extends nanchang``, or as-is when it is a whole file (its first statement is ``ruleset``
  or ``extends``); a block that declares options compiles with every choice.
- Every rule and alias of grammar/mjrules.lark is either an internal rule (listed below with
  the reason) or a construct whose keywords appear in a ```rules example of language.md; every
  keyword and symbol the grammar quotes appears in one too.
- The facts table of language.md is engine/lang/facts.py, contexts included.
- docs/scenarios.md names exactly the scenario keys the runner accepts.
- The tutorial's myhouse.rules and myhouse.yaml pass ``mjrules test``.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from engine.errors import MjError
from engine.lang.compiler import compile_text
from engine.lang.facts import FACTS
from engine.tools import scenario

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
LANGUAGE = DOCS / "language.md"
TUTORIAL = DOCS / "tutorial.md"
SCENARIOS = DOCS / "scenarios.md"
GRAMMAR = ROOT / "grammar" / "mjrules.lark"

PARENT = "extends nanchang\n"


# ---- fenced blocks ----------------------------------------------------------------------------


def fenced(path: Path, lang: str) -> list[tuple[str, str]]:
    """(``file:line``, text) of every ```lang block of a markdown file."""
    out, block, start = [], None, 0
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if block is None and line.strip() == f"```{lang}":
            block, start = [], i + 1
        elif block is not None and line.strip() == "```":
            out.append((f"{path.name}:{start}", "\n".join(block) + "\n"))
            block = None
        elif block is not None:
            block.append(line)
    assert block is None, f"{path.name}: a ```{lang} block is not closed"
    return out


def strip_comments(text: str) -> str:
    """Rule text without ``#`` comments (strings are kept)."""
    return "\n".join(re.sub(r'^((?:[^"#]|"[^"\n]*")*)#.*$', r"\1", ln).rstrip() for ln in text.splitlines())


def is_whole_file(text: str) -> bool:
    first = next((ln.strip() for ln in strip_comments(text).splitlines() if ln.strip()), "")
    return first.split()[0] in ("ruleset", "extends") if first else False


def rules_blocks() -> list[tuple[str, str]]:
    return fenced(LANGUAGE, "rules") + fenced(TUTORIAL, "rules")


def compile_block(text: str, tmp_path: Path, options: dict[str, str] | None = None):
    src = text if is_whole_file(text) else PARENT + text
    return compile_text(src, file=str(tmp_path / "doc.rules"), options=options, base_dir=tmp_path)


@pytest.mark.parametrize("text", [t for _, t in rules_blocks()], ids=[w for w, _ in rules_blocks()])
def test_example_compiles(text: str, tmp_path: Path) -> None:
    try:
        rs = compile_block(text, tmp_path)
        for opt in rs.options.values():
            if opt.origin.file == str(tmp_path / "doc.rules"):
                for choice in opt.choices:
                    compile_block(text, tmp_path, {opt.name: choice})
    except MjError as exc:
        pytest.fail("this example does not compile:\n" + text + "\n" + exc.render())


def test_docs_have_examples() -> None:
    assert len(fenced(LANGUAGE, "rules")) >= 30
    assert len(fenced(TUTORIAL, "rules")) >= 4


# ---- grammar coverage -------------------------------------------------------------------------

# grammar rule or alias -> keywords that must appear in a ```rules example of language.md
# (comments stripped). Chosen so that each shows the construct in use, not just its first word.
DOCUMENTED: dict[str, list[str]] = {
    "header": ["ruleset myhouse"],
    "extends": ["extends nanchang"],
    "source": ['source "'],
    "override": ["override fan", "override jing", "override payment base"],
    "remove": ["remove meld", "remove fan", "remove payment"],
    "option": ['option 大七对 "', "= 2 {"],
    "set": ["set 四归 = no"],
    "choice": ["4: {", "chongguan: {"],
    "suit": ['suit m "', "ranks 1..9"],
    "honours": ["honours winds", "honours flowers"],
    "honour_tile": ['东 "1z"'],
    "cyclic": ["cyclic copies"],
    "copies": ["copies 1", "copies 4"],
    "table": ["table seats = E S W N", "table dice = 2"],
    "meld": ["meld 字顺 chow", "meld 刻子 pung", "kong = same 4", "meld 将 pair"],
    "run": ["run 3 in m"],
    "distinct": ["distinct 3 in winds"],
    "same": ["same 3", "same 4 declared"],
    "groups": ["m + p + s", "in honours", "of suits"],
    "pattern": ["pattern 清一色 ="],
    "sets": ["sets 4 +", "sets 4 of 刻子/杠"],
    "pair": ["+ pair"],
    "pairs": ["pairs 7"],
    "rotten": ["rotten gap 3"],
    "concealed": ["pair, concealed"],
    "honours_natural": ["honours natural"],
    "min_honours": ["honours >= 7"],
    "quads_as_pairs": ["quads as pairs"],
    "one_of": ["one of suits", "one of suits plus honours"],
    "only": ["only honours"],
    "indicator": ['indicator left "'],
    "pos_stack_top": ["top of dice stack from tail", "top of dice stack from head"],
    "pos_under": ["under upper"],
    "pos_left": ["left of lower"],
    "pos_right": ["right of lower"],
    "pos_previous": ["previous upper"],
    "pos_each_tile": ["each tile where n >= 5"],
    "pos_flips": ["flips from tail up to 22 at most 2 per sum stop when n >= 3"],
    "family": ["left of upper, family"],
    "picked": ["picked by each seat"],
    "pos_next_draw": ["= next draw 1, settle at end"],
    "wild": [", wild"],
    "hidden": [", hidden"],
    "settle": ["settle at end with kongs"],
    "after_deal": ["settle after deal"],
    "at_end": ["settle at end"],
    "jing": ["override jing", "jing 大霸王"],
    "jing_value": ["= 正 2, 副 1", "= main 2, next 1"],
    "jing_kong": ["= concealed 2, exposed 1, added 1", "= concealed 2, exposed 2"],
    "jing_mult": ["= x2 when sole_holder"],
    "jing_formula": ["= score n * (n - 3) when n >= 5"],
    "jing_kong_bonus": ["14 each per jing kong instead of kong points", "10 each per jing kong\n",
                        "per jing kong of any indicator"],
    "jing_liability": ["liability 冲关 on claimed discard"],
    "jing_liability_over": ["liability over 5 on claimed discard"],
    "jing_add": ["jing 霸王 = +10 when sole_holder"],
    "jing_discarded": ["jing 打出 = count discarded"],
    "jing_kongs_hold": ["jing 霸王计杠 = count kongs"],
    "jing_discard_bonus": ["each per discarded"],
    "no_win": ["= no win when pattern 平胡"],
    "paid_by": ["paid by discarder when discard"],
    "cap": ["at most 300 on win, jing, exhaustive"],
    "fan": ["fan 清一色 = x2 when pattern 清一色"],
    "mult": ["= x4", "= ×4"],
    "add": ["+5 from discarder else each", "+1 from others", "+2 from dealer"],
    "fixed": ["fixed 32 each when", "fixed 16 each with 庄家", "with 庄家/爬楼", "fixed 20 by payment when"],
    "instead": ["instead of 德国", "instead of all", "instead of all except 精钓"],
    "payment": ["payment 点炮 = discarder x2, others x1 when discard"],
    "payment_base": ["payment base = 1"],
    "weight": ["dealer x3", "each x2"],
    "factor": ["factor 荒庄庄家 = 2 on exhaustive when", "on win, jing after adders", "follow after caps",
               "on kongs when drawn"],
    "exhaustive": ["exhaustive 荒庄 = dealer pays 5 each"],
    "flow": ["flow 弃先胡后 = pass_lock("],
    "flow_kv": ["until: own_turn", "pays: 10"],
    "flow_value": ["kong/jing_discard", "dealer_win"],
    "or_": [" or "],
    "and_": [" and "],
    "not_": ["not "],
    "cmp": [">=", "<=", "==", "!=", "> ", "< "],
    "binop": [" * ", " - ", " / ", " + "],
    "neg": ["-floor"],
    "num": [">= 5"],
    "var": ["when sole_holder", "when discard"],
    "pattern_is": ["when pattern "],
}

# rules that are structure, not constructs: each is covered through the rules it stands for
INTERNAL = {
    "start",  # the file: header? item*
    "item",  # any top-level statement
    "decl",  # any declaration
    "value",  # a name, number or string (table, option, flow values)
    "choice_item",  # what an option choice may hold: decl, override, remove
    "shape",  # alternatives run / distinct / same
    "component",  # alternatives sets / pair / pairs / rotten
    "constraint",  # alternatives concealed / honours_natural / …
    "position",  # alternatives pos_*
    "ind_attr",  # alternatives wild / hidden / settle
    "timing",  # alternatives after_deal / at_end
    "jing_body",  # alternatives jing_*
    "effect",  # alternatives mult / add / fixed
    "flow_arg",  # a flow word, or flow_kv
    "expr", "or_expr", "and_expr", "not_expr", "cmp_expr", "sum", "product", "unary", "atom",  # precedence levels
}

# terminals defined by a regular expression that is not a list of words (`/(win|jing)\b/`,
# `/after\s+adders/` are read from the grammar): the forms that must appear in an example
REGEX_TERMINALS = {
    "MULT": ["x2", "×4"],
    "RULESET_NAME": ["extends nanchang-table"],
    "STRING": ['"'],
    "INT": ["5"],
    "NAME": ["德国"],
    "COMMENT": [],  # comments are stripped before the examples are searched
}


def grammar_lines() -> list[str]:
    """The grammar without // comments, continuation lines joined to their definition."""
    out: list[str] = []
    for raw in GRAMMAR.read_text(encoding="utf-8").splitlines():
        line = raw.split("//")[0].rstrip() if not raw.lstrip().startswith("//") else ""
        if not line.strip():
            continue
        if line[0].isspace() and out:
            out[-1] += " " + line.strip()
        else:
            out.append(line)
    return out


def grammar_names() -> set[str]:
    """Every rule name and every ``-> alias`` of the grammar."""
    names = set()
    for line in grammar_lines():
        m = re.match(r"^\??([a-z_]+):", line)
        if m:
            names.add(m.group(1))
        names |= set(re.findall(r"->\s*([a-z_]+)", line))
    return names


TERMINAL = re.compile(r"^([A-Z_]+)(?:\.\d+)?:\s*(.*)$")


def regex_words(rx: str) -> list[str] | None:
    """The words a keyword regex stands for: `/(win|jing)\\b/` → win, jing; `/after\\s+adders/`
    → `after adders`; None for any other regex (NAME, INT …)."""
    body = rx.strip().strip("/").replace("\\b", "").replace("\\s+", " ")
    if body.startswith("(") and body.endswith(")"):
        body = body[1:-1]
    return body.split("|") if re.fullmatch(r"[a-z ]+(\|[a-z ]+)*", body) else None


def grammar_literals() -> set[str]:
    """Every keyword or symbol of the grammar: quoted in rules and string terminals, or a
    word of a keyword regex terminal."""
    lits = set()
    for line in grammar_lines():
        if line.startswith("%"):
            continue
        term = TERMINAL.match(line)
        if term and term.group(2).startswith("/"):
            lits |= set(regex_words(term.group(2)) or ())
        elif ":" in line:
            lits |= set(re.findall(r'"([^"]+)"', line.split(":", 1)[1]))
    return lits


def grammar_regex_terminals() -> set[str]:
    """Regex terminals that are not keyword lists."""
    return {m.group(1) for line in grammar_lines()
            if (m := TERMINAL.match(line)) and m.group(2).startswith("/") and regex_words(m.group(2)) is None}


def example_text() -> str:
    return "\n".join(strip_comments(t) for _, t in fenced(LANGUAGE, "rules"))


def occurs(keyword: str, text: str) -> bool:
    if re.fullmatch(r"\w+", keyword):  # a word: not inside a longer word
        return re.search(rf"(?<!\w){re.escape(keyword)}(?!\w)", text) is not None
    return keyword in text


def test_grammar_is_read() -> None:
    names = grammar_names()
    assert {"start", "suit", "fan", "jing_liability", "pos_left", "rotten"} <= names
    assert {"ranks", "liability", "instead", "{", "win", "discarder", "after adders"} <= grammar_literals()
    assert {"NAME", "INT", "MULT"} <= grammar_regex_terminals()


def test_every_grammar_rule_is_documented_or_internal() -> None:
    names = grammar_names()
    missing = sorted(names - set(DOCUMENTED) - INTERNAL)
    assert not missing, (f"grammar rules with no documented example: {missing}; add an example to "
                         "docs/language.md and the rule's keywords to DOCUMENTED (or, if it is only "
                         "structure, to INTERNAL)")
    stale = sorted((set(DOCUMENTED) | INTERNAL) - names)
    assert not stale, f"DOCUMENTED/INTERNAL name rules the grammar no longer has: {stale}"
    assert not set(DOCUMENTED) & INTERNAL


@pytest.mark.parametrize("rule", sorted(DOCUMENTED))
def test_construct_has_example(rule: str) -> None:
    text = example_text()
    absent = [k for k in DOCUMENTED[rule] if not occurs(k, text)]
    assert not absent, f"grammar rule {rule!r}: no ```rules example in docs/language.md shows {absent}"


def test_every_grammar_keyword_appears_in_an_example() -> None:
    text = example_text()
    absent = sorted(k for k in grammar_literals() if not occurs(k, text))
    assert not absent, f"keywords of the grammar that no example of docs/language.md uses: {absent}"


def test_every_regex_terminal_appears_in_an_example() -> None:
    assert grammar_regex_terminals() <= set(REGEX_TERMINALS), (
        f"new regex terminals: {sorted(grammar_regex_terminals() - set(REGEX_TERMINALS))}")
    text = example_text()
    absent = {t: ks for t, ks in REGEX_TERMINALS.items() if not all(k in text for k in ks)}
    assert not absent


# ---- facts, scenario keys -----------------------------------------------------------------------


def test_facts_table_is_engine_facts() -> None:
    rows = {}
    for line in LANGUAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| `(\w+)` \| ([a-z, ]+) \|", line)
        if m:
            rows[m.group(1)] = {c.strip() for c in m.group(2).split(",")}
    want = {name: set(ctxs) for name, (ctxs, _) in FACTS.items()}
    assert rows == want


def test_flow_table_is_engine_flow() -> None:
    """Every policy and parameter of engine/lang/flow.py is in the reference's table, and no other."""
    from engine.lang.flow import POLICIES

    rows, policy = set(), None
    for line in LANGUAGE.read_text(encoding="utf-8").splitlines():
        m = re.match(r"^\| (?:`(\w+)`)? *\| `(\w+)` \| ", line)
        if m:
            policy = m.group(1) or policy
            rows.add((policy, m.group(2)))
    assert rows == {(p, k) for p, spec in POLICIES.items() for k in spec.params}


def test_scenario_page_names_exactly_the_runner_keys() -> None:
    text = SCENARIOS.read_text(encoding="utf-8")
    for key in sorted(scenario.FILE_KEYS | scenario.CASE_KEYS | scenario.EXPECT_KEYS):
        assert f"`{key}`" in text, f"docs/scenarios.md does not describe the key {key!r}"
    documented = set(re.findall(r"^\| `(\w+)` \|", text, re.M))
    from engine.tools.scripted import GAME_KEYS

    allowed = scenario.FILE_KEYS | scenario.CASE_KEYS | scenario.EXPECT_KEYS | GAME_KEYS | {
        "seat", "tile", "by", "from", "first_turn", "concealed", "melds"}
    assert documented <= allowed, f"keys the runner does not accept: {sorted(documented - allowed)}"


def test_scenario_page_example_passes(tmp_path: Path) -> None:
    blocks = [t for _, t in fenced(SCENARIOS, "yaml")]
    assert blocks
    for i, text in enumerate(blocks):
        path = tmp_path / f"example{i}.yaml"
        path.write_text(text, encoding="utf-8")
        results = scenario.run_files([path])
        assert results and all(r.passed for r in results), [r.differences for r in results]


# ---- the tutorial -------------------------------------------------------------------------------


def tutorial_file(lang: str, name: str) -> str:
    """The last tutorial block whose first line is ``# NAME`` (the file as it ends up)."""
    found = [t for _, t in fenced(TUTORIAL, lang) if t.startswith(f"# {name}")]
    assert found, f"docs/tutorial.md: no ```{lang} block starts `# {name}`"
    return found[-1]  # the last one is the whole file


def test_tutorial_house_rules_pass_their_scenarios(tmp_path: Path) -> None:
    (tmp_path / "myhouse.rules").write_text(tutorial_file("rules", "myhouse.rules"), encoding="utf-8")
    yaml_text = tutorial_file("yaml", "myhouse.yaml")
    (tmp_path / "myhouse.yaml").write_text(yaml_text, encoding="utf-8")
    assert YAML(typ="safe").load(yaml_text)["ruleset"] == "myhouse.rules"
    results = scenario.run_files([tmp_path / "myhouse.yaml"])
    assert len(results) >= 3
    assert all(r.passed for r in results), {r.name: r.differences for r in results if not r.passed}


def test_game_page_covers_every_flow_policy() -> None:
    """docs/game.md says what the core does with each policy of engine/lang/flow.py."""
    from engine.lang.flow import POLICIES

    text = (Path(__file__).resolve().parent.parent / "docs" / "game.md").read_text(encoding="utf-8")
    missing = [p for p in POLICIES if f"`{p}(" not in text]
    assert not missing, f"docs/game.md does not describe: {missing}"
