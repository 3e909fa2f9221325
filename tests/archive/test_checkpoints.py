"""A SQLite archive's WAL is checkpointed by a thread of the writing process, not by the commit (checkpoints.py)."""

from __future__ import annotations

import time
from pathlib import Path

from api.archive import Archive, Entry
from support import eventually


def made(n: int) -> Entry:
    now = time.time()
    return Entry(
        id=f"g{n:031d}", app=None, variant="draw", status="finished", rated=False, created_at=now, ended_at=now,
        version=1, doc=b"{}", record=b"{}", events=b"[]", summary=b"{}", seats=[],
    )  # fmt: skip


def test_a_batch_reaches_the_database_file_by_the_checkpoint_thread_and_the_wal_is_used_again(tmp_path: Path) -> None:
    database = tmp_path / "archive.sqlite3"
    archive = Archive(f"sqlite:///{database}")
    try:
        archive.migrate()  # its tables wait in the WAL too: SQLite's own checkpoint is far off
        before = database.stat().st_size
        archive.write([made(n) for n in range(3)])
        eventually(lambda: database.stat().st_size > before, "the thread's checkpoint copied the WAL into the file")
        wal = Path(f"{database}-wal").stat().st_size
        for batch in range(5):  # each batch checkpointed before the next: the WAL starts over, it does not grow
            archive.write([made(10 * (batch + 1) + n) for n in range(3)])
            time.sleep(0.2)
        assert Path(f"{database}-wal").stat().st_size <= wal
        assert archive.count() == 18
    finally:
        archive.dispose()
