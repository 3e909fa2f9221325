"""The archive's Alembic migrations (env.py, versions/)."""
