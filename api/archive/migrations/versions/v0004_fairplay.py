"""The fair-play screen (docs/analysis.md#fair-play-screen): each seat's readings of a game at a budget, and
the finished screens.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-06
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "fairplay_readings",
        sa.Column("game_id", sa.String(32), primary_key=True),
        sa.Column("seat", sa.Integer, primary_key=True),
        sa.Column("nodes", sa.Integer, primary_key=True),
        sa.Column("tally", sa.Text, nullable=False),
    )
    op.create_table(
        "fairplay_screens",
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("app", sa.Text, nullable=True),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("created_at", sa.Float, nullable=False),
        sa.Column("finished_at", sa.Float, nullable=False),
        sa.Column("doc", sa.Text, nullable=False),
    )
    op.create_index("fairplay_screens_by_subject", "fairplay_screens", ["app", "subject"])


def downgrade() -> None:
    op.drop_index("fairplay_screens_by_subject", table_name="fairplay_screens")
    op.drop_table("fairplay_screens")
    op.drop_table("fairplay_readings")
