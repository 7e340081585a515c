"""The server's caps (docs/serve.md): every bound on what a page may make the server do.

Rule files, scenarios and records from a page are untrusted input: besides these caps the
compiler's own limits (:mod:`engine.lang.limits`) and the YAML reader's apply.
"""
from __future__ import annotations

from engine.lang.limits import MAX_FILE_BYTES

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
MAX_ACTION_CHARS = 64  # an action's text
SEED_SPACE = 2**31  # seeds are 0 … 2**31-1, as `mjrules play --seed`
POLL_SECONDS = 0.02  # how often a waiting request looks at its child
WATCH_SECONDS = 0.1  # how often an impact run and its websocket are looked at
JOIN_SECONDS = 1  # waiting for a killed child to go
CLIP = 80  # characters of a bad value quoted back in an error
CLIP_BUG = 300  # characters of an internal error said to the page
TOKEN_BYTES = 12  # random bytes of a game, job or work-folder id
MAX_LOG = 40  # lines of the table's narration sent with each state
DEFAULT_IMPACT_HANDS = 100
LOCALHOST = "127.0.0.1"
DEFAULT_PORT = 8000
# rooms (engine/tools/server/rooms_api.py)
MAX_ROOMS = 256  # rooms open at once (beyond: 429)
MAX_MATCH_HANDS = 64  # hands in one room's match (局数)
MAX_WATCHERS = 32  # websockets on one room (the seats and spectators)
MAX_FRAME_BYTES = 4_096  # a message from a client
MAX_TIMER_SECONDS = 600  # the longest turn timer
JOIN_RATE = (30, 10.0)  # room creations and websocket joins per client address: 30 per 10 s
ACT_RATE = (20, 1.0)  # actions per connection: 20 a second
GRACE_SECONDS = 30.0  # a seat away this long is played by a bot (托管) until it is back
LEASE_SECONDS = 15.0  # a server's hold on a room, renewed every third of it while it runs
TICK_SECONDS = 0.25  # how often stand-ins and leases are looked at
MIN_TIMER_SECONDS = 5  # the shortest turn timer
MAX_ID_CHARS = 40  # a room id in a path (longer: no such room)
MAX_TOKEN_CHARS = 200  # a token read from a link
MAX_STEPS = 2_000  # bot actions in a row one step may apply (a hand ends well within)
RATE_KEYS = 10_000  # client addresses a rate remembers (past it, the idle half is forgotten)
# websocket close codes (docs/serve.md): the HTTP status they stand for, + 4000
CLOSE_BAD, CLOSE_FORBIDDEN, CLOSE_NO_ROOM, CLOSE_ELSEWHERE, CLOSE_BUSY = 4400, 4403, 4404, 4409, 4429
