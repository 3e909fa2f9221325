"""A live game holds its app's (or creator's) slot for as long as it lives, and games that have no idle check
(created before idle checks existed) are given one, so they too are ended when left idle."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from api.app import create_app

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]


def test_a_correspondence_game_keeps_its_apps_slot_past_the_game_ttl(settings) -> None:  # type: ignore[no-untyped-def]
    """The slot is taken for a game_ttl and the margin; the idle check (due a game_ttl after the creation)
    finds the game waiting on a 3-day turn and holds its slot until the game's next check plus the margin."""
    app = create_app({"DOMINO": replace(settings, game_ttl=60), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    issued = service.create_app("corr-slot", None, None, 1)
    auth = {"Authorization": f"Bearer {issued.key}"}
    body = {"variant": "draw", "seats": TWO, "turn_timeout_s": 3 * 24 * 3600}
    game = client.post("/v1/games", json=body, headers=auth).get_json()["game"]
    slots = service.store.app_games
    assert slots.held(issued.app.id) == [game["id"]]
    lease_end = lambda: service.store.queue_redis.zscore(slots.key(issued.app.id), game["id"]) / 1000  # noqa: E731
    assert lease_end() < game["deadline"], "at first, a game_ttl and the margin"
    assert service.sweep(now=time.time() + 61).expired == [], "it waits for its seat: not idle"
    margin = service.settings.expiry_margin
    assert lease_end() >= game["deadline"] + 60 + margin - 5, "held until its next idle check and the margin"
    pttl = service.store.queue_redis.pttl(slots.key(issued.app.id)) / 1000
    assert pttl >= game["deadline"] + 60 + margin - time.time() - 5, "the key lives as long as its longest lease"
    refused = client.post("/v1/games", json=body, headers=auth)
    assert refused.status_code == 429, "the slot is still held"


def test_games_without_an_idle_check_are_given_one_once_and_are_ended_when_idle(settings) -> None:  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, game_ttl=60), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    store = service.store
    old, over = (client.post("/v1/games", json={"variant": "draw", "seats": TWO}).get_json() for _ in range(2))
    old_id, over_id = old["game"]["id"], over["game"]["id"]
    token = {"Authorization": f"Bearer {over['tokens'][0]['token']}"}
    assert client.post(f"/v1/games/{over_id}/resign", headers=token).status_code == 200
    for game_id in (old_id, over_id):
        store.idle_due.clear(game_id)  # as if created before idle checks existed
    store.queue_redis.delete(f"{store.idle_due.due_key}:done:adopted")
    assert service.sweep(now=time.time() + 3600).expired == [], "without a check, nothing would end it"
    assert service.adopt_idle_games() == 1, "the live one; the finished one needs none"
    assert store.idle_due.pending([old_id, over_id]) == {old_id}
    assert store.redis.ttl(store.games.state_key(old_id)) > 60, "its keys outlive its check"
    assert service.adopt_idle_games() == 0, "done once"
    assert [j[0] for j in service.sweep(now=time.time() + 3600).expired] == [old_id]
    assert client.get(f"/v1/games/{old_id}/history").get_json()["outcome"]["reason"] == "expired"


def test_a_move_racing_the_idle_end_at_the_same_moment_exactly_one_wins(settings) -> None:  # type: ignore[no-untyped-def]
    """The sweep ends an idle game on the version it looked at while a seat's move lands at the same moment:
    either the game ended (and the move is refused as over) or the move counts (and the game lives on)."""
    app = create_app({"DOMINO": replace(settings, game_ttl=60), "TESTING": True})
    service = app.extensions["domino.service"]
    outcomes = set()
    for _ in range(8):
        client = app.test_client()
        created = client.post("/v1/games", json={"variant": "draw", "seats": TWO}).get_json()
        game_id = created["game"]["id"]
        found = service.games.find(game_id)
        seat = found.doc["state"]["turn"]
        auth = {"Authorization": f"Bearer {created['tokens'][seat]['token']}"}
        move = client.get(f"/v1/games/{game_id}", headers=auth).get_json()["legal_moves"][0]
        start = threading.Barrier(2)
        got: dict[str, object] = {}

        def end() -> None:
            start.wait()
            got["ended"] = service.endings.expire(found)

        def play() -> None:
            start.wait()
            got["move"] = app.test_client().post(f"/v1/games/{game_id}/moves", json=move, headers=auth).status_code

        threads = [threading.Thread(target=end), threading.Thread(target=play)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        view = client.get(f"/v1/games/{game_id}").get_json()
        if got["ended"]:
            assert got["move"] == 409 and view["status"] == "finished" and view["version"] == 1
        else:
            assert got["move"] == 200 and view["status"] == "playing" and view["version"] == 1
        outcomes.add(bool(got["ended"]))
    print(f"the end won in {sorted(outcomes)}")  # which of them won varies with the scheduling


def test_an_ended_games_slots_are_released_its_finished_slot_held_and_its_idle_entry_cleared(service) -> None:  # type: ignore[no-untyped-def]
    """Store.game_ended, the one round trip at a game's end: the hold is TAKE's with no cap (a lease on Redis's
    clock, the key living as long as its longest lease)."""
    store = service.store
    assert store.app_games.take("a1", "g1", 0, 60_000) and store.bot_games.take("b1", "g1", 0, 60_000)
    assert store.bot_games.take("b1", "g0", 0, 60_000)  # another game of the bot's: kept
    store.idle_due.mark("g1", time.time() + 60, attempt=2)
    store.game_ended("g1", [(store.app_games, "a1"), (store.bot_games, "b1")], (store.client_finished, "app:a1"), 5_000)
    assert store.app_games.held("a1") == [] and store.bot_games.held("b1") == ["g0"]
    assert store.client_finished.held("app:a1") == ["g1"]
    lease_end = store.queue_redis.zscore(store.client_finished.key("app:a1"), "g1") / 1000
    assert time.time() + 3 < lease_end < time.time() + 6
    assert 0 < store.queue_redis.pttl(store.client_finished.key("app:a1")) <= 5_000
    assert store.idle_due.size() == 0 and store.queue_redis.hget(store.idle_due.attempt_key, "g1") is None

    assert store.client_games.take("203.0.113.9", "g2", 0, 60_000)
    store.game_ended("g2", [(store.client_games, "203.0.113.9")], None, 5_000)  # nobody holds it once ended
    assert store.client_games.held("203.0.113.9") == [] and store.client_finished.held("203.0.113.9") == []
