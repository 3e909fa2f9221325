"""Simulations over HTTP with a real Redis and real RQ workers: creation, progress, results, cancel, 422/404."""

from __future__ import annotations

from dataclasses import replace

import orjson
import pytest

import domino
from api.service.simulations import play, stats
from api.service.simulations.spec import Spec, make_spec
from api.config import Settings

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster


@pytest.fixture
def settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    """Tiny chunks (many per simulation), a small search budget, and a cancel check between every deal."""
    monkeypatch.setenv("DOMINO_SIMULATION_CANCEL_CHECK", "0")
    monkeypatch.setenv("DOMINO_SIMULATION_SEARCH_NODES", "20")
    return replace(settings, simulation_chunk_seconds=0.02, simulation_search_nodes=20, simulation_cancel_check=0.0)


def _create(client, **body):  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "strategies": ["greedy", "random"], "games": 100, **body}
    resp = client.post("/v1/simulations", json=body)
    assert resp.status_code == 202, resp.get_json()
    assert resp.headers["Location"] == f"/v1/simulations/{resp.get_json()['id']}"
    return resp.get_json()


def _consistent(sim: dict) -> None:  # type: ignore[type-arg]
    games = sim["games_done"]
    assert sum(r["wins"] for r in sim["results"]) + sim["draws"] == games
    assert all(r["games"] == games for r in sim["results"])
    assert sum(lu["games"] for lu in sim["lineups"]) == games
    assert sim["deals_done"] * sim["rotations"] == games
    if games:
        assert sim["rounds"]["total"] >= games
        assert 0 <= sim["rounds"]["blocked_share"] <= 1
        assert sim["rounds"]["moves_per_round"] > 0
        for r in sim["results"]:
            lo, hi = r["win_rate_ci95"]
            assert 0 <= lo <= r["win_rate"] <= hi <= 1
            lo, hi = r["points_mean_ci95"]
            assert lo <= r["points_mean"] <= hi


def test_a_small_simulation_runs_to_finished_with_consistent_counts(client, run_simulations):
    sim = _create(client, games=300, seed="small")
    assert sim["status"] == "queued" and sim["games_done"] == 0 and sim["mode"] == "independent"
    assert sim["deal_version"] == 2
    assert sim["engine"] == "playout" and sim["chunks_total"] > 1
    assert run_simulations()
    done = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert done["status"] == "finished", done
    assert done["games_done"] == done["games"] == 300
    assert done["chunks_done"] == done["chunks_total"]
    assert done["finished_at"] and done["elapsed_seconds"] > 0 and done["games_per_second"] > 0
    _consistent(done)
    greedy, rand = done["results"]
    assert (greedy["seat"], greedy["strategy"], rand["seat"], rand["strategy"]) == (0, "greedy", 1, "random")
    assert greedy["win_rate_ci95"][0] > rand["win_rate_ci95"][1], "greedy beats random, clearly, in 300 games"
    assert done["rounds"]["per_game"] > 1


def test_teams_with_one_strategy_per_team(client, run_simulations):
    sim = _create(client, strategies=["greedy", "random"], rules={"teams": "partners_opposite"}, games=40, seed="t")
    assert sim["strategies"] == ["greedy", "random", "greedy", "random"] and sim["teams"]
    run_simulations()
    done = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert done["status"] == "finished"
    assert [(r["team"], r["seats"], r["strategy"]) for r in done["results"]] == [(0, [0, 2], "greedy"), (1, [1, 3], "random")]
    _consistent(done)


def test_search_bots_and_mexican_train_run_on_the_engine_loop(client, run_simulations):
    club = _create(client, strategies=["club", "random"], games=2, seed="c")
    assert club["engine"] == "engine" and club["search_nodes"] == {"club": 20}
    mexican = _create(client, variant="mexican_train", strategies=["random", "greedy", "random"], games=2, rules={"rounds": 2})
    assert mexican["engine"] == "engine" and mexican["search_nodes"] is None
    run_simulations()
    for sim in (club, mexican):
        done = client.get(f"/v1/simulations/{sim['id']}").get_json()
        assert done["status"] == "finished", done
        _consistent(done)


def test_cancel_stops_it_and_keeps_the_results(client, run_simulations, service):
    sim = _create(client, games=2000, seed="cancel")
    n = sim["chunks_total"]
    assert n > 10
    run_simulations(max_jobs=3)
    mid = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert mid["status"] == "running" and mid["chunks_done"] == 3
    resp = client.post(f"/v1/simulations/{sim['id']}/cancel", headers={"Authorization": f"Bearer {sim['token']}"})
    assert resp.status_code == 200
    cancelled = resp.get_json()
    assert cancelled["status"] == "cancelled" and cancelled["finished_at"]
    assert cancelled["games_done"] == mid["games_done"] > 0
    from api.queues import Queues

    assert len(Queues(service.store).simulations) == 0, "the chunks not started were taken off the queue"
    run_simulations()  # and never run
    after = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert after["status"] == "cancelled"
    assert after["games_done"] == mid["games_done"] and after["chunks_done"] == 3
    _consistent(after)
    # Cancelling again, or a finished simulation, changes nothing.
    again = client.post(f"/v1/simulations/{sim['id']}/cancel", headers={"Authorization": f"Bearer {sim['token']}"})
    assert again.get_json()["status"] == "cancelled"


def test_a_running_chunk_stops_at_a_cancel_and_adds_nothing(client, service, monkeypatch):
    sim = _create(client, games=200, seed="stop")
    store = service.store
    real = play.play_game
    played = []

    def play_then_cancel(*args):  # type: ignore[no-untyped-def]
        played.append(args[2])
        if len(played) == 3:
            store.simulations.end(sim["id"], "cancelled")
        return real(*args)

    monkeypatch.setattr(play, "play_game", play_then_cancel)
    assert service.run_chunk(sim["id"], 0) == "stopped: cancelled"
    assert len(played) == 3
    after = client.get(f"/v1/simulations/{sim['id']}").get_json()
    assert after["status"] == "cancelled" and after["games_done"] == 0 and after["chunks_done"] == 0


def test_unknown_simulation_is_a_404_problem(client):
    for resp in (client.get("/v1/simulations/nosuchsimulation"), client.delete("/v1/simulations/nosuchsimulation", headers={"Authorization": "Bearer not-its-token"})):
        assert resp.status_code == 404
        assert resp.mimetype == "application/problem+json"
        assert resp.get_json()["type"] == "/problems/not-found"


@pytest.mark.single_redis  # refused before the game store: the same code on a cluster
@pytest.mark.parametrize(
    "body, field",
    [
        ({"variant": "checkers"}, "variant"),
        ({"strategies": ["greedy", "nobody"]}, "strategies"),
        ({"strategies": ["greedy"]}, "strategies"),
        ({"strategies": ["greedy"] * 5}, "strategies"),
        ({"strategies": ["greedy", "random", "greedy"], "rules": {"teams": "partners_opposite"}}, "rules"),
        ({"games": 0}, "games"),
        ({"games": 10_000_001}, "games"),
        ({"games": "many"}, "games"),
        ({"games": 100, "strategies": ["greedy", "random", "random"], "duplicate": True}, "games"),
        ({"rules": {"players": 3}}, "rules"),
        ({"rules": {"target_score": -5}}, "rules"),
        ({"rules": {"no_such_option": 1}}, "rules"),
        ({"duplicate": "sometimes"}, "duplicate"),
        ({"seed": ""}, "seed"),
        ({"deal_version": 3}, "deal_version"),
        ({"deal_version": "2"}, "deal_version"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_invalid_input_is_a_422_naming_the_field(client, body, field):
    resp = client.post("/v1/simulations", json={"variant": "draw", "strategies": ["greedy", "random"], "games": 10, **body})
    assert resp.status_code == 422, resp.get_json()
    problem = resp.get_json()
    assert resp.mimetype == "application/problem+json"
    assert problem["type"] == "/problems/invalid-request"
    assert field in problem["errors"]["json"], problem


def test_wilson_and_mean_intervals():
    lo, hi = stats.wilson(50, 100)  # type: ignore[misc]
    assert lo == pytest.approx(0.4038, abs=1e-4) and hi == pytest.approx(0.5962, abs=1e-4)
    lo, hi = stats.wilson(0, 10)  # type: ignore[misc]
    assert lo == 0 and hi == pytest.approx(0.2775, abs=1e-4)
    assert stats.wilson(0, 0) is None
    mean, ci = stats.mean_ci(6, 14, 3)  # 1, 2, 3
    assert mean == 2 and ci == pytest.approx((2 - 1.96 * (1 / 3) ** 0.5, 2 + 1.96 * (1 / 3) ** 0.5), abs=1e-3)


def test_search_bots_default_to_the_budget_their_strength_was_measured_with() -> None:
    import domino.bots

    spec = make_spec(Settings(), "block", ["expert", "club"], games=2)
    assert spec.search_nodes == {"expert": domino.bots.get("expert").bench_nodes, "club": domino.bots.get("club").bench_nodes}  # type: ignore[attr-defined]
    assert spec.search_nodes["expert"] > spec.search_nodes["club"] > 1
    assert make_spec(Settings(), "block", ["greedy", "random"], games=2).search_nodes is None


def test_a_seeded_simulation_gives_the_same_games_for_the_same_deal_version(settings: Settings) -> None:
    v2 = make_spec(settings, "block", ["greedy", "random"], 12, seed="same")
    v1 = make_spec(settings, "block", ["greedy", "random"], 12, seed="same", deal_version=1)
    assert (v2.deal_version, v1.deal_version) == (2, 1)
    rules = domino.Rules.from_dict(v2.rules)

    def games(spec: Spec) -> list[play.GameSummary]:
        return [play.play_game(spec, rules, deal, 0) for deal in range(spec.deals)]

    assert games(v2) == games(v2) and games(v1) == games(v1)
    assert games(v1) != games(v2), "the versions deal differently"
    first = domino.playout(rules, v1.lineup(0), play.game_seed(v1, 0), deal_version=1, rng=play.bots_rng(v1, 0, 0))
    assert games(v1)[0].scores == first.scores
    # A spec stored before deal version 2 was played by version 1, and goes on so.
    stored = orjson.loads(v1.to_json())
    del stored["deal_version"]
    assert Spec.from_json(orjson.dumps(stored)) == v1
