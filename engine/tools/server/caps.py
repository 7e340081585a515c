"""The server's caps (docs/serve.md): every bound on what a page may make the server do.

Rule files, scenarios and records from a page are untrusted input: besides these caps the
compiler's own limits (:mod:`engine.lang.limits`) and the YAML reader's apply.
The rooms' caps are in :mod:`engine.tools.rooms.caps`.
"""
from __future__ import annotations

from engine.lang.limits import MAX_FILE_BYTES
from engine.tools.rooms.caps import CLIP as CLIP  # shared with the rooms (re-exported)
from engine.tools.rooms.caps import MAX_ACTION_CHARS as MAX_ACTION_CHARS
from engine.tools.rooms.caps import SEED_SPACE as SEED_SPACE

MAX_RULE_BYTES = MAX_FILE_BYTES  # a rule file from the page: the compiler's own cap
MAX_SCENARIO_BYTES = MAX_FILE_BYTES  # a scenario file from the page
MAX_RECORD_BYTES = MAX_FILE_BYTES  # a record to replay
MAX_BODY_BYTES = 3 * MAX_FILE_BYTES  # any request body (two files and a little JSON)
REQUEST_SECONDS = 20  # a check, diff or scenario run: its child process is killed after this
MAX_RUNS = 4  # checks, diffs and scenario runs at once (beyond: 429)
IMPACT_MAX_HANDS = 2_000  # paired hands in one impact run (each played under both rulesets)
IMPACT_SECONDS = 600  # an impact run is killed after this
MAX_IMPACT_RUNS = 2  # impact runs at once (beyond: 429)
MAX_JOBS_KEPT = 32  # finished impact runs remembered
MAX_SESSIONS = 64  # games open at once (sessions idle past SESSION_IDLE_SECONDS make room)
SESSION_IDLE_SECONDS = 3_600
MAX_UPLOADS = 64  # rule files kept in the data folder
MAX_OPTIONS = 64  # options named in one request
POLL_SECONDS = 0.02  # how often a waiting request looks at its child
WATCH_SECONDS = 0.1  # how often an impact run and its websocket are looked at
JOIN_SECONDS = 1  # waiting for a killed child to go
CLIP_BUG = 300  # characters of an internal error said to the page
TOKEN_BYTES = 12  # random bytes of a game, job or work-folder id
MAX_LOG = 40  # lines of the table's narration sent with each state
DEFAULT_IMPACT_HANDS = 100
SWITCH_SECONDS = 0.0005  # how often the interpreter hands the GIL over in a server (app.steady)
GC_THRESHOLDS = (700, 10, 100)  # the collector's thresholds in a server (app.steady): Python's, full passes 10x rarer
LOCALHOST = "127.0.0.1"
DEFAULT_PORT = 8000
