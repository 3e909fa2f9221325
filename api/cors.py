"""CORS for browser clients: origins from ``Settings.cors_origins``.

Seat tokens travel in ``Authorization``, never in cookies, so no credentials mode is needed and ``*`` is
a safe default; set ``DOMINO_CORS_ORIGINS="https://a.example,https://b.example"`` to narrow it, or ``""``
to send no CORS headers at all.

A few lines of the after-request hook (:mod:`api.hooks`) rather than flask-cors: the policy is a fixed list
of origins, and flask-cors matched every request against resource patterns, a cost on every move for nothing.
"""

from __future__ import annotations

from collections.abc import Callable

import flask

from api.config import Settings

ALLOW_HEADERS = (
    "Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID", "Prefer",
)  # fmt: skip
EXPOSE_HEADERS = (
    "ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-ID", "Preference-Applied",
)  # fmt: skip
ALLOW_METHODS = ("GET", "POST", "PATCH", "DELETE", "OPTIONS")
MAX_AGE = 600  # seconds a browser may keep a preflight's answer


def answer_headers(settings: Settings) -> Callable[[flask.Request, flask.Response], None] | None:
    """The CORS part of every answer (see :mod:`api.hooks`); None when no origin is allowed."""
    origins = frozenset(o.strip() for o in settings.cors_origins.split(",") if o.strip())
    if not origins:
        return None
    any_origin = "*" in origins
    preflight = {
        "Access-Control-Allow-Methods": ", ".join(ALLOW_METHODS),
        "Access-Control-Allow-Headers": ", ".join(ALLOW_HEADERS),
        "Access-Control-Max-Age": str(MAX_AGE),
    }
    expose = ", ".join(EXPOSE_HEADERS)

    def cors(req: flask.Request, resp: flask.Response) -> None:
        origin = req.environ.get("HTTP_ORIGIN")  # what req.headers.get("Origin") reads, without its layers
        if origin is None:  # not a cross-origin request from a browser
            return
        if not any_origin:
            resp.vary.add("Origin")  # the answer depends on the origin: caches must keep them apart
            if origin not in origins:
                return
        resp.headers["Access-Control-Allow-Origin"] = "*" if any_origin else origin
        if req.method == "OPTIONS" and "Access-Control-Request-Method" in req.headers:
            resp.headers.update(preflight)
        else:
            resp.headers["Access-Control-Expose-Headers"] = expose

    return cors
