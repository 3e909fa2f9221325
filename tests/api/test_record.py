"""GET /v1/games/{id}/record: a finished game's record, JSON or text by `Accept`; none before the end."""

from __future__ import annotations

import domino

TEXT = "text/x-domino-record"


def play_to_the_end(players, view_of) -> None:  # type: ignore[no-untyped-def]
    """Each seat to move posts its first legal move until the game ends."""
    for _ in range(3000):
        view = view_of().get_json()
        if view["status"] != "playing":
            return
        mover = players[view["turn"]]
        assert mover.move(mover.view().get_json()["legal_moves"][0]).status_code == 200
    raise AssertionError("the game did not end")


def test_a_finished_game_s_record_is_its_history_as_json_and_as_text_and_both_replay(client, create_game):  # type: ignore[no-untyped-def]
    data, players, spectator = create_game(
        [{"name": "Ana", "player": "u-1"}, {"open": True, "metadata": {"table": "t-7"}}, {"name": "Cy"}],
        variant="all_fives", rules={"target_score": 30}, seed="record-1", turn_timeout_s=3600, metadata={"club": "x"},
    )  # fmt: skip
    game_id = data["game"]["id"]
    claimed = client.post(f"/v1/games/{game_id}/seats/1", json={"name": 'Bo "the" {blocker}'})
    assert claimed.status_code == 201
    players[1] = type(players[0])(client, game_id, claimed.get_json()["token"])
    play_to_the_end(players, spectator.view)

    history = spectator.history().get_json()
    resp = client.get(f"/v1/games/{game_id}/record")
    assert resp.status_code == 200 and resp.mimetype == "application/json" and resp.headers["Vary"] == "Accept"
    record = resp.get_json()
    assert history.pop("archived") is False  # where the game is kept: a fact of the history, not of the record
    assert record == history and record["status"] == "finished" and "created_at" in record

    final = domino.replay(record)
    assert list(final.scores) == record["events"][-1]["scores"]

    resp = client.get(f"/v1/games/{game_id}/record", headers={"Accept": TEXT})
    assert resp.status_code == 200 and resp.mimetype == TEXT and resp.mimetype_params == {"charset": "utf-8"}
    text = resp.get_data(as_text=True)
    assert '1. #1 claims "Bo \\"the\\" {blocker}" {deadline ' in text and "[metadata {\"club\":\"x\"}]" in text
    assert domino.notation.parse_text(text) == domino.notation.canonical(record)
    assert domino.notation.write_text(record) == text
    assert domino.replay(text) == final

    json_again = client.get(f"/v1/games/{game_id}/record", headers={"Accept": f"{TEXT};q=0.5, application/json"})
    assert json_again.mimetype == "application/json"


def test_a_resigned_game_has_a_record_too(client, create_game):  # type: ignore[no-untyped-def]
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], variant="mexican_train", seed="record-2")
    game_id = data["game"]["id"]
    assert client.post(f"/v1/games/{game_id}/resign", headers=players[0].headers).status_code == 200
    text = client.get(f"/v1/games/{game_id}/record", headers={"Accept": TEXT}).get_data(as_text=True)
    assert text.rstrip("\n").endswith("1. #0 resigns")
    state = domino.replay(text)
    assert state.outcome is not None and state.outcome.reason == "resigned" and state.outcome.winners == (1,)


def test_no_record_before_the_end_nor_of_an_unknown_game_nor_in_another_form(client, create_game):  # type: ignore[no-untyped-def]
    data, _, _ = create_game([{"name": "Ana"}, {"open": True}])
    game_id = data["game"]["id"]
    waiting = client.get(f"/v1/games/{game_id}/record")
    assert waiting.status_code == 409 and waiting.get_json()["type"] == "/problems/game-not-over"
    assert client.post(f"/v1/games/{game_id}/seats/1", json={"name": "Bo"}).status_code == 201
    playing = client.get(f"/v1/games/{game_id}/record", headers={"Accept": TEXT})
    assert playing.status_code == 409 and playing.mimetype == "application/problem+json"
    assert "would reveal the hands" in playing.get_json()["detail"]

    unknown = client.get("/v1/games/nosuchgame0000000/record")
    assert unknown.status_code == 404 and unknown.get_json()["type"] == "/problems/not-found"
    html = client.get(f"/v1/games/{game_id}/record", headers={"Accept": "text/html"})
    assert html.status_code == 406 and TEXT in html.get_json()["detail"]
