"""POST/GET /v1/games/{id}/analysis (docs/analysis.md): anyone, once the game is over and revealed; one job on
the analysis queue; idempotent; a long poll; capped per client; the same answer as the pure evaluator."""

from __future__ import annotations

import threading
from dataclasses import replace
from typing import Any

import pytest

from api.app import create_app
from api.queues import Queues
from domino.analysis import analyse
from support import assert_problem, blocked_clients, eventually, returns_within

NODES = 300
ALICE = {"REMOTE_ADDR": "10.0.0.1"}
BOB = {"REMOTE_ADDR": "10.0.0.2"}


@pytest.fixture
def settings(settings):  # type: ignore[no-untyped-def]
    """Small budgets: a few hundred simulator moves a position."""
    return replace(settings, analysis_nodes=NODES)


def _finished(client, run_bots) -> str:  # type: ignore[no-untyped-def]
    """A two-player draw game of computer players, one round, played to its end by the bots' worker: its id."""
    body = {"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}],
            "rules": {"match_end": "fixed_rounds", "rounds": 1}}  # fmt: skip
    created = client.post("/v1/games", json=body)
    assert created.status_code == 201, created.get_json()
    game_id: str = created.get_json()["game"]["id"]
    eventually(lambda: run_bots() is not None and client.get(f"/v1/games/{game_id}").get_json()["status"] == "finished",
               "the bots finished the game")  # fmt: skip
    return game_id


def _resigned(client) -> str:  # type: ignore[no-untyped-def]
    """A game over at once: its first seat resigns before any move (revealed, nothing to analyse)."""
    created = client.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}]}).get_json()
    token = created["tokens"][0]["token"]
    assert client.post(f"/v1/games/{created['game']['id']}/resign", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    return created["game"]["id"]  # type: ignore[no-any-return]


def _queued(service) -> int:  # type: ignore[no-untyped-def]
    return Queues(service.store).analysis.count  # type: ignore[no-any-return]


def test_an_analysis_is_queued_once_and_answers_every_move_with_a_choice(client, service, run_bots, run_analyses):  # type: ignore[no-untyped-def]
    game_id = _finished(client, run_bots)
    url = f"/v1/games/{game_id}/analysis"
    assert_problem(client.get(url), 404, "not-found")  # none asked for yet

    first = client.post(url, environ_base=ALICE)
    assert first.status_code == 202 and first.headers["Location"] == url
    queued = first.get_json()
    assert queued["status"] == "queued" and queued["progress"] == 0.0 and queued["nodes"] == NODES
    again = client.post(url, json={}, environ_base=BOB)
    assert again.status_code == 202 and again.get_json() == queued, "a second request: the same analysis"
    assert _queued(service) == 1, "one job"

    assert run_analyses()
    done = client.get(url).get_json()
    assert done["status"] == "done" and done["progress"] == 1.0
    record = client.get(f"/v1/games/{game_id}/record").get_json()
    expected = analyse(record, NODES).to_dict()
    assert done["moves"] == expected["moves"] and done["seats"] == expected["seats"], "the pure evaluator's answer"
    assert done["moves_done"] == done["moves_total"] == len(done["moves"]) > 0
    legal_shape = {"type", "tile", "end"}
    for move in done["moves"]:
        assert move["played"] in [v["move"] for v in move["values"]] and move["loss"] >= 0
        assert all(set(v["move"]) <= legal_shape for v in move["values"])
    assert [s["seat"] for s in done["seats"]] == [0, 1]

    after = client.post(url, environ_base=BOB)
    assert after.status_code == 200 and after.get_json() == done, "done: the same analysis, nothing queued"
    assert _queued(service) == 0


def test_a_game_not_over_or_unknown_is_refused_and_nothing_is_queued(client, service, create_game):  # type: ignore[no-untyped-def]
    _, _, spectator = create_game([{"name": "Ana"}, {"bot": "greedy"}])
    url = f"/v1/games/{spectator.game_id}/analysis"
    assert_problem(client.post(url), 409, "game-not-over")
    assert_problem(client.get(url), 404, "not-found")
    for unknown in ("a" * 16, "nope", "x" * 200):
        assert_problem(client.post(f"/v1/games/{unknown}/analysis"), 404, "not-found")
        assert_problem(client.get(f"/v1/games/{unknown}/analysis"), 404, "not-found")
    assert_problem(client.post(url, json={"nodes": 5}), 422, "invalid-request")
    assert _queued(service) == 0


def test_too_many_analyses_queued_by_one_client_is_a_429_with_retry_after(settings):  # type: ignore[no-untyped-def]
    app = create_app({"DOMINO": replace(settings, analyses_per_client=1, capacity_retry_after=7), "TESTING": True})
    client = app.test_client()
    first, second = _resigned(client), _resigned(client)
    assert client.post(f"/v1/games/{first}/analysis", environ_base=ALICE).status_code == 202
    refused = client.post(f"/v1/games/{second}/analysis", environ_base=ALICE)
    assert_problem(refused, 429, "too-many-analyses")
    assert refused.headers["Retry-After"] == "7"
    assert client.post(f"/v1/games/{first}/analysis", environ_base=ALICE).status_code == 202, "its own: the same one"
    assert client.post(f"/v1/games/{second}/analysis", environ_base=BOB).status_code == 202, "another client"


def test_a_long_poll_answers_when_the_analysis_is_done(client, service, run_analyses):  # type: ignore[no-untyped-def]
    game_id = _resigned(client)
    url = f"/v1/games/{game_id}/analysis"
    client.post(url)
    short = returns_within(30, lambda: client.get(f"{url}?wait=0.05"))
    assert short.status_code == 200 and short.get_json()["status"] == "queued"
    conn = service.store.queue_redis
    waiting = blocked_clients(conn, "xread")
    answer: dict[str, Any] = {}
    poll = threading.Thread(target=lambda: answer.update(client.get(f"{url}?wait=30").get_json()))
    poll.start()
    eventually(lambda: blocked_clients(conn, "xread") > waiting, "the long poll waits")
    run_analyses()
    poll.join(60)
    assert answer["status"] == "done" and answer["moves"] == [], "resigned before any move: nothing to analyse"
    assert [s["count"] for s in answer["seats"]] == [0, 0]
    assert_problem(client.get(f"{url}?wait=31"), 422, "invalid-request")


def test_an_archived_game_keeps_its_analysis_after_it_leaves_redis(client, service, run_bots, run_analyses, run_archive):  # type: ignore[no-untyped-def]
    game_id = _finished(client, run_bots)
    url = f"/v1/games/{game_id}/analysis"
    client.post(url)
    run_analyses()
    done = client.get(url).get_json()
    service.archiving.enqueue()
    assert run_archive()
    assert client.get(f"/v1/games/{game_id}").get_json()["archived"] is True
    service.store.games.delete(game_id)  # the grace has passed: only the archive has the game
    service.store.queue_redis.delete(*service.store.queue_redis.keys(f"{service.store.prefix}:an:*"))
    assert client.get(url).get_json() == done
    assert client.post(url).status_code == 200, "still done: nothing new queued"
    assert service.archive.analysis(game_id)["moves"] == done["moves"]
