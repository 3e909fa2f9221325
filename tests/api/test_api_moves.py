"""POST /v1/games/{id}/moves: every error that applies, versions, idempotency, races."""

from __future__ import annotations

import threading

import domino
import domino.testing
import pytest
from werkzeug.serving import make_server

from support import assert_problem

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster



def two_humans(create_game):  # type: ignore[no-untyped-def]
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="fixed-seed-1")
    return data["game"], players, spectator


def to_move(players):  # type: ignore[no-untyped-def]
    view = players[0].view().get_json()
    return view["turn"], view


def set_position(service, game_id: str, state) -> int:  # type: ignore[no-untyped-def]
    """Put a game in a crafted position (as a new version), the way a move would."""
    rec = service.store.games.load(game_id)
    doc = {**rec.doc, "state": domino.to_live(state)}
    assert service.store.games.commit(game_id, rec.version, rec.version + 1, doc, [], 3600).ok
    return rec.version + 1


def test_a_legal_move_from_the_view_can_be_posted_back_as_it_is(create_game):
    game, players, spectator = two_humans(create_game)
    seat, _ = to_move(players)
    view = players[seat].view().get_json()
    move = view["legal_moves"][0]
    resp = players[seat].move(move)
    assert resp.status_code == 200
    after = resp.get_json()
    assert after["seat"] == seat and after["version"] == view["version"] + 1
    assert resp.headers["ETag"] == f'"{after["version"]}"'
    assert resp.headers["Cache-Control"] == "private, no-store"
    assert spectator.view().get_json()["version"] == after["version"]


def test_moves_need_a_token_of_this_game(client, create_game):
    game, players, spectator = two_humans(create_game)
    assert_problem(spectator.move({"type": "draw"}), 401, "unauthorized")
    _, other, _ = create_game([{"name": "X"}, {"name": "Y"}])
    resp = client.post(
        f"/v1/games/{game['id']}/moves", json={"type": "draw"}, headers={"Authorization": f"Bearer {other[0].token}"}
    )
    assert_problem(resp, 401, "unauthorized")
    assert_problem(client.post("/v1/games/nosuchgame000000/moves", json={"type": "draw"}, headers=players[0].headers), 404, "not-found")


def test_seat_zero_cannot_move_for_seat_one(create_game, service):
    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    other = 1 - seat
    move = players[seat].view().get_json()["legal_moves"][0]
    body = assert_problem(players[other].move(move), 409, "not-your-turn")
    assert "legal_moves" not in body  # never another seat's moves
    assert service.store.games.load(game["id"]).version == view["version"]


def test_illegal_move_lists_only_the_seats_own_legal_moves(create_game, service):
    game, players, _ = two_humans(create_game)
    seat, _ = to_move(players)
    view = players[seat].view().get_json()
    own = set(view["hand"])
    not_mine = next(t for t in (str(x) for x in domino.full_set(6)) if t not in own)
    body = assert_problem(players[seat].move({"type": "play", "tile": not_mine}), 409, "illegal-move")
    assert body["legal_moves"] == view["legal_moves"]
    assert all(m.get("tile") in own for m in body["legal_moves"] if m["type"] == "play")
    assert service.store.games.load(game["id"]).version == view["version"]


def test_ambiguous_move_lists_the_places(create_game, service):
    game, players, _ = two_humans(create_game)
    rules = domino.from_live(service.store.games.load(game["id"]).doc["state"]).rules
    state = domino.testing.position(rules, layout="[6-6]", hands=["6-4 1-0", "2-2 3-3"], to_move=0, rest="boneyard")
    set_position(service, game["id"], state)
    body = assert_problem(players[0].move({"type": "play", "tile": "6-4"}), 409, "ambiguous-move")
    assert {o["end"] for o in body["options"]} == {"left", "right"}
    assert players[0].move({"type": "play", "tile": "6-4", "end": "right"}).status_code == 200


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
@pytest.mark.parametrize(
    "move",
    [
        {"type": "play", "tile": "6-x"},
        {"type": "play", "tile": "9-9"},
        {"type": "play"},
        {"type": "jump"},
        {"type": "play", "tile": "6-4", "end": "sideways"},
        {"type": "draw", "tile": "6-4"},
        {"type": "draw", "expected_version": -1},
        {"type": "draw", "expected_version": "3"},
        {"type": "draw", "expected_version": 1.5},
        {"type": "draw", "extra": True},
        {},
        [],
        "draw",
    ],
)
def test_malformed_moves_are_422_and_change_nothing(create_game, service, move):
    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    assert_problem(players[seat].move(move), 422, "invalid-request")
    assert service.store.games.load(game["id"]).version == view["version"]


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
def test_body_errors_on_moves(client, create_game):
    game, players, _ = two_humans(create_game)
    url = f"/v1/games/{game['id']}/moves"
    h = players[0].headers
    assert_problem(client.post(url, data="{", content_type="application/json", headers=h), 400, "bad-request")
    assert_problem(client.post(url, data='{"type": "draw"}', content_type="text/plain", headers=h), 415, "unsupported-media-type")
    big = '{"type": "draw", "x": "' + "y" * 17000 + '"}'
    assert_problem(client.post(url, data=big, content_type="application/json", headers=h), 413, "payload-too-large")
    assert_problem(client.get(url), 405, "method-not-allowed")


def test_stale_expected_version_is_412_with_current_version_and_last_move(create_game, service):
    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    move = players[seat].view().get_json()["legal_moves"][0]
    v0 = view["version"]
    assert players[seat].move({**move, "expected_version": v0}).status_code == 200
    # The retry after a "network error": 412 says the move counted.
    body = assert_problem(players[seat].move({**move, "expected_version": v0}), 412, "version-mismatch")
    assert body["current_version"] == v0 + 1
    assert body["last_move"] == {"version": v0 + 1, "move": move}
    # The other seat has no accepted move yet.
    other_body = assert_problem(players[1 - seat].move({"type": "draw", "expected_version": v0}), 412, "version-mismatch")
    assert other_body["last_move"] is None


def test_if_match_works_like_expected_version(create_game):
    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    move = players[seat].view().get_json()["legal_moves"][0]
    v0 = view["version"]
    assert_problem(players[seat].move(move, **{"If-Match": f'"{v0 + 5}"'}), 412, "version-mismatch")
    assert_problem(players[seat].move({**move, "expected_version": v0}, **{"If-Match": f'"{v0 + 1}"'}), 422, "invalid-request")
    assert_problem(players[seat].move(move, **{"If-Match": "garbage"}), 422, "invalid-request")
    assert players[seat].move(move, **{"If-Match": f'"{v0}"'}).status_code == 200


def test_move_idempotency_key_replays_the_first_answer(create_game, service):
    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    move = players[seat].view().get_json()["legal_moves"][0]
    first = players[seat].move(move, **{"Idempotency-Key": "m-1"})
    again = players[seat].move(move, **{"Idempotency-Key": "m-1"})
    assert first.status_code == again.status_code == 200
    assert first.get_json() == again.get_json()
    assert service.store.games.load(game["id"]).version == view["version"] + 1
    assert_problem(players[seat].move({"type": "pass"}, **{"Idempotency-Key": "m-1"}), 409, "idempotency-key-reused")


def test_prefer_return_minimal_answers_a_move_without_the_view(create_game, service):
    game, players, spectator = two_humans(create_game)
    seat, _ = to_move(players)
    view = players[seat].view().get_json()
    move = {**view["legal_moves"][0], "expected_version": view["version"]}
    resp = players[seat].move(move, Prefer="respond-async, return=minimal")
    assert resp.status_code == 200 and resp.headers["Preference-Applied"] == "return=minimal"
    assert resp.get_json() == {
        "id": game["id"], "variant": "draw", "version": view["version"] + 1, "seat": seat, "status": "playing",
    }  # fmt: skip
    assert resp.headers["ETag"] == f'"{view["version"] + 1}"' and "Prefer" in resp.headers["Vary"]
    assert spectator.view().get_json()["version"] == view["version"] + 1, "the move landed all the same"
    # Anything else (or nothing) gets the whole view, without Preference-Applied.
    seat, _ = to_move(players)
    view = players[seat].view().get_json()
    resp = players[seat].move(view["legal_moves"][0], Prefer="return=representation")
    assert "hand" in resp.get_json() and "Preference-Applied" not in resp.headers
    # A retry with the same Idempotency-Key may ask for the whole view: the first answer kept it.
    seat, _ = to_move(players)
    view = players[seat].view().get_json()
    first = players[seat].move(view["legal_moves"][0], Prefer="return=minimal", **{"Idempotency-Key": "k"})
    again = players[seat].move(view["legal_moves"][0], **{"Idempotency-Key": "k"})
    assert set(first.get_json()) == {"id", "variant", "version", "seat", "status"}
    assert again.get_json()["hand"] == players[seat].view().get_json()["hand"]
    assert again.get_json()["version"] == first.get_json()["version"] == service.store.games.load(game["id"]).version


def test_game_over_is_409(create_game, service):
    game, players, _ = two_humans(create_game)
    rules = domino.from_live(service.store.games.load(game["id"]).doc["state"]).rules
    # Seat 0 plays its last tile: the round (and with a target of 1 point, the game) ends.
    rules = domino.Rules.from_dict({**rules.to_dict(), "target_score": 1})
    state = domino.testing.position(rules, layout="[6-6]", hands=["6-4", "2-2 3-3"], to_move=0, rest="boneyard")
    set_position(service, game["id"], state)
    done = players[0].move({"type": "play", "tile": "6-4", "end": "right"})
    assert done.status_code == 200 and done.get_json()["status"] == "finished"
    assert done.get_json()["winners"] == [0]
    assert_problem(players[1].move({"type": "draw"}), 409, "game-over")


def _serve(app):  # type: ignore[no-untyped-def]
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    return server, f"http://127.0.0.1:{server.server_port}"


@pytest.mark.parametrize("named_version", [True, False])
def test_20_concurrent_moves_exactly_one_lands(app, create_game, service, named_version):
    import httpx

    game, players, _ = two_humans(create_game)
    seat, view = to_move(players)
    own = players[seat].view().get_json()
    move = next((m for m in own["legal_moves"] if m["type"] == "play"), own["legal_moves"][0])
    body = {**move, "expected_version": own["version"]} if named_version else move
    server, base = _serve(app)
    barrier = threading.Barrier(20)
    results: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def post() -> None:
        with httpx.Client(base_url=base, timeout=30) as c:
            barrier.wait()
            r = c.post(f"/v1/games/{game['id']}/moves", json=body, headers=players[seat].headers)
            with lock:
                results.append((r.status_code, r.json()))

    threads = [threading.Thread(target=post) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    server.shutdown()
    codes = sorted(code for code, _ in results)
    assert codes.count(200) == 1, codes
    assert all(code in (409, 412) for code in codes if code != 200), codes
    # The stored game is consistent: one version more, one tile fewer, the events of that version once.
    rec = service.store.games.load(game["id"])
    assert rec.version == own["version"] + 1
    state = domino.from_live(rec.doc["state"])
    assert len(state.hands[seat]) == len(own["hand"]) - (1 if move["type"] == "play" else -1)
    events = service.store.games.events(game["id"], after_version=own["version"])
    assert events and all(eid.startswith(f"{own['version'] + 1}-") for eid, _ in events)
