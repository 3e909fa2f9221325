"""Prometheus metrics (prometheus-client) at ``GET /metrics``: the HTTP hooks, and the scrape.

- ``domino_http_requests_total{method,route,status}`` and ``domino_http_request_duration_seconds{method,route}``
  (``route`` is the URL rule, e.g. ``/v1/games/<string:game_id>/moves``; unmatched paths are ``<unmatched>``);
- the application's counters (``domino_moves_total{variant,by}``, ``domino_bot_turn_seconds{outcome}``), kept
  by :mod:`api.service.metrics`;
- ``domino_queue_depth{queue}``: jobs waiting per RQ queue and entries in the due sets, read at scrape time;
  ``domino_redis_up``.

Several processes (gunicorn workers, RQ workers on the same machine) share their counters through
prometheus-client's multiprocess mode when ``PROMETHEUS_MULTIPROC_DIR`` is set (``domino-serve`` sets it);
without it, each process shows its own.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from typing import Any

import flask
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess
from prometheus_client.core import GaugeMetricFamily

from api.extensions import current_service
from api.service.metrics import BUCKETS
from api.service.service import Service
from api.store import StoreUnavailable

REQUESTS = Counter("domino_http_requests", "HTTP requests answered", ["method", "route", "status"])
LATENCY = Histogram(
    "domino_http_request_duration_seconds", "Time to answer an HTTP request", ["method", "route"], buckets=BUCKETS
)


class QueueCollector:
    """Queue depths, read from Redis at scrape time."""

    def __init__(self, service: Service) -> None:
        self.service = service

    def collect(self) -> Iterator[GaugeMetricFamily]:
        up = GaugeMetricFamily("domino_redis_up", "1 when the queue Redis answered this scrape")
        try:
            depths = self.service.queue_depths()
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
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]  # unannotated upstream
        return registry
    return REGISTRY


def install(app: flask.Flask) -> None:
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
        return resp

    @app.get("/metrics")
    def metrics() -> flask.Response:
        body = generate_latest(_registry())
        scrape = CollectorRegistry()
        scrape.register(QueueCollector(current_service()))
        body += generate_latest(scrape)
        return flask.Response(body, mimetype=CONTENT_TYPE_LATEST.split(";")[0], headers={"Cache-Control": "no-store"})
