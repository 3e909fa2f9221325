"""Browser tests of the web client (issue 9): the real service on a real HTTP port, a bots worker, headless
Chromium (Debian's ``chromium``) driven by Playwright for Python as a driver only (no ``playwright install``).

Skipped, with the reason, only when no chromium binary or no Playwright is installed; ``.ci/run`` installs
both. Screenshots are written to ``test-artifacts/`` (gitignored) at the end of each test.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from support import stop_process

from api.config import Settings

ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that drives the browser is in the slow tier (seconds each, and Chromium's start)."""
    for item in items:
        if "browser" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.slow)


def chromium_binary() -> str | None:
    given = os.environ.get("DOMINO_TEST_CHROMIUM")
    if given:
        return given
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.path.exists("/usr/bin/chromium") else None


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    binary = chromium_binary()
    if binary is None:
        pytest.skip("no chromium binary (apt-get install chromium; .ci/run does it)")
    sync_api = pytest.importorskip("playwright.sync_api", reason="the playwright package (the `test` extra) is not installed")
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=binary, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@dataclass
class LiveServer:
    url: str
    settings: Settings
    http: httpx.Client
    worker: subprocess.Popen[bytes] | None = None
    env: dict[str, str] = field(default_factory=dict)

    def start_worker(self) -> None:
        """An RQ worker on this test's bots queue (a subprocess, with the sweep): computer players move."""
        assert self.worker is None
        self.worker = subprocess.Popen(
            [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep", "--log-level", "WARNING"],
            env=self.env,
            cwd=str(Path(__file__).resolve().parents[2]),
        )


@pytest.fixture
def live_server(live_server_without_bots: LiveServer) -> LiveServer:
    live_server_without_bots.start_worker()
    return live_server_without_bots


@pytest.fixture
def live_server_without_bots(settings: Settings) -> Iterator[LiveServer]:
    """The app on 127.0.0.1:<free port> (threaded WSGI server: streams and requests at once); no worker
    until ``start_worker()``."""
    from werkzeug.serving import make_server

    from api.app import create_app

    app = create_app({"DOMINO": settings})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, name="live-server", daemon=True)
    thread.start()
    url = f"http://127.0.0.1:{server.server_port}"
    env = dict(os.environ)  # the settings fixture exported DOMINO_* for this test
    live = LiveServer(url=url, settings=settings, http=httpx.Client(base_url=url, timeout=10), env=env)
    try:
        yield live
    finally:
        live.http.close()
        if live.worker is not None:
            stop_process(live.worker)
        server.shutdown()
        thread.join(10)


class Page:
    """A browser page that records console errors and uncaught exceptions."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.console_errors: list[str] = []
        page.on("console", lambda m: self.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: self.console_errors.append(f"uncaught: {e}"))

    def screenshot(self, name: str) -> Path:
        ARTIFACTS.mkdir(exist_ok=True)
        path = ARTIFACTS / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=True)
        return path


@pytest.fixture
def new_page(browser: Any) -> Iterator[Any]:
    contexts: list[Any] = []

    def make(width: int = 1200, height: int = 900) -> Page:
        context = browser.new_context(viewport={"width": width, "height": height})
        context.set_default_timeout(20_000)
        contexts.append(context)
        return Page(context.new_page())

    yield make
    for context in contexts:
        context.close()


class BlipProxy:
    """A TCP proxy in front of the live server whose connections the test can cut (a network blip), and
    which refuses new ones while it is down."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.down = threading.Event()
        self.cuts = 0
        self.refused = 0  # connections refused while down: the page's tries that failed
        self._lock = threading.Lock()
        self._socks: list[socket.socket] = []
        self._closed = False
        threading.Thread(target=self._accept, name="blip-proxy", daemon=True).start()

    def _accept(self) -> None:
        while not self._closed:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.down.is_set():
                client.close()
                self.refused += 1
                continue
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target_port))
            except OSError:
                client.close()
                continue
            with self._lock:
                # A cut between the check above and here must not miss this connection.
                if self.down.is_set():
                    for s in (client, upstream):
                        s.close()
                    self.refused += 1
                    continue
                self._socks += [client, upstream]
            for src, dst in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(src, dst), daemon=True).start()

    @staticmethod
    def _pump(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            for s in (src, dst):
                try:
                    s.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass

    def cut(self) -> None:
        """Drop every open connection and refuse new ones until ``restore()``."""
        with self._lock:
            self.down.set()
            self.cuts += 1
            socks, self._socks = self._socks, []
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            s.close()

    def restore(self) -> None:
        self.down.clear()

    def close(self) -> None:
        self._closed = True
        self.cut()
        self.listener.close()


@pytest.fixture
def blip_proxy(live_server_without_bots: LiveServer) -> Iterator[BlipProxy]:
    port = int(live_server_without_bots.url.rsplit(":", 1)[1])
    proxy = BlipProxy(port)
    yield proxy
    proxy.close()
