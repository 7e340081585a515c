"""engine/ names no variant and holds no rule number: those live in rulesets/*.rules.

The number check reads every numeric literal in engine/*.py; the few that are not rules
(exit codes, JSON indent, cache sizes, parse-tree child positions) are listed per file with
why. A new literal fails this test until it is moved to a rule file or listed here with a reason.
"""
from __future__ import annotations

import ast
import re

from .conftest import ROOT

ENGINE = ROOT / "engine"
VARIANTS = re.compile(r"nanchang|chongguan|ganzhou|南昌|冲关|赣州", re.IGNORECASE)

NOT_RULES = {
    "cli/__init__.py": {2: "JSON indent"},
    "cli/inputs.py": {2: "twice the CPUs",
                      1_000_000: "MAX_HANDS, a bound on the work of one run", 1_000: "MAX_PLAY_HANDS, a bound on memory",
                      10_000: "MAX_FLOOR, a bound on input"},
    "cli/output.py": {2: "exit status 2 and JSON indent", 3: "exit status 3: an internal error",
                      130: "exit status after Ctrl-C", 141: "exit status when stdout is closed early (128 + SIGPIPE)",
                      12: "IMPACT_NAME_WIDTH, a table layout", 200: "IMPACT_PIPE_WIDTH, a table layout",
                      300: "characters of an internal error shown"},
    "cli/play.py": {2: "JSON indent"},
    "cli/rules.py": {2: "JSON indent"},
    "cli/score.py": {2: "exit status 2 and JSON indent"},
    "cli/serve.py": {64: "serve --workers: at most 64 processes", 8000: "serve --port default", 65535: "serve --port: the highest TCP port",
                     30: "serve --grace default (s) and --joins default (per 10 s)", 3600: "serve --grace: at most an hour",
                     100_000: "serve --joins: its largest value",
                     15.0: "serve --lease default (s)", 600: "serve --lease: at most 10 minutes",
                     300: "characters of a database error quoted"},
    "tools/server/__init__.py": {4: "uvicorn's websocket message cap: 4 × MAX_FRAME_BYTES (the app refuses past 1×)"},
    "cli/sim.py": {2: "JSON indent", 100: "default hands to simulate", 1_000: "default paired hands of impact",
                   1e-9: "no division by zero"},
    "lang/build.py": {2: "parse-tree child positions / label+default token count"},
    "lang/build_base.py": {2: "parse-tree child positions (an operator's right operand)"},
    "lang/parse.py": {12: "characters of an over-long token quoted in its error"},
    "lang/syntax.py": {8: "expected tokens listed in a syntax error", 0.75: "similarity cutoff for a misspelt keyword",
                       12: "characters of an over-long token quoted in its error", 2: "a string's two quotes",
                       0xFF10: "U+FF10, the full-width digit ０", 10: "ten digits",
                       4: "GLUED_MIN: a keyword's letters before a word it begins is taken for it misspelt (a hint)"},
    "lang/resolve.py": {3: "own overrides noted under a table error"},
    "lang/checks.py": {2: "a meld of fewer than two tiles is only a pair (the language's set shape)"},
    "lang/limits.py": {100_000: "MAX_FILE_BYTES / MAX_AMOUNT: input bounds against hostile files, not rules",
                       1_000: "MAX_LINE_CHARS / MAX_DECLARATIONS / MAX_MULTIPLIER / MAX_TABLE_NUMBER: input bounds",
                       64: "MAX_NAME_CHARS / MAX_HAND_TILES: input bounds", 500: "MAX_STRING_CHARS: input bound",
                       16: "MAX_EXTENDS_DEPTH / MAX_COPIES: input bounds", 32: "MAX_EXPR_DEPTH: recursion bound",
                       256: "MAX_EXPR_NODES: formula size bound", 1_000_000: "MAX_NUMBER: input bound",
                       99: "MAX_RANK: input bound", 36: "MAX_RANKS: tile kinds per group, an evaluation bound",
                       8: "MAX_SET_TILES: tiles per meld shape, an evaluation bound",
                       100: "MAX_ERRORS: syntax errors collected per file, an output bound",
                       6_000_000: "MAX_TABLE_VECTORS: count vectors of the win tables, a build-time bound"},
    "errors.py": {2: "an East Asian wide character takes 2 cells; a window both sides of a column", 0.5: "difflib cutoff",
                  8: "tab stops every 8 cells", 100: "characters of a long source line echoed each side of the error"},
    "lang/expr.py": {4096: "CACHE_LIMIT, expression nodes kept compiled (bounds memory)"},
    "core/snapshot.py": {2: "skip a keyword and its value when reading a meld"},
    "table/turn.py": {12: "legal actions listed in an error's hint"},
    "table/actions.py": {2: "words in an action's text (`S pung`)",
                         3: "words in an action's text with a tile (`S discard 5p`)",
                         4096: "MEMO_LIMIT: shared actions kept, a bound on memory"},
    "table/wall.py": {2: "two_rolls: the second throw"},
    "table/bots.py": {2: "bot heuristic: neighbours within two ranks, a copy worth two", 3: "sort-key tuple position"},
    "table/valuemodel.py": {0.3: "value model heuristics: chances per draw", 0.2: "value model heuristic: chance per draw",
                            0.7: "value model heuristic: share of wins on a discard", 0.5: "value model heuristic: sole-holder chance",
                            2: "value model heuristic: neighbours within two ranks",
                            64: "largest 精 count searched (an evaluation bound)", 4096: "cache size"},
    "table/searchbot.py": {48: "PLAYOUTS: the search bot's default budget of playouts a decision",
                           3: "TOP: discards the search bot searches", 4: "BATCH: redeals between two looks at the race",
                           10_000: "MAX_PLAYOUTS: a bound on the work of one decision",
                           2: "Z = 2.0: standard errors a search candidate must clear; a standard error needs "
                              "two samples", 31: "bits of a bot's integer seed"},
    "table/valuebot.py": {0.3: "value bot heuristics: RACE, 子 per live tile, own-discard scaling",
                          0.01: "value bot heuristic: fold below this chance of a win",
                          0.2: "value bot heuristic: threat per meld",
                          0.1: "value bot heuristic: chance a discarded 精 is claimed", 0.03: "value bot heuristic: threat per discard",
                          0.08: "value bot heuristic: chance a tile is a wait", 0.001: "value bot tie-break weight",
                          4.0: "value bot heuristic: 子 per step of distance",
                          0.05: "value bot heuristic: 子 below which a win without 精 used is not weighed",
                          3: "value bot heuristic: discards whose live tiles are counted"},
    "core/shanten.py": {2: "shanten counts a set as two partial steps"},
    "core/shanten_base.py": {5_000: "cache size (STATE_LIMIT)",
                             2: "a packed table's 2·k + 2 cells", 3: "… and its k: 2·k + 3 cells of bits"},
    "core/shanten_oracle.py": {2: "shanten counts a set as two partial steps"},
    "core/shanten_blocks.py": {2: "shanten counts a set as two partial steps (cells 2·sets + head)",
                               50_000: "MEMO_LIMIT, a bound on a memo", 4096: "lru_cache size",
                               64: "lru_cache size: the group tables kept (one per templates, pair, cap)",
                               4: "the four ways a split takes a tile (LOOSE … IN_PAIR, an enumeration)"},
    "tools/rooms/room.py": {24: "TOKEN_BYTES: random bytes of a seat's token", 9: "ID_BYTES: random bytes of a room id",
                            1_000_003: "seed mixing prime (as match.hand_seed)", 1_009: "seed mixing prime",
                            8: "seed mixing: seats per action number"},
    "tools/rooms/store.py": {40: "column width: a room id", 32: "CHANNEL_HEX: a server channel name's hash digits", 300: "column width: a ruleset's name",
                             64: "column width: a hex SHA-256 / a server id", 16: "column width: a seat / who acted",
                             200: "column width: an action's text", 30: "SQLite's wait for a lock, seconds",
                             5: "SQLITE_BUSY: SQLite's result code of a locked file", 255: "an SQLite result code's low byte"},
    "tools/server/rooms_api.py": {32: "hex digits of a server id", 16: "random bytes of a server id",
                                  4: "the default 局数: 4 hands a match"},
    "tools/rooms/hub.py": {8: "random bytes of a default owner id", 3: "a lease renewed every third of it"},
    "tools/rooms/actor.py": {64: "BATCH: jobs of one room told together"},
    "table/view.py": {4096: "MEMO_LIMIT: action views and mark sets kept"},
    "env/actions.py": {4096: "ENTRIES_LIMIT: actions whose entries are kept, a bound on memory"},
    "env/observe.py": {6: "NUMBER_COLUMNS: the NUMBERS row's columns before the per-seat ones",
                       2: "two per-seat columns in the NUMBERS row (hand sizes, face-down kongs)",
                       4096: "CELLS_LIMIT: rows of tiles whose cells are kept, a bound on memory"},
    "tools/rooms/caps.py": {64: "MAX_ACTION_CHARS / MAX_MATCH_HANDS", 2: "SECRET_SEEDS = 2**63; QUIET_LEASES",
                            63: "SECRET_SEEDS = 2**63: the store's 64-bit seed column",
                            86_400.0: "OPEN_SECONDS: a day",
                            4: "SYNC_TRIES; EPOCH_BYTES",
                            80: "CLIP: characters quoted back", 256: "MAX_ROOMS", 32: "MAX_WATCHERS; COMPILED_KEPT",
                            4096: "MAX_FRAME_BYTES", 600: "MAX_TIMER_SECONDS", 10.0: "JOIN_RATE: per 10 s",
                            30: "JOIN_RATE: 30 joins; GRACE_SECONDS", 20: "ACT_RATE: 20 a second",
                            15.0: "LEASE_SECONDS", 0.25: "TICK_SECONDS", 5: "MIN_TIMER_SECONDS; REQUEST_SECONDS",
                            200: "MAX_TOKEN_CHARS", 2_000: "MAX_STEPS", 10_000: "RATE_KEYS",
                            40: "MAX_ID_CHARS", 500: "CLIP_NOTE", 7_999: "NOTE_BYTES", 1: "FRAME_BYTES = 1 << 20",
                            4400: "websocket close code (400 + 4000)",
                            4403: "websocket close code (403 + 4000)", 4404: "websocket close code (404 + 4000)",
                            4409: "websocket close code (409 + 4000)", 4429: "websocket close code (429 + 4000)"},
    "lang/seeds.py": {2: "SEED_SPACE = 2**31", 31: "SEED_SPACE = 2**31"},
    "table/match.py": {1_000_003: "seed mixing prime",
                       8: "bytes of a hand index and of the keyed hash's digest", 16: "bytes of the hash's key"},
    "tools/server/caps.py": {3: "MAX_BODY_BYTES: three files' worth", 20: "REQUEST_SECONDS", 4: "MAX_RUNS",
                             2_000: "IMPACT_MAX_HANDS", 600: "IMPACT_SECONDS", 2: "MAX_IMPACT_RUNS",
                             32: "MAX_JOBS_KEPT", 64: "MAX_SESSIONS / MAX_UPLOADS / MAX_OPTIONS",
                             3_600: "SESSION_IDLE_SECONDS", 0.02: "POLL_SECONDS", 0.1: "WATCH_SECONDS",
                             300: "CLIP_BUG", 12: "TOKEN_BYTES", 40: "MAX_LOG: narration lines",
                             100: "DEFAULT_IMPACT_HANDS; GC_THRESHOLDS' third", 8000: "DEFAULT_PORT",
                             0.0005: "SWITCH_SECONDS", 700: "GC_THRESHOLDS: Python's own first threshold",
                             10: "GC_THRESHOLDS: Python's own second threshold"},
    "tools/server/app.py": {2: "a message's second field (progress: done, total)",
                            10.0: "serve --joins counts per 10 s (as JOIN_RATE)"},
    "tools/simulate.py": {25: "hands per block of work", 4: "decimals in JSON rates", 3: "decimals in JSON averages"},
    "tools/impact.py": {200: "characters of an example message kept", 4: "decimals in JSON rates"},
    "tools/impact_view.py": {2: "index of a section", 3: "index of a section",
                             7: "empty cells of a rule no ledger records"},
    "tools/stats.py": {1.96: "the normal distribution's two-sided 95% point", 0.05: "p5 quantile", 0.95: "p95 quantile",
                       3: "decimals in JSON means", 2: "a sample SD needs two values (n - 1); squares"},
    "tools/runner.py": {2: "Ray tasks in flight per CPU", 0.2: "seconds between looks for Ctrl-C", 10: "seconds to reach a Ray address",
                        9: "bytes of an HTTP/2 frame header", 4: "HTTP/2 SETTINGS frame type", 3: "the frame-type byte of an HTTP/2 header",
                        65536: "TCP port numbers"},
    "tools/scripted.py": {2: "a scripted game's default indicator throw (1, 2)"},
    "tools/sheet.py": {64: "cache size", 2: "the line above a rule (1-based line → 0-based index, minus one)"},
    "lang/fmt.py": {4: "INDENT: spaces per block level (layout); a clause kind's rank", 80: "ALIGN_MAX_CELLS: layout width",
                    2: "COMMENT_GAP; a wide character takes 2 cells; two block levels; two-token clause keys",
                    3: "a clause kind's rank (grammar order)", 5: "a clause kind's rank (grammar order)"},
    "tools/diff.py": {2: "operator binding levels", 3: "operator binding levels", 4: "operator binding levels",
                5: "operator binding levels", 6: "operator binding levels", 7: "operator binding levels",
                8: "operator binding levels"},
    "lang/yamlio.py": {2: "MAX_FILE_BYTES = 2**20, MAX_SEED = 2**63, WIDE_LOOKBACK (a bound)", 20: "MAX_FILE_BYTES = 2**20", 32: "MAX_DEPTH",
                       50_000: "MAX_NODES", 2_000: "MAX_SCALAR", 3_000: "MAX_LINE", 64: "MAX_WORD",
                       1_000: "MAX_TEXT, MAX_ITEMS, MAX_FLOOR", 10: "MAX_ZI = 10**9", 9: "MAX_ZI = 10**9",
                       63: "MAX_SEED = 2**63"},
    "lang/playable.py": {6: "DIE_FACES: a die has six faces", 2: "MIN_SEATS: a discard needs a claimer, a win a payer",
                         20_000: "MAX_TEMPLATES, a bound on evaluation", 50_000: "MAX_PAYMENT_CASES, a bound on the check",
                         3: "patterns noted in an error"},
    "core/scoring.py": {4096: "MEMO_LIMIT: a bound on the memos of pure functions of the rules"},
    "core/ledger.py": {10: "MAX_AMOUNT = 10**12, a bound on evaluation", 12: "MAX_AMOUNT = 10**12",
                       300: "characters of the factor trail quoted in an error"},
    "core/tiles.py": {2: "an honour code is at least a digit and a letter", 4: "longest honour name looked ahead"},
    "lang/parsergen.py": {2: "exit status 2: bad usage"},
    "tools/lsp.py": {40: "_MAX_HOVER_LINES: lines of a docs section shown on hover", 64: "files whose lines are cached",
                     2: "UTF-16 code units of a character past U+FFFF", 65535: "U+FFFF, the last one-unit UTF-16 character"},
    "lang/choices.py": {200: "MAX_CHOICES_CHECKED, a bound on a check's work"},
    "lang/lint.py": {10: "_MAX_ATOMS: the yes/no atoms of a condition searched (2**10 cases), a work bound",
                     1000: "_MAX_COUNT_TRIED: 精 counts a formula is tried at (W204), a work bound"},
    "core/gaps.py": {4096: "lru_cache size"},
    "table/flips.py": {1000: "MAX_RETHROWS: throws of a used-up sum thrown again, a bound on the work"},
    "core/patterns.py": {10: "INF = 10**6", 6: "INF = 10**6"},
    "core/recursive.py": {50_000: "GROUP_MEMO_LIMIT, a bound on a memo"},
    "core/wintables/packing.py": {5: "FIELD_BITS / VALUE_BITS: bits per count in a packed key and per value",
                                  32: "ZERO_VALUE_BITS: bits of a wild-free table's value"},
    "core/wintables/cachefile.py": {3: "CACHE_VERSION, the file layout's version",
                                    2_000_000: "MAX_CACHE_ENTRIES: a bound on reading a cache file",
                                    64: "MAX_CACHE_FILES, a bound on the disk cache",
                                    32: "hex digits of the cache file name"},
    "core/wintables/forms.py": {3: "CHUNK: kinds per step of the dense index",
                                4: "DENSE_BITS: bits per field of a dense table's byte",
                                18: "MAX_LAZY_ENTRIES = 2**18, a bound on a memo",
                                21: "DENSE_MAX: 2**21 entries, a bound on a dense table's size",
                                64: "lru_cache size"},
    "core/wintables/store.py": {32: "MAX_KEPT: tables a process keeps, a bound on memory",
                                64: "lru_cache size"},
    "core/wintables/codegen.py": {256: "MAX_SOURCES: generated sources kept in linecache, a bound on memory"},
    "core/wintables/checker.py": {4096: "MAX_FIT_MEMO: a bound on a memo",
                                  2: "PARITY_PAIR, the pair size of the parity bit trick; bit positions of a packed "
                                     "count (bit tricks); a table value holds two fields (a, b); a 精钓 variant is two "
                                     "tiles fewer (the winning tile and a 精); slices of a split row",
                                  3: "bit positions of a packed count (bit tricks)"},
    "core/wintables/plans.py": {2: "PARITY_PAIR, the pair size of the parity bit trick (moved from checker.py)"},
}

# Generated files whose numbers are not written by hand. Each is checked elsewhere to be exactly
# what its generator makes (the variant-name scan still reads them).
GENERATED = {
    "lang/standalone_parser.py": "Lark's standalone parser made by engine/lang/parsergen.py from the grammar: "
                                 "its numbers are parser states and token ids (tests/test_startup.py)",
}


def _variant_lines(text: str) -> list[tuple[int, str]]:
    return [(i, line.strip()) for i, line in enumerate(text.splitlines(), 1) if VARIANTS.search(line)]


def _rule_numbers(source: str, allowed: dict) -> list[tuple[int, float]]:
    return [(node.lineno, node.value) for node in ast.walk(ast.parse(source))
            if isinstance(node, ast.Constant) and type(node.value) in (int, float)
            and node.value not in (0, 1, -1) and node.value not in allowed]


def test_engine_names_no_variant():
    hits = [f"{f.relative_to(ROOT)}:{i}: {line}" for f in ENGINE.rglob("*.py")
            for i, line in _variant_lines(f.read_text(encoding="utf-8"))]
    assert not hits, "variant names in engine/:\n" + "\n".join(hits)


def test_engine_holds_no_rule_number():
    found = [f"engine/{name}:{line}: {value}" for f in sorted(ENGINE.rglob("*.py"))
             for name in [f.relative_to(ENGINE).as_posix()] if name not in GENERATED
             for line, value in _rule_numbers(f.read_text(encoding="utf-8"), NOT_RULES.get(name, {}))]
    assert not found, "numbers in engine/ that may be rules (move them to a .rules file):\n" + "\n".join(found)


def test_the_checks_can_fail():
    """Both scans report a planted rule number and a planted variant name."""
    assert _rule_numbers("DEALER_FACTOR = 2\nGANG_JING = 10\n", {10: "an allowance"}) == [(1, 2)]
    assert _variant_lines("x = 1\nrules = 'Nanchang'\n") == [(2, "rules = 'Nanchang'")]


def test_every_allowed_number_is_still_in_its_file():
    """An allowance that outlived its number (the code moved or changed) is struck off: else a rule
    number written there later would pass unseen."""
    stale = []
    for name, allowed in NOT_RULES.items():
        path = ENGINE / name
        assert path.exists(), f"NOT_RULES names engine/{name}, which is gone"
        present = {node.value for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
                   if isinstance(node, ast.Constant) and type(node.value) in (int, float)}
        stale += [f"engine/{name}: {value} ({why})" for value, why in allowed.items() if value not in present]
    assert not stale, "allowed numbers no longer in their files:\n" + "\n".join(stale)
