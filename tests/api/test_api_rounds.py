"""A match of several rounds: the live document keeps only what a move needs, the history still shows every
round, and a version's state is decoded once per process."""

from __future__ import annotations

import domino
from api.service.states import States


def play_to_the_end(players, service, game_id: str) -> list[dict]:  # type: ignore[no-untyped-def]
    """Each seat to move posts its first legal move; returns the moves in order."""
    moves = []
    for _ in range(2000):
        view = players[0].view().get_json()
        if view["status"] != "playing":
            return moves
        mover = view["turn"]
        move = players[mover].view().get_json()["legal_moves"][0]
        assert players[mover].move(move).status_code == 200
        moves.append(move)
    raise AssertionError("the match did not end")


def test_history_and_reveal_show_every_round_while_the_live_document_holds_only_the_latest(create_game, service):
    rules = {"match_end": "fixed_rounds", "rounds": 4}
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], rules=rules, seed="rounds-apart")
    game_id = data["game"]["id"]
    moves = play_to_the_end(players, service, game_id)

    # The same match in the engine alone: the whole state, every round's record in it.
    state = domino.new_game(domino.Rules.preset("draw", players=2, **rules), seed="rounds-apart")
    for move in moves:
        state = domino.apply(state, domino.parse_move(move))
    assert state.finished and len(state.rounds) == 4

    history = spectator.history().get_json()
    assert history["rounds"] == [r.to_dict(reveal_deal=False) for r in state.rounds]
    assert history["deals"] == [{"round": r.round, **r.deal.to_dict()} for r in state.rounds]
    assert history["seed"] == "rounds-apart"

    stored, earlier_rounds = service.store.games.load_with_rounds(game_id)
    assert [r["round"] for r in earlier_rounds] == [1, 2, 3]  # kept apart, each once
    live = stored.doc["state"]
    assert live["last_round"]["round"] == 4 and "rounds" not in live


def test_a_committed_version_is_not_decoded_again_in_the_same_process(create_game, service, monkeypatch):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    view = players[0].view().get_json()
    mover = view["turn"]
    assert players[mover].move(players[mover].view().get_json()["legal_moves"][0]).status_code == 200

    decoded = []
    real = domino.from_live
    monkeypatch.setattr(domino, "from_live", lambda *a, **k: decoded.append(a) or real(*a, **k))
    for player in players.values():
        assert player.view().status_code == 200  # the version the move committed: its state is in hand
    assert decoded == []
    service.games.states = States(service.settings.state_cache_size)  # as in another process
    for player in players.values():
        assert player.view().status_code == 200
    assert len(decoded) == 1  # decoded by the first view, kept for the second
