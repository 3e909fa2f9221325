"""Alembic's environment for the archive: run by :meth:`api.archive.Archive.migrate` (``domino-admin archive
migrate``, and ``domino-serve`` at start for its SQLite file) on the connection it passes in."""

from __future__ import annotations

from alembic import context

from api.archive.schema import metadata

connection = context.config.attributes["connection"]
context.configure(connection=connection, target_metadata=metadata, render_as_batch=True)
with context.begin_transaction():
    context.run_migrations()
