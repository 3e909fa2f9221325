"""Rate limits per client, counted in Redis (``api.store.limits``) so that they hold across API processes.

One policy for anonymous clients, ``Settings.rate_limit`` = ``"<requests>/<seconds>"`` (default ``3000/60``:
generous, a client playing flat out stays far below it), a fixed window that starts at the client's first
request; a request with an app key counts against that app's own limit instead (policy ``"app"``, set by
``domino-admin apps create --rate-limit``), whatever address it comes from. Every
counted answer carries the IETF ``RateLimit-Policy`` and ``RateLimit`` headers
(draft-ietf-httpapi-ratelimit-headers: ``"default";q=3000;w=60`` and ``"default";r=2999;t=60``); past the
limit the answer is a 429 ``rate-limited`` problem with ``Retry-After``. Liveness (``/healthz``) is exempt
(``Settings.rate_limit_exempt``), and so are CORS preflights; readiness and metrics are counted. The limit is
checked before anything else, so requests the body guard refuses (400, 413, 415) count too.

The client is the request's address (an IPv6 address by its /64, ``Settings.rate_limit_ipv6_prefix``); behind
``proxy_hops`` trusted proxies it is taken from ``X-Forwarded-For`` (werkzeug's ``ProxyFix``).

With a limit of 200 or more, an API process counts a client's requests in Redis a few at a time (up to 20,
``Leases``) and spends them locally, so a busy client costs one round trip per batch instead of one per
request; a client can then exceed the limit by at most a batch per API process (under 1% at 3000 with a
few processes), and a batch not spent before the window ends is counted all the same.

We count in ``api/store/limits.py`` (one Lua script, one round trip) rather than through flask-limiter: its storage
would be a second Redis client outside the store, with its own timeouts and its own error path, and we need
only one fixed window. When Redis does not answer, an endpoint that needs no Redis (variants, bots, the
docs) is served uncounted; any other answers 503 at once instead of waiting for Redis a second time. When
Redis is full (it refuses the count's write), a read is served uncounted and a write answers 503
``storage-full``: it could not be stored anyway.
"""

from __future__ import annotations

import dataclasses
import functools
import ipaddress
import logging
import math
import threading
import time
from typing import Any

import flask
from werkzeug.middleware.proxy_fix import ProxyFix

from api import errors
from api.callers import calling_app
from api.config import Settings
from api.extensions import current_service, document_everywhere, problem_response
from api.service.errors import Unauthorized
from api.wrappers import ApiRequest
from api.store import StoreFull, StoreUnavailable

log = logging.getLogger("api.ratelimit")

POLICY = "default"  # the policy of anonymous clients, by address
APP_POLICY = "app"  # an app's own, by its key
# Endpoints answered without Redis: served uncounted when Redis is down.
NO_REDIS_BLUEPRINTS = ("variants", "bots", "api-docs", "web")
NO_REDIS_ENDPOINTS = ("swagger_assets", "static")


@dataclasses.dataclass(frozen=True)
class Policy:
    limit: int
    window: int  # seconds
    name: str = POLICY

    @classmethod
    def parse(cls, text: str, name: str = POLICY) -> Policy | None:
        """``"3000/60"`` -> Policy(3000, 60); ``""`` or ``"0"`` -> None (off)."""
        text = text.strip()
        if not text or text == "0":
            return None
        limit, _, window = text.partition("/")
        policy = cls(int(limit), int(window or 60), name)
        if policy.limit <= 0 or policy.window <= 0:
            return None
        return policy

    @functools.cached_property  # frozen: the same text for every request it counts
    def header(self) -> str:
        return f'"{self.name}";q={self.limit};w={self.window}'


def headers(policy: Policy, count: int, reset_ms: int) -> dict[str, str]:
    t = max(0, math.ceil(reset_ms / 1000))
    return {
        "RateLimit-Policy": policy.header,
        "RateLimit": f'"{policy.name}";r={max(0, policy.limit - count)};t={t}',
    }


class Leases:
    """Requests of each client already counted in Redis by this process and not yet spent."""

    MAX_CLIENTS = 10_000

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.by_client: dict[str, list[float]] = {}  # client -> [left, count of the last one spent, reset at]

    def take(self, client: str) -> tuple[int, int] | None:
        """(this request's count, ms until the window resets) from a lease, or None."""
        with self.lock:
            lease = self.by_client.get(client)
            if lease is None:
                return None
            now = time.monotonic()
            if lease[0] <= 0 or now >= lease[2]:
                del self.by_client[client]
                return None
            lease[0] -= 1
            lease[1] += 1
            return int(lease[1]), int((lease[2] - now) * 1000)

    def put(self, client: str, left: int, count: int, reset_ms: int) -> None:
        with self.lock:
            if len(self.by_client) >= self.MAX_CLIENTS:
                self.by_client.clear()
            self.by_client[client] = [left, count, time.monotonic() + reset_ms / 1000]


def batch_size(policy: Policy) -> int:
    return 1 if policy.limit < 200 else min(20, policy.limit // 100)


@functools.lru_cache(maxsize=4096)  # a client's address, parsed once per process rather than once per request
def client_key(address: str, ipv6_prefix: int) -> str:
    """Who a client is for its limits: an IPv4 address, or the ``/ipv6_prefix`` network of an IPv6 address
    (an IPv4-mapped one is its IPv4 address), so that rotating within one's own /64 does not make new clients."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, ipv6_prefix), strict=False))
    return str(ip)


def client_id() -> str:
    """The client of this request, as its rate limit and stream caps count it."""
    settings: Settings = flask.current_app.extensions["domino.settings"]
    return client_key(flask.request.remote_addr or "unknown", settings.rate_limit_ipv6_prefix)


class Limiter:
    """The rate limit's part of every request (see :mod:`api.hooks`): count it before the view, then put
    the ``RateLimit`` headers on whatever answers it."""

    def __init__(self, settings: Settings) -> None:
        self.default = Policy.parse(settings.rate_limit)
        self.exempt = frozenset(p.strip() for p in settings.rate_limit_exempt.split(",") if p.strip())
        self.ipv6_prefix = settings.rate_limit_ipv6_prefix
        self.leases = Leases()

    def before(self, req: ApiRequest) -> flask.Response | None:
        if req.method == "OPTIONS" or req.path in self.exempt:
            return None
        try:
            caller = calling_app(req)  # first: an app has a limit of its own, and a bad app key is a 401 at once
        except StoreUnavailable:
            if req.blueprint in NO_REDIS_BLUEPRINTS or req.endpoint in NO_REDIS_ENDPOINTS or req.url_rule is None:
                return None
            raise
        except Unauthorized:  # a key guessed or forged counts against its address: guessing ends in a 429
            address = client_key(req.remote_addr or "unknown", self.ipv6_prefix)
            refused = None if self.default is None else self.count(req, self.default, address)
            if refused is None:
                raise
            return refused
        if caller is not None:
            policy, client = Policy.parse(caller.rate_limit, APP_POLICY), f"app:{caller.id}"
        else:
            policy, client = self.default, client_key(req.remote_addr or "unknown", self.ipv6_prefix)
        if policy is None:
            return None
        return self.count(req, policy, client)

    def count(self, req: ApiRequest, policy: Policy, client: str) -> flask.Response | None:
        """Count this request of ``client`` (from a lease when it has one); the 429 past the limit."""
        batch = batch_size(policy)
        leased = self.leases.take(client) if batch > 1 else None
        if leased is not None:
            count, reset_ms = leased
        else:
            try:
                total, reset_ms = current_service().count_request(client, policy.window * 1000, batch)
            except StoreFull:
                if req.method in ("GET", "HEAD"):
                    return None  # a full Redis still serves reads: uncounted until it has room again
                raise
            except StoreUnavailable:
                if req.blueprint in NO_REDIS_BLUEPRINTS or req.endpoint in NO_REDIS_ENDPOINTS or req.url_rule is None:
                    return None
                raise
            count = total - batch + 1  # this request; the rest of the batch is leased to later ones
            left = min(batch - 1, policy.limit - count)
            if left > 0:
                self.leases.put(client, left, count, reset_ms)
        values = headers(policy, count, reset_ms)
        if count > policy.limit:
            retry = values["RateLimit"].rpartition("t=")[2]
            who = "this app" if policy.name == APP_POLICY else "this client"
            return problem_response(
                errors.RATE_LIMITED,
                f"More than {policy.limit} requests in {policy.window} s from {who}; retry in {retry} s.",
                headers={**values, "Retry-After": retry},
            )
        req.rate_limit_headers = values
        return None

    @staticmethod
    def after(req: ApiRequest, resp: flask.Response) -> None:
        """The ``RateLimit`` headers on the answer to a request let in (the 429 carries its own; no view sets
        them, so there is no need to look for them first)."""
        values = req.rate_limit_headers
        if values:
            for k, v in values.items():
                resp.headers.add(k, v)


def setup(app: flask.Flask, settings: Settings) -> Limiter:
    """Who the client is behind trusted proxies (``proxy_hops``), and the limits."""
    if settings.proxy_hops > 0:
        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.proxy_hops)  # type: ignore[method-assign]
    return Limiter(settings)


RATE_HEADERS = {
    "RateLimit-Policy": {"description": 'The limit: `"default";q=<requests>;w=<seconds>`', "schema": {"type": "string"}},
    "RateLimit": {
        "description": 'What is left: `"default";r=<remaining>;t=<seconds to reset>`',
        "schema": {"type": "string"},
    },
    "Retry-After": {"description": "Seconds to wait", "schema": {"type": "string"}},
}


def document(spec: Any, settings: Settings) -> None:
    """Add the 429 problem to every operation that is counted (the spec is built at registration), and the 401
    of an app key that names no current one: the count looks the key up first, on every such operation."""
    exempt = {p.strip() for p in settings.rate_limit_exempt.split(",") if p.strip()}
    document_everywhere(spec, errors.UNAUTHORIZED, frozenset(("get", "post", "put", "patch", "delete")), exempt=frozenset(exempt))
    ptype = errors.RATE_LIMITED
    for path, operations in spec._paths.items():
        if path in exempt:  # not counted: an app key is not even looked at
            for operation in operations.values():
                if isinstance(operation, dict):
                    operation.setdefault("security", [])
            continue
        for method, operation in operations.items():
            if method not in ("get", "post", "put", "patch", "delete") or not isinstance(operation, dict):
                continue
            responses = operation.setdefault("responses", {})
            example = {
                "type": ptype.type,
                "title": ptype.title,
                "status": ptype.status,
                "detail": "More than 3000 requests in 60 s from this client; retry in 12 s.",
                "instance": f"{path}#3f9c0d1e2a4b5c6d",
            }
            description = f"`{ptype.slug}`: {ptype.description}"
            other = responses.get("429")
            if other is not None:  # the operation has a 429 of its own (too-many-streams): document both
                other["description"] = f"{description}; {other['description']}"
                other["headers"] = RATE_HEADERS
                other["content"]["application/problem+json"]["examples"][ptype.slug] = {"value": example}
                continue
            responses["429"] = {
                "description": description,
                "headers": RATE_HEADERS,
                "content": {
                    "application/problem+json": {"schema": {"$ref": "#/components/schemas/Problem"}, "example": example}
                },
            }
