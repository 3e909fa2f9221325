"""The web client: static HTML, CSS and JavaScript under ``api/static/play/``, served at ``/play``.

The page talks to the public API only (``/v1/...``, documented in the OpenAPI document); nothing here reads
Redis. ``/`` is a small landing page linking to the client, the docs and the OpenAPI document. These routes
are plain Flask (not flask-smorest): they are pages, not API operations, so they stay out of the OpenAPI
document.
"""

from __future__ import annotations

from pathlib import Path

import flask

blp = flask.Blueprint("web", __name__)

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
def play() -> flask.Response:
    """The client; ``/play/watch?game=<id>`` opens the spectator's table (the same page)."""
    return _index()


@blp.get("/play/<path:filename>")
def play_asset(filename: str) -> flask.Response:
    resp = flask.send_from_directory(_play_dir(), filename, max_age=MAX_AGE)
    resp.headers["X-Content-Type-Options"] = "nosniff"
    return resp


def register(app: flask.Flask) -> None:
    app.register_blueprint(blp)
