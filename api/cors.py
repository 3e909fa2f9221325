"""CORS for browser clients (DESIGN §3), with flask-cors: origins from ``Settings.cors_origins``.

Seat tokens travel in ``Authorization``, never in cookies, so no credentials mode is needed and ``*`` is
a safe default; set ``DOMINO_CORS_ORIGINS="https://a.example,https://b.example"`` to narrow it, or ``""``
to send no CORS headers at all.
"""

from __future__ import annotations

import flask
from flask_cors import CORS

from api.config import Settings

ALLOW_HEADERS = ["Authorization", "Content-Type", "If-Match", "If-None-Match", "Idempotency-Key", "Last-Event-ID"]
EXPOSE_HEADERS = ["ETag", "Location", "Retry-After", "RateLimit", "RateLimit-Policy", "X-Request-ID"]


def install(app: flask.Flask, settings: Settings) -> None:
    origins = [o.strip() for o in settings.cors_origins.split(",") if o.strip()]
    if not origins:
        return
    CORS(
        app,
        origins="*" if origins == ["*"] else origins,
        allow_headers=ALLOW_HEADERS,
        expose_headers=EXPOSE_HEADERS,
        methods=["GET", "POST", "DELETE", "OPTIONS"],
        supports_credentials=False,
        max_age=600,
        vary_header=True,
    )
