"""A private PostgreSQL cluster for the tests: a temporary folder, a free port on 127.0.0.1, started and stopped
by the suite as it does for Redis (tests/archive use it through the ``postgres_url`` fixture).

Debian's ``postgresql`` puts ``initdb`` and ``pg_ctl`` in ``/usr/lib/postgresql/<version>/bin``, not on the
PATH, and they refuse to run as root: when the suite runs as root (as CI does), the cluster runs as the
package's unprivileged ``postgres`` user, in a folder it owns.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path


def binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl``: the newest Debian version's, else the PATH's."""
    versions = sorted(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl"), key=lambda p: int(p.parent.parent.name) if p.parent.parent.name.isdigit() else 0)
    if versions:
        return versions[-1].parent
    found = shutil.which("pg_ctl")
    return Path(found).parent if found and shutil.which("initdb") else None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class PostgresCluster:
    def __init__(self, bin_dir: Path) -> None:
        self.bin_dir = bin_dir
        self.user = "postgres" if os.geteuid() == 0 else None  # initdb refuses to run as root
        self.folder = Path(tempfile.mkdtemp(prefix="domino-test-pg-"))
        self.data = self.folder / "data"
        self.port = _free_port()

    @property
    def url(self) -> str:
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/postgres"

    def _run(self, *args: str) -> None:
        done = subprocess.run(
            [str(self.bin_dir / args[0]), *args[1:]], user=self.user, capture_output=True, text=True, timeout=120,
            stdin=subprocess.DEVNULL,
        )  # fmt: skip
        if done.returncode != 0:
            raise RuntimeError(f"{args[0]} failed ({done.returncode}): {done.stdout}{done.stderr}")

    def create(self) -> None:
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        # trust on 127.0.0.1 only (listen_addresses below); no fsync: a test cluster need not survive a crash
        self._run("initdb", "-D", str(self.data), "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync")

    def start(self) -> str:
        options = f"-p {self.port} -k {self.folder} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off"
        self._run("pg_ctl", "-D", str(self.data), "-o", options, "-l", str(self.folder / "log"), "-w", "-t", "60", "start")
        return self.url

    def cpu_seconds(self) -> float:
        """The CPU seconds the server has used: the postmaster's and its live processes' (each connection's
        backend, the WAL writer, the checkpointer...: their time on a CPU, to the nanosecond) and those of the
        processes it has reaped (user and system, to the clock tick). Exact between two readings while no
        connection ends (one ending between them may be counted twice or not at all)."""
        postmaster = (self.data / "postmaster.pid").read_text().split()[0]
        tick = os.sysconf("SC_CLK_TCK")
        total = 0.0
        for entry in Path("/proc").iterdir():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
                if entry.name != postmaster and fields[1] != postmaster:
                    continue
                total += int((entry / "schedstat").read_text().split()[0]) / 1e9
            except (OSError, IndexError):
                continue  # not a process, or one that just ended
            if entry.name == postmaster:
                total += (int(fields[13]) + int(fields[14])) / tick  # its reaped children's user and system time
        return total

    def stop(self) -> None:
        """Stop the server (fast shutdown: connections are cut); the data stays for :meth:`start`."""
        self._run("pg_ctl", "-D", str(self.data), "-m", "fast", "-w", "-t", "60", "stop")

    def remove(self) -> None:
        try:
            self.stop()
        except RuntimeError:
            pass  # already stopped
        shutil.rmtree(self.folder, ignore_errors=True)
