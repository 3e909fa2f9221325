"""A gunicorn serving the app on 127.0.0.1, as production does, for the reliability tests; the environment
its processes (and workers started beside it) get from the suite's settings."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from support import end_server, serving
from workers.redis_server import free_port

HERE = Path(__file__).parent
ROOT = HERE.parent.parent


def env_for(settings, **extra: str) -> dict[str, str]:  # type: ignore[no-untyped-def]
    env = dict(os.environ)  # the settings fixture exported DOMINO_* (prefix, queue names, Redis URL)
    env.update({"DOMINO_REDIS_URL": settings.redis_url, "DOMINO_KEY_PREFIX": settings.key_prefix})
    env.update(extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    return env


class Gunicorn:
    """gunicorn sync workers on 127.0.0.1 and a free port, as in production (domino-serve)."""

    def __init__(
        self, env: dict[str, str], app: str = "api.app:create_app()", workers: int = 1, options: tuple[str, ...] = ()
    ) -> None:
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc = subprocess.Popen(
            [
                sys.executable, "-m", "gunicorn", "--workers", str(workers), "--bind", f"127.0.0.1:{self.port}",
                "--no-control-socket", "--graceful-timeout", "2", "--timeout", "30", "--log-level", "warning",
                "--pythonpath", str(HERE), *options, app,
            ],  # fmt: skip
            env=env,
            cwd=ROOT,
            start_new_session=True,
        )
        if not serving(self.base, self.proc):
            self.stop()
            raise RuntimeError("gunicorn did not start")

    def workers(self) -> list[int]:
        path = Path(f"/proc/{self.proc.pid}/task/{self.proc.pid}/children")
        return [int(p) for p in path.read_text().split()] if path.exists() else []

    def stop(self) -> None:
        end_server(self.proc, grace=10)


@pytest.fixture
def gunicorn_factory():  # type: ignore[no-untyped-def]
    started: list[Gunicorn] = []

    def start(env: dict[str, str], **kwargs) -> Gunicorn:  # type: ignore[no-untyped-def]
        server = Gunicorn(env, **kwargs)
        started.append(server)
        return server

    yield start
    for server in started:
        server.stop()
