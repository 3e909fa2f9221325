"""A full Redis (maxmemory, noeviction) answers 503 `unavailable`, and a refused create leaves nothing behind."""

from __future__ import annotations

import re
from dataclasses import replace

import pytest
import redis

from api.app import create_app
from workers.redis_server import RedisServer


@pytest.fixture
def small_redis(tmp_path):
    server = RedisServer(tmp_path, persistent=False, maxmemory="64mb")
    url = server.start()
    try:
        yield url
    finally:
        server.stop()


def test_our_redis_refuses_writes_when_full_instead_of_evicting(small_redis):
    conn = redis.Redis.from_url(small_redis)
    assert conn.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    assert int(conn.config_get("maxmemory")["maxmemory"]) == 64 * 1024 * 1024


def test_a_full_redis_answers_503_and_never_keeps_a_half_written_game(small_redis, settings):
    s = replace(settings, redis_url=small_redis, rate_limit="", games_per_client=0)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    conn = redis.Redis.from_url(small_redis)
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}, {"bot": "greedy"}]}
    first = client.post("/v1/games", json=body)  # loads the scripts, opens the connections
    assert first.status_code == 201
    created: set[str] = {first.get_json()["game"]["id"]}
    # Room for a few dozen games (~7 KB each) above what is used now.
    conn.config_set("maxmemory", int(conn.info("memory")["used_memory"]) + 300_000)
    refused = 0
    for _ in range(400):
        resp = client.post("/v1/games", json=body)
        if resp.status_code == 201:
            created.add(resp.get_json()["game"]["id"])
            continue
        assert resp.status_code == 503, resp.get_json()
        assert resp.get_json()["type"] == "/problems/unavailable"
        refused += 1
        if refused == 20:
            break
    assert created and refused == 20

    stored = {m.group(1).decode() for k in conn.keys(f"{s.key_prefix}:*") if (m := re.match(rb".*:\{(\w+)\}:", k))}
    assert stored == created  # every game written was answered 201; nothing of a refused one stayed
    lobby = {m.decode() for m in conn.zrange(f"{s.key_prefix}:lobby", 0, -1)}
    assert lobby <= created
    for game_id in created:  # and each of them reads back whole
        assert client.get(f"/v1/games/{game_id}").status_code == 200
