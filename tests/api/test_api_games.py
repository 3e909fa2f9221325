"""POST /v1/games, GET /v1/games/{id}: creation, validation, views, headers, tokens."""

from __future__ import annotations

import hashlib

import pytest

from support import assert_problem

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster



def test_variants_and_bots_come_from_the_engine(client):
    variants = client.get("/v1/variants").get_json()
    assert {v["id"] for v in variants["variants"]} >= {"draw", "draw_family", "block", "all_fives"}
    assert "options" in variants and "limits" in variants
    bots = client.get("/v1/bots").get_json()
    assert {"greedy", "random"} <= {b["id"] for b in bots}
    assert all({"id", "description", "strength"} <= set(b) for b in bots)


def test_create_answers_201_with_location_etag_view_and_tokens(client):
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]})
    assert resp.status_code == 201
    body = resp.get_json()
    game = body["game"]
    assert resp.headers["Location"] == f"/v1/games/{game['id']}"
    assert resp.headers["ETag"] == f'"{game["version"]}"'
    assert len(game["id"]) == 16 and game["id"].isalnum() and game["id"].islower()
    assert game["seat"] == 0 and game["status"] == "playing" and game["variant"] == "draw"
    assert game["seats"] == [
        {"seat": 0, "name": "Ana", "kind": "human", "hand_count": 7},
        {"seat": 1, "name": "greedy", "kind": "bot", "hand_count": 7},
    ]
    assert len(game["hand"]) == 7 and "legal_moves" in game
    assert game["client_seeded"] is False and len(game["seed_commitment"]) == 64
    assert [t["seat"] for t in body["tokens"]] == [0]
    token = body["tokens"][0]["token"]
    assert len(token) >= 43  # 256 bits, url-safe base64
    assert game["rules"]["players"] == 2


def test_view_has_every_field_of_the_contract(create_game):
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}])
    view = players[0].view().get_json()
    for key in (
        "id", "variant", "rules", "status", "version", "round", "turn", "seat", "seats", "scores", "team_scores",
        "boneyard_count", "out_of_play_count", "board", "log", "hand", "legal_moves", "last_round", "winners",
        "seed_commitment", "client_seeded",
    ):  # fmt: skip
        assert key in view, key
    spec = spectator.view().get_json()
    assert spec["seat"] is None and "hand" not in spec and "legal_moves" not in spec


def test_client_seed_is_marked_and_committed(client, service):
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": "my seed"}
    game = client.post("/v1/games", json=body).get_json()["game"]
    assert game["client_seeded"] is True
    doc = service.store.games.load(game["id"]).doc
    expected = hashlib.sha256(f"my seed:{doc['salt']}".encode()).hexdigest()
    assert game["seed_commitment"] == expected
    # Same seed, same deal (but a new salt and commitment).
    again = client.post("/v1/games", json=body).get_json()["game"]
    assert again["hand"] == game["hand"] and again["seed_commitment"] != game["seed_commitment"]


def test_tokens_are_stored_hashed(client, service):
    body = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).get_json()
    raw = service.store.redis.hget(service.store.games.state_key(body["game"]["id"]), "doc")
    for t in body["tokens"]:
        assert t["token"].encode() not in raw


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"variant": "draw", "seats": [{"name": "Ana"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": f"P{i}"} for i in range(5)]}, None),  # line games: 2-4
        ({"variant": "draw", "seats": [{"name": "A" * 41}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": ""}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": "Ana\u0007"}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": "Ana\u202e"}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": "Ana", "bot": "greedy"}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{}, {"bot": "greedy"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "nobody"}]}, "seats"),
        ({"variant": "draw", "seats": [{"name": "Ana"}, {"open": True, "name": "Bo"}]}, "seats"),
        ({"variant": "chess", "seats": [{"name": "Ana"}, {"bot": "greedy"}]}, "variant"),
        ({"variant": "draw", "rules": {"players": 3}, "seats": [{"name": "A"}, {"name": "B"}]}, "rules"),
        ({"variant": "draw", "rules": {"no_such_option": 1}, "seats": [{"name": "A"}, {"name": "B"}]}, None),
        ({"variant": "draw", "rules": {"draw_policy": "sometimes"}, "seats": [{"name": "A"}, {"name": "B"}]}, None),
        ({"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}], "colour": "red"}, "colour"),
        ({"variant": "draw", "seats": "two"}, "seats"),
        ({"variant": 7, "seats": [{"name": "A"}, {"name": "B"}]}, "variant"),
        ({"variant": "draw", "seats": [{"name": "A"}, {"name": "B"}], "seed": ""}, "seed"),
        ([1, 2], None),
    ],
)
def test_invalid_creates_are_422_and_store_nothing(client, stored_keys, body, where):
    before = stored_keys()
    body_json = assert_problem(client.post("/v1/games", json=body), 422, "invalid-request")
    if where is not None:
        assert where in str(body_json.get("errors"))
    assert stored_keys() == before


def test_unicode_names_are_fine(create_game):
    data, players, _ = create_game([{"name": "Zoë 🀄 Ñandú"}, {"name": "李"}])
    assert [s["name"] for s in data["game"]["seats"]] == ["Zoë 🀄 Ñandú", "李"]


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
def test_body_errors_400_413_415(client):
    assert_problem(client.post("/v1/games", data="{not json", content_type="application/json"), 400, "bad-request")
    deep = "[" * 5000 + "]" * 5000
    assert_problem(client.post("/v1/games", data=deep, content_type="application/json"), 400, "bad-request")
    assert_problem(client.post("/v1/games", data=b"\xff\xfe", content_type="application/json"), 400, "bad-request")
    big = '{"variant": "draw", "seed": "' + "x" * 20000 + '"}'
    assert_problem(client.post("/v1/games", data=big, content_type="application/json"), 413, "payload-too-large")
    assert_problem(client.post("/v1/games", data="variant=draw"), 415, "unsupported-media-type")
    assert_problem(client.post("/v1/games", data="{}", content_type="text/plain"), 415, "unsupported-media-type")


def test_404_and_405_are_problems(client):
    assert_problem(client.get("/v1/games/nosuchgame000000"), 404, "not-found")
    assert_problem(client.get("/v1/games/nosuchgame000000/history"), 404, "not-found")
    assert_problem(client.get("/v1/nothing-here"), 404, "not-found")
    resp = client.delete("/v1/games")
    assert_problem(resp, 405, "method-not-allowed")
    assert "POST" in resp.headers["Allow"]


def test_view_headers_etag_vary_cache_control_and_304(create_game):
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}])
    resp = players[0].view()
    version = resp.get_json()["version"]
    assert resp.headers["ETag"] == f'"{version}"'
    assert "Authorization" in resp.headers["Vary"]
    assert resp.headers["Cache-Control"] == "private, no-store"
    assert players[0].view(**{"If-None-Match": f'"{version}"'}).status_code == 304
    assert players[0].view(**{"If-None-Match": f'"{version + 1}"'}).status_code == 200
    spec = spectator.view()
    assert spec.headers["ETag"] == f'"{version}"' and "private" not in spec.headers["Cache-Control"]
    assert spectator.view(**{"If-None-Match": f'"{version}"'}).status_code == 304


def test_unknown_or_foreign_token_is_401_never_a_spectator_view(client, create_game):
    _, players_a, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    _, players_b, _ = create_game([{"name": "Cy"}, {"name": "Di"}])
    foreign = {"Authorization": f"Bearer {players_b[0].token}"}
    game_a = players_a[0].game_id
    assert_problem(client.get(f"/v1/games/{game_a}", headers=foreign), 401, "unauthorized")
    assert_problem(client.get(f"/v1/games/{game_a}/history", headers=foreign), 401, "unauthorized")
    assert_problem(client.get(f"/v1/games/{game_a}", headers={"Authorization": "Bearer nope"}), 401, "unauthorized")
    assert_problem(client.get(f"/v1/games/{game_a}", headers={"Authorization": "Basic eDp5"}), 401, "unauthorized")
    # Even with If-None-Match, a wrong token gets no 304.
    resp = client.get(f"/v1/games/{game_a}", headers={**foreign, "If-None-Match": '"0"'})
    assert_problem(resp, 401, "unauthorized")


def test_seat_tokens_see_only_their_own_hand(create_game, service):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    import domino

    state = domino.from_live(service.store.games.load(data["game"]["id"]).doc["state"])
    for seat in (0, 1):
        view = players[seat].view().get_json()
        assert view["seat"] == seat
        assert sorted(view["hand"]) == sorted(str(t) for t in state.hands[seat])


def test_create_idempotency_key_replays_the_first_answer(client, service):
    body = {"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]}
    first = client.post("/v1/games", json=body, headers={"Idempotency-Key": "k-123"})
    again = client.post("/v1/games", json=body, headers={"Idempotency-Key": "k-123"})
    assert first.status_code == again.status_code == 201
    assert first.get_json() == again.get_json()
    assert first.headers["Location"] == again.headers["Location"]
    # The stored answer does not hold the tokens in the clear.
    token = first.get_json()["tokens"][0]["token"].encode()
    for key in service.store.queue_redis.keys(f"{service.store.prefix}:idem:*"):
        assert token not in service.store.queue_redis.get(key)
    other = client.post("/v1/games", json={**body, "seed": "s"}, headers={"Idempotency-Key": "k-123"})
    assert_problem(other, 409, "idempotency-key-reused")
    fresh = client.post("/v1/games", json=body, headers={"Idempotency-Key": "k-456"})
    assert fresh.get_json()["game"]["id"] != first.get_json()["game"]["id"]


def test_a_bot_seat_may_set_its_think_time_and_only_a_bot_seat(client, service):
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "expert", "think_ms": 40}]})
    assert resp.status_code == 201, resp.get_json()
    doc = service.store.games.load(resp.get_json()["game"]["id"]).doc
    assert doc["seats"][1]["think_ms"] == 40 and "think_ms" not in doc["seats"][0]
    for seat, field in (({"name": "Bo", "think_ms": 40}, "think_ms"), ({"bot": "expert", "think_ms": 0}, "think_ms"),
                        ({"bot": "expert", "think_ms": 1001}, "think_ms")):  # fmt: skip
        bad = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, seat]})
        assert bad.status_code == 422, bad.get_json()
        assert field in str(bad.get_json()["errors"])
