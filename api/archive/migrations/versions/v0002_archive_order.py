"""The archive's order: a sequence number per game, for exports that resume where they stopped; records kept
without ``archived``, which the reads add, so that exports send them as they are.

Each write takes its numbers from the one-row ``archive_order`` counter, whose row it updates first: writers
wait for each other there, so the numbers come in commit order and a reader that has seen a number has seen
every smaller one. Games already archived are numbered in the order they were archived.

Revision ID: 0002
Revises: 0001
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    # "0" only until the rows below are numbered: every write sets it
    op.add_column("games", sa.Column("seq", sa.BigInteger, nullable=False, server_default="0"))
    op.add_column("seats", sa.Column("seq", sa.BigInteger, nullable=False, server_default="0"))
    counter = op.create_table(
        "archive_order", sa.Column("id", sa.Integer, primary_key=True), sa.Column("last", sa.BigInteger, nullable=False)
    )
    conn = op.get_bind()
    ids = conn.execute(sa.text("SELECT id FROM games ORDER BY archived_at, id")).scalars().all()
    numbered = [{"n": n, "id": game_id} for n, game_id in enumerate(ids, 1)]
    if numbered:
        conn.execute(sa.text("UPDATE games SET seq = :n WHERE id = :id"), numbered)
        conn.execute(sa.text("UPDATE seats SET seq = :n WHERE game_id = :id"), numbered)
    op.bulk_insert(counter, [{"id": 1, "last": len(ids)}])
    _records_without_archived(conn)
    op.drop_index("games_by_archive_order", "games")
    op.create_index("games_in_archive_order", "games", ["seq"], unique=True)
    op.create_index("games_by_app_in_order", "games", ["app", "seq"])
    op.create_index("seats_by_bot_in_order", "seats", ["bot", "seq"])
    op.create_index("seats_by_app_player_in_order", "seats", ["app", "player", "seq"])


ARCHIVED = ',"archived":false}'  # how every record written before this revision ends (its last key)


def _records_without_archived(conn: sa.Connection) -> None:
    last = ""
    while True:
        query = sa.text("SELECT id, record FROM games WHERE id > :last ORDER BY id LIMIT 1000")
        rows = conn.execute(query, {"last": last}).all()
        if not rows:
            return
        cut = [{"id": i, "record": r[: -len(ARCHIVED)] + "}"} for i, r in rows if r.endswith(ARCHIVED)]
        if cut:
            conn.execute(sa.text("UPDATE games SET record = :record WHERE id = :id"), cut)
        last = rows[-1][0]


def downgrade() -> None:
    op.drop_index("seats_by_app_player_in_order", "seats")
    op.drop_index("seats_by_bot_in_order", "seats")
    op.drop_index("games_by_app_in_order", "games")
    op.drop_index("games_in_archive_order", "games")
    op.create_index("games_by_archive_order", "games", ["archived_at", "id"])
    op.drop_table("archive_order")
    op.drop_column("seats", "seq")  # SQLite 3.35 and later drop a column in place
    op.drop_column("games", "seq")
