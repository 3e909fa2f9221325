"""Prometheus metrics (prometheus-client) at ``GET /metrics``: the HTTP requests' part, and the scrape.

- ``domino_http_requests_total{method,route,status}`` and ``domino_http_request_duration_seconds{method,route}``
  (``route`` is the URL rule, e.g. ``/v1/games/<string:game_id>/moves``; unmatched paths are ``<unmatched>``);
- the application's counters (``domino_moves_total{variant,by}``, ``domino_bot_turn_seconds{outcome}``), kept
  by :mod:`api.service.metrics`;
- ``domino_queue_depth{queue}``: jobs waiting per RQ queue and entries in the due sets, read at scrape time;
  ``domino_redis_up``.

Several processes (gunicorn workers, RQ workers on the same machine) share their counters through
prometheus-client's multiprocess mode when ``PROMETHEUS_MULTIPROC_DIR`` is set (``domino-serve`` sets it);
without it, each process shows its own.

``/metrics`` answers only the networks of ``DOMINO_METRICS_ALLOW`` (loopback by default) and bearers of
``DOMINO_METRICS_TOKEN``; others get 403. It counts against the client's rate limit like any request.
"""

from __future__ import annotations

import hmac
import ipaddress
import os
import time
from collections.abc import Iterator
from typing import Any

import flask
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess
from prometheus_client.core import GaugeMetricFamily

from api.config import Settings
from api.service.errors import Forbidden
from api.extensions import current_service
from api.wrappers import ApiRequest
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


def networks(text: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``"127.0.0.0/8,::1/128"`` -> the networks (``DOMINO_METRICS_ALLOW``)."""
    return tuple(ipaddress.ip_network(part.strip(), strict=False) for part in text.split(",") if part.strip())


def check_access(allowed: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...], token: str) -> None:
    """Metrics describe the deployment (routes, load, queues): only the allowed networks (the client's address
    as the rate limit sees it) or a bearer of ``DOMINO_METRICS_TOKEN`` read them."""
    header = flask.request.headers.get("Authorization", "")
    scheme, _, given = header.strip().partition(" ")
    if token and scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode()):
        return
    try:
        address = ipaddress.ip_address(flask.request.remote_addr or "")
    except ValueError:
        address = None
    if address is not None and isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    if address is not None and any(address in net for net in allowed):
        return
    raise Forbidden("Metrics are served to the allowed networks (DOMINO_METRICS_ALLOW) or with the metrics token.")


class Observer:
    """The metrics' part of every request (see :mod:`api.hooks`): start a timer once the request is let in,
    then count its answer and observe its latency by route."""

    def __init__(self) -> None:
        # A labelled child per (method, route[, status]), kept: ``labels()`` validates and locks on every call.
        self.latency: dict[tuple[str, str], Any] = {}
        self.answered: dict[tuple[str, str, int], Any] = {}

    @staticmethod
    def start(req: ApiRequest) -> None:
        req.metrics_start = time.perf_counter()

    def observe(self, req: ApiRequest, resp: flask.Response) -> None:
        start = req.metrics_start
        if start is None:  # refused before the view (rate limit, body guard): not timed
            return
        route = req.url_rule.rule if req.url_rule is not None else "<unmatched>"
        if route == "/metrics":
            return
        key = (req.method, route)
        timer = self.latency.get(key)
        if timer is None:
            timer = self.latency[key] = LATENCY.labels(method=req.method, route=route)
        timer.observe(time.perf_counter() - start)
        status = resp.status_code
        counter = self.answered.get((*key, status))
        if counter is None:
            counter = self.answered[(*key, status)] = REQUESTS.labels(method=req.method, route=route, status=str(status))
        counter.inc()


def install(app: flask.Flask) -> Observer:
    """``GET /metrics``; the observer of every request, for :mod:`api.hooks`."""
    settings: Settings = app.extensions["domino.settings"]
    allowed = networks(settings.metrics_allow)

    @app.get("/metrics")
    def metrics() -> flask.Response:
        check_access(allowed, settings.metrics_token)
        body = generate_latest(_registry())
        scrape = CollectorRegistry()
        scrape.register(QueueCollector(current_service()))
        body += generate_latest(scrape)
        return flask.Response(body, mimetype=CONTENT_TYPE_LATEST.split(";")[0], headers={"Cache-Control": "no-store"})

    return Observer()
