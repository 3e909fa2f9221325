"""Mexican Train over HTTP: 2-10 seats, trains in the view as documented (`TrainBoard`), played to the end."""

from __future__ import annotations

import json

import pytest
from conftest import schema_validator as validator


def test_boards_are_exactly_one_of_the_documented_kinds() -> None:
    line, trains = validator("LineBoard"), validator("TrainBoard")
    line_board = {"line": ["6-6", "6-4"], "ends": {"left": 6, "right": 4}}
    train_board = {
        "engine_double": "12-12",
        "trains": [{"owner": 0, "tiles": [], "end": 12, "marker": False}],
        "pending_doubles": [],
        "active_double": None,
        "first_turn_pending": [0],
        "phase": "first",
    }
    assert line.is_valid(line_board) and not trains.is_valid(line_board)
    assert trains.is_valid(train_board) and not line.is_valid(train_board)


@pytest.mark.parametrize("players", [2, 5, 10])
def test_a_mexican_train_game_is_served_like_any_variant(create_game, run_bots, players) -> None:  # type: ignore[no-untyped-def]
    view_schema = validator("GameView")
    seats = [{"name": "Ana"}] + [{"bot": "greedy"}] * (players - 1)
    data, humans, spectator = create_game(seats, variant="mexican_train", rules={"rounds": 1}, seed=f"mt-{players}")
    ana = humans[0]
    for _ in range(400):
        run_bots()
        view = ana.view().get_json()
        view_schema.validate(view)
        board = view["board"]
        assert board["engine_double"] == "12-12"
        assert [t["owner"] for t in board["trains"]] == [*range(players), None]  # one train each, then the Mexican
        assert set(board["pending_doubles"]) <= {t for tr in board["trains"] for t in tr["tiles"]}
        if view["status"] == "finished":
            break
        if view["turn"] != 0:
            continue
        assert view["legal_moves"], view
        move = view["legal_moves"][0]
        assert move["type"] != "play" or move["end"] == "mexican" or move["end"].startswith("train:")
        resp = ana.move({**move, "expected_version": view["version"]})
        assert resp.status_code == 200, resp.get_json()
    assert view["status"] == "finished"
    last = view["last_round"]
    assert last["points"] == last["pips_left"]  # penalties: every seat adds what it holds
    assert view["scores"] == last["points"] and view["winners"]
    assert min(view["scores"]) == view["scores"][view["winners"][0]]  # the lowest total wins
    view_schema.validate(spectator.view().get_json())


def test_mexican_train_takes_at_most_ten_seats(client) -> None:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "mexican_train", "seats": [{"bot": "greedy"}] * 11})
    assert resp.status_code == 422
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "greedy"}] * 5})
    assert resp.status_code == 422 and "players" in json.dumps(resp.get_json())
