"""The floor of a move, for ``bench/api_load.py --floor``: what a move costs on this stack with no rules.

It serves the part of the API the load clients use (create, view, move, Server-Sent Events) with only the
Redis work of a move and of following one: a move reads a 2 KB game document, commits it by compare-and-set
on its version with two events (the tile played and the next seat's turn notice) in one Lua script, and each
seat's event stream wakes on a blocking XREAD and forwards what it reads. No rules, no tokens, no rate limit,
no metrics, no schemas: no move of the real API can cost less, so its moves/s bound what the API can reach
against the bare endpoint (``gunicorn floor_app:app``, the same configuration as the API).
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterator

import flask
import orjson
import redis

app = flask.Flask(__name__)
pool = redis.BlockingConnectionPool.from_url(os.environ["DOMINO_REDIS_URL"], max_connections=256)
conn = redis.Redis(connection_pool=pool)
MOVES = 35  # about a two-seat draw game's moves
TTL = 3600
COMMIT = conn.register_script("""
if tonumber(redis.call('HGET', KEYS[1], 'v')) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 'doc', ARGV[3])
redis.call('XADD', KEYS[2], ARGV[2] .. '-1', 'e', ARGV[4])
redis.call('XADD', KEYS[2], ARGV[2] .. '-2', 'e', ARGV[5])
redis.call('EXPIRE', KEYS[1], ARGV[6])
redis.call('EXPIRE', KEYS[2], ARGV[6])
return 1
""")
LEGAL_MOVES = [{"type": "play", "tile": "6-4", "end": "left"}, {"type": "play", "tile": "3-1", "end": "right"}]


def json_response(doc: object, status: int = 200) -> flask.Response:
    return flask.Response(orjson.dumps(doc), status, mimetype="application/json")


def turn_started(seat: int) -> bytes:
    return orjson.dumps({"type": "turn_started", "seat": seat, "legal_moves": LEGAL_MOVES})


@app.post("/v1/games")
def create() -> flask.Response:
    game_id = secrets.token_hex(8)
    with conn.pipeline() as pipe:
        pipe.hset(f"floor:{game_id}", mapping={"v": 0, "doc": orjson.dumps({"pad": "x" * 2000, "to_move": 0})})
        pipe.xadd(f"floor:{game_id}:events", {"e": turn_started(0)}, id="0-1")
        pipe.expire(f"floor:{game_id}", TTL)
        pipe.expire(f"floor:{game_id}:events", TTL)
        pipe.execute()
    return json_response({"game": {"id": game_id}, "tokens": [{"seat": 0, "token": "a"}, {"seat": 1, "token": "b"}]}, 201)


@app.get("/v1/games/<game_id>")
def view(game_id: str) -> flask.Response:
    return flask.Response(conn.hget(f"floor:{game_id}", "doc"), mimetype="application/json")


@app.post("/v1/games/<game_id>/moves")
def move(game_id: str) -> flask.Response:
    body = orjson.loads(flask.request.get_data())
    version, raw = conn.hmget(f"floor:{game_id}", ["v", "doc"])
    expected = body["expected_version"]
    if version is None or int(version) != expected:
        return json_response({"title": "version mismatch"}, 412)
    doc = orjson.loads(raw)
    seat = doc["to_move"]
    doc["to_move"] = 1 - seat
    played = orjson.dumps({"type": "tile_played", "seat": seat, "tile": body["tile"]})
    after = orjson.dumps({"type": "game_ended"}) if expected + 1 >= MOVES else turn_started(1 - seat)
    keys = [f"floor:{game_id}", f"floor:{game_id}:events"]
    if not COMMIT(keys=keys, args=[expected, expected + 1, orjson.dumps(doc), played, after, TTL]):
        return json_response({"title": "version mismatch"}, 412)
    return json_response({"id": game_id, "version": expected + 1, "seat": seat, "status": "playing"})


@app.get("/v1/games/<game_id>/events")
def events(game_id: str) -> flask.Response:
    def stream() -> Iterator[bytes]:
        conn = pool.get_connection()  # held for the stream's life: one round trip per wake, as the API does
        last = b"0-0"
        try:
            while True:
                conn.send_command("XREAD", "COUNT", 100, "BLOCK", 5000, "STREAMS", f"floor:{game_id}:events", last)
                reply = conn.read_response()
                if not reply:
                    yield b": keep-alive\n\n"
                    continue
                chunks = []
                for stream_id, fields in next(iter(reply.values())):  # RESP3 (redis-py 8): {key: entries}
                    last = stream_id
                    event = orjson.loads(fields[1])
                    event["id"], event["version"] = stream_id.decode(), int(stream_id.split(b"-")[0])
                    chunks.append(b"id: " + stream_id + b"\ndata: " + orjson.dumps(event) + b"\n\n")
                    if event["type"] == "game_ended":
                        yield b"".join(chunks)
                        return
                yield b"".join(chunks)
        finally:
            pool.release(conn)

    return flask.Response(stream(), mimetype="text/event-stream")


@app.get("/healthz")
def healthz() -> flask.Response:
    return json_response({"status": "ok"})
