"""Migrations of an archive that already holds games, on SQLite and on the suite's private PostgreSQL."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from alembic import command
from alembic.config import Config

from api.archive import MIGRATIONS, Archive
from archive_helpers import archive_url

__all__ = ["archive_url"]  # a fixture: every test here runs on both dialects

SEAT_INDEXES = {"seats_by_app_player", "seats_by_app_player_in_order", "seats_by_bot_in_order"}


@pytest.fixture
def at_0005(archive_url: str, tmp_path: Path) -> Iterator[tuple[sa.Connection, Config]]:
    """A connection to an empty database (PostgreSQL: a schema of its own) brought to 0005, and the config to
    migrate it further."""
    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    schema = f"m{uuid.uuid4().hex[:8]}"
    archive = Archive(archive_url if archive_url.startswith("postgresql") else f"sqlite:///{tmp_path / 'old.sqlite3'}")
    try:
        with archive.engine.connect() as conn:
            if archive.dialect == "postgresql":
                conn.exec_driver_sql(f"CREATE SCHEMA {schema}")
                conn.exec_driver_sql(f"SET search_path TO {schema}")
            config.attributes["connection"] = conn
            command.upgrade(config, "0005")
            yield conn, config
            if archive.dialect == "postgresql":
                conn.exec_driver_sql(f"DROP SCHEMA {schema} CASCADE")
            conn.commit()
    finally:
        archive.dispose()


def toast_target(conn: sa.Connection) -> list[str]:
    found = conn.exec_driver_sql("SELECT reloptions FROM pg_class WHERE oid = 'games'::regclass").scalar()
    return [o for o in found or [] if o.startswith("toast_tuple_target")]


def test_0006_drops_the_seats_key_keeps_every_row_and_index_and_keeps_postgresql_rows_whole(at_0005) -> None:  # type: ignore[no-untyped-def]
    conn, config = at_0005
    conn.exec_driver_sql(
        "INSERT INTO games (id, variant, status, rated, created_at, ended_at, archived_at, version, doc, record, "
        "events, summary, seq) VALUES ('g1', 'draw', 'finished', false, 0, 0, 0, 1, '{}', '{}', '[]', '{}', 1)"
    )
    conn.exec_driver_sql("INSERT INTO seats (game_id, seat, kind, created_at, player, seq) VALUES ('g1', 0, 'human', 0, 'p', 1)")
    assert sa.inspect(conn).get_foreign_keys("seats") != []
    postgresql = conn.dialect.name == "postgresql"

    command.upgrade(config, "0006")
    inspector = sa.inspect(conn)
    assert inspector.get_foreign_keys("seats") == []
    assert SEAT_INDEXES <= {i["name"] for i in inspector.get_indexes("seats")}, "the copy of SQLite's table keeps them"
    assert conn.exec_driver_sql("SELECT game_id, seat, player FROM seats").all() == [("g1", 0, "p")]
    if postgresql:
        assert toast_target(conn) == ["toast_tuple_target=8160"]
    conn.exec_driver_sql("INSERT INTO seats (game_id, seat, kind, created_at, seq) VALUES ('g2', 0, 'bot', 0, 2)")
    conn.exec_driver_sql("DELETE FROM seats WHERE game_id = 'g2'")  # no key holds a seat to its game now

    command.downgrade(config, "0005")
    assert len(sa.inspect(conn).get_foreign_keys("seats")) == 1
    if postgresql:
        assert toast_target(conn) == []
    assert conn.exec_driver_sql("SELECT game_id FROM seats").scalars().all() == ["g1"]
