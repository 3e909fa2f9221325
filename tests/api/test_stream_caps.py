"""Caps on open event streams, per client and per game, counted in Redis: 429 too-many-streams with
Retry-After; a stream that ends releases its slot, and a slot nobody renews (a dead process's) lapses."""

from __future__ import annotations

from dataclasses import replace as replace_settings

import pytest

from api.app import create_app
from support import eventually

SSE = {"Accept": "text/event-stream"}


@pytest.fixture
def capped(settings):  # type: ignore[no-untyped-def]
    """A client of an app that allows 2 streams per client and 3 per game."""
    s = replace_settings(settings, streams_per_client=2, streams_per_game=3)
    return create_app({"DOMINO": s, "TESTING": True}).test_client()


def new_game(client) -> str:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]})
    assert resp.status_code == 201
    return str(resp.get_json()["game"]["id"])


def stream(client, game_id: str, address: str = "127.0.0.1"):  # type: ignore[no-untyped-def]
    return client.get(
        f"/v1/games/{game_id}/events", headers=SSE, buffered=False, environ_base={"REMOTE_ADDR": address}
    )


def assert_too_many(resp, what: str) -> None:  # type: ignore[no-untyped-def]
    assert resp.status_code == 429, resp.data
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["type"] == "/problems/too-many-streams" and what in body["detail"]
    assert int(resp.headers["Retry-After"]) > 0


def test_a_client_may_hold_only_so_many_streams_and_a_closed_one_frees_its_slot(capped):
    game_id = new_game(capped)
    first, second = stream(capped, game_id), stream(capped, game_id)
    assert first.status_code == second.status_code == 200
    assert_too_many(stream(capped, game_id), "client")
    assert_too_many(stream(capped, new_game(capped)), "client")  # the cap is the client's, over all games
    # A long poll that waits holds a slot too; one that does not wait is a plain read.
    assert_too_many(capped.get(f"/v1/games/{game_id}/events?wait=0.05"), "client")
    assert capped.get(f"/v1/games/{game_id}/events").status_code == 200
    assert stream(capped, game_id, "10.0.0.9").status_code == 200  # another client is not held back by this one
    first.close()  # the client went away: the server closes the stream
    third = stream(capped, game_id)
    assert third.status_code == 200
    for resp in (second, third):
        resp.close()


def test_a_game_may_have_only_so_many_streams(capped):
    game_id = new_game(capped)
    opened = [stream(capped, game_id, f"10.0.1.{i}") for i in range(3)]
    assert all(r.status_code == 200 for r in opened)
    assert_too_many(stream(capped, game_id, "10.0.1.99"), "game")
    assert stream(capped, new_game(capped), "10.0.1.99").status_code == 200  # another game is not full
    opened[0].close()
    assert stream(capped, game_id, "10.0.1.99").status_code == 200


def test_spectators_filling_a_game_leave_its_seats_their_own_streams(settings):
    client = create_app({"DOMINO": replace_settings(settings, streams_per_game=2, streams_per_seat=1), "TESTING": True}).test_client()
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).get_json()
    game_id, token = created["game"]["id"], created["tokens"][0]["token"]
    seat = {**SSE, "Authorization": f"Bearer {token}"}
    opened = [stream(client, game_id, f"10.0.3.{i}") for i in range(2)]
    assert_too_many(stream(client, game_id, "10.0.3.9"), "game")  # the spectators' room is full
    mine = client.get(f"/v1/games/{game_id}/events", headers=seat, buffered=False, environ_base={"REMOTE_ADDR": "10.0.4.1"})
    assert mine.status_code == 200, mine.data  # the seat's own room
    again = client.get(f"/v1/games/{game_id}/events", headers=seat, buffered=False, environ_base={"REMOTE_ADDR": "10.0.4.2"})
    assert_too_many(again, "Seat 0")  # a seat's room is its own cap, not the spectators'
    waiting = client.get(f"/v1/games/{game_id}/events?wait=0.01", headers={"Authorization": f"Bearer {token}"})
    assert_too_many(waiting, "Seat 0")  # a long poll that waits counts like a stream
    for resp in (*opened, mine):
        resp.close()


def test_a_waiting_long_poll_releases_its_slot_when_it_answers(capped):
    game_id = new_game(capped)
    for _ in range(5):
        assert capped.get(f"/v1/games/{game_id}/events?wait=0.01").status_code == 200


def test_a_slot_nobody_renews_lapses_with_its_lease(settings):
    s = replace_settings(settings, streams_per_client=1, stream_lease=0.3)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    game_id = new_game(client)
    orphan = stream(client, game_id)  # never read and never closed: like the stream of a process that died
    assert orphan.status_code == 200
    assert_too_many(stream(client, game_id), "client")

    def a_stream_once_the_lease_lapsed():  # type: ignore[no-untyped-def]
        resp = stream(client, game_id)
        if resp.status_code == 200:
            return resp
        resp.close()  # still held: refused
        return None

    eventually(a_stream_once_the_lease_lapsed, "a new stream once the orphan's lease lapsed", interval=0.05).close()


def test_a_stream_renews_its_slot_while_it_runs(settings, service):
    from api.service.streams import StreamSlot

    s = replace_settings(settings, stream_lease=1.5)
    store = type(service)(s).store
    conn = store.rq_connection()
    slot = StreamSlot.take(store.streams, s, "10.0.2.1", "somegame", None)
    key = store.streams.keys("10.0.2.1", "somegame")[0]
    first_lease_end = conn.zscore(key, slot.id)

    def past_the_first_lease() -> bool:  # the stream renews as each frame goes out (a third of a lease each)
        slot.renew_if_due()
        seconds, micros = conn.time()
        return seconds * 1000 + micros / 1000 > first_lease_end  # type: ignore[no-any-return]

    eventually(past_the_first_lease, "Redis's clock past the slot's first lease")
    held = conn.zscore(key, slot.id)
    assert held is not None and held > first_lease_end
    slot.release()
    assert store.rq_connection().exists(*store.streams.keys("10.0.2.1", "somegame")) == 0
