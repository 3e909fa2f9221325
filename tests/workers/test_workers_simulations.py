"""Simulation chunks on real RQ workers: the same results with 1 and 2 worker processes, a chunk counted once,
duplicate mode's rotations, and a failed chunk failing the simulation."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from dataclasses import replace

import pytest
from rq import Worker
from rq.job import Job

from api.service.simulations import play
from api.service.simulations.spec import Spec, make_spec
from api.config import Settings
from workers import jobs
from api.queues import RUN_CHUNK, SERIALIZER, Queues
from support import stop_processes, wait_until

# What must agree between two runs of one seeded simulation (not ids, times or speeds).
SAME = ("status", "games_done", "deals_done", "chunks_done", "results", "draws", "rounds", "lineups", "seed")


@pytest.fixture
def settings(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> Settings:
    monkeypatch.setenv("DOMINO_SIMULATION_CANCEL_CHECK", "0")
    return replace(settings, simulation_chunk_seconds=0.05, simulation_cancel_check=0.0)


def _create(client, **body):  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "strategies": ["greedy", "random"], "games": 100, **body}
    resp = client.post("/v1/simulations", json=body)
    assert resp.status_code == 202, resp.get_json()
    return resp.get_json()


def _get(client, sim_id):  # type: ignore[no-untyped-def]
    return client.get(f"/v1/simulations/{sim_id}").get_json()


@pytest.mark.slow
def test_a_seeded_simulation_gives_the_same_results_with_one_and_two_workers(client, run_simulations, service):
    body = {"games": 600, "seed": "workers-agree", "duplicate": True}
    one = _create(client, **body)
    assert run_simulations()
    first = _get(client, one["id"])
    assert first["status"] == "finished"

    # PYTHONFAULTHANDLER: a worker that crashes on its shutdown (seen once, SIGSEGV) says where.
    env = {**os.environ, "DOMINO_RQ_LOG_LEVEL": "WARNING", "PYTHONFAULTHANDLER": "1"}
    cmd = [sys.executable, "-m", "workers.cli", "worker", "simulations", "--log-level", "WARNING"]
    procs = [subprocess.Popen(cmd, env=env) for _ in range(2)]  # forking workers, as domino-worker runs them
    try:
        # Both listen before the chunks are queued, so both take some however slowly either one started.
        queue = Queues(service.store).simulations
        assert wait_until(lambda: Worker.count(connection=service.store.rq_connection(), queue=queue) == 2, 60)
        two = _create(client, **body)
        assert two["chunks_total"] >= 10
        assert wait_until(lambda: _get(client, two["id"])["status"] == "finished", 300)
    finally:
        codes = stop_processes(procs)
    assert codes == [0, 0], "a warm shutdown"
    second = _get(client, two["id"])
    assert {k: first[k] for k in SAME} == {k: second[k] for k in SAME}
    # Both processes took chunks.
    conn = service.store.rq_connection()
    workers = Counter(
        Job.fetch(RUN_CHUNK.job_id(two["id"], c), connection=conn, serializer=SERIALIZER).worker_name
        for c in range(two["chunks_total"])
    )
    assert len(workers) == 2, workers


def test_results_do_not_depend_on_the_chunk_size(settings):
    spec = make_spec(settings, "draw", ["greedy", "random", "random"], 60, seed="chunks", duplicate=True)
    totals = []
    for chunk_deals in (1, 3, 7, 20):
        s = replace(spec, chunk_deals=chunk_deals, chunks=-(-spec.deals // chunk_deals))
        total: Counter[str] = Counter()
        for c in range(s.chunks):
            total.update(play.play_chunk(s, c))
        totals.append(total)
    assert all(t == totals[0] for t in totals)
    assert totals[0]["games"] == 60


def test_a_chunk_run_twice_is_counted_once(client, service, run_simulations):
    sim = _create(client, games=500, seed="twice")
    store = service.store
    assert jobs.run_chunk(sim["id"], 0) == "counted"
    once = _get(client, sim["id"])
    assert once["chunks_done"] == 1 and once["games_done"] == once["chunk_games"]
    # Again by the job (a retry after its worker died): skipped before playing.
    assert jobs.run_chunk(sim["id"], 0) == "skipped: done"
    # Two workers that both played chunk 1 at the same time: only the first add counts.
    spec = Spec.from_json(store.simulations.load(sim["id"])[0]["spec"])
    counts = {f"c:{k}": v for k, v in play.play_chunk(spec, 1).items()}
    assert store.simulations.add_chunk(sim["id"], "127.0.0.1", 1, counts) == 1
    assert store.simulations.add_chunk(sim["id"], "127.0.0.1", 1, counts) == 0
    # And through RQ: the whole queue, then chunk 0's job requeued and run again.
    run_simulations()
    done = _get(client, sim["id"])
    assert done["status"] == "finished" and done["games_done"] == 500
    queue = Queues(store).simulations
    job = Job.fetch(RUN_CHUNK.job_id(sim["id"], 0), connection=store.rq_connection(), serializer=SERIALIZER)
    queue.enqueue_job(job)
    run_simulations()
    again = _get(client, sim["id"])
    assert {k: again[k] for k in SAME} == {k: done[k] for k in SAME}
    assert Job.fetch(job.id, connection=store.rq_connection(), serializer=SERIALIZER).return_value() == "skipped: done"


def test_duplicate_mode_plays_every_deal_in_every_rotation(client, run_simulations, monkeypatch):
    real = play.play_game
    calls = []

    def record(spec, rules, deal, rotation, check=None):  # type: ignore[no-untyped-def]
        calls.append((deal, rotation, play.game_seed(spec, deal), spec.lineup(rotation)))
        return real(spec, rules, deal, rotation, check)

    monkeypatch.setattr(play, "play_game", record)
    sim = _create(client, strategies=["greedy", "random", "random"], games=30, seed="dup", duplicate=True)
    assert sim["mode"] == "duplicate" and sim["rotations"] == 3 and sim["deals_total"] == 10
    run_simulations()  # SimpleWorker: the jobs run in this process, through the patched function
    done = _get(client, sim["id"])
    assert done["status"] == "finished"
    assert sorted((d, r) for d, r, _, _ in calls) == [(d, r) for d in range(10) for r in range(3)]
    for d in range(10):
        seeds = {seed for dd, _, seed, _ in calls if dd == d}
        lineups = {lineup for dd, _, _, lineup in calls if dd == d}
        assert len(seeds) == 1, "every rotation of a deal plays the same deal seed"
        assert lineups == {("greedy", "random", "random"), ("random", "greedy", "random"), ("random", "random", "greedy")}
    assert [lu["games"] for lu in done["lineups"]] == [10, 10, 10]
    assert all("by_deal" in r for r in done["results"])
    # Identical strategies on every seat need one seating only; [a, b, a, b] with teams needs two.
    assert _create(client, strategies=["random", "random"], games=10, duplicate=True)["rotations"] == 1
    teams = _create(client, strategies=["greedy", "random"], rules={"teams": "partners_opposite"}, games=10, duplicate=True)
    assert teams["rotations"] == 2


def test_a_chunk_that_fails_on_every_attempt_fails_the_simulation(client, service, run_simulations, monkeypatch):
    sim = _create(client, games=100, seed="boom")

    def boom(*args):  # type: ignore[no-untyped-def]
        raise RuntimeError("engine bug")

    monkeypatch.setattr(play, "play_game", boom)
    run_simulations()  # chunk 0 fails, is retried twice, then chunk_failed marks the simulation failed
    failed = _get(client, sim["id"])
    assert failed["status"] == "failed"
    assert "RuntimeError" in failed["error"] and "engine bug" in failed["error"]
    assert failed["games_done"] == 0


def _chunks_queued(store, sim_id: str) -> list[int]:  # type: ignore[no-untyped-def]
    prefix = f"sim-{sim_id}-"
    return [int(j[len(prefix) :]) for j in Queues(store).simulations.job_ids if j.startswith(prefix)]


def test_simulations_share_the_workers_instead_of_waiting_for_each_other(client, service, run_simulations):
    store = service.store
    big = _create(client, games=600, seed="big")
    small = _create(client, games=60, seed="small")
    window = store.settings.simulation_window
    assert big["chunks_total"] >= 20 and 2 <= small["chunks_total"] <= window + 3
    assert _chunks_queued(store, big["id"]) == list(range(window)), "only the first window of chunks is queued"
    assert _chunks_queued(store, small["id"]) == list(range(min(window, small["chunks_total"])))
    jobs_run = 0
    while _get(client, small["id"])["status"] != "finished":
        assert run_simulations(max_jobs=1)
        jobs_run += 1
        # Each chunk, starting, queued the one a window later, at the back: never more than a window waits.
        assert len(_chunks_queued(store, big["id"])) <= window
    # First in, first out would have run all of the big one first.
    assert jobs_run <= window + 2 * small["chunks_total"]
    assert _get(client, big["id"])["status"] == "running"
    run_simulations()
    done = _get(client, big["id"])
    assert done["status"] == "finished" and done["chunks_done"] == done["chunks_total"] and done["games_done"] == 600
    assert len(Queues(store).simulations) == 0


def test_a_chunk_queues_the_next_once_even_when_run_again(client, service, monkeypatch):
    store = service.store
    sim = _create(client, games=3000, seed="again")
    window = store.settings.simulation_window
    real = play.play_game

    def die(*args):  # type: ignore[no-untyped-def]
        raise RuntimeError("the worker died")

    monkeypatch.setattr(play, "play_game", die)
    with pytest.raises(RuntimeError):
        jobs.run_chunk(sim["id"], 0)  # a first attempt that dies while playing has queued the next chunk
    assert _chunks_queued(store, sim["id"]) == [*range(window), window]
    monkeypatch.setattr(play, "play_game", real)
    assert jobs.run_chunk(sim["id"], 0) == "counted"  # its retry does not queue it again
    assert jobs.run_chunk(sim["id"], 0) == "skipped: done"  # nor does a run of a chunk already counted
    assert _chunks_queued(store, sim["id"]) == [*range(window), window]


def test_the_window_grows_with_the_simulation_workers(service):
    from rq import Worker

    from api.queues import Queues

    store = service.store
    assert Queues(store).simulation_window() == store.settings.simulation_window
    workers = [
        Worker([Queues(store).simulations], connection=store.worker_connection(), serializer=SERIALIZER, name=f"w{i}-{store.prefix}")
        for i in range(3)
    ]
    for w in workers:
        w.register_birth()
    try:
        assert Queues(store).simulation_window() == 6, "twice the workers listening, when that is more"
    finally:
        for w in workers:
            w.register_death()
