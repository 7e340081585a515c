"""What a room must keep across a restart, in a database (SQLAlchemy Core).

SQLite under the data folder by default (``sqlite:///…/rooms.db``), PostgreSQL by URL
(``postgresql://…``, with the ``postgres`` extra's psycopg). Four tables:

- ``rooms``: the ruleset reference and options, hands per match, seed, each seat's player
  (``human`` or a bot name), when it was made and closed, and the lease (which server owns it
  until when: two servers on one database serve a room one at a time);
- ``seats``: each human seat's token, as its SHA-256 (the token itself is never stored);
- ``actions``: every applied action of every hand, in order, as its text (:meth:`Action.text`);
  committed before the server says it happened;
- ``hands``: each finished hand's record (the record ``mjrules replay`` reads, kept as JSON:
  :meth:`Store.record` gives it as YAML) and net per seat.

A room is rebuilt by replaying its stored actions on its stored seed (engine/tools/rooms/room.py).
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import time
from dataclasses import dataclass
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from engine.table.records import to_yaml

META = sa.MetaData()
ROOMS = sa.Table(
    "rooms", META,
    sa.Column("id", sa.String(40), primary_key=True),
    sa.Column("ruleset", sa.String(300), nullable=False),
    sa.Column("options", sa.Text, nullable=False),  # JSON {name: value}
    sa.Column("hands", sa.Integer, nullable=False),
    sa.Column("seed", sa.BigInteger, nullable=False),
    sa.Column("players", sa.Text, nullable=False),  # JSON {seat: "human" | bot name}
    sa.Column("timer", sa.Float, nullable=True),  # seconds a seat has to act (None: no timer)
    sa.Column("created", sa.Float, nullable=False),
    sa.Column("closed", sa.Boolean, nullable=False, default=False),
    sa.Column("host_sha256", sa.String(64), nullable=False),  # the host's token (close, remove a seat)
    sa.Column("owner", sa.String(64), nullable=True),
    sa.Column("lease_until", sa.Float, nullable=False, default=0.0),
)
SEATS = sa.Table(
    "seats", META,
    sa.Column("room", sa.String(40), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("seat", sa.String(16), primary_key=True),
    sa.Column("token_sha256", sa.String(64), nullable=False),
    sa.Column("removed", sa.Boolean, nullable=False, default=False),
)
ACTIONS = sa.Table(
    "actions", META,
    sa.Column("room", sa.String(40), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("hand", sa.Integer, primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("text", sa.String(200), nullable=False),
    sa.Column("by", sa.String(16), nullable=False),  # who chose it: "seat", "bot" or "托管"
)
HANDS = sa.Table(
    "hands", META,
    sa.Column("room", sa.String(40), sa.ForeignKey("rooms.id"), primary_key=True),
    sa.Column("hand", sa.Integer, primary_key=True),
    sa.Column("record", sa.Text, nullable=False),
    sa.Column("net", sa.Text, nullable=False),  # JSON {seat: 子}
)

TABLES = {"actions": ACTIONS, "hands": HANDS}  # what a Write may name
SQLITE_BUSY = 5  # SQLite's primary result code of "database is locked" (an extended code's low byte)
CHANNEL = "mjrules_rooms"  # PostgreSQL's NOTIFY channel of the servers sharing the rooms (engine/tools/rooms/bus.py)


CHANNEL_HEX = 32  # hex digits of a server's id hash in its channel's name (PostgreSQL keeps 63 bytes of a name)


def notify(notes: list[tuple[str, str]]) -> tuple[str, list[str]]:
    """One statement that sends ``notes`` ((channel, payload) pairs) in their order, and its
    parameters: ``pg_notify`` once a note with plain text parameters (a text array would be
    escaped element by element, quotes and all, which cost more than the rest of the send)."""
    return "SELECT " + ", ".join(["pg_notify(%s, %s)"] * len(notes)), [x for note in notes for x in note]


def channel(server: str | None = None) -> str:
    """The NOTIFY channel every server hears (``server`` None), or the one only ``server`` (a
    server id) hears: a plain identifier whatever the id is."""
    if server is None:
        return CHANNEL
    return f"{CHANNEL}_{hashlib.sha256(server.encode()).hexdigest()[:CHANNEL_HEX]}"


@dataclass(frozen=True)
class Write:
    """One row to store: an applied action (``table`` ``actions``) or a finished hand
    (``hands``), with its column values. Made by :meth:`action` and :meth:`hand`; the store
    writes a list of them in one transaction (:meth:`Store.write`)."""

    table: str
    values: tuple[tuple[str, object], ...]

    @staticmethod
    def action(room: str, hand: int, seq: int, text: str, by: str) -> Write:
        """Action ``seq`` of hand ``hand`` (0-based both), its text and who chose it."""
        return Write("actions", (("room", room), ("hand", hand), ("seq", seq), ("text", text), ("by", by)))

    @staticmethod
    def note(payload: str, to: str | None = None) -> Write:
        """A message to the server ``to`` (None: to every server; ``NOTIFY``, PostgreSQL only),
        sent when the transaction commits: so nobody hears of what was not stored. Ignored on
        SQLite."""
        return Write("", (("channel", channel(to)), ("payload", payload)))

    @staticmethod
    def hand(room: str, hand: int, record: str, net: dict[str, int]) -> Write:
        """Finished hand ``hand``: its record (JSON) and net per seat (子)."""
        return Write("hands", (("room", room), ("hand", hand), ("record", record), ("net", json.dumps(net))))


@dataclass(frozen=True)
class RoomRow:
    """A stored room (``players``: seat → ``human`` or a bot name; ``timer``: seconds or None)."""

    id: str
    ruleset: str
    options: dict[str, str]
    hands: int
    seed: int
    players: dict[str, str]
    timer: float | None
    closed: bool


class Busy(Exception):
    """A write that would have to wait for another connection's write to end (SQLite's
    ``SQLITE_BUSY``); nothing was stored."""


def _busy(exc: BaseException) -> bool:
    """Whether a driver error is SQLite's "database is locked" (``SQLITE_BUSY``, any variant)."""
    code = getattr(exc, "sqlite_errorcode", None)
    return (code & 0xFF == SQLITE_BUSY) if isinstance(code, int) else "database is locked" in str(exc)


def database_url(url_or_path: str) -> str:
    """A SQLAlchemy URL from ``--db``: a ``postgresql://…`` or ``sqlite:///…`` URL as it is, a
    file path as a SQLite URL. PostgreSQL URLs use psycopg (version 3)."""
    if url_or_path.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + url_or_path.split("://", 1)[1]
    if "://" in url_or_path:
        return url_or_path
    return f"sqlite:///{url_or_path}"


class Store:
    """The rooms' database. Every write is its own transaction, committed when the call returns."""

    def __init__(self, url: str):
        """``url``: see :func:`database_url`. Creates the tables when they are missing. Raises
        :class:`sqlalchemy.exc.SQLAlchemyError` (the caller reports it) when it cannot connect."""
        self.url = database_url(url)
        kwargs: dict[str, Any] = {}
        if self.url.startswith("sqlite"):
            kwargs["connect_args"] = {"check_same_thread": False, "timeout": 30}
        self.engine: Engine = sa.create_engine(self.url, future=True, pool_pre_ping=True, **kwargs)
        if self.url.startswith("sqlite"):
            @sa.event.listens_for(self.engine, "connect")
            def _wal(conn: Any, _record: Any) -> None:  # readers never wait for the writer
                cur = conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=NORMAL")
                cur.close()
        try:
            META.create_all(self.engine)
        except (sa.exc.IntegrityError, sa.exc.ProgrammingError):  # another server made them at the same moment
            META.create_all(self.engine)  # they are there now: nothing to make (or a real error, raised)
        self.shared = self.url.startswith("postgresql")  # servers share its rooms (LISTEN/NOTIFY)
        self.local = self.url.startswith("sqlite")  # a file of this machine's: a commit costs no round trip
        self._writer: sa.Connection | None = None  # write()'s own connection
        self._eager: sa.Connection | None = None  # write(wait=False)'s (SQLite: a busy timeout of 0)
        self._inserts: dict[str, tuple[str, tuple[str, ...]]] = {}  # table -> its compiled INSERT (write)

    # ---- rooms -----------------------------------------------------------------------------------
    def create_room(self, room: RoomRow, token_hashes: dict[str, str], host_hash: str, owner: str, lease: float) -> None:
        """Store a new room, its seats' and its host's token hashes, owned by ``owner`` for
        ``lease`` seconds."""
        with self.engine.begin() as c:
            c.execute(ROOMS.insert().values(
                id=room.id, ruleset=room.ruleset, options=json.dumps(room.options, ensure_ascii=False),
                hands=room.hands, seed=room.seed, players=json.dumps(room.players, ensure_ascii=False),
                timer=room.timer, created=time.time(), closed=False, host_sha256=host_hash, owner=owner, lease_until=time.time() + lease))
            for seat, h in token_hashes.items():
                c.execute(SEATS.insert().values(room=room.id, seat=seat, token_sha256=h, removed=False))

    def room(self, room_id: str) -> RoomRow | None:
        with self.engine.connect() as c:
            r = c.execute(ROOMS.select().where(ROOMS.c.id == room_id)).first()
        if r is None:
            return None
        return RoomRow(r.id, r.ruleset, json.loads(r.options), r.hands, r.seed, json.loads(r.players), r.timer,
                       bool(r.closed))

    def host_hash(self, room_id: str) -> str | None:
        with self.engine.connect() as c:
            r = c.execute(sa.select(ROOMS.c.host_sha256).where(ROOMS.c.id == room_id)).first()
        return None if r is None else str(r[0])

    def count_open(self, since: float) -> int:
        """Rooms open: not closed, their match not over (fewer hands stored than it plays) and
        made at ``since`` (wall-clock seconds) or later (an older one is taken as abandoned)."""
        played = sa.select(sa.func.count()).select_from(HANDS).where(HANDS.c.room == ROOMS.c.id).scalar_subquery()
        with self.engine.connect() as c:
            return int(c.execute(sa.select(sa.func.count()).select_from(ROOMS).where(
                ROOMS.c.closed.is_(False), ROOMS.c.created >= since, played < ROOMS.c.hands)).scalar_one())

    def close(self, room_id: str) -> None:
        with self.engine.begin() as c:
            c.execute(ROOMS.update().where(ROOMS.c.id == room_id).values(closed=True))

    def set_player(self, room_id: str, seat: str, player: str) -> None:
        """Who plays ``seat`` from now on (``human`` or a bot name: a removed seat's bot)."""
        with self.engine.begin() as c:
            r = c.execute(sa.select(ROOMS.c.players).where(ROOMS.c.id == room_id)).scalar_one()
            players = json.loads(r)
            players[seat] = player
            c.execute(ROOMS.update().where(ROOMS.c.id == room_id)
                      .values(players=json.dumps(players, ensure_ascii=False)))
            if player != "human":
                c.execute(SEATS.update().where(SEATS.c.room == room_id, SEATS.c.seat == seat).values(removed=True))

    def token_hashes(self, room_id: str) -> dict[str, str]:
        """Each human seat still seated: its token's SHA-256."""
        with self.engine.connect() as c:
            return {r.seat: r.token_sha256 for r in c.execute(
                SEATS.select().where(SEATS.c.room == room_id, SEATS.c.removed.is_(False)))}

    # ---- leases ------------------------------------------------------------------------------------
    def acquire(self, room_id: str, owner: str, lease: float) -> bool:
        """Own the room for ``lease`` more seconds when ``owner`` has it or its lease ran out.
        Returns whether ``owner`` owns it now (one UPDATE: two servers never both succeed)."""
        now = time.time()
        with self.engine.begin() as c:
            n = c.execute(ROOMS.update()
                          .where(ROOMS.c.id == room_id,
                                 sa.or_(ROOMS.c.owner == owner, ROOMS.c.owner.is_(None), ROOMS.c.lease_until < now))
                          .values(owner=owner, lease_until=now + lease)).rowcount
        return bool(n)

    def owner(self, room_id: str) -> str | None:
        """The server whose lease on the room has not run out, or None."""
        with self.engine.connect() as c:
            r = c.execute(sa.select(ROOMS.c.owner).where(ROOMS.c.id == room_id, ROOMS.c.lease_until >= time.time())).first()
        return None if r is None or r[0] is None else str(r[0])

    def release(self, room_id: str, owner: str) -> None:
        with self.engine.begin() as c:
            c.execute(ROOMS.update().where(ROOMS.c.id == room_id, ROOMS.c.owner == owner)
                      .values(owner=None, lease_until=0.0))

    # ---- actions and hands ---------------------------------------------------------------------------
    def write(self, writes: list[Write], *, wait: bool = True) -> None:
        """Store ``writes`` in one transaction, committed when this returns (nothing when the
        list is empty), on the store's writer connection: call it from one thread only (the
        rooms' committer), and with ``wait=False`` from one thread only too. The INSERTs are
        compiled by SQLAlchemy once for the database's dialect and run with the driver's
        ``executemany`` inside SQLAlchemy's transaction (SQLAlchemy's per-statement machinery
        cost three times the database's work here).
        Raises :class:`sqlalchemy.exc.IntegrityError` (nothing stored) when an action's place
        is taken: another server wrote it. ``wait=False`` (a SQLite file): its own connection,
        which does not wait for another connection's write to end but raises :class:`Busy`
        (nothing stored)."""
        if not writes:
            return
        eager = not wait and self.local
        conn = self._eager if eager else self._writer
        if conn is None or conn.closed or conn.invalidated:
            conn = self.engine.connect()  # kept: one checkout (and ping) per writer, not per commit
            if self.local:  # its log is checkpointed by checkpoint(), not by the commit that fills it
                conn.exec_driver_sql("PRAGMA wal_autocheckpoint=0")
                if eager:
                    conn.exec_driver_sql("PRAGMA busy_timeout=0")
                conn.commit()
            if eager:
                self._eager = conn
            else:
                self._writer = conn
        dbapi = self.engine.dialect.dbapi
        try:
            with conn.begin():
                cur = conn.connection.dbapi_connection.cursor()  # type: ignore[union-attr]
                try:
                    for table in ("actions", "hands"):
                        rows = [w.values for w in writes if w.table == table]
                        if rows:
                            sql, order = self._insert(table)
                            cur.executemany(sql, [tuple(dict(r)[k] for k in order) for r in rows] if order
                                            else [dict(r) for r in rows])
                    notes = [(str(c), str(n)) for w in writes if not w.table for (_, c), (_, n) in [w.values]]
                    if notes and self.shared:  # one round trip for all, in their order
                        cur.execute(*notify(notes))
                finally:
                    cur.close()
        except dbapi.IntegrityError as exc:  # type: ignore[union-attr]
            raise sa.exc.IntegrityError("INSERT", None, exc) from exc
        except sa.exc.DBAPIError as exc:
            if exc.connection_invalidated:
                self._drop(eager)
            raise
        except dbapi.Error as exc:  # type: ignore[union-attr]
            if eager and _busy(exc):
                raise Busy("another connection is writing the store") from exc
            self._drop(eager)  # a broken connection: the next write takes a fresh one
            raise

    def _drop(self, eager: bool) -> None:
        """Forget a writer connection that failed; it is closed, not given back to the pool (its
        settings, a busy timeout of 0 and no automatic checkpoint, are not the pool's)."""
        conn = self._eager if eager else self._writer
        if eager:
            self._eager = None
        else:
            self._writer = None
        if conn is not None and not conn.invalidated:
            with contextlib.suppress(Exception):  # already broken: nothing more to release
                conn.invalidate()

    def _insert(self, table: str) -> tuple[str, tuple[str, ...]]:
        """``table``'s INSERT of every column as the driver takes it, and the columns' order when
        its parameters are positional (``()``: named)."""
        got = self._inserts.get(table)
        if got is None:
            compiled = TABLES[table].insert().compile(dialect=self.engine.dialect)
            order = tuple(compiled.positiontup or ()) if self.engine.dialect.positional else ()
            got = self._inserts[table] = (compiled.string, order)
        return got

    def actions_since(self, room_id: str, hand: int, seq: int) -> list[tuple[int, int, str]]:
        """The stored actions after action ``seq`` of hand ``hand`` (0-based; ``seq`` -1: from
        the hand's first), in order: (hand, seq, text)."""
        with self.engine.connect() as c:
            rows = c.execute(ACTIONS.select().where(
                ACTIONS.c.room == room_id,
                sa.or_(ACTIONS.c.hand > hand, sa.and_(ACTIONS.c.hand == hand, ACTIONS.c.seq > seq)))
                .order_by(ACTIONS.c.hand, ACTIONS.c.seq))
            return [(r.hand, r.seq, r.text) for r in rows]

    def actions(self, room_id: str) -> dict[int, list[str]]:
        """Every stored action's text by hand, in order."""
        out: dict[int, list[str]] = {}
        with self.engine.connect() as c:
            for r in c.execute(ACTIONS.select().where(ACTIONS.c.room == room_id)
                               .order_by(ACTIONS.c.hand, ACTIONS.c.seq)):
                out.setdefault(r.hand, []).append(r.text)
        return out

    def at_people_seats(self, room_id: str) -> list[str]:
        """The texts of the stored actions of people's seats: chosen there (``by`` "seat", a lone
        draw taken for the seat too) or by a stand-in while its person was away (托管)."""
        with self.engine.connect() as c:
            rows = c.execute(sa.select(ACTIONS.c.text).where(ACTIONS.c.room == room_id,
                                                             ACTIONS.c.by.in_(("seat", "托管"))))
            return [r.text for r in rows]

    def record(self, room_id: str, hand: int) -> str | None:
        """Finished hand ``hand``'s record as YAML (``mjrules replay`` reads it), or None."""
        with self.engine.connect() as c:
            r = c.execute(sa.select(HANDS.c.record).where(HANDS.c.room == room_id, HANDS.c.hand == hand)).first()
        if r is None:
            return None
        text = str(r[0])
        return to_yaml(json.loads(text)) if text.startswith("{") else text  # JSON, or YAML as older rooms kept it

    def has_record(self, room_id: str, hand: int) -> bool:
        with self.engine.connect() as c:
            return c.execute(sa.select(HANDS.c.hand).where(HANDS.c.room == room_id, HANDS.c.hand == hand)).first() is not None

    def checkpoint(self) -> tuple[int, int]:
        """Copy a SQLite store's write-ahead log into the database (``PRAGMA wal_checkpoint``,
        PASSIVE: it waits for nobody); its writer connection leaves that to this call, which
        the rooms' committer makes off the event loop. Returns (pages in the log, pages copied);
        (0, 0) for another database."""
        if not self.local:
            return (0, 0)
        with self.engine.connect() as c:
            row = c.exec_driver_sql("PRAGMA wal_checkpoint(PASSIVE)").first()
        if row is None:
            return (0, 0)
        _busy, log, copied = row
        return (int(log), int(copied))

    def dispose(self) -> None:
        for conn in (self._writer, self._eager):
            if conn is not None:
                conn.close()
        self.engine.dispose()
