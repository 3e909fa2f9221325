"""A full Redis (maxmemory, noeviction): writes answer 503 `storage-full` with Retry-After and change nothing,
reads keep answering (uncounted by the rate limit), `/readyz` is 503, and everything is back once there is room."""

from __future__ import annotations

import logging
import re
from dataclasses import replace

import redis

from api.app import create_app
from api.quietlog import QuietLog
from support import SMALL_MAXMEMORY, fill_redis, free_redis


def assert_full(resp) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == 503, resp.get_json()
    assert resp.get_json()["type"] == "/problems/storage-full"
    assert int(resp.headers["Retry-After"]) > 0


def test_our_redis_refuses_writes_when_full_instead_of_evicting(small_redis):
    conn = redis.Redis.from_url(small_redis)
    assert conn.config_get("maxmemory-policy")["maxmemory-policy"] == "noeviction"
    assert int(conn.config_get("maxmemory")["maxmemory"]) == SMALL_MAXMEMORY


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
        assert_full(resp)
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


def test_when_full_writes_are_refused_reads_answer_and_play_resumes_once_there_is_room(small_redis, settings):
    # The rate limit on: its count is a write, which a full Redis refuses; a read goes through uncounted.
    s = replace(settings, redis_url=small_redis, rate_limit="1000/60", games_per_client=0)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    conn = redis.Redis.from_url(small_redis)
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    assert created.status_code == 201
    game_id = created.get_json()["game"]["id"]
    tokens = {t["seat"]: t["token"] for t in created.get_json()["tokens"]}
    assert client.get("/readyz").status_code == 200

    fill_redis(conn)
    view = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[0]}"})
    assert view.status_code == 200, view.get_json()
    seat = view.get_json()["turn"]
    own = client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {tokens[seat]}"}).get_json()
    move = {**own["legal_moves"][0], "expected_version": own["version"]}
    moves = f"/v1/games/{game_id}/moves"
    auth = {"Authorization": f"Bearer {tokens[seat]}"}
    assert_full(client.post(moves, json=move, headers=auth))
    assert_full(client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}))
    assert client.get(f"/v1/games/{game_id}/history").status_code == 200
    assert client.get(f"/v1/games/{game_id}/events", headers={"Accept": "application/json"}).status_code == 200
    assert client.get("/v1/variants").status_code == 200
    ready = client.get("/readyz")
    assert ready.status_code == 503, ready.get_json()
    assert ready.get_json()["checks"]["redis"]["full"] is True
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] == own["version"]  # the move changed nothing

    free_redis(conn)
    assert client.get("/readyz").status_code == 200
    played = client.post(moves, json=move, headers=auth)
    assert played.status_code == 200, played.get_json()
    assert client.get(f"/v1/games/{game_id}").get_json()["version"] > own["version"]


def test_a_flood_of_refused_writes_is_logged_once_per_interval_with_the_count_left_out(small_redis, settings, caplog):
    s = replace(settings, redis_url=small_redis, rate_limit="1000/60", games_per_client=0, error_log_interval=3600.0)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    body = {"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}]}
    assert client.post("/v1/games", json=body).status_code == 201
    fill_redis(redis.Redis.from_url(small_redis))
    with caplog.at_level(logging.WARNING, logger="api"):
        for _ in range(30):
            assert_full(client.post("/v1/games", json=body))
    lines = [r.getMessage() for r in caplog.records if r.name == "api"]
    assert len(lines) == 1 and "out of memory" in lines[0], lines


def test_quiet_log_writes_the_first_line_of_a_kind_and_then_one_per_interval_saying_how_many_it_left_out(caplog):
    now = [100.0]
    quiet = QuietLog(logging.getLogger("test.quiet"), 5.0, clock=lambda: now[0])
    with caplog.at_level(logging.WARNING, logger="test.quiet"):
        for step in (0.0, 1.0, 1.0, 1.0):  # t = 100, 101, 102, 103: the first only
            now[0] += step
            quiet.warning("storage-full", "refused %s", "a write")
        quiet.warning("unavailable", "lost %s", "Redis")  # another kind: its own interval
        now[0] += 2.0  # t = 105: an interval after the first line
        quiet.warning("storage-full", "refused %s", "a write")
    assert [r.getMessage() for r in caplog.records] == [
        "refused a write",
        "lost Redis",
        "refused a write (and 3 more like it, not logged)",
    ]
