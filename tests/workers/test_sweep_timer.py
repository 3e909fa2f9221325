"""The sweep's timer: turn deadlines are taken as they come due, a sooner deadline wakes a waiting timer,
sweeps running at once never take the same entry twice, and one job moves for a batch of late seats."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import pytest
import redis
from rq.job import Job

from api.app import create_app
from api.service import timer
from api.service.service import Service
from api.store import StoreUnavailable
from support import blocked_clients, eventually, work_burst
from workers import sweep as sweep_mod

TWO = [{"name": "Ana"}, {"name": "Bo"}]


def _game(client, turn_timeout_s: float) -> str:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "seats": TWO, "turn_timeout_s": turn_timeout_s})
    assert resp.status_code == 201, resp.get_json()
    return str(resp.get_json()["game"]["id"])


def _lose_queued_jobs(service: Service) -> None:
    """The bots queue's jobs lost (a flushed queue; or taken by a worker at once), records and all."""
    service.queues.bots.empty()  # type: ignore[no-untyped-call]


def test_a_sooner_deadline_wakes_the_timer_and_only_a_new_soonest_entry_wakes_it(settings) -> None:  # type: ignore[no-untyped-def]
    """The timer waits for the soonest deadline it knows (here an hour away, and it would look again only an
    hour later); a game whose deadline is sooner wakes it, and its seat is moved for."""
    app = create_app({"DOMINO": replace(settings, timer_max_wait=3600.0), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    store = service.store
    late = _game(client, 3600)
    assert store.queue_redis.llen(store.due_timer.key) == 1, "the first entry is the soonest: a wake-up"
    store.queue_redis.delete(store.due_timer.key)
    store.turns_due.mark("later-than-all", time.time() + 7200)
    assert store.queue_redis.llen(store.due_timer.key) == 0, "not the soonest: nobody woken"
    store.turns_due.mark_many(["later-a", "later-b"], time.time() + 7200)
    assert store.queue_redis.llen(store.due_timer.key) == 0, "several marked, none the soonest: nobody woken"
    store.turns_due.mark_many(["sooner-a", "sooner-b"], time.time() + 60)
    assert store.queue_redis.llen(store.due_timer.key) == 1, "several marked, the soonest among them: a wake-up"
    store.queue_redis.delete(store.due_timer.key)
    for member in ("later-than-all", "later-a", "later-b", "sooner-a", "sooner-b"):
        store.turns_due.clear(member)
    stop = threading.Event()
    timer = threading.Thread(target=sweep_mod.run_timer, args=(service, stop, 0.05), daemon=True)
    waiting = blocked_clients(store.queue_redis, "blpop")
    timer.start()
    try:
        eventually(lambda: blocked_clients(store.queue_redis, "blpop") > waiting, "the timer waits")
        soon = _game(client, 0.2)
        eventually(
            lambda: work_burst(service, ("bots",)) or client.get(f"/v1/games/{soon}").get_json()["version"] > 0,
            "the seat past the sooner deadline moved for",
        )
        assert client.get(f"/v1/games/{late}").get_json()["version"] == 0
    finally:
        stop.set()
        store.queue_redis.lpush(store.due_timer.key, 1)  # out of its hour's wait
        timer.join(30)
    assert not timer.is_alive()


def test_sweeps_at_once_take_each_due_deadline_once(settings) -> None:  # type: ignore[no-untyped-def]
    """Two sweeps (two machines) drain the same deadlines by small batches at the same time: each game's
    timeout is enqueued by exactly one of them."""
    s = replace(settings, timer_batch=3, games_per_client=0)
    client = create_app({"DOMINO": s, "TESTING": True}).test_client()
    games = {_game(client, 3600) for _ in range(30)}
    later = time.time() + 7200
    sweeps = [Service(s), Service(s)]
    taken: list[list[str]] = [[], []]
    start = threading.Barrier(2)

    def drain(i: int) -> None:
        start.wait()
        while True:  # each job taken by a worker at once (emptied): a timer holds its deadlines back until then
            _lose_queued_jobs(sweeps[i])
            batch = [game_id for game_id, _, _ in sweeps[i].sweep_due(later).timeouts]
            if not batch:
                break
            taken[i] += batch

    threads = [threading.Thread(target=drain, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(taken[0] + taken[1]) == sorted(games), "every game once, none twice"
    _lose_queued_jobs(sweeps[0])
    assert sweeps[0].sweep_due(later).timeouts == [], "leased: not due again before the lease runs out"


def test_a_late_game_whose_job_is_lost_is_enqueued_again_after_leases_twice_as_long(settings) -> None:  # type: ignore[no-untyped-def]
    """A deadline's timeout job that has not moved for the seat is not copied while it waits in the queue (the
    timer holds its deadlines back until its job starts, up to LEASE_CAP: a slow queue is not flooded with a
    copy of its backlog every lease); a lost one is replaced once the lease runs out, each replacement after a
    lease twice as long as the one before."""
    client = create_app({"DOMINO": settings, "TESTING": True}).test_client()
    game_id = _game(client, 0.01)
    service, lease = Service(settings), settings.bot_due_delay
    now = time.time() + 1  # the deadline has passed; no worker runs the jobs

    def enqueued(at: float, lost: bool = True) -> list[int]:
        if lost:
            _lose_queued_jobs(service)
        return [attempt for late, _, attempt in service.sweep_due(at).timeouts if late == game_id]

    assert enqueued(now) == [0]
    assert enqueued(now + lease * 1.5, lost=False) == [], "its job still waits in the queue: no copy"
    assert enqueued(now + lease * 1.5) == [1], "lost once the first lease ran out: a replacement"
    second = now + lease * 1.5
    assert enqueued(second + lease * 1.5) == [], "the second lease is twice as long"
    assert enqueued(second + lease * 2.5) == [2]
    third = second + lease * 2.5
    assert enqueued(third + lease * 3.5) == [], "the third, four times as long"
    assert enqueued(third + lease * 4.5) == [3]
    assert service.store.turns_due.due_at(game_id) == third + lease * 4.5 + lease * 8, "a lost job is always replaced"
    fourth = third + lease * 4.5
    assert enqueued(fourth + timer.LEASE_CAP + 1, lost=False) == [4], "a job queued for ever is replaced too"


def test_one_timeout_job_moves_for_a_batch_each_seat_once_on_the_version_it_was_late_at(settings) -> None:  # type: ignore[no-untyped-def]
    """A timeout job for several games commits their moves together: each late seat is moved for once, on the
    version it was late at, and its next deadline is marked; a game that moved on meanwhile, or has gone, is
    left alone, and the job run again changes nothing. The batch's next deadlines are written before any of
    its commits: when that write fails, nothing is committed (the leases bring the job back)."""
    app = create_app({"DOMINO": replace(settings, games_per_client=0), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    store = service.store
    games = [_game(client, 0.01) for _ in range(5)]
    moved_on, gone = games[0], games[1]
    found = service.games.find(moved_on)
    assert store.games.commit(moved_on, 0, 1, found.doc, [], 3600).ok
    store.games.delete(gone)
    eventually(lambda: all(service.games.find(g).doc["deadline"] < time.time() for g in games[2:]), "deadlines pass")
    turns = [(game_id, 0) for game_id in games]

    def failing() -> redis.client.Pipeline:
        batch: redis.client.Pipeline = real_batch()

        def execute(*args: object, **kwargs: object) -> None:
            raise redis.exceptions.ConnectionError("the queue Redis went away")

        batch.execute = execute  # type: ignore[method-assign,assignment]
        return batch

    real_batch = store.batch
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(store, "batch", failing)
        with pytest.raises(StoreUnavailable):
            service.play_timeouts(turns)
    assert [service.games.find(g).version for g in games[2:]] == [0, 0, 0], "nothing committed"
    assert service.play_timeouts(turns) == "gone 1, played 3, stale 1"
    for game_id in games[2:]:
        game = service.games.find(game_id)
        assert game.version == 1 and store.turns_due.due_at(game_id) == game.doc["deadline"]
        assert store.games.events_at(game_id, 1)[0]["public"]["auto"] is True
    assert service.play_timeouts(turns) == "gone 1, stale 4", "each version produced once"
    assert [service.games.find(g).version for g in games[2:]] == [1, 1, 1]


def test_a_redis_that_lost_the_commit_script_still_gets_each_late_seat_moved_once(settings) -> None:  # type: ignore[no-untyped-def]
    """The batch's commits go by the script's SHA-1; a restarted Redis has no script: it is loaded and the
    refused commits sent again, each game moved for once."""
    app = create_app({"DOMINO": replace(settings, games_per_client=0), "TESTING": True})
    client, service = app.test_client(), app.extensions["domino.service"]
    games = [_game(client, 0.01) for _ in range(3)]
    eventually(lambda: all(service.games.find(g).doc["deadline"] < time.time() for g in games), "deadlines pass")
    service.store.redis.script_flush()  # as a restarted Redis: the batch's EVALSHA finds no script
    assert service.play_timeouts([(game_id, 0) for game_id in games]) == "played 3"
    assert [service.games.find(g).version for g in games] == [1, 1, 1]


def test_deadlines_due_while_the_timers_job_waits_go_in_one_job_once_it_starts(settings) -> None:  # type: ignore[no-untyped-def]
    """While the timer's last timeout job waits in the queue, the deadlines that come due wait for it (they
    would wait behind it anyway), then go in one job together; the started job's own game is not copied."""
    client = create_app({"DOMINO": replace(settings, games_per_client=0), "TESTING": True}).test_client()
    first = _game(client, 0.01)
    service, lease = Service(settings), settings.bot_due_delay
    now = time.time() + 1
    assert [game_id for game_id, _, _ in service.sweep_due(now).timeouts] == [first]
    others = [_game(client, 0.01) for _ in range(3)]
    later = max(now, *(float(service.games.read(g).doc["deadline"] or 0) for g in others)) + lease * 1.5
    assert service.sweep_due(later).timeouts == [], "held back: its job has not started"
    (job_id,) = service.queues.bots.job_ids
    service.store.rq_connection().hset(Job.key_for(job_id), "status", "started")  # a worker took it
    assert sorted(game_id for game_id, _, _ in service.sweep_due(later).timeouts) == sorted(others)
    assert len(service.queues.bots.job_ids) == 2, "one job for the three"
    assert service.store.turns_due.due_at(first) == later + lease, "the running job's game: leased from now"
