"""The web client: static HTML, CSS and JavaScript under ``api/static/play/``, served at ``/play``.

The page talks to the public API only (``/v1/...``, documented in the OpenAPI document); nothing here reads
Redis. ``/`` is a small landing page linking to the client, the docs and the OpenAPI document. These routes
are plain Flask (not flask-smorest): they are pages, not API operations, so they stay out of the OpenAPI
document.
"""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import flask

blp = flask.Blueprint("web", __name__)

# The pages load only their own files and talk only to this origin, and are never framed (clickjacking):
# a Content-Security-Policy on every page (/, /play, /docs), and X-Frame-Options for older browsers.
POLICY = (
    "default-src 'self'; script-src 'self'{scripts}; style-src 'self'{styles}; img-src 'self' data:; "
    "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
_INLINE = re.compile(rb"<(script|style)>(.*?)</\1>", re.S)
DOCS_ENDPOINT = "api-docs.openapi_swagger_ui"

# The page is a handful of small files: revalidate often so a deploy shows at once.
MAX_AGE = 60

LANDING = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>domino-service</title>
<link rel="icon" href="/play/favicon.svg" type="image/svg+xml">
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:40rem;margin:2rem auto;padding:0 1rem;color:#222}
a{color:#0b5cad}</style></head>
<body><h1>domino-service</h1><p>Dominoes as a service: a rules engine, a REST API and computer players.</p>
<ul>
<li><a href="/play">Play in the browser</a>: against computer players, or open a seat for a friend</li>
<li><a href="/play#lobby">Games waiting for players</a></li>
<li><a href="/docs">API docs</a> (Swagger UI) and <a href="/openapi.json">the OpenAPI document</a></li>
</ul></body></html>
"""


PLAY_DIR = Path(__file__).resolve().parent / "static" / "play"  # packaged with api (package-data static/**)


def _play_dir() -> str:
    return str(PLAY_DIR)


def _index() -> flask.Response:
    resp = flask.send_from_directory(_play_dir(), "index.html", max_age=MAX_AGE)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    resp.headers["Referrer-Policy"] = "no-referrer"
    return resp


@blp.get("/")
def landing() -> flask.Response:
    return flask.Response(LANDING, mimetype="text/html")


@blp.get("/play")
@blp.get("/play/")
@blp.get("/play/watch")
@blp.get("/play/replay")
def play() -> flask.Response:
    """The client; ``/play/watch?game=<id>`` opens the spectator's table, ``/play/replay?game=<id>&v=<version>``
    the game step by step (the same page)."""
    return _index()


@blp.get("/play/<path:filename>")
def play_asset(filename: str) -> flask.Response:
    resp = flask.send_from_directory(_play_dir(), filename, max_age=MAX_AGE)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


def policy_for(page: bytes, inline_styles: bool = False) -> str:
    """The policy of an HTML page: its own inline ``<script>`` and ``<style>`` blocks allowed by hash (so
    none other runs); ``inline_styles`` allows every inline style (Swagger UI sets style attributes)."""
    hashes: dict[bytes, str] = {b"script": "", b"style": ""}
    for tag, body in _INLINE.findall(page):
        hashes[tag] += f" 'sha256-{base64.b64encode(hashlib.sha256(body).digest()).decode()}'"
    styles = " 'unsafe-inline'" if inline_styles else hashes[b"style"]
    return POLICY.format(scripts=hashes[b"script"], styles=styles)


def protect(req: flask.Request, resp: flask.Response) -> None:
    """Every HTML page's own policy (the app, :mod:`api.hooks`, calls this on every answer; the endpoint first,
    one of this blueprint's or the docs': it is at hand, the answer's type is parsed from its header)."""
    endpoint = req.endpoint or ""
    if not (endpoint.startswith("web.") or endpoint == DOCS_ENDPOINT) or resp.mimetype != "text/html":
        return
    # /play's page is a file without inline blocks (sent as a file: not read here); the others are small.
    page = b"" if resp.direct_passthrough else resp.get_data()
    resp.headers["Content-Security-Policy"] = policy_for(page, inline_styles=endpoint == DOCS_ENDPOINT)
    resp.headers["X-Frame-Options"] = "DENY"


def register(app: flask.Flask) -> None:
    app.register_blueprint(blp)
