"""The archive: finished games in a SQL database, SQLite in a file or PostgreSQL, through SQLAlchemy Core (one
code path for both) with Alembic migrations. The only package that imports SQLAlchemy or Alembic.

:class:`Archive` writes batches of finished games (one transaction, idempotent by game id: a game already
there is skipped), and reads them back: one game, or an app's games newest first by ``(created_at, id)``.
Every read is one indexed query, so an API process waits on it as briefly as on Redis.
"""

from __future__ import annotations

import contextlib
import dataclasses
import functools
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any, Literal

import orjson
import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.dialects import postgresql, sqlite

from api.archive.analyses import AnalysisArchive
from api.archive.checkpoints import FALLBACK_PAGES, Checkpointer
from api.archive.fairplay import FairplayArchive, Reading
from api.archive.schema import archive_order, fairplay_screens, games, metadata, seats

__all__ = ["Archive", "ArchiveUnavailable", "Archived", "Entry", "Key", "Part", "Reading", "Scope", "Since", "metadata"]

MIGRATIONS = Path(__file__).with_name("migrations")

Key = tuple[float, str]  # (created_at, game id): the order of the lists, newest first


class ArchiveUnavailable(Exception):
    """The database does not answer (stopped, locked, unreachable) or is not migrated."""


@dataclasses.dataclass(frozen=True)
class Entry:
    """One finished game as the archive keeps it (JSON as bytes, written as they are)."""

    id: str
    app: str | None
    variant: str
    status: str
    rated: bool
    created_at: float
    ended_at: float
    version: int
    doc: bytes
    record: bytes
    events: bytes
    summary: bytes
    seats: list[dict[str, Any]]  # seat, name, kind, player, bot


Part = Literal["record", "events"]  # what Archive.find reads of a game besides its document, when asked


@dataclasses.dataclass(frozen=True)
class Archived:
    """A game read from the archive: its last live document, and its record and events if they were read
    (:meth:`Archive.find`'s ``parts``)."""

    id: str
    version: int
    doc: dict[str, Any]
    raw_record: str | None
    raw_events: str | None

    @functools.cached_property
    def record(self) -> dict[str, Any]:
        assert self.raw_record is not None, "read without its record"
        value: dict[str, Any] = orjson.loads(self.raw_record)
        return value

    @functools.cached_property
    def events(self) -> list[tuple[str, dict[str, Any]]]:
        assert self.raw_events is not None, "read without its events"
        return [(sid, event) for sid, event in orjson.loads(self.raw_events)]


@dataclasses.dataclass(frozen=True)
class Scope:
    """Whose archived games an export reads: the app's own (only those with a seat of ``player``, if given),
    and those in which one of ``bots`` (registered bots' names) sits."""

    app: str | None = None
    bots: tuple[str, ...] = ()
    player: str | None = None


@dataclasses.dataclass(frozen=True)
class Since:
    """An export's filters: ended in [since, until), of ``variant``, rated or not (None: any)."""

    since: float | None = None
    until: float | None = None
    variant: str | None = None
    rated: bool | None = None


def _engine(url: str) -> sa.Engine:
    if url.startswith("sqlite"):
        # A file shared by the API and the workers: WAL lets readers go on while a batch is written, and a
        # writer waits (up to the timeout) for another instead of failing at once.
        # (at most 5 s: an archive job must end within a worker's 10 s to stop)
        engine = sa.create_engine(url, connect_args={"timeout": 5})

        @sa.event.listens_for(engine, "connect")
        def _pragmas(conn: Any, _record: Any) -> None:
            cursor = conn.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=NORMAL")  # durable at each checkpoint; WAL keeps it consistent
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute(f"PRAGMA wal_autocheckpoint={FALLBACK_PAGES}")  # a thread checkpoints (checkpoints.py)
            cursor.close()

        return engine
    # An unreachable server fails a read within seconds (a 503 for that read; the archive job tries again).
    return sa.create_engine(url, pool_pre_ping=True, pool_size=5, max_overflow=10, connect_args={"connect_timeout": 5})


def _insert(dialect: str, table: sa.Table) -> Any:
    """INSERT ... ON CONFLICT DO NOTHING, the same statement on both dialects."""
    make = postgresql.insert if dialect == "postgresql" else sqlite.insert
    return make(table).on_conflict_do_nothing()


def _in_order(only: Since, after: int, by: sa.Table, *where: sa.ColumnElement[bool]) -> sa.Select[Any]:
    """Games after position ``after`` in archive order that pass ``where`` and ``only``, found ``by`` the
    games' own rows or by their seats' (a player's or a bot's games: their seats hold a copy of the position,
    so one index finds them in order)."""
    seq = by.c.seq
    query = sa.select(seq, games.c.id, games.c.record)
    if by is seats:
        query = query.select_from(seats.join(games, games.c.id == seats.c.game_id))
    query = query.where(seq > after, *where)
    if only.since is not None:
        query = query.where(games.c.ended_at >= only.since)
    if only.until is not None:
        query = query.where(games.c.ended_at < only.until)
    if only.variant is not None:
        query = query.where(games.c.variant == only.variant)
    if only.rated is not None:
        query = query.where(games.c.rated == only.rated)
    return query.order_by(seq)


def _upsert_newer(dialect: str, table: sa.Table) -> Any:
    """INSERT ... ON CONFLICT (id) DO UPDATE only where the archived version is older: a game archived
    again after a later commit (a rematch linked from it) replaces its record; a retried batch changes nothing."""
    stmt = (postgresql.insert if dialect == "postgresql" else sqlite.insert)(table)
    changed = ("version", "doc", "record", "events", "summary", "archived_at")
    return stmt.on_conflict_do_update(
        index_elements=[table.c.id], set_={c: stmt.excluded[c] for c in changed}, where=table.c.version < stmt.excluded.version
    )


def _sqlite_folder(url: str) -> None:
    """``sqlite:///var/archive.sqlite3``: make ``var/`` (SQLite makes the file, not its folder)."""
    database = sa.make_url(url).database
    if url.startswith("sqlite") and database and database != ":memory:":
        Path(database).parent.mkdir(parents=True, exist_ok=True)


class Archive(FairplayArchive, AnalysisArchive):
    """The archive at ``url`` (``sqlite:///path`` or ``postgresql+psycopg://...``). No I/O until first used."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.dialect = sa.make_url(url).get_backend_name()
        self._engine: sa.Engine | None = None
        self._checkpointer: Checkpointer | None = None  # SQLite's

    @property
    def engine(self) -> sa.Engine:
        if self._engine is None:
            _sqlite_folder(self.url)
            self._engine = _engine(self.url)
            if self.dialect == "sqlite":
                self._checkpointer = Checkpointer(self._engine)
        return self._engine

    def dispose(self) -> None:
        if self._checkpointer is not None:
            self._checkpointer.stop()
            self._checkpointer = None
        if self._engine is not None:
            self._engine.dispose()
            self._engine = None

    # -- migrations -------------------------------------------------------------------------------------------

    def migrate(self) -> str:
        """Bring the schema to the newest migration (idempotent); returns the revision it is at."""
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        with self._connect() as conn, conn.begin():
            config.attributes["connection"] = conn
            command.upgrade(config, "head")
        return self.revision() or ""

    def revision(self) -> str | None:
        with self._connect() as conn:
            return MigrationContext.configure(conn).get_current_revision()

    @staticmethod
    def head() -> str:
        config = Config()
        config.set_main_option("script_location", str(MIGRATIONS))
        return str(ScriptDirectory.from_config(config).get_current_head())

    def ping(self) -> dict[str, Any]:
        """What ``/readyz`` shows: the dialect and the migration the database is at (raises when down)."""
        revision = self.revision()
        return {"dialect": self.dialect, "revision": revision, "migrated": revision == self.head()}

    # -- writes -------------------------------------------------------------------------------------------------

    def write(self, entries: Sequence[Entry]) -> list[str]:
        """Write ``entries`` in one transaction; a game already archived is left as it is (a retried batch
        writes nothing twice) unless this entry is of a later version (it keeps its place in the archive's
        order). Returns the ids of every entry, now all in the archive. The batch takes its places in the
        archive's order first (``archive_order``: writers queue there, so the order is the order of commits)."""
        if not entries:
            return []
        with self._connect() as conn, conn.begin():
            taken = sa.update(archive_order).where(archive_order.c.id == 1).values(last=archive_order.c.last + len(entries))
            first = conn.execute(taken.returning(archive_order.c.last)).scalar_one() - len(entries) + 1
            now = time.time()
            rows = [
                {
                    "id": e.id, "app": e.app, "variant": e.variant, "status": e.status, "rated": e.rated,
                    "created_at": e.created_at, "ended_at": e.ended_at, "archived_at": now, "version": e.version,
                    "doc": e.doc.decode(), "record": e.record.decode(), "events": e.events.decode(),
                    "summary": e.summary.decode(), "seq": first + n,
                }
                for n, e in enumerate(entries)
            ]  # fmt: skip
            seat_rows = [
                {"game_id": e.id, "app": e.app, "created_at": e.created_at, "seq": first + n, **{k: s.get(k) for k in ("seat", "name", "kind", "player", "bot")}}
                for n, e in enumerate(entries)
                for s in e.seats
            ]
            games_sql, seats_sql = self._write_sql
            conn.exec_driver_sql(games_sql, rows)
            if seat_rows:
                conn.exec_driver_sql(seats_sql, seat_rows)
        if self._checkpointer is not None:
            self._checkpointer.written()
        return [e.id for e in entries]

    @functools.cached_property
    def _write_sql(self) -> tuple[str, str]:
        """The two INSERTs of :meth:`write` as the driver takes them, compiled once, the rows handed over as
        they are: SQLAlchemy's processing of each row's parameters cost a quarter of a batch's write, and both
        drivers take these values (text, numbers, booleans) as they are."""
        # SQLite's driver takes named parameters (from the rows' dicts) as well as the dialect's default "?"
        dialect = sqlite.dialect(paramstyle="named") if self.dialect == "sqlite" else self.engine.dialect
        upsert, insert = (stmt.compile(dialect=dialect) for stmt in (_upsert_newer(self.dialect, games), _insert(self.dialect, seats)))
        return str(upsert), str(insert)

    def rewrite_player(
        self, app: str, player: str, tombstone: str, rewrite: Callable[[dict[str, str]], dict[str, str]]
    ) -> list[str]:
        """In one transaction, each archived game of ``app`` with a seat of ``player`` gets its JSON columns
        (``doc``, ``record``, ``events``, ``summary``) from ``rewrite``, and those seats lose the player (its id
        lists nothing any more) and take ``tombstone`` for their name. Returns the games' ids."""
        json_columns = (games.c.doc, games.c.record, games.c.events, games.c.summary)
        mine = sa.select(seats.c.game_id).where(seats.c.app == app, seats.c.player == player)
        with self._connect() as conn, conn.begin():
            rows = conn.execute(sa.select(games.c.id, *json_columns).where(games.c.id.in_(mine))).all()
            for row in rows:
                conn.execute(games.update().where(games.c.id == row.id).values(rewrite(dict(row._mapping))))
            # its fair-play screens name it: they go (docs/analysis.md#fair-play-screen)
            screens = fairplay_screens.c
            conn.execute(fairplay_screens.delete().where(screens.app == app, screens.subject == f"player:{player}"))
            conn.execute(
                seats.update()
                .where(seats.c.app == app, seats.c.player == player)
                .values(player=None, name=sa.case((seats.c.name.is_(None), None), else_=tombstone))
            )
        return [row.id for row in rows]

    # -- reads --------------------------------------------------------------------------------------------------

    def find(self, game_id: str, parts: tuple[Part, ...] = ()) -> Archived | None:
        """A game's document, and of its record and events those in ``parts``: each is several kilobytes to
        fetch (on PostgreSQL, from the TOAST table) and decompress, which a view or a history need not pay for
        the part it does not show."""
        query = sa.select(games.c.version, games.c.doc, *(games.c[part] for part in parts)).where(games.c.id == game_id)
        with self._read() as conn:
            row = conn.execute(query).first()
        if row is None:
            return None
        read = row._mapping
        return Archived(game_id, row.version, orjson.loads(row.doc), read.get("record"), read.get("events"))

    def holds(self, game_ids: Iterable[str]) -> set[str]:
        """Which of ``game_ids`` the archive holds."""
        ids = list(game_ids)
        if not ids:
            return set()
        with self._read() as conn:
            return set(conn.execute(sa.select(games.c.id).where(games.c.id.in_(ids))).scalars())

    def owned(
        self, app: str, status: str | None, player: str | None, before: Key | None, limit: int
    ) -> list[tuple[Key, dict[str, Any]]]:
        """An app's archived games (with a seat of ``player``; of ``status``) strictly before ``before``,
        newest first: ((created_at, id), its list entry)."""
        if player is None:
            key = (games.c.created_at, games.c.id)
            query = sa.select(*key, games.c.summary).where(games.c.app == app)
        else:
            key = (seats.c.created_at, seats.c.game_id)
            query = (
                sa.select(*key, games.c.summary)
                .join(games, games.c.id == seats.c.game_id)
                .where(seats.c.app == app, seats.c.player == player)
            )
        if status is not None:
            query = query.where(games.c.status == status)
        if before is not None:
            query = query.where(sa.tuple_(*key) < sa.tuple_(sa.literal(before[0]), sa.literal(before[1])))
        query = query.order_by(key[0].desc(), key[1].desc()).limit(limit)
        with self._read() as conn:
            rows = conn.execute(query).all()
        out: list[tuple[Key, dict[str, Any]]] = []
        seen: set[str] = set()
        for created_at, game_id, summary in rows:
            if game_id not in seen:  # a player in two seats of one game
                seen.add(game_id)
                out.append(((created_at, game_id), orjson.loads(summary)))
        return out

    def position(self, game_id: str) -> int | None:
        """Where ``game_id`` is in the archive's order (None: not archived)."""
        with self._read() as conn:
            found = conn.execute(sa.select(games.c.seq).where(games.c.id == game_id)).scalar()
        return None if found is None else int(found)

    def export(self, scope: Scope, only: Since, after: int, limit: int) -> list[tuple[int, str, str]]:
        """The next ``limit`` games of ``scope`` (filtered by ``only``) after position ``after`` in the archive's
        order: (position, game id, record as JSON text). One indexed query per source (the app's games, or its
        player's; each bot's), all in one statement, merged: one statement reads the database at one moment on
        both dialects (two would each see their own on PostgreSQL, and on SQLite, which begins no transaction
        for a read; a batch committed between them could then be met by one source and not by the other, and
        the export resumed after its last game would skip the other's)."""
        sources = []
        if scope.player is not None:
            sources.append(_in_order(only, after, seats, seats.c.app == scope.app, seats.c.player == scope.player))
        elif scope.app is not None:
            sources.append(_in_order(only, after, games, games.c.app == scope.app))
        sources += [_in_order(only, after, seats, seats.c.bot == bot) for bot in scope.bots]
        pages = [sa.select(query.limit(limit).subquery()) for query in sources]
        with self._read() as conn:
            rows = conn.execute(pages[0] if len(pages) == 1 else sa.union_all(*pages)).all()
        merged: dict[int, tuple[int, str, str]] = {}
        for row in sorted(rows, key=lambda r: r[0]):
            merged.setdefault(row[0], (row[0], row[1], row[2]))  # one game met twice: two of its seats matched
            if len(merged) == limit:
                break
        return list(merged.values())

    def _insert_new(self, table: sa.Table) -> Any:
        return _insert(self.dialect, table)

    def count(self) -> int:
        with self._connect() as conn:
            return int(conn.execute(sa.select(sa.func.count()).select_from(games)).scalar_one())

    @contextlib.contextmanager
    def _read(self) -> Iterator[sa.Connection]:
        """A connection for a read of one query, outside a transaction: on PostgreSQL the BEGIN and ROLLBACK
        around it are two more round trips to the server (an archived game's read took a third less time and
        half the server's CPU without them). A transaction would not make a read's queries see one moment of
        the database anyway (on PostgreSQL each sees its own, and SQLite's driver begins none for a read): a read
        that must see one is one statement (:meth:`export`)."""
        with self._connect() as conn:
            yield conn.execution_options(isolation_level="AUTOCOMMIT")

    @contextlib.contextmanager
    def _connect(self) -> Iterator[sa.Connection]:
        """A connection; any database error (down, locked, not migrated) as :class:`ArchiveUnavailable`."""
        try:
            with self.engine.connect() as conn:
                yield conn
        except sa.exc.DBAPIError as exc:
            raise ArchiveUnavailable(f"the archive ({self.dialect}) failed: {exc.orig or exc}") from exc
