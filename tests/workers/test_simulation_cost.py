"""Simulations are sized by their real cost (target, rounds, set, players, think), refused when one game
would hold a worker too long, and a cancel stops a running chunk within a game."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest

import domino
from api.app import create_app
from api.service.simulations import cost
from support import returns_within


@pytest.fixture
def app(settings):  # type: ignore[no-untyped-def]
    s = replace(settings, simulation_chunk_seconds=0.2, simulation_cancel_check=0.01)
    return create_app({"DOMINO": s, "TESTING": True})


def _create(client, **body):  # type: ignore[no-untyped-def]
    resp = client.post("/v1/simulations", json={"variant": "draw", "strategies": ["greedy", "random"], **body})
    assert resp.status_code == 202, resp.get_json()
    return resp.get_json()


def test_the_estimate_grows_with_target_rounds_set_players_and_think():
    base = domino.Rules.preset("draw", 2)
    one = cost.seconds_per_game(base, True, [])
    assert cost.seconds_per_game(domino.Rules.preset("draw", 2, target_score=1000), True, []) > 5 * one
    fixed = {
        (n, pips): cost.seconds_per_game(domino.Rules.preset("draw", 2, match_end="fixed_rounds", rounds=n, set_max_pips=pips), True, [])
        for n in (2, 20) for pips in (6, 12)
    }  # fmt: skip
    assert fixed[20, 6] > 5 * fixed[2, 6]
    assert fixed[2, 12] > 1.5 * fixed[2, 6], "a bigger set: more moves a round"
    four = domino.Rules.preset("draw", 4)
    assert cost.seconds_per_game(four, False, [12000] * 4) > 3 * cost.seconds_per_game(four, False, [12000]), "every searcher"
    assert cost.seconds_per_game(base, False, [12000]) > 10 * cost.seconds_per_game(base, False, [100])


def test_a_long_match_makes_small_chunks_that_take_about_the_chunk_time(client, service):
    sim = _create(client, games=400, rules={"target_score": 2000})
    per_chunk = sim["chunk_games"]
    assert per_chunk < 100, "a game to 2000 is ~20 games to 100: the chunk holds far fewer of them"
    t0 = time.perf_counter()
    assert returns_within(120, lambda: service.run_chunk(sim["id"], 0)) == "counted"  # a ceiling, not the target
    print(f"\na chunk sized for 0.2 s took {time.perf_counter() - t0:.2f} s")


def test_one_game_that_would_hold_a_worker_too_long_is_refused(client):
    resp = client.post(
        "/v1/simulations", json={"variant": "draw", "strategies": ["club", "greedy"], "games": 1, "rules": {"target_score": 100000}}
    )
    assert resp.status_code == 422 and resp.mimetype == "application/problem+json"
    assert "rules" in resp.get_json()["errors"]["json"]


def _cancel_mid_game(client, service, sim, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Run the one-game chunk 0 in a thread and cancel it once the game is on (the chunk has looked for a
    cancel: it does so every ``simulation_cancel_check`` while it plays); it stops without finishing the game
    ("stopped", not "not counted": a game played to its end would have been counted or refused)."""
    records = service.simulations.records
    looked = threading.Event()
    status = records.status
    monkeypatch.setattr(records, "status", lambda sim_id: (looked.set(), status(sim_id))[1])
    outcome: list[str] = []
    runner = threading.Thread(target=lambda: outcome.append(service.run_chunk(sim["id"], 0)))
    runner.start()
    assert looked.wait(60), "the game never got going"
    resp = client.post(f"/v1/simulations/{sim['id']}/cancel", headers={"Authorization": f"Bearer {sim['token']}"})
    assert resp.status_code == 200
    t0 = time.perf_counter()
    runner.join(60)  # a ceiling
    print(f"\ncancel to stop: {time.perf_counter() - t0:.3f} s")
    assert not runner.is_alive() and outcome == ["stopped: cancelled"]


def test_a_cancel_stops_a_running_game_of_search_bots(client, service, monkeypatch):
    sim = _create(client, games=1, strategies=["club", "greedy"])  # one match: seconds of search
    assert sim["engine"] == "engine"
    _cancel_mid_game(client, service, sim, monkeypatch)


def test_a_cancel_stops_a_long_match_in_the_fast_core(client, service, monkeypatch):
    # Greedy against greedy to 100,000: ~15,000 rounds, several seconds in the fast core.
    sim = _create(client, games=1, strategies=["greedy", "greedy"], rules={"target_score": 100000})
    assert sim["engine"] == "playout"
    _cancel_mid_game(client, service, sim, monkeypatch)


EXTREME = {"variant": "block", "rules": {"set_max_pips": 18, "hand_size": 1, "target_score": 100000}}


def test_a_round_costs_its_deal_not_only_its_moves():
    # Issue 32: `block`, double-18, hand size 1, to 100,000 was estimated at 0.07 s a game and took 1.4 s: each
    # round is one move, but the whole 190-tile set is shuffled and dealt.
    one_move_rounds = domino.Rules.preset("block", 2, set_max_pips=18, hand_size=1, match_end="fixed_rounds", rounds=100)
    assert cost.match_shape(one_move_rounds).moves_per_round <= 2
    moves_only = 100 * 2 * cost.SECONDS_PER_MOVE["playout"]
    assert cost.seconds_per_game(one_move_rounds, True, []) > 10 * moves_only
    small = domino.Rules.preset("block", 2, set_max_pips=6, hand_size=1, match_end="fixed_rounds", rounds=100)
    assert cost.seconds_per_game(one_move_rounds, True, []) > 1.5 * cost.seconds_per_game(small, True, [])


@pytest.mark.slow
def test_the_rounds_of_a_long_match_are_not_underestimated():
    """The sample's pace is an average side's, not its luckiest player's: the estimate covers the real match."""
    rules = domino.Rules.preset("block", 2, set_max_pips=18, hand_size=1, target_score=100000)
    played = domino.playout(rules, ["greedy", "greedy"], "rounds-check")
    assert cost.match_shape(rules).rounds >= len(played.rounds)


def test_a_chunk_far_over_its_estimate_stops_and_fails_its_simulation(settings, service, monkeypatch):
    """The cost model is wrong for some rules (here: made to say a long match costs nothing): the chunk stops
    once it has used its CPU budget, and its simulation fails with the reason, instead of holding a worker."""
    monkeypatch.setattr(cost, "seconds_per_game", lambda *args: 1e-6)
    s = replace(settings, simulation_chunk_seconds=0.2, simulation_cancel_check=0.01, simulation_overrun=0.05)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    sim = _create(client, games=1, strategies=["greedy", "greedy"], rules={"target_score": 100000})
    runner = service.simulations
    monkeypatch.setattr(runner, "settings", s)
    assert returns_within(120, lambda: runner.run_chunk(sim["id"], 0)) == "stopped: over its estimate"
    view = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert view["status"] == "failed" and "estimate" in view["error"], view
    assert view["games_done"] == 0, "nothing of the stopped chunk was counted"
