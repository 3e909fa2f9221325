"""GET /v1/simulations: newest first, pages by cursor, the status filter, 422s, and an index that forgets
expired records (and expires itself)."""

from __future__ import annotations

import time
from dataclasses import replace

import pytest

from api.app import create_app
from api.service.simulations import runner
from support import eventually

LOCAL = "127.0.0.1"  # the test client's address: the client these simulations are listed for


@pytest.fixture
def app(settings):  # type: ignore[no-untyped-def]
    """Many simulations queued at once from one client: no cap on them here."""
    return create_app({"DOMINO": replace(settings, simulations_per_client=0), "TESTING": True})


def _create(client, **body):  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "strategies": ["greedy", "random"], "games": 10, **body}
    resp = client.post("/v1/simulations", json=body)
    assert resp.status_code == 202, resp.get_json()
    TOKENS[resp.get_json()["id"]] = resp.get_json()["token"]
    return resp.get_json()["id"]


def _cancel(client, sim_id):  # type: ignore[no-untyped-def]
    return client.post(f"/v1/simulations/{sim_id}/cancel", headers={"Authorization": f"Bearer {TOKENS[sim_id]}"})


TOKENS: dict[str, str] = {}


def _all_pages(client, url):  # type: ignore[no-untyped-def]
    """Follow `next` to the end: (every page's ids, in order)."""
    pages = []
    while url is not None:
        resp = client.get(url)
        assert resp.status_code == 200, resp.get_json()
        body = resp.get_json()
        assert (body["next"] is None) == (body["next_before"] is None)
        pages.append([s["id"] for s in body["simulations"]])
        url = body["next"]
    return pages


def test_newest_first_in_pages_without_repeats_or_gaps(client):
    ids = [_create(client) for _ in range(7)]
    pages = _all_pages(client, "/v1/simulations?limit=3")
    assert pages == [ids[:3:-1], ids[3:0:-1], ids[:1]]
    first = client.get("/v1/simulations?limit=1").get_json()
    assert first["simulations"] == [client.get(f"/v1/simulations/{ids[-1]}").get_json()], "the shape of GET {id}"
    assert first["next"] == f"/v1/simulations?limit=1&before={first['next_before']}"
    assert [s["id"] for s in client.get("/v1/simulations").get_json()["simulations"]] == ids[::-1]


def test_a_cursor_between_simulations_of_one_instant_neither_repeats_nor_skips(client, service):
    ids = [_create(client) for _ in range(5)]
    store = service.store
    instant = store.queue_redis.zscore(store.simulations.index_key(LOCAL), ids[2])
    store.queue_redis.zadd(store.simulations.index_key(LOCAL), {sim_id: instant for sim_id in ids[1:4]})
    pages = _all_pages(client, "/v1/simulations?limit=2")
    listed = [sim_id for page in pages for sim_id in page]
    assert listed == [ids[4], *sorted(ids[1:4], reverse=True), ids[0]]
    assert [len(p) for p in pages] == [2, 2, 1]


def test_status_filter(client, run_simulations):
    done = _create(client)
    run_simulations()
    queued_old, queued_new, cancelled = _create(client), _create(client), _create(client)
    assert _cancel(client, cancelled).status_code == 200
    by_status = {
        status: [s["id"] for s in client.get(f"/v1/simulations?status={status}").get_json()["simulations"]]
        for status in runner.STATUSES
    }
    assert by_status == {"queued": [queued_new, queued_old], "running": [], "finished": [done], "cancelled": [cancelled], "failed": []}
    page = client.get("/v1/simulations?status=queued&limit=1").get_json()
    assert page["next"].endswith("&status=queued")
    # The second page cannot know that no older simulation is queued: a third one, empty, says so.
    assert _all_pages(client, "/v1/simulations?status=queued&limit=1") == [[queued_new], [queued_old], []]


def test_a_filtered_page_reads_a_bounded_part_of_the_index(client, run_simulations, monkeypatch):
    done = _create(client)
    run_simulations()
    for _ in range(5):
        _create(client)
    monkeypatch.setattr(runner, "LIST_SCAN", 2)
    pages = _all_pages(client, "/v1/simulations?status=finished&limit=10")
    assert pages == [[], [], [done]], "short pages with a next cursor, then the match"


def test_a_simulation_whose_record_expired_leaves_the_list_and_the_index(client, service):
    ids = [_create(client) for _ in range(4)]
    store = service.store
    store.queue_redis.delete(store.simulations.key(ids[1]))
    store.queue_redis.pexpire(store.simulations.key(ids[2]), 1)
    eventually(lambda: not store.queue_redis.exists(store.simulations.key(ids[2])), "the record expired")
    assert _all_pages(client, "/v1/simulations?limit=1") == [[ids[3]], [ids[0]]]
    for gone in ids[1:3]:
        assert store.queue_redis.zscore(store.simulations.index_key(LOCAL), gone) is None
    assert store.queue_redis.zcard(store.simulations.index_key(LOCAL)) == 2


def test_creating_drops_index_entries_past_the_expiry_whose_records_are_gone(client, service):
    store = service.store
    ttl = store.settings.simulation_ttl
    gone, refreshed = _create(client), _create(client)
    now = time.time()
    # Both created long ago; `refreshed` still has its record (a chunk counted since renewed its expiry).
    store.queue_redis.zadd(store.simulations.index_key(LOCAL), {gone: now - ttl - 60, refreshed: now - ttl - 30})
    store.queue_redis.delete(store.simulations.key(gone))
    new = _create(client)
    assert store.queue_redis.zscore(store.simulations.index_key(LOCAL), gone) is None
    assert [s["id"] for s in client.get("/v1/simulations").get_json()["simulations"]] == [new, refreshed]


def test_the_index_expires_and_every_write_to_a_record_renews_it(client, service, run_simulations):
    store, ttl = service.store, service.settings.simulation_ttl
    _create(client)
    assert 0 < store.queue_redis.ttl(store.simulations.index_key(LOCAL)) <= ttl
    store.queue_redis.expire(store.simulations.index_key(LOCAL), 100)
    _create(client)
    assert store.queue_redis.ttl(store.simulations.index_key(LOCAL)) > ttl - 10
    store.queue_redis.expire(store.simulations.index_key(LOCAL), 100)
    run_simulations(max_jobs=1)  # a counted chunk renews its record's expiry, and the index's
    assert store.queue_redis.ttl(store.simulations.index_key(LOCAL)) > ttl - 10




@pytest.mark.parametrize(
    "query, field",
    [
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("limit=-3", "limit"),
        ("limit=ten", "limit"),
        ("limit=2.5", "limit"),
        ("status=waiting", "status"),
        ("status=", "status"),
        ("before=", "before"),
        ("before=not-a-cursor", "before"),
        ("before=%FF%FE", "before"),
        ("before=1700000000.5", "before"),
        ("before=nan_abcdefghijklmnop", "before"),
        ("before=inf_abcdefghijklmnop", "before"),
        ("before=1e9_abcdefghijklmnop", "before"),
        ("before=1700000000.5_ABCDEFGHIJKLMNOP", "before"),
        ("before=1700000000.5_abcdefghijklmnop" + "x" * 200, "before"),
    ],
)
def test_bad_query_is_a_422_problem_naming_the_parameter(client, query, field):
    resp = client.get(f"/v1/simulations?{query}")
    assert resp.status_code == 422, resp.get_data(as_text=True)
    assert resp.mimetype == "application/problem+json"
    problem = resp.get_json()
    assert problem["type"] == "/problems/invalid-request"
    assert field in problem["errors"]["query"], problem


def test_limit_bounds_and_a_valid_cursor_of_a_gone_simulation(client):
    ids = [_create(client) for _ in range(3)]
    assert len(client.get("/v1/simulations?limit=1").get_json()["simulations"]) == 1
    assert len(client.get("/v1/simulations?limit=100").get_json()["simulations"]) == 3
    # A well-formed cursor needs no live entry behind it: the list goes on from its place.
    page = client.get("/v1/simulations?before=999999999999.999999_abcdefghijklmnop").get_json()
    assert [s["id"] for s in page["simulations"]] == ids[::-1] and page["next"] is None
