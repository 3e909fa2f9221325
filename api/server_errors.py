"""gunicorn's own answers as problem details: a request it cannot parse (a request line or headers over its
limits, a malformed request line, header or chunk) is answered by gunicorn before the app sees it, as an HTML
page, and gunicorn has no setting for that page. Its writer is replaced so that these answers are
``application/problem+json`` like every other error of the API."""

from __future__ import annotations

import os
import socket
from typing import Any

import orjson
from gunicorn import util  # type: ignore[import-untyped]  # gunicorn ships no types

from api.errors import BAD_REQUEST, HEADERS_TOO_LARGE, INTERNAL, URI_TOO_LONG
from api.extensions import document_everywhere

# 414 and 431 keep their status; gunicorn's other client errors (400, and its 403, 417 and 501 for what a
# client sent) are the API's 400; a 500 is gunicorn's own fault.
_BY_STATUS = {414: URI_TOO_LONG, 431: HEADERS_TOO_LARGE, 500: INTERNAL}


def write_problem(sock: socket.socket, status_int: int, reason: str, mesg: str) -> None:
    """``gunicorn.util.write_error``'s replacement: the same answer as a problem document."""
    problem = _BY_STATUS.get(status_int, BAD_REQUEST)
    # `instance` is every problem's (the document requires it): no path was read, so only a request id.
    instance = f"#{os.urandom(8).hex()}"
    body = orjson.dumps(
        {"type": problem.type, "title": problem.title, "status": problem.status, "detail": mesg[:300], "instance": instance}
    )
    head = (
        f"HTTP/1.1 {problem.status} {problem.title}\r\nConnection: close\r\n"
        f"Content-Type: application/problem+json\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    util.write_nonblock(sock, head.encode("latin-1") + body)


def document(spec: Any) -> None:
    """The answers gunicorn gives before the app on any operation: 414 for a request line over its limit (a long
    query, say), 431 for headers over theirs. A client may meet them anywhere, so every operation declares them."""
    methods = frozenset(("get", "post", "put", "patch", "delete"))
    for problem in (URI_TOO_LONG, HEADERS_TOO_LARGE):
        document_everywhere(spec, problem, methods)


def install() -> None:
    """Answer gunicorn's parse errors with :func:`write_problem` in this process (a worker calls ``util.write_error``
    through the module, so replacing the module's attribute reaches every worker class)."""
    util.write_error = write_problem
