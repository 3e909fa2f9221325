"""Games expire after a configurable idle time and answer 404; a finished game stays until archived, then
Redis lets it go; nothing else is left behind (issue 8)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest
from api.app import create_app
from support import eventually

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster

TWO = [{"name": "Ana"}, {"name": "Bo"}]


def _client(settings, **changes):  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, **changes), "TESTING": True})
    return app, app.test_client()


def test_an_idle_game_expires_and_answers_404(settings, stored_keys):
    app, client = _client(settings, game_ttl=1)
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO})
    game_id = resp.get_json()["game"]["id"]
    token = resp.get_json()["tokens"][0]["token"]
    assert client.get(f"/v1/games/{game_id}").status_code == 200
    eventually(lambda: client.get(f"/v1/games/{game_id}").status_code == 404, "the idle game expired", interval=0.05)
    for resp in (
        client.get(f"/v1/games/{game_id}"),
        client.get(f"/v1/games/{game_id}/history"),
        client.post(f"/v1/games/{game_id}/moves", json={"type": "draw"}, headers={"Authorization": f"Bearer {token}"}),
    ):
        assert resp.status_code == 404 and resp.get_json()["type"] == "/problems/not-found"
    assert not [k for k in stored_keys() if game_id.encode() in k]


@pytest.mark.slow
def test_a_move_refreshes_the_idle_time_and_a_finished_game_stays_until_archived(settings, create_game, service):
    app, client = _client(settings, game_ttl=30, archived_ttl=1)
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO})
    game_id = resp.get_json()["game"]["id"]
    tokens = {t["seat"]: t["token"] for t in resp.get_json()["tokens"]}
    store = app.extensions["domino.service"].store
    state_key = store.games.state_key(game_id)
    for _ in range(2):
        # Once a second of the idle time has run out, a move gives the game its whole idle time again.
        idle = eventually(
            lambda: (ms := store.redis.pttl(state_key)) < 29_000 and ms, "a second of idle time gone", interval=0.05
        )
        view = client.get(f"/v1/games/{game_id}").get_json()
        seat = view["turn"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
        assert idle < store.redis.pttl(state_key) <= 30_000, "the move refreshed the idle time"
    assert client.post(f"/v1/games/{game_id}/resign", headers=auth).status_code == 200
    assert store.redis.ttl(state_key) == -1, "a finished game's keys stay until the archive holds it"
    assert "archived 1" in app.extensions["domino.service"].archive_games()
    assert 0 < store.redis.ttl(state_key) <= 1, "then a short grace"
    eventually(lambda: not store.redis.exists(state_key), "the archived game left Redis", interval=0.05)
    view = client.get(f"/v1/games/{game_id}")
    assert view.status_code == 200 and view.get_json()["archived"] is True, "read from the archive"


def test_nothing_leaks_after_bot_games_finish(settings, create_game, service, run_bots):
    """Bot-due entries, attempts, idempotency records and RQ job hashes: all cleared or expiring."""
    client = create_app({"DOMINO": settings, "TESTING": True}).test_client()
    ids = []
    for i in range(3):
        resp = client.post(
            "/v1/games",
            json={"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}], "rules": {"match_end": "fixed_rounds", "rounds": 1}},
            headers={"Idempotency-Key": f"leak-{i}"},
        )
        ids.append(resp.get_json()["game"]["id"])
    for _ in range(50):
        run_bots()
        if all(client.get(f"/v1/games/{g}").get_json()["status"] == "finished" for g in ids):
            break
    assert "archived 3" in service.archive_games()  # the finished games' keys expire once archived
    service.sweep(now=time.time() + 3600)  # what a later sweep sees
    store = service.store
    q = store.queue_redis
    assert q.zcard(store.bots_due.due_key) == 0 and q.hlen(store.bots_due.attempt_key) == 0
    assert q.zcard(store.turns_due.due_key) == 0
    without_ttl = []
    for conn in (store.redis, q):
        for key in conn.scan_iter(match=f"{store.prefix}:*"):
            if conn.ttl(key) < 0:
                without_ttl.append(key)
    assert not without_ttl, without_ttl
    jobs = [k for k in q.scan_iter(match="rq:job:bot-*") if any(g.encode() in k for g in ids)]
    assert jobs and all(0 < q.ttl(k) <= settings.bot_result_ttl for k in jobs)
