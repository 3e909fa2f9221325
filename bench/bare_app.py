"""The bare baseline of bench/api_load.py: one Flask endpoint doing one Redis GET and one SET of a 2 KB JSON
document, served by the same gunicorn configuration as the API (``gunicorn bare_app:app``)."""

from __future__ import annotations

import os

import flask
import orjson
import redis

app = flask.Flask(__name__)
conn = redis.Redis.from_url(os.environ["DOMINO_REDIS_URL"], socket_timeout=0.5, socket_connect_timeout=0.5)
DOC = orjson.dumps({"pad": "x" * 2000, "version": 0})


@app.post("/bare/<key>")
def bare(key: str) -> flask.Response:
    raw = conn.get(f"bare:{key}")
    doc = orjson.loads(raw) if raw else orjson.loads(DOC)
    doc["version"] += 1
    conn.set(f"bare:{key}", orjson.dumps(doc))
    return flask.Response(orjson.dumps({"version": doc["version"]}), mimetype="application/json")
