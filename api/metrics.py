"""Prometheus metrics (prometheus-client) at ``GET /metrics``.

- ``domino_http_requests_total{method,route,status}`` and ``domino_http_request_duration_seconds{method,route}``
  (``route`` is the URL rule, e.g. ``/v1/games/<string:game_id>/moves``; unmatched paths are ``<unmatched>``);
- ``domino_moves_total{variant,by}``: accepted moves, ``by`` = ``human`` (over HTTP), ``bot`` (a computer
  player's job) or ``auto`` (a timed-out seat moved for);
- ``domino_bot_turn_seconds{outcome}``: a computer player's turn from its job's enqueue to its end;
- ``domino_queue_depth{queue}``: jobs waiting per RQ queue and entries in the due sets, read at scrape time;
  ``domino_redis_up``.

Several processes (gunicorn workers, RQ workers on the same machine) share their counters through
prometheus-client's multiprocess mode when ``PROMETHEUS_MULTIPROC_DIR`` is set (``domino-serve`` sets it);
without it, each process shows its own.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from typing import Any

import flask
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily

BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

REQUESTS = Counter("domino_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "domino_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"], buckets=BUCKETS
)
MOVES = Counter("domino_moves", "Accepted moves", ["variant", "by"])
BOT_TURN = Histogram(
    "domino_bot_turn_seconds",
    "A computer player's turn, from its job's enqueue to its end",
    ["outcome"],
    buckets=BUCKETS,
)

def move_played(variant: str, by: str) -> None:
    MOVES.labels(variant=variant, by=by).inc()


def count_move(variant: str) -> None:
    """A move over HTTP: counted as ``human`` when its answer is a 200."""
    flask.g.move_variant = variant


@contextlib.contextmanager
def bot_turn_timer(enqueued_at: Any = None) -> Iterator[dict[str, str]]:
    """Time a bot-turn job: ``with bot_turn_timer(job.enqueued_at) as out: out["outcome"] = ...``."""
    out = {"outcome": "error"}
    start = time.time()
    if enqueued_at is not None:
        with contextlib.suppress(Exception):
            start = enqueued_at.timestamp()
    try:
        yield out
    finally:
        BOT_TURN.labels(outcome=out["outcome"]).observe(max(0.0, time.time() - start))


class QueueCollector:
    """Queue depths, read from Redis at scrape time."""

    def __init__(self, store: Any, queues: list[str]) -> None:
        self.store = store
        self.queues = queues

    def collect(self) -> Iterator[GaugeMetricFamily]:
        from api.store import StoreUnavailable

        up = GaugeMetricFamily("domino_redis_up", "1 when the queue Redis answered this scrape")
        try:
            depths = self.store.queue_depths(self.queues)
        except StoreUnavailable:
            up.add_metric([], 0)
            yield up
            return
        up.add_metric([], 1)
        yield up
        gauge = GaugeMetricFamily("domino_queue_depth", "Jobs waiting per queue, and due-set entries", labels=["queue"])
        for name, n in depths.items():
            gauge.add_metric([name], n)
        yield gauge


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # unannotated upstream
        return registry
    return REGISTRY


def install(app: flask.Flask) -> None:
    settings = app.extensions["domino.settings"]
    queues = [settings.bots_queue, settings.bot_games_queue, settings.simulations_queue, settings.webhooks_queue]

    # A labelled child per (method, route[, status]), kept: ``labels()`` validates and locks on every call.
    latency: dict[tuple[str, str], Any] = {}
    answered: dict[tuple[str, str, int], Any] = {}

    @app.before_request
    def _start_timer() -> None:
        flask.g.metrics_start = time.perf_counter()

    @app.after_request
    def _observe(resp: flask.Response) -> flask.Response:
        start = getattr(flask.g, "metrics_start", None)
        if start is None:
            return resp
        req = flask.request
        route = req.url_rule.rule if req.url_rule is not None else "<unmatched>"
        if route == "/metrics":
            return resp
        key = (req.method, route)
        timer = latency.get(key)
        if timer is None:
            timer = latency[key] = LATENCY.labels(method=req.method, route=route)
        timer.observe(time.perf_counter() - start)
        status = resp.status_code
        counter = answered.get((*key, status))
        if counter is None:
            counter = answered[(*key, status)] = REQUESTS.labels(method=req.method, route=route, status=str(status))
        counter.inc()
        variant = getattr(flask.g, "move_variant", None)
        if variant is not None and status == 200:
            move_played(variant, "human")
        return resp

    @app.get("/metrics")
    def metrics() -> flask.Response:
        from api.app import current_service

        body = generate_latest(_registry())
        scrape = CollectorRegistry()
        scrape.register(QueueCollector(current_service().store, queues))
        body += generate_latest(scrape)
        return flask.Response(body, mimetype=CONTENT_TYPE_LATEST.split(";")[0], headers={"Cache-Control": "no-store"})
