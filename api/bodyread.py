"""Request bodies read against a deadline: ``Settings.body_timeout`` seconds from the moment the app gets the
request (its headers have arrived; gunicorn gives the headers ``--keep-alive`` seconds on gevent).

Nothing else bounds a body's read: a client that sends its headers and then a byte of body every few seconds
would hold its connection, its greenlet or sync worker, and a file descriptor, for as long as it liked, and
a few thousand of them took every descriptor of the server processes (issue 32). On gunicorn's gevent
workers (domino-serve, the streaming server) a timer ends the read at the deadline, however the bytes
trickle; on its sync workers each ``recv`` on the client's socket (``environ["gunicorn.socket"]``) waits at
most what is left of it, which ends a body that stops but not one sent a byte at a time (docker-compose's
nginx reads every body in full before it reaches them). Past the deadline the body guard answers 408
``request-timeout`` and the socket's reading side is shut, so that gunicorn does not go on reading the rest
of the body as the next request. Without gunicorn's socket (the test client, another server) the deadline is
checked between reads only.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Callable, Iterable
from typing import IO, Any

import flask
import gevent  # type: ignore[import-untyped]  # gevent ships no types
from gevent import monkey

from api import errors
from api.config import Settings
from api.extensions import document_everywhere

WSGIApp = Callable[[dict[str, Any], Callable[..., Any]], Iterable[bytes]]


class BodyTimeout(Exception):
    """The body did not arrive within the deadline. Not an ``OSError``: werkzeug's stream wrapper would take
    that for a client gone away (a 400)."""


class DeadlineInput:
    """``wsgi.input``, each read waiting at most until ``deadline`` (``time.monotonic()``)."""

    def __init__(self, stream: IO[bytes], sock: socket.socket | None, deadline: float) -> None:
        self.stream = stream
        self.sock = sock
        self.deadline = deadline

    def read(self, size: int = -1) -> bytes:
        return self._within(self.stream.read, size)

    def readline(self, size: int = -1) -> bytes:
        return self._within(self.stream.readline, size)

    def _within(self, read: Callable[[int], bytes], size: int) -> bytes:
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise self._expired()
        if self.sock is None:
            return read(size)
        if monkey.is_module_patched("socket"):
            return self._within_greenlet(read, size, left)
        previous = self.sock.gettimeout()
        self.sock.settimeout(left)
        try:
            return read(size)
        except TimeoutError:  # socket.timeout: what was left of the deadline passed in this read
            raise self._expired() from None
        finally:
            self.sock.settimeout(previous)

    def _within_greenlet(self, read: Callable[[int], bytes], size: int, left: float) -> bytes:
        """On gevent, one timer for the whole read: gunicorn's reader calls ``recv`` until it has ``size`` bytes,
        and a socket timeout would bound each call, not their sum (a byte every 5 s never ends)."""
        timer = gevent.Timeout(left)
        timer.start()
        try:
            return read(size)
        except gevent.Timeout as exc:
            if exc is not timer:
                raise  # someone else's
            raise self._expired() from None
        finally:
            timer.close()

    def _expired(self) -> BodyTimeout:
        if self.sock is not None:
            try:
                self.sock.shutdown(socket.SHUT_RD)  # the answer still goes out; the rest of the body is not read
            except OSError:
                pass  # the client is gone already
        return BodyTimeout()


def install(app: flask.Flask, settings: Settings) -> None:
    """Give every request that has a body a deadline for it (a WSGI layer under Flask)."""
    inner: WSGIApp = app.wsgi_app
    timeout = settings.body_timeout

    def wsgi_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if environ.get("CONTENT_LENGTH", "0") not in ("", "0") or "HTTP_TRANSFER_ENCODING" in environ:
            deadline = time.monotonic() + timeout
            environ["wsgi.input"] = DeadlineInput(environ["wsgi.input"], environ.get("gunicorn.socket"), deadline)
        return inner(environ, start_response)

    app.wsgi_app = wsgi_app  # type: ignore[method-assign]


def document(spec: Any) -> None:
    """Every operation that takes a body may answer 408."""
    document_everywhere(spec, errors.REQUEST_TIMEOUT, frozenset(("post", "put", "patch")))
