"""PostgreSQL: the games' JSON columns compressed with LZ4 instead of the default pglz (when the server has it:
PostgreSQL 14 or later, built with LZ4, as Debian's and the official images are). A third or more of a batch's
write went to the server compressing those columns with pglz; LZ4 does it several times faster, to a little
less compression. Rows already written keep pglz (a read decompresses either). SQLite: nothing.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-06
"""

from __future__ import annotations

from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

COLUMNS = ("doc", "record", "events", "summary")
HAS_LZ4 = "SELECT 'lz4' = ANY(enumvals) FROM pg_settings WHERE name = 'default_toast_compression'"


def _compress_with(method: str) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql" or not bind.exec_driver_sql(HAS_LZ4).scalar():
        return
    for column in COLUMNS:
        op.execute(f"ALTER TABLE games ALTER COLUMN {column} SET COMPRESSION {method}")


def upgrade() -> None:
    _compress_with("lz4")


def downgrade() -> None:
    _compress_with("pglz")
