"""Apps' lifecycle webhooks: ``game.started``, ``round.ended`` and ``game.ended`` of the games an app owns,
POSTed to the app's ``webhook``, signed as Standard Webhooks with the app's secret (as hosted bots' turns are:
:mod:`api.service.webhooks` posts them, with its timeouts, address guard and per-host back-off).

After a commit that starts a game, ends a round or ends the game, :meth:`Lifecycle.emit` renders each event's
body once (from the spectator's view: no hidden tile before the game ends; at a round's end its remaining
hands are public, as at a table), keeps it in Redis under its delivery id ``msg_<game id>_<version>_<event>``
(the ``webhook-id`` of every try, so that a receiver recognises a retry), marks it due and enqueues the
delivery. A failed try is tried again by the sweep after each step of ``DOMINO_WEBHOOK_BACKOFF``. An event
of a commit whose process dies before the body is kept is not sent (the game itself is committed).
"""

from __future__ import annotations

import logging
import time
from datetime import datetime, timezone
from typing import Any

import orjson

import domino
from api.config import Settings
from api.queues import Queues
from api.service.records import GameRecord, StoredEvent, public_seats, waiting
from api.service.views import render_view
from api.store import Store, StoreUnavailable

log = logging.getLogger("api.service.app_events")

GAME_STARTED, ROUND_ENDED, GAME_ENDED = "game.started", "round.ended", "game.ended"
EVENT_TYPES = (GAME_STARTED, ROUND_ENDED, GAME_ENDED)


def delivery_id(game_id: str, version: int, event_type: str) -> str:
    return f"msg_{game_id}_{version}_{event_type.replace('.', '_')}"


def lifecycle(doc: GameRecord, version: int, events: list[StoredEvent]) -> list[tuple[str, dict[str, Any]]]:
    """(event type, the engine event behind it) for what a commit of ``events`` as ``version`` means to the
    app: the game started (created with no open seat, or its last open seat taken), a round ended, it ended."""
    found: list[tuple[str, dict[str, Any]]] = []
    for stored in events:
        public = stored["public"]
        if public.get("type") == "game_started":
            found.append((GAME_STARTED, public))
        elif public.get("type") == "round_ended":
            found.append((ROUND_ENDED, public))
        elif public.get("type") == "game_ended":
            found.append((GAME_ENDED, public))
    if version == 0 and not waiting(doc):
        found.insert(0, (GAME_STARTED, {}))
    return found


def payload(event_type: str, doc: GameRecord, version: int, state: domino.State, event: dict[str, Any]) -> dict[str, Any]:
    """The body of one delivery: ``type``, ``timestamp`` and ``data`` (the game as a spectator sees it at
    ``version``, with the app's metadata and player ids; a round's result; the game's outcome)."""
    view = render_view(doc, version, state, None)
    seats = public_seats(doc)
    data: dict[str, Any] = {
        "game_id": doc["id"],
        "version": version,
        "variant": doc["variant"],
        "status": view["status"],
        "round": view["round"],
        "scores": view["scores"],
        "team_scores": view["team_scores"],
        "winners": view["winners"],
        "seats": seats,
        "players": [s.get("player") for s in seats],
        "metadata": doc.get("metadata"),
    }
    if event_type == ROUND_ENDED:
        data["result"] = {k: v for k, v in event.items() if k not in ("type", "seat")}
    if event_type == GAME_ENDED:
        data["outcome"] = {k: v for k, v in event.items() if k not in ("type", "seat")}
        data["last_round"] = view["last_round"]
    stamp = datetime.fromtimestamp(time.time(), tz=timezone.utc).isoformat(timespec="milliseconds")
    return {"type": event_type, "timestamp": stamp.replace("+00:00", "Z"), "data": data}


class Lifecycle:
    def __init__(self, store: Store, settings: Settings, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.queues = queues

    def emit(self, doc: GameRecord, version: int, state: domino.State, events: list[StoredEvent]) -> None:
        """After the commit of ``version``: keep, mark due and enqueue the owning app's deliveries, if it has a
        webhook. Redis trouble is logged: the commit has landed, the move's answer stands."""
        app_id = doc.get("app")
        if app_id is None:
            return
        found = lifecycle(doc, version, events)
        if not found:
            return
        try:
            app = self.store.apps.get(app_id)
            if app is None or not app.get("webhook") or app.get("revoked_at"):
                return
            for event_type, event in found:
                body = payload(event_type, doc, version, state, event)
                self._queue(delivery_id(doc["id"], version, event_type), {"app": app_id, "game": doc["id"], "body": body})
        except StoreUnavailable:
            log.warning("could not queue the lifecycle webhooks of %s@%s", doc["id"], version, exc_info=True)

    def _queue(self, msg_id: str, record: dict[str, Any]) -> None:
        s = self.settings
        self.store.app_deliveries.put(msg_id, {**record, "body": orjson.dumps(record["body"]).decode()}, s.app_event_ttl)
        first_retry = s.webhook_delays[0] if s.webhook_delays else s.bot_due_delay
        self.store.app_hooks_due.mark(msg_id, time.time() + s.webhook_timeout + first_retry, attempt=1)
        try:
            self.queues.enqueue_app_event(msg_id, 0)
        except Exception:  # the due entry lets the sweep enqueue it
            log.warning("could not enqueue %s; the sweep will", msg_id, exc_info=True)
