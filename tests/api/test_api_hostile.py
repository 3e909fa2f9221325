"""Hostile input: every malformed request gets a clear 4xx problem and stores nothing (issue 8).

"Nothing stored" is checked on Redis itself: the set of keys of the test's prefix (rate-limit counters
excepted) and the game's version and event stream are the same before and after.
"""

from __future__ import annotations

import re
import time

import pytest

from api.resources.common import NAME_PATTERN
from support import PROBLEM, assert_problem, returns_within

TWO = [{"name": "Ana"}, {"name": "Bo"}]


@pytest.fixture
def game(create_game, service):  # type: ignore[no-untyped-def]
    data, players, spectator = create_game(TWO, seed="hostile")
    return data["game"]["id"], players


def snapshot(service, stored_keys, game_id):  # type: ignore[no-untyped-def]
    store = service.store
    return stored_keys(), store.games.version(game_id), store.redis.xlen(store.games.events_key(game_id))


def moves_url(game_id: str) -> str:
    return f"/v1/games/{game_id}/moves"


def test_oversized_bodies_are_413_and_store_nothing(client, service, stored_keys, game):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    huge = b'{"type": "draw", "pad": "' + b"x" * 20_000 + b'"}'
    auth = players[0].headers
    assert_problem(client.post(moves_url(game_id), data=huge, content_type="application/json", headers=auth), 413, "payload-too-large")
    assert_problem(client.post("/v1/games", data=huge, content_type="application/json"), 413, "payload-too-large")
    # (A chunked body without Content-Length is cut at the limit too: tests/reliability, against gunicorn.)
    assert snapshot(service, stored_keys, game_id) == before


@pytest.mark.parametrize("depth", [100, 5_000])
def test_deeply_nested_json_is_a_4xx(client, service, stored_keys, game, depth):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    nested = "[" * depth + "]" * depth
    body = '{"type": "draw", "x": ' + nested + "}"
    resp = client.post(moves_url(game_id), data=body, content_type="application/json", headers=players[0].headers)
    assert resp.status_code in (400, 413, 422), resp.status_code
    assert resp.mimetype == PROBLEM
    resp = client.post("/v1/games", data='{"variant": "draw", "seats": ' + nested + "}", content_type="application/json")
    assert resp.status_code in (400, 413, 422) and resp.mimetype == PROBLEM
    assert snapshot(service, stored_keys, game_id) == before


@pytest.mark.parametrize(
    "content_type, data",
    [
        ("text/plain", '{"type": "draw"}'),
        ("application/x-www-form-urlencoded", "type=draw"),
        ("multipart/form-data; boundary=x", '--x\r\nContent-Disposition: form-data; name="type"\r\n\r\ndraw\r\n--x--\r\n'),
        ("application/xml", "<move type='draw'/>"),
        (None, '{"type": "draw"}'),
    ],
)
def test_wrong_content_types_are_415(client, service, stored_keys, game, content_type, data):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    headers = dict(players[0].headers)
    if content_type:
        headers["Content-Type"] = content_type
    assert_problem(client.post(moves_url(game_id), data=data, headers=headers), 415, "unsupported-media-type")
    assert_problem(client.post("/v1/games", data=data, headers={"Content-Type": content_type or ""}), 415)
    assert snapshot(service, stored_keys, game_id) == before


@pytest.mark.parametrize(
    "raw",
    [b"{", b'{"type": "draw",}', b"\xff\xfe\x00{", b'{"type": "dr\xc3aw"}', b"NaN", b'{"type": "draw", "x": Infinity}', b'{"type": "draw"} trailing'],
)
def test_bodies_that_are_not_json_are_400(client, service, stored_keys, game, raw):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    assert_problem(client.post(moves_url(game_id), data=raw, content_type="application/json", headers=players[0].headers), 400, "bad-request")
    assert snapshot(service, stored_keys, game_id) == before


@pytest.mark.parametrize(
    "name",
    ["Ana 🁣", "Zoë", "李小龍", "محمد", "e\u0301\u0301\u0301", "🂡" * 40, "\u202eevil\u202c"],
)
def test_unicode_names_are_kept_exactly(client, name):
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": name}, {"bot": "greedy"}]})
    if "\u202e" in name:  # bidi controls are format characters: refused like control characters, or kept
        assert resp.status_code in (201, 422)
        return
    assert resp.status_code == 201, resp.get_json()
    game = resp.get_json()["game"]
    assert game["seats"][0]["name"] == name
    assert client.get(f"/v1/games/{game['id']}").get_json()["seats"][0]["name"] == name


@pytest.mark.parametrize(
    "name", ["", "A" * 41, "🂡" * 41, "Ana\x00", "Ana\nBo", "\x1b[31mred", "Ana\x7f", "   \t"]
)
def test_bad_names_are_422_and_store_nothing(client, stored_keys, name):
    before = stored_keys()
    assert_problem(client.post("/v1/games", json={"variant": "draw", "seats": [{"name": name}, {"bot": "greedy"}]}), 422, "invalid-request")
    assert stored_keys() == before


@pytest.mark.parametrize("name", ["a" * 16_000 + "\x00", " " * 16_000 + "\x00", " " * 16_000])
def test_a_long_name_costs_its_check_little(client, name):
    """A body's name is checked against the pattern before its length is judged (both are reported): the match
    is linear in the length, so a 16 KiB name is refused in a fraction of a millisecond of CPU, not seconds (the
    earlier pattern backtracked quadratically, holding the interpreter's lock meanwhile). This thread's CPU time:
    neither wall time nor the other threads' CPU (a server or delivery thread of the process) counts."""
    match = re.compile(NAME_PATTERN).match
    started = time.thread_time()
    assert match(name) is None
    assert time.thread_time() - started < 0.05
    body = {"variant": "draw", "seats": [{"name": name}, {"bot": "greedy"}]}
    assert_problem(client.post("/v1/games", json=body), 422, "invalid-request")


@pytest.mark.parametrize(
    "move",
    [
        {"type": "draw", "expected_version": -1},
        {"type": "draw", "expected_version": 10**30},
        {"type": "draw", "expected_version": 1e308},
        {"type": "draw", "expected_version": "1"},
        {"type": "draw", "expected_version": True},
        {"type": "play", "tile": "-1-6"},
        {"type": "play", "tile": "99999999999999999999-1"},
        {"type": "play", "tile": "6-4", "end": -1},
        {"type": "play", "tile": "6-4", "end": "train:-1"},
        {"type": "play", "tile": "6-4", "end": "train:99999999999999999999"},
        {"type": "draw", "unknown_field": 1},
        {"type": "draw", "seat": 1},
        {"type": "teleport"},
        {"type": None},
        {},
        [],
        "draw",
        12,
        None,
    ],
)
def test_hostile_moves_are_4xx_and_store_nothing(client, service, stored_keys, game, move):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    state_before = service.store.games.load(game_id)
    seat = service.store.games.load(game_id).doc["state"]["to_move"] if "to_move" in service.store.games.load(game_id).doc["state"] else 0
    for player in players.values():  # the mover and the other seat
        resp = client.post(moves_url(game_id), json=move, headers=player.headers)
        assert 400 <= resp.status_code < 500 and resp.status_code != 404, (move, resp.status_code, resp.get_json())
        assert resp.mimetype == PROBLEM
        body = resp.get_json()
        assert body["title"] and body["detail"]
    assert snapshot(service, stored_keys, game_id) == before
    assert service.store.games.load(game_id) == state_before
    del seat


@pytest.mark.parametrize(
    "body",
    [
        {"variant": "draw", "seats": TWO, "rules": {"target_score": -5}},
        {"variant": "draw", "seats": TWO, "rules": {"target_score": 10**40}},
        {"variant": "draw", "seats": TWO, "rules": {"target_score": 1e308}},
        {"variant": "draw", "seats": TWO, "rules": {"hand_size": -1}},
        {"variant": "draw", "seats": TWO, "rules": {"hand_size": 10**9}},
        {"variant": "draw", "seats": TWO, "turn_timeout_s": -1},
        {"variant": "draw", "seats": TWO, "turn_timeout_s": 1e308},
        {"variant": "draw", "seats": TWO * 20},
        {"variant": "draw", "seats": TWO, "seed": "x" * 10_000},
        {"variant": "draw", "seats": TWO, "unknown": {"a": 1}},
        {"variant": "draw", "seats": [{"name": "A", "bot": "greedy"}, {"name": "B"}]},
        {"variant": "draw", "seats": [{"bot": "../../etc/passwd"}, {"name": "B"}]},
        {"variant": "mexican_train", "seats": TWO, "rules": {"max_pip": 10**6}},
    ],
)
def test_hostile_creates_are_4xx_and_store_nothing(client, stored_keys, body):
    before = stored_keys()
    resp = client.post("/v1/games", json=body)
    assert resp.status_code in (413, 422), (resp.status_code, resp.get_json())
    assert resp.mimetype == PROBLEM
    assert stored_keys() == before


@pytest.mark.parametrize("seat", ["-1", "99999999999999999999", "1e3", "x"])
def test_hostile_seat_numbers_and_game_ids(client, stored_keys, game, seat):
    game_id, _ = game
    before = stored_keys()
    resp = client.post(f"/v1/games/{game_id}/seats/{seat}", json={"name": "Eve"})
    assert 400 <= resp.status_code < 500
    for bad_id in ("..%2F..%2Fetc", "a" * 5000, "%00", "*", "{abc}"):
        resp = client.get(f"/v1/games/{bad_id}")
        assert resp.status_code == 404 and resp.mimetype == PROBLEM
    assert stored_keys() == before


@pytest.mark.parametrize(
    "query", ["after=-5", "after=99999999999999999999999", "wait=-1", "wait=1e308", "wait=nan", "after=x"]
)
def test_hostile_event_queries_are_answered_not_held(client, game, query):
    game_id, _ = game
    # A ceiling above the longest wait allowed (30 s): an unbounded wait (1e308) would hang here.
    resp = returns_within(60, lambda: client.get(f"/v1/games/{game_id}/events?{query}"))
    assert resp.status_code in (200, 422), (query, resp.status_code, resp.get_data(as_text=True)[:300])


def test_hostile_headers(client, service, stored_keys, game):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    token = players[0].token
    cases = [
        {"Authorization": "Bearer " + "x" * 5000},
        {"Authorization": "Basic " + token},
        {"Authorization": "Bearer"},
        {"Authorization": f"Bearer {token}", "If-Match": '"-1"'},
        {"Authorization": f"Bearer {token}", "If-Match": '"99999999999999999999999"'},
        {"Authorization": f"Bearer {token}", "If-Match": "W/\"1\""},
        {"Authorization": f"Bearer {token}", "Idempotency-Key": "k" * 300},
    ]
    for headers in cases:
        resp = client.post(moves_url(game_id), json={"type": "draw"}, headers=headers)
        assert resp.status_code in (401, 412, 422), (headers, resp.status_code)
        assert resp.mimetype == PROBLEM
    assert snapshot(service, stored_keys, game_id) == before


def test_deep_nesting_anywhere_in_a_body_is_a_422_not_a_500(client, service, stored_keys, game):
    # ~1,000 deep is valid JSON (orjson reads up to 1,024) but overflowed what handles the body next.
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    deep = '{"x":' * 1000 + "{}" + "}" * 1000
    bodies = [
        ("/v1/games", '{"variant": "draw", "seats": [{"name": "a"}, {"bot": "greedy"}], "rules": %s}' % deep),
        ("/v1/games", '{"variant": "draw", "seats": [{"name": "a"}, {"bot": "greedy"}], "rules": {"target_score": %s}}' % deep),
        ("/v1/simulations", '{"variant": "draw", "strategies": ["greedy", "greedy"], "games": 2, "rules": %s}' % deep),
        (moves_url(game_id), '{"type": "play", "tile": %s}' % deep),
    ]
    for url, body in bodies:
        got = assert_problem(client.post(url, data=body, content_type="application/json", headers=players[0].headers), 422, "invalid-request")
        assert "nested" in got["detail"]
    assert snapshot(service, stored_keys, game_id) == before


@pytest.mark.parametrize("tag", ['"²"', '"¹"', '"³"', '"1", "2"', '""', '"1'])
def test_if_match_that_is_no_version_is_a_422(client, service, stored_keys, game, tag):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    assert_problem(players[0].move({"type": "draw"}, **{"If-Match": tag}), 422, "invalid-request")
    assert snapshot(service, stored_keys, game_id) == before


def test_a_simulation_id_naming_another_key_is_not_found(client, service, run_simulations):
    sim_id = client.post("/v1/simulations", json={"variant": "draw", "strategies": ["greedy", "greedy"], "games": 2}).get_json()["id"]
    run_simulations()  # its counted chunks are a set at "<sim key>:chunks"
    for other in (f"{sim_id}:chunks", f"{sim_id.upper()}", f"{sim_id}x", "s"):
        assert_problem(client.get(f"/v1/simulations/{other}"), 404, "not-found")
        assert_problem(client.delete(f"/v1/simulations/{other}", headers={"Authorization": "Bearer not-its-token"}), 404, "not-found")
    assert client.get(f"/v1/simulations/{sim_id}").get_json()["status"] == "finished"


@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "tile": "٥-٥"},
        {"type": "play", "tile": "6-٤"},
        {"type": "play", "tile": "６-４"},
        {"type": "play", "tile": "6-4", "end": "train:١"},
        {"type": "play", "tile": "6-4", "end": "left\n"},
    ],
)
def test_tiles_and_ends_are_ascii(client, service, stored_keys, game, move):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    assert_problem(players[0].move(move), 422, "invalid-request")
    assert snapshot(service, stored_keys, game_id) == before


def test_numbers_in_paths_queries_and_rule_maps_are_ascii(client, stored_keys, game):
    game_id, _ = game
    before = stored_keys()
    assert_problem(client.post(f"/v1/games/{game_id}/seats/١", json={"name": "x"}), 404, "not-found")
    assert_problem(client.get(f"/v1/games/{game_id}/events?after=٥"), 422, "invalid-request")
    assert_problem(client.get("/v1/games?status=waiting&limit=١٠"), 422, "invalid-request")
    body = {"variant": "draw", "seats": [{"name": "a"}, {"bot": "greedy"}], "rules": {"hand_size": {"٢": 7}}}
    assert_problem(client.post("/v1/games", json=body), 422, "invalid-request")
    assert stored_keys() == before


@pytest.mark.parametrize(
    "url, raw",
    [
        ("/v1/games", '{"variant": "draw", "variant": "block", "seats": [{"name": "a"}, {"bot": "greedy"}]}'),
        ("/v1/games", '{"variant": "draw", "seats": [{"name": "a", "name": "b"}, {"bot": "greedy"}]}'),
        ("moves", '{"type": "draw", "type": "pass"}'),
    ],
)
def test_repeated_keys_are_a_400(client, service, stored_keys, game, url, raw):
    game_id, players = game
    before = snapshot(service, stored_keys, game_id)
    url = moves_url(game_id) if url == "moves" else url
    got = assert_problem(client.post(url, data=raw, content_type="application/json", headers=players[0].headers), 400, "bad-request")
    assert "repeats the key" in got["detail"]
    assert snapshot(service, stored_keys, game_id) == before
