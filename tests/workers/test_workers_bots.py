"""Computer players on real RQ workers: whole games, idempotent jobs, the sweep, and the flow timing."""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time
import zlib

import domino
import pytest
from rq.job import Job

from workers import jobs
from api.queues import BOT_TURN, SERIALIZER, Queues
from support import catches_sigterm, eventually, stop_process, wait_until

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster
SHORT = {"target_score": 30}  # a whole game in a few rounds: what is tested here is the same in each


def test_a_human_plays_a_bot_over_http_to_the_end(create_game, run_bots):
    data, players, spectator = create_game([{"name": "Ana"}, {"bot": "greedy"}], seed="human-vs-bot", rules=SHORT)
    ana = players[0]
    moves = 0
    for _ in range(1000):
        run_bots()
        view = ana.view().get_json()
        if view["status"] != "playing":
            break
        assert view["turn"] == 0, "after the worker ran, it is the human's turn"
        assert view["legal_moves"], view
        move = view["legal_moves"][moves % len(view["legal_moves"])]
        resp = ana.move({**move, "expected_version": view["version"]})
        assert resp.status_code == 200, resp.get_json()
        moves += 1
    final = spectator.view().get_json()
    assert final["status"] == "finished"
    assert final["winners"] and set(final["winners"]) <= {0, 1}
    assert max(final["scores"]) >= final["rules"]["target_score"]
    assert moves > 5
    history = spectator.history().get_json()
    assert history["seed"] and history["deals"]
    # Every version was produced once: event ids are increasing and versions have no gaps.
    versions = sorted({e["version"] for e in history["events"]})
    assert versions == list(range(0, final["version"] + 1))


def test_four_bots_finish_on_their_own(create_game, run_bots, service):
    data, _, spectator = create_game([{"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}], rules=SHORT)
    assert data["tokens"] == []
    assert run_bots()  # one burst: each job enqueues the next turn
    final = spectator.view().get_json()
    assert final["status"] == "finished", final
    assert final["winners"]
    assert len(Queues(service.store).bots) == 0


def test_bot_jobs_are_json_with_versioned_ids_and_idempotent(create_game, run_bots, service):
    data, players, _ = create_game([{"bot": "greedy"}, {"name": "Ana"}], seed="bot-first-2")
    game_id = data["game"]["id"]
    state = domino.from_live(service.store.games.load(game_id).doc["state"])
    # Nobody has moved yet: the opening computer turn is an unattended game's (api/service/bot_games.py).
    queue = Queues(service.store).bot_games
    if state.to_move != 0:  # the human opens: let it, so the bot is to move in a game someone attends
        view = players[1].view().get_json()
        players[1].move(view["legal_moves"][0])
        queue = Queues(service.store).bots
    version = service.store.games.load(game_id).version
    job_id = BOT_TURN.job_id(game_id, version, attempt=0)
    assert queue.job_ids == [job_id]
    raw = service.store.rq_connection().hget(f"rq:job:{job_id}", "data")
    func, _, args, kwargs = json.loads(zlib.decompress(raw))
    assert func == "workers.jobs.bot_turn" and args == [game_id, version]
    assert Job.fetch(job_id, connection=service.store.rq_connection(), serializer=SERIALIZER).args == [game_id, version]
    # A duplicate of the same turn, and a stale one, do nothing.
    assert jobs.bot_turn(game_id, version - 1) == "stale"
    assert jobs.bot_turn(game_id, version) == "played"
    assert jobs.bot_turn(game_id, version) == "stale"
    assert service.store.games.load(game_id).version == version + 1
    run_bots()  # the queued original is now stale: a no-op
    assert service.store.games.load(game_id).version == version + 1
    assert jobs.bot_turn("nosuchgame000000", 3) == "gone"


def test_the_sweep_re_enqueues_a_stalled_bot_turn(create_game, run_bots, service):
    data, _, spectator = create_game([{"bot": "greedy"}, {"bot": "greedy"}], rules=SHORT)
    game_id = data["game"]["id"]
    queue = Queues(service.store).bot_games  # computer players only
    # The worker was killed: the job is lost, only the bot-due entry remains.
    queue.empty()
    due = service.store.bots_due.due_at(game_id)
    assert due is not None
    # As at moments just before and just after it is due (not the clock: a slow machine may be past it already).
    assert service.sweep(now=due - 0.01).bots == []  # not due yet
    requeued = service.sweep(now=due + 0.01)
    assert requeued.bots == [(game_id, 0, 1)]
    assert queue.job_ids == [BOT_TURN.job_id(game_id, 0, attempt=1)]
    assert run_bots()
    assert spectator.view().get_json()["status"] == "finished"
    # Once the game is over, the sweep drops its entry.
    service.sweep(now=time.time() + 3600)
    assert service.store.bots_due.due_at(game_id) is None


def test_the_sweep_drops_entries_of_games_no_bot_waits_in(create_game, service):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    game_id = data["game"]["id"]
    service.store.bots_due.mark(game_id, time.time() - 1)
    service.store.bots_due.mark("nosuchgame000000", time.time() - 1)
    assert service.sweep().bots == []
    assert service.store.bots_due.due_at(game_id) is None and service.store.bots_due.due_at("nosuchgame000000") is None


def start_worker(store) -> subprocess.Popen[bytes]:  # type: ignore[no-untyped-def]
    """A worker process on the `bots` and `bot-games` queues with the sweep, returned once it has registered."""
    from rq import Worker

    env = {**os.environ, "DOMINO_RQ_LOG_LEVEL": "WARNING", "DOMINO_LOG_LEVEL": "WARNING"}
    worker = subprocess.Popen(
        [sys.executable, "-m", "workers.cli", "worker", "bots", "bot-games", "--sweep"], env=env, stdin=subprocess.DEVNULL
    )
    started = wait_until(lambda: worker.poll() is not None or Worker.count(connection=store.rq_connection(), queue=Queues(store).bots) >= 1, 30)
    if not started or worker.poll() is not None:
        stop_process(worker)
        raise AssertionError("the worker did not start")
    return worker


@pytest.mark.slow  # a real worker process
def test_human_vs_three_bots_flows_with_a_worker_process(create_game, settings):
    """The human's moves are answered and the three bots' replies follow through a real worker process. The
    times are printed (`-s`); their targets are bench/api_load.py's (`--vs-bot`), not this test's."""
    from api.service.service import Service

    worker = start_worker(Service(settings).store)
    try:
        data, players, _ = create_game(
            [{"name": "Ana"}, {"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}],
            rules={"match_end": "fixed_rounds", "rounds": 1},
        )
        ana = players[0]
        waits = []
        posts = []

        def ana_to_move():  # type: ignore[no-untyped-def]
            """Ana's view once it is her turn or the game is over."""
            v = ana.view().get_json()
            return v if v["turn"] == 0 or v["status"] != "playing" else None

        view = ana.view().get_json()
        while view["status"] == "playing":
            t0 = time.perf_counter()
            view = eventually(ana_to_move, "the bots replied", 60, 0.002)
            waits.append(time.perf_counter() - t0)
            if view["status"] != "playing":
                break
            t0 = time.perf_counter()
            resp = ana.move(view["legal_moves"][0])
            posts.append(time.perf_counter() - t0)
            assert resp.status_code == 200, resp.get_json()
            view = resp.get_json()
        assert view["status"] == "finished", view
        assert worker.poll() is None
        print(
            f"\nhuman vs 3 bots: {len(posts)} human moves; POST p50 {statistics.median(posts) * 1000:.1f} ms;"
            f" wait for 3 bot replies p50 {statistics.median(waits) * 1000:.1f} ms, max {max(waits) * 1000:.1f} ms"
        )
    finally:
        assert stop_process(worker) == 0


@pytest.mark.slow  # a real worker process
def test_an_idle_worker_stops_on_sigterm_and_deregisters(settings):
    """Once: how every kind stops, idle and busy, beside busy CPUs, is test_worker_stop.py's (slow tier)."""
    from rq import Worker

    from api.service.service import Service

    store = Service(settings).store
    worker = start_worker(store)
    try:
        # RQ registers the worker a moment before it installs its signal handlers: wait for SIGTERM's.
        assert wait_until(lambda: catches_sigterm(worker.pid), 30), "no SIGTERM handler"
    finally:
        assert stop_process(worker) == 0, "a warm shutdown, not the default SIGTERM action"
    assert Worker.count(connection=store.rq_connection(), queue=Queues(store).bots) == 0, "it deregistered"
