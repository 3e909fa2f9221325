"""A webhook endpoint for tests: a threaded HTTP server on 127.0.0.1 that hands each POST (headers with
lower-case names, body) to ``answer`` and replies with the status it returns, with no body."""

from __future__ import annotations

import http.server
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
