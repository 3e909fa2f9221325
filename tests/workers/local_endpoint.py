"""Webhook endpoints for tests: a threaded HTTP server on 127.0.0.1 that hands each POST (headers with
lower-case names, body) to ``answer`` and replies with the status it returns, with no body; and a host that
never answers (:class:`BlackHole`)."""

from __future__ import annotations

import http.server
import socket
import threading


class LocalEndpoint:
    def __init__(self, path: str) -> None:
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers["Content-Length"]))
                status = outer.answer({k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}{path}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        raise NotImplementedError

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Recorder(LocalEndpoint):
    """An app's webhook endpoint: keeps each delivery (headers, body), answers 204."""

    def __init__(self) -> None:
        self.deliveries: list[tuple[dict[str, str], bytes]] = []
        super().__init__("/hooks")

    def answer(self, headers: dict[str, str], body: bytes) -> int:
        self.deliveries.append((headers, body))
        return 204


class BlackHole:
    """Accepts connections and never answers (nor closes them)."""

    def __init__(self, host: str) -> None:
        self.listener = socket.create_server((host, 0))
        self.port = self.listener.getsockname()[1]
        self.accepted: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            self.accepted.append(conn)

    def close(self) -> None:
        self.listener.close()
        for conn in self.accepted:
            conn.close()
