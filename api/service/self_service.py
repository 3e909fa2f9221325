"""An app looks after its own webhook: what was sent to it (``GET /v1/app/deliveries``: the last 7 days, at most
the last 1,000), sending one again (``POST /v1/app/deliveries/{id}/redeliver``, while it is kept) and a test
ping (``POST /v1/app/webhook/test``).

Every lifecycle delivery is noted in the app's delivery log (:mod:`api.store.delivery_log`) when it is queued
(:func:`queued`) and after each try (:func:`tried`): its status (``pending``, ``delivered``, ``retrying``:
failed and to be tried again, ``failed``: out of tries), its tries, the receiver's answer code and how long it
took. A redelivery and a ping go the way of any lifecycle delivery (:meth:`api.service.webhooks.Webhooks.
prepare_app_event`): signed with the app's secrets as they are when sent, retried after the back-off; a
redelivery keeps the original ``webhook-id``, so a receiver that already has the event recognises it.
"""

from __future__ import annotations

import time
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any

import orjson

from api.config import Settings
from api.queues import Queues
from api.service.errors import DeliveryNotFound, NoWebhook
from api.service.security import new_id
from api.service.outbox import hand_over
from api.store import Batch, LogNote, Store

if TYPE_CHECKING:  # apps.py reaches this module through app_events
    from api.service.apps import App

PING = "ping"


def delivery_kind(delivery_id: str) -> str:
    """What a delivery is, from its id: ``msg_<game>_<version>_game_ended`` is ``game.ended``, and
    ``msg_ping_<id>`` a ``ping``."""
    parts = delivery_id.split("_", 3)
    if len(parts) == 4 and parts[2].isdigit():
        return parts[3].replace("_", ".", 1)
    return PING


def first_due(settings: Settings) -> float:
    """When a delivery begun now is due again, unless delivered: its timeout, then the first back-off step."""
    first_retry = settings.webhook_delays[0] if settings.webhook_delays else settings.bot_due_delay
    return time.time() + settings.webhook_timeout + first_retry


def queued(store: Store, kept: list[tuple[str, dict[str, Any]]]) -> None:
    """Note each (delivery id, record) about to be (re)sent as ``pending``, in one round trip, each a microsecond
    after the one before: the log lists them in the order they were handed over. The log keeps times to the
    microsecond, so the first is rounded to one before the others are spaced: ``now + i * 1e-6`` rounded gave
    two of a batch the same time about once in eleven batches of four (the log then orders them by id)."""
    now = round(time.time(), 6)
    pending = {"status": "pending"}
    store.delivery_log.note_many([_note(d, record, round(now + i * 1e-6, 6), pending) for i, (d, record) in enumerate(kept)])


def tried(
    store: Store, delivery_id: str, record: dict[str, Any], outcome: str, code: int | None, ms: float, last: bool, batch: Batch | None = None
) -> None:
    """Note a try of a delivery: what came of it (``last``: no more tries follow a failure), after ``batch``'s
    writes in the same transaction."""
    status = "delivered" if outcome == "delivered" else "failed" if last else "retrying"
    changes = {"status": status, "code": "" if code is None else str(code), "duration_ms": str(round(ms)), "last_attempt_at": repr(round(time.time(), 3))}
    store.delivery_log.note_many([_note(delivery_id, record, time.time(), changes, tried=True)], batch)


def _note(delivery_id: str, record: dict[str, Any], now: float, changes: dict[str, str], tried: bool = False) -> LogNote:
    first = {
        "kind": delivery_kind(delivery_id),
        "game": record.get("game") or "",
        "body": record["body"],
        "created_at": repr(round(now, 3)),
        "attempts": "0",
    }
    return LogNote(record["app"], delivery_id, now, first, changes, tried)


def entry(delivery_id: str, fields: dict[str, str | None]) -> dict[str, Any]:
    """A delivery as ``GET /v1/app/deliveries`` shows it."""
    code, ms, last = fields.get("code"), fields.get("duration_ms"), fields.get("last_attempt_at")
    return {
        "id": delivery_id,
        "kind": fields.get("kind"),
        "game_id": fields.get("game") or None,
        "status": fields.get("status") or "pending",
        "attempts": int(fields.get("attempts") or 0),
        "code": int(code) if code else None,
        "duration_ms": int(ms) if ms else None,
        "created_at": float(fields.get("created_at") or 0),
        "last_attempt_at": float(last) if last else None,
    }


class SelfService:
    def __init__(self, store: Store, settings: Settings, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.queues = queues

    def deliveries(self, app: App, before: tuple[float, str] | None, limit: int) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
        """The app's deliveries, newest first, strictly before the cursor ``before``: (page, the next cursor)."""
        rows, done = self.store.delivery_log.page(app.id, before, limit)
        page = [entry(delivery_id, fields) for delivery_id, _, fields in rows]
        return page, None if done or not rows else (rows[-1][1], rows[-1][0])

    def redeliver(self, app: App, delivery_id: str) -> dict[str, Any]:
        """Send a kept delivery again, with its ``webhook-id``: its entry, ``pending``."""
        kept = self.store.delivery_log.get(app.id, delivery_id)
        if kept is None:
            raise DeliveryNotFound(f"No delivery {delivery_id!r} is kept for this app (they are kept 7 days, the last 1,000).")
        return self._send(app, delivery_id, {"app": app.id, "game": kept.get("game") or None, "body": kept["body"]})

    def ping(self, app: App) -> dict[str, Any]:
        """Queue a signed ``ping`` to the app's webhook: its entry, ``pending`` (its result comes in the log)."""
        stamp = datetime.fromtimestamp(time.time(), tz=timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        body = {"type": PING, "timestamp": stamp, "data": {"app": app.name}}
        return self._send(app, f"msg_{PING}_{new_id()}", {"app": app.id, "game": None, "body": orjson.dumps(body).decode()})

    def _send(self, app: App, delivery_id: str, record: dict[str, Any]) -> dict[str, Any]:
        if not app.webhook:
            raise NoWebhook("This app has no webhook: set one with PATCH /v1/app first.")
        record = {**record, "checked": True}  # an event known to have happened: no game to look for
        batch = self.store.batch()
        self.store.app_deliveries.put(delivery_id, "again", record, self.settings.app_event_ttl, landed=True, batch=batch)
        self.store.app_hooks_due.mark(delivery_id, first_due(self.settings), attempt=1, batch=batch)
        queued(self.store, [(delivery_id, record)])  # its entry answers the call: pending now, not once taken
        hand_over(self.store, self.queues, [(delivery_id, 0)], batch)
        found = self.store.delivery_log.get(app.id, delivery_id) or {}
        return entry(delivery_id, {k: v for k, v in found.items() if k != "body"})
