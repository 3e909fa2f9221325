"""Finished games and their seats.

Revision ID: 0001
Revises:
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "games",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("app", sa.Text, nullable=True),
        sa.Column("variant", sa.String(32), nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("ended_at", sa.Float, nullable=False),
        sa.Column("archived_at", sa.Float, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("doc", sa.Text, nullable=False),
        sa.Column("record", sa.Text, nullable=False),
        sa.Column("events", sa.Text, nullable=False),
        sa.Column("summary", sa.Text, nullable=False),
    )
    op.create_index("games_by_app", "games", ["app", "created_at", "id"])
    op.create_index("games_by_app_status", "games", ["app", "status", "created_at", "id"])
    op.create_index("games_by_archive_order", "games", ["archived_at", "id"])
    op.create_table(
        "seats",
        sa.Column("game_id", sa.String(32), sa.ForeignKey("games.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("app", sa.Text, nullable=True),
        sa.Column("player", sa.Text, nullable=True),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("bot", sa.Text, nullable=True),
        sa.Column("created_at", sa.Float, nullable=False),
    )
    op.create_index("seats_by_app_player", "seats", ["app", "player", "created_at", "game_id"])


def downgrade() -> None:
    op.drop_table("seats")
    op.drop_table("games")
