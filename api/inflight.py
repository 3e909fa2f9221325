"""A cap on one client's requests in flight in this server process: ``Settings.in_flight_per_client`` (64), beyond
which a request is answered 429 ``too-many-in-flight`` (``Retry-After``) before anything else is done for it.

The rate limit counts requests over a minute; it cannot see a client that sends few requests and keeps each
open, a body a byte at a time (issue 32: 4,100 of them from 4 addresses took every connection and file of
the server). The body deadline (:mod:`api.bodyread`) ends each such request; this cap bounds how many one
client holds meanwhile, so the others' requests still find the process. The count is kept in the process,
under a lock (no Redis round trip: the cap must hold when Redis is slow too), from the moment the app gets
the request until its answer is ready, so an event stream counts while its caller is checked, not while it
streams (streams have caps of their own). The client is the rate limit's (:func:`api.ratelimit.client_key`:
behind ``proxy_hops`` proxies, the address they name).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from typing import Any

import flask

from api import errors
from api.config import Settings
from api.extensions import RETRY_AFTER, WRITES, document_everywhere, problem_response
from api.ratelimit import client_key
from api.wrappers import ApiRequest

REFUSED = "domino.in_flight_refused"  # set in the environ of a request over the cap


class InFlight:
    """Requests being answered in this process, by client."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.lock = threading.Lock()
        self.by_client: dict[str, int] = {}

    def enter(self, client: str) -> bool:
        """Count one more request of ``client``, unless it has ``cap`` already (then False)."""
        with self.lock:
            count = self.by_client.get(client, 0)
            if count >= self.cap:
                return False
            self.by_client[client] = count + 1
            return True

    def leave(self, client: str) -> None:
        with self.lock:
            count = self.by_client[client] - 1
            if count:
                self.by_client[client] = count
            else:
                del self.by_client[client]  # the table holds only clients with requests in flight


def install(app: flask.Flask, settings: Settings) -> Callable[[ApiRequest], flask.Response | None]:
    """Count every request in a WSGI layer under Flask (and under ``ProxyFix``, which names the client); return
    the step that answers a refused one, first of the steps before the view (:mod:`api.hooks`)."""
    cap = settings.in_flight_per_client
    counts = InFlight(cap)
    prefix = settings.rate_limit_ipv6_prefix
    inner = app.wsgi_app

    def wsgi_app(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        client = client_key(environ.get("REMOTE_ADDR") or "unknown", prefix)
        if not counts.enter(client):
            environ[REFUSED] = True
            return inner(environ, start_response)
        try:
            return inner(environ, start_response)
        finally:
            counts.leave(client)

    if cap > 0:
        app.wsgi_app = wsgi_app  # type: ignore[method-assign]
    retry_after = {"Retry-After": str(settings.in_flight_retry_after)}

    def refuse(req: ApiRequest) -> flask.Response | None:
        if REFUSED not in req.environ:
            return None
        detail = f"This client has {cap} requests being answered by this server process already; wait for one."
        return problem_response(errors.TOO_MANY_IN_FLIGHT, detail, headers=retry_after)

    return refuse


def document(spec: Any) -> None:
    """Every operation may answer it, liveness included."""
    document_everywhere(spec, errors.TOO_MANY_IN_FLIGHT, frozenset(("get", *WRITES)), RETRY_AFTER)
