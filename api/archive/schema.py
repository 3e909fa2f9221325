"""The archive's tables (SQLAlchemy Core), one definition for SQLite and PostgreSQL; the migrations in
``migrations/versions`` create exactly these (a test compares them); on PostgreSQL they also have the games' JSON
columns compressed with LZ4 (0005: compressing them with pglz took a third or more of a batch's write) and
kept in the row up to a full page (0006: not in the TOAST table, a lookup away).

``games``: one row per finished (or aborted) game. ``doc`` is the game's last live document (its seats with
their token hashes, so a seat still reads its own view), ``record`` the history document everyone reads once
the game is over (the game's JSON record, docs/notation.md, without the caller's ``seat`` and ``archived``),
``events`` every stored event as ``[stream id, event]`` pairs, ``summary`` its entry in its owner's list. All
four are JSON kept as text, byte for byte as written: the archive serves the same bytes Redis did.
``seats``: one row per seat, for the owner's list by ``player`` and the exports by player or registered bot.
``seq`` is the archive's order (a game's and its seats'): each write numbers its games from ``archive_order``'s
one row, which it updates first, so numbers come in commit order (writers wait there for each other) and an
export that has read number n has read every smaller one.
"""

from __future__ import annotations

import sqlalchemy as sa

metadata = sa.MetaData()

games = sa.Table(
    "games",
    metadata,
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
    sa.Column("seq", sa.BigInteger, nullable=False, server_default="0"),  # "0" only while the migration numbers
    # an app's games, newest first, by (created_at, id); with a status filter; in archive order (exports)
    sa.Index("games_by_app", "app", "created_at", "id"),
    sa.Index("games_by_app_status", "app", "status", "created_at", "id"),
    sa.Index("games_in_archive_order", "seq", unique=True),
    sa.Index("games_by_app_in_order", "app", "seq"),
)

seats = sa.Table(
    "seats",
    metadata,
    # its game's id; no foreign key (0006): Archive.write writes a game and its seats in one transaction
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("app", sa.Text, nullable=True),
    sa.Column("player", sa.Text, nullable=True),
    sa.Column("name", sa.Text, nullable=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("bot", sa.Text, nullable=True),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("seq", sa.BigInteger, nullable=False, server_default="0"),  # its game's
    # an app's games with a seat of one player, newest first; in archive order; a registered bot's games
    sa.Index("seats_by_app_player", "app", "player", "created_at", "game_id"),
    sa.Index("seats_by_app_player_in_order", "app", "player", "seq"),
    sa.Index("seats_by_bot_in_order", "bot", "seq"),
)

# The last ``seq`` given (one row, id 1): each write takes the next numbers here first.
archive_order = sa.Table(
    "archive_order",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True),
    sa.Column("last", sa.BigInteger, nullable=False),
)

# One row per analysed game (docs/analysis.md): ``doc`` is the analysis as ``GET /v1/games/{id}/analysis`` answers
# its ``moves`` and ``seats`` (JSON text), ``nodes`` the budget per move it was made with. No foreign key: a
# game's analysis may be written before its game is archived (both come from the same finished game).
analyses = sa.Table(
    "analyses",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("nodes", sa.Integer, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=False),
    sa.Column("doc", sa.Text, nullable=False),
)

# The fair-play screen (docs/analysis.md#fair-play-screen). ``fairplay_readings``: one row per seat of a game read
# at a budget: the sums the screen adds up (domino.analysis.fairplay.Tally as JSON), deterministic for the game,
# the seat and ``nodes``, so a later screen over some of the same games reads them here instead of again.
# ``fairplay_screens``: one row per finished screen, by its id (a hash of whose, of what and over which games);
# ``subject`` is ``player:<id>`` (an app's player; ``app`` is that app) or ``bot:<name>``.
fairplay_readings = sa.Table(
    "fairplay_readings",
    metadata,
    sa.Column("game_id", sa.String(32), primary_key=True),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("nodes", sa.Integer, primary_key=True),
    sa.Column("tally", sa.Text, nullable=False),
)

fairplay_screens = sa.Table(
    "fairplay_screens",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("app", sa.Text, nullable=True),
    sa.Column("subject", sa.Text, nullable=False),
    sa.Column("created_at", sa.Float, nullable=False),
    sa.Column("finished_at", sa.Float, nullable=False),
    sa.Column("doc", sa.Text, nullable=False),
    sa.Index("fairplay_screens_by_subject", "app", "subject"),
)
