"""Expiry follows the game (issues 8 and 31): a live game's keys outlive its deadline, or the moment an idle
game is ended by the sweep, by a margin; a game never just disappears; a finished game stays until archived,
then Redis lets it go; nothing else is left behind."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

import domino
from api.app import create_app
from support import eventually

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster

TWO = [{"name": "Ana"}, {"name": "Bo"}]


def _client(settings, **changes):  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, **changes), "TESTING": True})
    return app, app.test_client()


def test_an_idle_game_is_ended_by_the_sweep_never_dropped(settings, stored_keys):
    """Untouched for game_ttl with no deadline, a playing game ends `expired` (a waiting one `aborted`), found by
    the sweep before its keys could expire; then its keys stay until the archive holds it."""
    app, client = _client(settings, game_ttl=1)
    service = app.extensions["domino.service"]
    playing = client.post("/v1/games", json={"variant": "draw", "seats": TWO}).get_json()["game"]["id"]
    waiting = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"open": True}]})
    waiting_id = waiting.get_json()["game"]["id"]
    assert service.sweep().expired == [], "not idle for game_ttl yet"
    ended: set[str] = set()
    eventually(lambda: ended.update(j[0] for j in service.sweep().expired) or ended == {playing, waiting_id}, "both ended")
    view = client.get(f"/v1/games/{playing}").get_json()
    assert view["status"] == "finished" and view["winners"] == []
    assert client.get(f"/v1/games/{playing}/history").get_json()["outcome"]["reason"] == "expired"
    history = client.get(f"/v1/games/{waiting_id}/history").get_json()
    assert history["status"] == "aborted" and history["outcome"] == {"reason": "aborted", "winners": [], "team": None}
    assert history["events"][-1]["type"] == "game_ended"
    assert domino.replay(client.get(f"/v1/games/{playing}/record").get_json()).outcome.reason == "expired"
    store = service.store
    assert store.redis.ttl(store.games.state_key(playing)) == -1, "kept until the archive holds it"
    assert store.archive_due.pending([playing, waiting_id]) == {playing, waiting_id}, "both due for the archive"
    assert not service.sweep().expired, "ended once"
    assert store.idle_due.size() == 0
    assert waiting_id.encode() not in store.queue_redis.zrange(store.lobby.key, 0, -1)


def test_a_correspondence_games_keys_outlive_its_deadline(client, service):
    """A 3-day turn: neither the state nor the events expire before the deadline (plus the margin); a move
    keeps it so; 14 days is the longest turn."""
    body = {"variant": "draw", "seats": TWO, "turn_timeout_s": 3 * 86400}
    resp = client.post("/v1/games", json=body)
    game_id = resp.get_json()["game"]["id"]
    store = service.store
    keys = (store.games.state_key(game_id), store.games.events_key(game_id))

    def check() -> None:
        deadline = client.get(f"/v1/games/{game_id}").get_json()["deadline"]
        margin = service.settings.expiry_margin
        for key in keys:
            assert store.redis.ttl(key) >= deadline - time.time() + margin - 2, key

    check()
    token = resp.get_json()["tokens"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    view = client.get(f"/v1/games/{game_id}", headers=auth).get_json()
    if view["turn"] != 0:
        auth = {"Authorization": f"Bearer {resp.get_json()['tokens'][1]['token']}"}
        view = client.get(f"/v1/games/{game_id}", headers=auth).get_json()
    assert client.post(f"/v1/games/{game_id}/moves", json=view["legal_moves"][0], headers=auth).status_code == 200
    check()
    assert service.sweep().expired == []
    longest = client.post("/v1/games", json={**body, "turn_timeout_s": 14 * 86400})
    assert longest.status_code == 201
    for bad in (14 * 86400 + 1, 0, -5):
        refused = client.post("/v1/games", json={**body, "turn_timeout_s": bad})
        assert refused.status_code == 422 and refused.content_type == "application/problem+json"
        assert "turn_timeout_s" in str(refused.get_json()["errors"])


def test_the_sweep_keeps_a_late_games_keys(settings, client, service):
    """A seat past its deadline whose move cannot be made yet (no worker): the sweep keeps the game alive."""
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO, "turn_timeout_s": 0.05})
    game_id = resp.get_json()["game"]["id"]
    state_key = service.store.games.state_key(game_id)
    service.store.redis.expire(state_key, 1)  # as if its margin were nearly spent
    late = eventually(lambda: game_id in [j[0] for j in service.sweep().timeouts], "the deadline passed")
    assert late and service.store.redis.ttl(state_key) >= service.settings.expiry_margin - 2


def test_a_move_racing_the_expiry_exactly_one_wins(settings):
    """The sweep ends the game as it read it: a move that lands first keeps it alive, and a move after the end
    is refused."""
    app, client = _client(settings, game_ttl=1)
    service = app.extensions["domino.service"]
    for move_first in (True, False):
        resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO})
        game_id = resp.get_json()["game"]["id"]
        found = service.games.find(game_id)
        seat = found.doc["state"]["turn"]
        auth = {"Authorization": f"Bearer {resp.get_json()['tokens'][seat]['token']}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        if move_first:
            assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
            assert service.endings.expire(found) is False
            assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "playing"
        else:
            assert service.endings.expire(found) is True
            refused = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth)
            assert refused.status_code == 409 and refused.get_json()["type"] == "/problems/game-over"
            assert client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished"


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
            lambda: (ms := store.redis.pttl(state_key)) < 59_000 and ms, "a second of idle time gone", interval=0.05
        )
        view = client.get(f"/v1/games/{game_id}").get_json()
        seat = view["turn"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code == 200
        assert idle < store.redis.pttl(state_key) <= 60_000, "the move refreshed the idle time (and its margin)"
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


def test_a_fischer_clock_runs_down_each_seats_bank_and_adds_its_increment(client, service, run_bots):
    """Each seat's bank as of the last commit and when the turn began, in the view and the turn notice; a seat
    whose bank is spent is moved for as its turn starts, then gets its increment; bad clocks are refused."""
    body = {"variant": "draw", "seats": TWO, "clock": {"initial_s": 60, "increment_s": 5}}
    resp = client.post("/v1/games", json=body)
    assert resp.status_code == 201
    game_id = resp.get_json()["game"]["id"]
    tokens = {t["seat"]: t["token"] for t in resp.get_json()["tokens"]}
    view = client.get(f"/v1/games/{game_id}").get_json()
    first, clock = view["turn"], view["clock"]
    second = 1 - first
    assert clock["remaining"] == [60, 60] and clock["increment_s"] == 5 and view["turn_timeout_s"] is None
    assert view["deadline"] == pytest.approx(clock["turn_started_at"] + 60)
    # The second seat's bank is spent (as if it had used it all on earlier turns).
    found = service.games.find(game_id)
    remaining = [0.0 if seat == second else 60.0 for seat in range(2)]
    spent = {**found.doc, "clock": {**found.doc["clock"], "remaining": remaining}}
    assert service.store.games.commit(game_id, found.version, found.version + 1, spent, [], 3600).ok
    auth = {"Authorization": f"Bearer {tokens[first]}"}
    move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
    assert move["type"] == "play", "the opening is a play"
    after = client.post(f"/v1/games/{game_id}/moves", json=move, headers=auth).get_json()
    used = after["clock"]["turn_started_at"] - clock["turn_started_at"]
    assert after["turn"] == second
    assert after["clock"]["remaining"][first] == pytest.approx(60 - used + 5, abs=0.01)
    assert after["deadline"] == pytest.approx(after["clock"]["turn_started_at"], abs=0.01), "due as it starts"
    events = client.get(f"/v1/games/{game_id}/events").get_json()["events"]
    assert events[-1]["type"] == "turn_started" and events[-1]["clock"] == after["clock"]
    eventually(lambda: game_id in [j[0] for j in service.sweep().timeouts], "the spent seat's turn is due")
    run_bots()
    moved = client.get(f"/v1/games/{game_id}").get_json()
    assert moved["version"] == after["version"] + 1 and moved["clock"]["remaining"][second] == 5
    assert client.get(f"/v1/games/{game_id}/events?after={after['version']}").get_json()["events"][0]["auto"] is True
    for bad in (
        {**body, "turn_timeout_s": 60},
        {**body, "clock": {"initial_s": 5}},
        {**body, "clock": {"initial_s": 15 * 86400}},
        {**body, "clock": {"initial_s": 60, "increment_s": 86401}},
        {**body, "clock": {"increment_s": 5}},
    ):
        refused = client.post("/v1/games", json=bad)
        assert refused.status_code == 422 and "clock" in str(refused.get_json()["errors"]), bad
