"""Hints in practice games (issue 35 item 2): a game created with `hints: true` lets the seat to move ask for its
legal moves valued and ranked; the search runs on the hints queue's worker (run here by a burst worker while
the request waits), and the hint is a commit everyone sees (`hint_used`, `hints_used` per seat) that keeps the
turn as it was."""

from __future__ import annotations

from dataclasses import replace

from conftest import openapi_document, schema_validator
from support import ask_hint, assert_problem

from api.app import create_app

HINT = schema_validator("Hint")


def events_after(player, version: int) -> list[dict]:  # type: ignore[no-untyped-def,type-arg]
    resp = player.client.get(f"/v1/games/{player.game_id}/events?after={version}", headers=player.headers)
    assert resp.status_code == 200
    return resp.get_json()["events"]  # type: ignore[no-any-return]


def test_a_hint_ranks_the_legal_moves_and_is_a_commit_everyone_sees_that_keeps_the_turn(create_game, client, service) -> None:  # type: ignore[no-untyped-def]
    data, humans, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], seed="hint-1", hints=True, turn_timeout_s=600
    )
    assert data["game"]["hints"] is True
    assert [s["hints_used"] for s in data["game"]["seats"]] == [0, 0]
    before = spectator.view().get_json()
    seat = before["turn"]
    mover = humans[seat]
    view = mover.view().get_json()

    resp = ask_hint(service, client, mover.game_id, mover.headers)
    assert resp.status_code == 200, resp.get_json()
    hint = resp.get_json()
    HINT.validate(hint)
    assert hint["seat"] == seat and hint["hints_used"] == 1 and hint["version"] == view["version"] + 1
    # The same move objects as `legal_moves`, each once, best first.
    assert sorted(map(str, (m["move"] for m in hint["moves"]))) == sorted(map(str, view["legal_moves"]))
    values = [m["value"] for m in hint["moves"]]
    assert values == sorted(values, reverse=True)
    assert resp.headers["Cache-Control"] == "no-store"

    # Everyone sees it: the event, then the same turn again, with the same deadline.
    used, turn = events_after(spectator, view["version"])
    assert used == {"id": f"{hint['version']}-1", "version": hint["version"], "type": "hint_used", "seat": seat,
                    "hints_used": 1, "deadline": view["deadline"]}  # fmt: skip
    assert turn["type"] == "turn_started" and turn["seat"] == seat and turn["deadline"] == view["deadline"]
    after = spectator.view().get_json()
    assert [s["hints_used"] for s in after["seats"]] == [int(s["seat"] == seat) for s in after["seats"]]
    assert after["deadline"] == before["deadline"] and after["turn"] == seat and after["board"] == before["board"]
    history = spectator.history().get_json()
    assert [s["hints_used"] for s in history["seats"]] == [s["hints_used"] for s in after["seats"]]
    assert history["events"][-1]["type"] == "hint_used"

    # The hinted move is played as posted back, on the hint's version.
    best = hint["moves"][0]["move"]
    played = mover.move({**best, "expected_version": hint["version"]})
    assert played.status_code == 200, played.get_json()


def test_a_hint_buys_no_time_on_a_fischer_clock(create_game, client, service) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], seed="hint-clock", hints=True, clock={"initial_s": 600, "increment_s": 30}
    )
    before = spectator.view().get_json()
    mover = humans[before["turn"]]
    assert ask_hint(service, client, mover.game_id, mover.headers).status_code == 200
    after = spectator.view().get_json()
    assert after["clock"] == before["clock"] and after["deadline"] == before["deadline"]


def test_the_same_position_gets_the_same_hint(create_game, client, service) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="hint-again", hints=True)
    mover = humans[spectator.view().get_json()["turn"]]
    first = ask_hint(service, client, mover.game_id, mover.headers).get_json()
    second = ask_hint(service, client, mover.game_id, mover.headers).get_json()
    assert second["moves"] == first["moves"]
    assert (second["version"], second["hints_used"]) == (first["version"] + 1, 2)


def test_mexican_train_hints(create_game, client, service) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game(
        [{"name": "Ana"}, {"bot": "greedy"}, {"bot": "greedy"}], variant="mexican_train", seed="hint-mt-1", hints=True
    )
    assert spectator.view().get_json()["turn"] == 0, "this seed's engine is found by seat 0"
    view = humans[0].view().get_json()
    hint = ask_hint(service, client, humans[0].game_id, humans[0].headers).get_json()
    HINT.validate(hint)
    assert sorted(map(str, (m["move"] for m in hint["moves"]))) == sorted(map(str, view["legal_moves"]))


def test_hints_are_refused_where_they_do_not_belong(create_game, client, service, app_key) -> None:  # type: ignore[no-untyped-def]
    # Never with a rated game: 422 naming the field.
    rated = client.post(
        "/v1/games",
        json={"variant": "draw", "rated": True, "hints": True, "seats": [{"bot": "greedy"}, {"bot": "random"}]},
        headers={"Authorization": f"Bearer {app_key}"},
    )
    assert "hints" in assert_problem(rated, 422, "invalid-request")["errors"]["json"]

    _, plain, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="hint-off")
    assert_problem(client.post(f"/v1/games/{plain[0].game_id}/hint", headers=plain[0].headers), 409, "hints-off")

    _, humans, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="hint-turn", hints=True)
    turn = spectator.view().get_json()["turn"]
    other = humans[1 - turn]
    assert_problem(client.post(f"/v1/games/{other.game_id}/hint", headers=other.headers), 409, "not-your-turn")
    assert_problem(client.post(f"/v1/games/{other.game_id}/hint"), 401, "unauthorized")
    wrong = {"Authorization": "Bearer not-a-token-of-this-game"}
    assert_problem(client.post(f"/v1/games/{other.game_id}/hint", headers=wrong), 401, "unauthorized")
    assert_problem(client.post("/v1/games/nosuchgame0000/hint", headers=other.headers), 404, "not-found")
    body = client.post(f"/v1/games/{other.game_id}/hint", json={"seat": 0}, headers=humans[turn].headers)
    assert_problem(body, 422, "invalid-request")
    # Nothing of it was counted.
    view = spectator.view().get_json()
    assert view["version"] == spectator.history().get_json()["version"] and [s["hints_used"] for s in view["seats"]] == [0, 0]


def test_without_a_hints_worker_the_hint_is_503_and_nothing_is_counted(settings, create_game, service) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="hint-nobody", hints=True)
    impatient = create_app({"DOMINO": replace(settings, hint_wait=0.2), "TESTING": True}).test_client()
    mover = humans[spectator.view().get_json()["turn"]]
    version = spectator.view().get_json()["version"]
    resp = impatient.post(f"/v1/games/{mover.game_id}/hint", headers=mover.headers)
    assert_problem(resp, 503, "unavailable")
    assert int(resp.headers["Retry-After"]) > 0
    assert spectator.view().get_json()["version"] == version


def test_a_stale_hint_job_values_nothing(create_game, service) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="hint-stale", hints=True)
    view = spectator.view().get_json()
    assert service.hint_values(view["id"], view["version"] - 1, view["turn"]) == {"outcome": "stale"}
    assert service.hint_values(view["id"], view["version"], 1 - view["turn"]) == {"outcome": "stale"}
    valued = service.hint_values(view["id"], view["version"], view["turn"])
    assert valued["outcome"] == "valued" and valued["moves"]


def test_the_hint_operation_is_documented() -> None:
    operation = openapi_document()["paths"]["/v1/games/{game_id}/hint"]["post"]
    assert {"401", "404", "409", "503"} <= set(operation["responses"])
    slugs = str(operation["responses"]["409"])
    assert "hints-off" in slugs and "not-your-turn" in slugs


def test_all_fives_team_hints_count_the_points_scored_in_play(create_game, client, service, run_bots) -> None:  # type: ignore[no-untyped-def]
    _, humans, spectator = create_game(
        [{"name": "Ana"}] + [{"bot": "greedy"}] * 3, variant="all_fives", rules={"teams": "partners_opposite"},
        seed="hint-fives", hints=True,
    )  # fmt: skip
    run_bots()
    view = humans[0].view().get_json()
    hint = ask_hint(service, client, humans[0].game_id, humans[0].headers).get_json()
    HINT.validate(hint)
    assert sorted(map(str, (m["move"] for m in hint["moves"]))) == sorted(map(str, view["legal_moves"]))
