"""Apps' deliveries reach the webhooks workers by batches (api/service/outbox.py), run by real RQ workers against
a local receiver: the turns of many games, and a timer's batch of reminders, each go in one drain job, every
delivery once with its own id; a drain job whose enqueue was lost is rearmed by the sweep, its tries sent once,
as first tries."""

from __future__ import annotations

import uuid
from dataclasses import replace
from typing import Any

import pytest

from api.app import create_app
from api.queues import APP_EVENTS, WEBHOOKS
from api.service import deliveries
from local_endpoint import Recorder
from support import eventually, returns_within, run_webhooks, work_burst

TWO = [{"name": "Ana", "player": "u-ana"}, {"name": "Bo", "player": "u-bo"}]
GAMES = 30  # more than one owner's backlog in a delivery process (webhook_per_owner 4 x 4 waiting, 4 in flight)


@pytest.fixture
def receiver() -> Any:
    endpoint = Recorder()
    yield endpoint
    endpoint.close()


def _new_games(client, service, receiver: Recorder, events: str, count: int, timeout: float) -> list[str]:  # type: ignore[no-untyped-def]
    issued = service.create_app(f"outbox-{uuid.uuid4().hex[:8]}", receiver.url, None, None, events)
    auth = {"Authorization": f"Bearer {issued.key}"}
    body = {"variant": "draw", "seats": TWO, "turn_timeout_s": timeout}
    return [client.post("/v1/games", json=body, headers=auth).get_json()["game"]["id"] for _ in range(count)]


def _one_job_delivers_them(service, receiver: Recorder, ids: set[str]) -> None:  # type: ignore[no-untyped-def]
    """One drain job is queued for them all; run alone, it takes every one, and each arrives once, a first try."""
    assert service.queues.queued(WEBHOOKS) == 1, "one job for the batch"
    assert service.store.app_outbox.size() == len(ids)
    assert work_burst(service, (WEBHOOKS,), max_jobs=1)
    assert deliveries.wait_idle(60), "the deliveries did not end"
    assert service.store.app_outbox.size() == 0 and service.queues.queued(WEBHOOKS) == 0, "taken by that job"
    sent = [headers["webhook-id"] for headers, _ in receiver.deliveries]
    assert sorted(sent) == sorted(ids), "each delivery once"
    assert {headers["webhook-attempt"] for headers, _ in receiver.deliveries} == {"1"}
    assert service.store.app_hooks_due.size() == 0, "delivered: nothing left due"


def _patient(settings, monkeypatch, **more: Any):  # type: ignore[no-untyped-def]
    """An app whose drain job waits for room as long as the receiver takes, and whose drainer flag outlives
    the making of the games however slow the machine (the flag lapses after webhook_timeout)."""
    monkeypatch.setenv("DOMINO_WEBHOOK_FIRST_TIMEOUT", "60")
    monkeypatch.setenv("DOMINO_WEBHOOK_TIMEOUT", "60")
    app = create_app({"DOMINO": replace(settings, webhook_first_timeout=60, webhook_timeout=60, **more), "TESTING": True})
    return app.test_client(), app.extensions["domino.service"]


def test_the_turns_of_many_games_go_to_the_worker_in_one_job(settings, receiver, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    client, service = _patient(settings, monkeypatch)
    games = _new_games(client, service, receiver, "turn.started", GAMES, 3600)
    _one_job_delivers_them(service, receiver, {f"msg_{game_id}_0_turn_started" for game_id in games})


def test_a_timers_batch_of_reminders_goes_in_one_job(settings, receiver, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    client, service = _patient(settings, monkeypatch, reminder_min_turn=600, reminder_fraction=0.2)
    games = _new_games(client, service, receiver, "turn.reminder", GAMES, 1000)
    latest = max(client.get(f"/v1/games/{game_id}").get_json()["deadline"] for game_id in games)
    assert len(service.sweep(now=latest - 150).reminders) == GAMES
    _one_job_delivers_them(service, receiver, {f"msg_{game_id}_0_turn_reminder" for game_id in games})


def test_a_drain_job_whose_enqueue_was_lost_is_rearmed_by_the_sweep(client, service, receiver, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    enqueue = service.queues.enqueue

    def lost(kind, *args, **kwargs):  # type: ignore[no-untyped-def]
        if kind is APP_EVENTS:
            raise ConnectionError("Redis went away after the push")
        return enqueue(kind, *args, **kwargs)

    with monkeypatch.context() as patched:
        patched.setattr(service.queues, "enqueue", lost)
        (game_id,) = _new_games(client, service, receiver, "turn.started", 1, 3600)  # created: the commit stands
    assert service.queues.queued(WEBHOOKS) == 0 and service.store.app_outbox.size() == 1, "its try waits"

    def heard() -> bool:  # the drainer's flag lapses after webhook_timeout; a sweep then rearms it
        service.sweep()
        run_webhooks(service)
        return bool(receiver.deliveries)

    eventually(heard, "the try that waited in the outbox was sent", 60, 0.05)
    assert service.sweep().app_events == [] and service.store.app_hooks_due.size() == 0, "delivered: nothing more"
    (headers, _), = receiver.deliveries
    assert headers["webhook-id"] == f"msg_{game_id}_0_turn_started"
    assert headers["webhook-attempt"] == "1", "waiting in the outbox was not a try: no copy, no retry"


def test_a_wait_for_tries_shorter_than_a_millisecond_ends(service) -> None:  # type: ignore[no-untyped-def]
    """A drain job near the end of its budget waits a fraction of a millisecond: Redis counts BLPOP's timeout in
    milliseconds, and 0 means no end, so the wait is a millisecond at least."""
    outbox = service.store.app_outbox
    assert returns_within(10, lambda: outbox.take_within(10, 0.0004)) == []
    assert returns_within(10, lambda: outbox.take_within(10, 0.0004, drained=True)) == []
