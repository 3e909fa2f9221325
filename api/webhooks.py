"""Hosted bots: on their turn, a worker POSTs the seat's view to the seat's webhook (issue 5).

Signed as Standard Webhooks (https://www.standardwebhooks.com), with the ``standardwebhooks`` package:
``webhook-id`` (the same on every retry of one turn), ``webhook-timestamp`` (Unix seconds) and
``webhook-signature`` = ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`` with the seat's secret
``whsec_<base64>``, returned once when the game is created. The bot answers through the move endpoint with
its seat token.

Deliveries run on the ``webhooks`` queue (``workers.jobs.deliver_webhook``). Redirects are never followed, the
timeout is short, only ``http``/``https`` URLs are accepted, and only public addresses are called (unless
``DOMINO_WEBHOOK_ALLOW_PRIVATE``). A failed delivery is tried again by the
sweep after ``Settings.webhook_delays`` (the due times live in Redis, so they survive restarts); a bot that
never answers is covered by the game's turn timeout.
"""

from __future__ import annotations

import base64
import ipaddress
import logging
import secrets
import socket
import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

import httpx
import orjson
from standardwebhooks.webhooks import Webhook

import domino

if TYPE_CHECKING:
    from api.service import Service

log = logging.getLogger("api.webhooks")

USER_AGENT = "domino-service-webhooks/1"


def new_secret() -> str:
    """A per-seat signing secret in the Standard Webhooks format: ``whsec_`` + base64 of 24 random bytes."""
    return "whsec_" + base64.b64encode(secrets.token_bytes(24)).decode()


def check_url(url: str) -> str | None:
    """Why ``url`` cannot be a webhook (None when it can)."""
    try:
        parts = urlsplit(url)
    except ValueError:
        return "not a URL"
    if parts.scheme not in ("http", "https"):
        return "must be an http:// or https:// URL"
    if not parts.hostname:
        return "has no host"
    if parts.username or parts.password:
        return "must not carry credentials"
    return None


def private_target(url: str, resolve: bool = True) -> str | None:
    """Why ``url`` points into a non-public network (loopback, private, link-local, ...), or None.

    Without ``resolve`` only a literal address is judged (creation must not wait on DNS); a delivery resolves
    the name first. A name could still resolve differently at connect time; the short timeout bounds that.
    """
    host = urlsplit(url).hostname or ""
    try:
        addresses = [ipaddress.ip_address(host)]
    except ValueError:
        if host == "localhost" or host.endswith(".localhost"):
            return "points to this machine"
        if not resolve:
            return None
        try:
            addresses = [ipaddress.ip_address(info[4][0]) for info in socket.getaddrinfo(host, None)]
        except (socket.gaierror, UnicodeError, ValueError):
            return "does not resolve"
    for address in addresses:
        if not address.is_global:
            return f"points to a non-public address ({address})"
    return None


def message_id(game_id: str, version: int) -> str:
    return f"turn_{game_id}_{version}"


def signed_request(secret: str, msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The headers of a signed delivery of ``body``."""
    ts = datetime.fromtimestamp(int(time.time() if timestamp is None else timestamp), tz=timezone.utc)
    signature = Webhook(secret).sign(msg_id, ts, body.decode())
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(ts.timestamp())),
        "webhook-signature": signature,
    }


def turn_payload(service: Service, doc: dict[str, Any], version: int, state: Any, seat: int) -> dict[str, Any]:
    game_id = doc["id"]
    return {
        "type": "turn",
        "game_id": game_id,
        "seat": seat,
        "version": version,
        "deadline": doc.get("deadline"),
        "move_url": f"/v1/games/{game_id}/moves",
        "view": service.render_view(doc, version, state, seat),
    }


def deliver(service: Service, game_id: str, version: int, attempt: int) -> str:
    """POST the turn of ``version`` to the hosted bot to move. ``delivered`` clears the due entry; a failure
    leaves it for the sweep (:func:`sweep`), which tries again after the back-off."""
    store = service.store
    rec = store.load(game_id)
    if rec is None:
        store.clear_hook(game_id, version)
        return "gone"
    state = domino.from_dict(rec.doc["state"])
    seat = state.to_move
    if rec.version != version or state.finished or seat is None or rec.doc["seats"][seat]["kind"] != "hosted":
        store.clear_hook(game_id, version)
        return "stale"
    seat_doc = rec.doc["seats"][seat]
    body = orjson.dumps(turn_payload(service, rec.doc, version, state, seat))
    headers = signed_request(seat_doc["webhook_secret"], message_id(game_id, version), body)
    headers["webhook-attempt"] = str(attempt + 1)
    timeout = service.settings.webhook_timeout
    if not service.settings.webhook_allow_private:
        why = private_target(seat_doc["webhook"])
        if why:
            log.warning("webhook %s@%s not sent: %s", game_id, version, why)
            return f"failed: {why}"
    try:
        with httpx.Client(timeout=timeout, follow_redirects=False, trust_env=False) as client:
            resp = client.post(seat_doc["webhook"], content=body, headers=headers)
    except httpx.HTTPError as exc:
        log.info("webhook %s@%s attempt %s failed: %s", game_id, version, attempt + 1, exc)
        _retry_after_failure(service, game_id, version, attempt)
        return f"failed: {type(exc).__name__}"
    if 200 <= resp.status_code < 300:
        store.clear_hook(game_id, version)
        return "delivered"
    log.info("webhook %s@%s attempt %s answered %s", game_id, version, attempt + 1, resp.status_code)
    _retry_after_failure(service, game_id, version, attempt)
    return f"failed: HTTP {resp.status_code}"


def _retry_after_failure(service: Service, game_id: str, version: int, attempt: int) -> None:
    """Due the next try one back-off step after this failure (``DOMINO_WEBHOOK_BACKOFF``: 1 s, then 5 s, ...).

    Until a delivery ends, its due time also covers the delivery's own timeout (a worker that dies mid-request
    is retried by the sweep); once it has failed, the back-off counts from the failure."""
    delays = service.settings.webhook_delays
    if attempt < len(delays):
        service.store.mark_hook_due(game_id, version, time.time() + delays[attempt], attempt=attempt + 1)


def sweep(service: Service, now: float | None = None) -> list[tuple[str, int, int]]:
    """Enqueue the next try of every webhook whose retry is due; give up after the last back-off step."""
    from workers.queues import enqueue_webhook

    store, s = service.store, service.settings
    now = time.time() if now is None else now
    delays = s.webhook_delays
    enqueued = []
    for game_id, version, begun in store.overdue_hooks(now):
        current = store.version(game_id)
        if current != version or begun > len(delays):
            store.clear_hook(game_id, version)  # moved on, gone, or out of tries (the turn timeout rules)
            continue
        delay = delays[begun] if begun < len(delays) else delays[-1] if delays else 0.0
        store.mark_hook_due(game_id, version, now + s.webhook_timeout + delay, attempt=begun + 1)
        enqueue_webhook(store, game_id, version, begun)
        enqueued.append((game_id, version, begun))
    return enqueued
