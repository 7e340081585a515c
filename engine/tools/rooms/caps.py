"""The rooms' caps (docs/serve.md "Rooms"): every bound on what a client of a match may make
the server do, and the websocket close codes.
"""
from __future__ import annotations

from engine.lang.seeds import (
    SEED_SPACE as SEED_SPACE,  # a room's own seed: 0 … SEED_SPACE − 1, as `mjrules play --seed`
)

MAX_ACTION_CHARS = 64  # an action's text
SECRET_SEEDS = 2**63  # a room the server seeds draws its secret seed below this (the store's column: 64 bits)
CLIP = 80  # characters of a bad value quoted back in an error
MAX_ROOMS = 256  # rooms open at once (beyond: 429): not closed, not over, made within OPEN_SECONDS
OPEN_SECONDS = 86_400.0  # a room whose match is not over a day after it was made no longer counts as open
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
NOTE_BYTES = 7_999  # a note between servers: PostgreSQL's NOTIFY payload is shorter than 8000 bytes
FRAME_BYTES = 1 << 20  # a frame shipped compressed in a note unpacks to at most this (1 MiB)
COMPILED_KEPT = 32  # bundled rulesets with their options kept compiled by a server
CLIP_NOTE = 500  # characters of an owner's refusal a follower passes on
STORE_THREADS = 2  # worker threads for the store calls that are not commits (leases, close, remove)
CHECKPOINT_COMMITS = 500  # a SQLite store's log is checkpointed off the loop every this many commits
STORE_JOIN_SECONDS = 30  # waiting for the store's thread at shutdown
REQUEST_SECONDS = 5.0  # a server waits this long for the owner of a room to answer a forwarded request
SYNC_TRIES = 4  # a follower tells a room's owner who is here at most this many times until it answers
QUIET_LEASES = 2  # an owner forgets a follower server it has not heard from for this many leases
EPOCH_BYTES = 4  # random bytes naming one load of a room (its numbering of versions)
RATE_KEYS = 10_000  # client addresses a rate remembers (past it, the idle half is forgotten)
# websocket close codes (docs/serve.md): the HTTP status they stand for, + 4000
CLOSE_BAD, CLOSE_FORBIDDEN, CLOSE_NO_ROOM, CLOSE_ELSEWHERE, CLOSE_BUSY = 4400, 4403, 4404, 4409, 4429
