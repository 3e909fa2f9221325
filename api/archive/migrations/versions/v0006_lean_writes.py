"""Less work for the database per archived game.

- ``seats`` loses its foreign key to ``games``: the key's check ran a query per seat written (on PostgreSQL a
  trigger and a locking lookup, about a fifth of the server's work for a batch), for what ``Archive.write``
  already ensures (a game and its seats are written in one transaction) and its cascade deleted nothing
  (the archive deletes no game).
- PostgreSQL: ``games`` rows keep their columns in the row up to a full page (``toast_tuple_target`` 8160,
  was 2032): a finished game's four JSON columns, compressed, were moved out of the row to the TOAST table
  (2.25 of them a game, each with an entry in the TOAST table's index) to fit 2 KB; now the row stays whole
  when it fits a page, so a write stores and indexes less and an export reads one page a game. Measured with
  250,000 of the benches' games and the default 128 MB of shared buffers, each layout in its own database,
  alternated: the server's CPU per exported game 25 -> 18 us; an archived game's read and an owner's list
  page unchanged within the noise (load 8-9). The table takes about a quarter more room (a row to a page:
  2,062 MB instead of 1,668). Rows already written keep their layout.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-07
"""

from __future__ import annotations

from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None

# SQLite's key has no name: the batch's copy of the table names it by this convention to drop it
NAMING = {"fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s"}
POSTGRES_KEY = "seats_game_id_fkey"  # PostgreSQL's own name for the key 0001 made


def upgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.drop_constraint(POSTGRES_KEY, "seats", type_="foreignkey")
        op.execute("ALTER TABLE games SET (toast_tuple_target = 8160)")
        return
    with op.batch_alter_table("seats", recreate="always", naming_convention=NAMING) as batch:
        batch.drop_constraint("fk_seats_game_id_games", type_="foreignkey")


def downgrade() -> None:
    if op.get_bind().dialect.name == "postgresql":
        op.execute("ALTER TABLE games RESET (toast_tuple_target)")
        op.create_foreign_key(POSTGRES_KEY, "seats", "games", ["game_id"], ["id"], ondelete="CASCADE")
        return
    with op.batch_alter_table("seats", recreate="always") as batch:
        batch.create_foreign_key("fk_seats_game_id_games", "games", ["game_id"], ["id"], ondelete="CASCADE")
