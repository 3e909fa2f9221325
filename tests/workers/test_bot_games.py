"""Games of computer players only never delay live play: their own queue, and caps on what they may ask for."""

from __future__ import annotations

import domino
import pytest

from api.queues import BOT_GAMES, BOTS, Queues
from support import work_burst

SLOW = {"bot": "expert", "think_ms": 250}


def _bot_to_move(service, game_id: str) -> bool:  # type: ignore[no-untyped-def]
    rec = service.store.games.load(game_id)
    seat = domino.from_live(rec.doc["state"]).to_move
    return seat is not None and rec.doc["seats"][seat]["kind"] == "bot"


def _until_a_bot_is_to_move(service, game_id: str, human) -> None:  # type: ignore[no-untyped-def]
    """Let the human open if it is to move (its own move makes the game attended): then a computer player is."""
    if not _bot_to_move(service, game_id):
        view = human.view().get_json()
        assert human.move({**view["legal_moves"][0], "expected_version": view["version"]}).status_code == 200
    assert _bot_to_move(service, game_id)


def test_a_human_games_bot_turns_never_queue_behind_games_of_computer_players_only(create_game, service):
    bot_games = [create_game([SLOW, dict(SLOW)])[0]["game"]["id"] for _ in range(6)]
    data, players, _ = create_game([{"name": "Ana"}, {"bot": "greedy"}], seed="live-first")
    game_id = data["game"]["id"]
    _until_a_bot_is_to_move(service, game_id, players[0])

    # Every bot-only game's turn waits on its own queue; the live queue holds the human game's turn alone.
    assert sorted(j.split("-")[1] for j in Queues(service.store).bot_games.job_ids) == sorted(bot_games)
    assert [j.split("-")[1] for j in Queues(service.store).bots.job_ids] == [game_id]

    # A live worker plays the human game's bot turn, and runs no bot-only game's slow turn.
    version = service.store.games.load(game_id).version
    assert work_burst(service, (BOTS,))
    assert service.store.games.load(game_id).version > version
    assert len(Queues(service.store).bot_games) == len(bot_games)
    assert all(service.store.games.load(g).version == 0 for g in bot_games)


def test_a_game_with_an_open_seat_becomes_live_when_its_claimant_moves(create_game, client, service):
    data, _, _ = create_game([{"bot": "greedy"}, {"open": True}], seed="claimed")
    game_id = data["game"]["id"]
    assert len(Queues(service.store).bot_games) == 0 and len(Queues(service.store).bots) == 0  # waiting
    resp = client.post(f"/v1/games/{game_id}/seats/1", json={"name": "Bo"})
    assert resp.status_code in (200, 201), resp.get_json()
    token = resp.get_json()["token"]

    class Bo:
        @staticmethod
        def view():  # type: ignore[no-untyped-def]
            return client.get(f"/v1/games/{game_id}", headers={"Authorization": f"Bearer {token}"})

        @staticmethod
        def move(move):  # type: ignore[no-untyped-def]
            return client.post(f"/v1/games/{game_id}/moves", json=move, headers={"Authorization": f"Bearer {token}"})

    if _bot_to_move(service, game_id):  # nobody has moved yet: the opening computer turn is an unattended game's
        assert [j.split("-")[1] for j in Queues(service.store).bot_games.job_ids] == [game_id]
        assert work_burst(service, (BOT_GAMES,))
    while not _bot_to_move(service, game_id):  # Bo's first own move (a draw leaves Bo to move again)
        view = Bo.view().get_json()
        assert Bo.move({**view["legal_moves"][0], "expected_version": view["version"]}).status_code == 200
    assert len(Queues(service.store).bot_games) == 0
    assert [j.split("-")[1] for j in Queues(service.store).bots.job_ids] == [game_id]


def test_the_sweep_requeues_a_bot_only_games_turn_on_its_own_queue(create_game, service):
    import time

    data, _, _ = create_game([{"bot": "greedy"}, {"bot": "greedy"}])
    game_id = data["game"]["id"]
    Queues(service.store).bot_games.empty()  # the job was lost
    assert service.sweep(now=time.time() + service.settings.bot_due_delay + 0.01).bots == [(game_id, 0, 1)]
    assert len(Queues(service.store).bot_games) == 1 and len(Queues(service.store).bots) == 0


@pytest.mark.parametrize(
    ("body", "where"),
    [
        ({"seats": [{"bot": "greedy", "think_ms": 251}, {"bot": "greedy"}]}, ["seats", "0", "think_ms"]),
        ({"seats": [{"bot": "greedy"}, {"bot": "greedy"}], "rules": {"target_score": 251}}, ["rules", "target_score"]),
        (
            {"seats": [{"bot": "greedy"}, {"bot": "greedy"}], "rules": {"match_end": "fixed_rounds", "rounds": 17}},
            ["rules", "rounds"],
        ),
    ],
    ids=["think_ms", "target_score", "rounds"],
)
def test_a_game_of_computer_players_only_is_capped(client, service, stored_keys, body, where):  # type: ignore[no-untyped-def]
    before = stored_keys()
    resp = client.post("/v1/games", json={"variant": "draw", **body})
    assert resp.status_code == 422
    assert resp.mimetype == "application/problem+json"
    errors = resp.get_json()["errors"]["json"]
    for key in where:
        errors = errors[key]
    assert errors and "computer players only" in errors[0]
    assert stored_keys() == before  # nothing written


def test_the_caps_are_for_games_of_computer_players_only(create_game):
    # A game with a human may ask for the general limits: its pace is the human's.
    create_game([{"name": "Ana"}, {"bot": "greedy", "think_ms": 1000}], rules={"target_score": 1000})
    # At the caps, a bot-only game is fine.
    create_game([{"bot": "greedy", "think_ms": 250}, {"bot": "greedy"}], rules={"target_score": 250})
