"""Apps' lifecycle webhooks: ``game.started``, ``round.ended`` and ``game.ended`` of the games an app owns,
POSTed to the app's ``webhook``, signed as Standard Webhooks with the app's secret (as hosted bots' turns are:
:mod:`api.service.webhooks` posts them, with its timeouts, address guard and per-host back-off).

Like a turn's due entry, a delivery is noted before the commit that makes its event, so that a process dying
in between loses nothing. :meth:`Lifecycle.prepare`, just before the commit of a change that starts a game,
ends a round or ends the game, renders each event's body once (from the spectator's view: no hidden tile
before the game ends; at a round's end its remaining hands are public, as at a table), keeps it under its
delivery id ``msg_<game id>_<version>_<event>`` (the ``webhook-id`` of every try, so that a receiver
recognises a retry) and the digest of the commit's events (:mod:`api.store.deliveries`), and marks it due as
pending (no try begun; an entry already there is left as it is). After the commit, :meth:`Lifecycle.emit`
records that this commit landed, marks the first try begun and hands the delivery to the outbox, all in one
transaction (:mod:`api.service.outbox`: drain jobs take deliveries by batches). When the process died
in between (or Redis failed it then), the sweep finds the pending entry due and looks at the events stored
at that version: if the game has them and a record of the commit with their digest is kept, that commit
landed, and the sweep records it and hands the delivery over; otherwise the commit failed or lost its race to
another one, and the entry is dropped. A failed try is tried again by the sweep after each step of
``DOMINO_WEBHOOK_BACKOFF``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import logging
import time
from collections.abc import Iterable, Mapping
from datetime import datetime, timezone
from typing import Any

import orjson

import domino
from api.config import Settings
from api.queues import Queues
from api.service.games import Game
from api.service.outbox import hand_over
from api.service.self_service import first_due
from api.service.records import HUMAN, GameRecord, StoredEvent, public_seats, waiting
from api.service.views import render_view
from api.store import Batch, Store, translated

log = logging.getLogger("api.service.app_events")

GAME_STARTED, ROUND_ENDED, GAME_ENDED = "game.started", "round.ended", "game.ended"
EVENT_TYPES = (GAME_STARTED, ROUND_ENDED, GAME_ENDED)
LIFECYCLE_EVENTS = EVENT_TYPES  # what an app's webhook subscribes to unless told otherwise
TURN_STARTED, TURN_REMINDER = "turn.started", "turn.reminder"  # a human seat's turn; its time running out
MATCH_FOUND = "match.found"  # the app's players' matchmaking tickets were matched (api/service/matchmaking)
CHALLENGE_RECEIVED = "challenge.received"  # one of the app's players was challenged (api/service/matchmaking/challenges.py)
WEBHOOK_EVENTS = (*EVENT_TYPES, TURN_STARTED, TURN_REMINDER, MATCH_FOUND, CHALLENGE_RECEIVED)


def delivery_id(game_id: str, version: int, event_type: str) -> str:
    return f"msg_{game_id}_{version}_{event_type.replace('.', '_')}"


def delivery_game(delivery_id: str) -> tuple[str, int]:
    """The game and the version of a delivery id (``msg_<game id>_<version>_<event>``: game ids have no ``_``);
    ("", 0) for a delivery of no game (a ping)."""
    parts = delivery_id.split("_", 3)
    return (parts[1], int(parts[2])) if len(parts) == 4 and parts[2].isdigit() else ("", 0)


def commit_digest(events: Iterable[Mapping[str, Any]]) -> str:
    """What tells one commit's stored events from another's at the same version (a race's loser's)."""
    return hashlib.sha256(b"\n".join(orjson.dumps(e) for e in events)).hexdigest()


@dataclasses.dataclass(frozen=True)
class Delivery:
    id: str
    commit: str  # the digest of its commit's events
    record: dict[str, Any]  # as kept: the app's id, the game's and the body (JSON)


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


def human_turn(doc: GameRecord, state: domino.State) -> int | None:
    """The human seat to move after a commit (None: a bot's turn, or the game is waiting or over)."""
    seat = state.to_move
    if state.finished or seat is None or waiting(doc) or doc["seats"][seat]["kind"] != HUMAN:
        return None
    return seat


def turn_payload(event_type: str, doc: GameRecord, version: int, seat: int) -> dict[str, Any]:
    """The body of a ``turn.started`` or ``turn.reminder`` delivery: whose turn, until when."""
    record = doc["seats"][seat]
    data: dict[str, Any] = {
        "game_id": doc["id"],
        "version": version,
        "variant": doc["variant"],
        "seat": seat,
        "name": record["name"],
        "player": record.get("player"),
        "deadline": doc.get("deadline"),
        "metadata": doc.get("metadata"),
    }
    return {"type": event_type, "timestamp": _stamp(), "data": data}


def match_payload(game_id: str, players: list[dict[str, Any]]) -> dict[str, Any]:
    """The body of a ``match.found`` delivery: the game the app's players were matched into, with each one's
    seat and ticket (its holder reads the seat's token from the ticket)."""
    return {"type": MATCH_FOUND, "timestamp": _stamp(), "data": {"game_id": game_id, "players": players}}


def challenge_payload(challenge: dict[str, Any], player: str) -> dict[str, Any]:
    """The body of a ``challenge.received`` delivery: the challenge as its addressee reads it, and the app's
    player it is for (who accepts or declines it with the app's key)."""
    return {"type": CHALLENGE_RECEIVED, "timestamp": _stamp(), "data": {"player": player, "challenge": challenge}}


def _stamp() -> str:
    stamp = datetime.fromtimestamp(time.time(), tz=timezone.utc).isoformat(timespec="milliseconds")
    return stamp.replace("+00:00", "Z")


def reminder_member(game_id: str, version: int) -> str:
    return f"{game_id}:{version}"


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
    return {"type": event_type, "timestamp": _stamp(), "data": data}


def subscriptions(app: Mapping[str, str]) -> tuple[str, ...]:
    """The webhook events an app's record subscribes to."""
    return tuple(app["events"].split(",")) if app.get("events") else LIFECYCLE_EVENTS


def listening(app: Mapping[str, str], event_type: str | None = None) -> bool:
    """Whether ``app`` takes deliveries (it has a webhook and is not revoked), of ``event_type`` if named."""
    if not app.get("webhook") or app.get("revoked_at"):
        return False
    return event_type is None or event_type in subscriptions(app)


@dataclasses.dataclass(frozen=True)
class Announced:
    """An event that is no commit's, for an app (:meth:`Lifecycle.announce`)."""

    app_id: str
    game_id: str
    version: int
    event_type: str
    body: dict[str, Any]
    of_game: bool = True


class Lifecycle:
    def __init__(self, store: Store, settings: Settings, queues: Queues) -> None:
        self.store = store
        self.settings = settings
        self.queues = queues

    def prepare(
        self, doc: GameRecord, version: int, state: domino.State, events: list[StoredEvent], stored: list[StoredEvent],
        batch: Batch | None = None, apps: Mapping[str, dict[str, str] | None] | None = None,
    ) -> list[Delivery]:  # fmt: skip
        """Before the commit of ``version`` (``events``, stored as ``stored``): keep the owning app's deliveries,
        if it has a webhook, and mark them due as pending (with ``batch``: once the caller writes it, before the
        commit). Redis trouble raises: nothing is committed. ``apps``: app records read for a batch of commits."""
        app_id = doc.get("app")
        if app_id is None:
            return []
        found = lifecycle(doc, version, events)
        seat = human_turn(doc, state)
        if not found and seat is None:
            return []
        app = apps[app_id] if apps is not None and app_id in apps else self.store.apps.get(app_id)
        if app is None or not listening(app):
            return []
        subscribed = subscriptions(app)
        found = [(t, e) for t, e in found if t in subscribed]
        if seat is not None and TURN_STARTED in subscribed:
            found.append((TURN_STARTED, {}))
        if seat is not None and TURN_REMINDER in subscribed:
            self._mark_reminder(doc, seat, version, batch)
        digest = commit_digest(stored)
        deliveries = []
        for event_type, event in found:
            if seat is not None and event_type == TURN_STARTED:
                body = orjson.dumps(turn_payload(event_type, doc, version, seat)).decode()
            else:
                body = orjson.dumps(payload(event_type, doc, version, state, event)).decode()
            record = {"app": app_id, "game": doc["id"], "body": body}
            deliveries.append(Delivery(delivery_id(doc["id"], version, event_type), digest, record))
        writes = batch if batch is not None else self.store.batch()
        for delivery in deliveries:
            ttl = self.settings.app_event_ttl
            self.store.app_deliveries.put(delivery.id, delivery.commit, delivery.record, ttl, batch=writes)
            self.store.app_hooks_due.mark(delivery.id, first_due(self.settings), attempt=0, only_new=True, batch=writes)
        if batch is None and deliveries:
            with translated():
                writes.execute()
        return deliveries

    def emit(self, deliveries: list[Delivery]) -> None:
        """After the commit, in one transaction: mark each delivery's record as this commit's and its first try
        begun, and hand it to the outbox (:mod:`api.service.outbox`: a drain job takes it). Redis trouble is
        logged: the commit has landed, the move's answer stands, the pending entries remain for the sweep."""
        if not deliveries:
            return
        try:
            ttl, batch = self.settings.app_event_ttl, self.store.batch()
            for delivery in deliveries:
                self.store.app_deliveries.put(delivery.id, delivery.commit, delivery.record, ttl, landed=True, batch=batch)
                self.store.app_hooks_due.mark(delivery.id, first_due(self.settings), attempt=1, batch=batch)
            hand_over(self.store, self.queues, [(delivery.id, 0) for delivery in deliveries], batch)
        except Exception:  # the pending entries let the sweep hand them over
            ids = [delivery.id for delivery in deliveries]
            log.warning("could not hand over the app's deliveries %s; the sweep will", ids, exc_info=True)

    def _mark_reminder(self, doc: GameRecord, seat: int, version: int, batch: Batch | None) -> None:
        """A turn that lasts at least ``reminder_min_turn`` (a fixed turn, or the seat's bank as its turn starts
        on a clock): its reminder is due when ``reminder_fraction`` of that time is left (marked before the
        commit; the sweep sends it if the game is still at ``version``)."""
        clock = doc.get("clock")
        timeout = clock["remaining"][seat] if clock is not None else doc.get("turn_timeout_s")
        deadline = doc.get("deadline")
        s = self.settings
        if timeout and deadline and timeout >= s.reminder_min_turn:
            due = deadline - s.reminder_fraction * timeout
            self.store.reminders_due.mark(reminder_member(doc["id"], version), due, batch=batch)

    def remind_many(self, games: list[Game]) -> list[bool]:
        """Send the ``turn.reminder`` of each game's current turn (its delivery id is the turn's: a reminder sent
        again after a crash is the same delivery), the batch at once: the apps' records read together, the
        deliveries as :meth:`announce` sends one. Whether each was sent (not when nobody is to be reminded)."""
        apps = self.store.apps.get_many(sorted({g.doc["app"] for g in games if g.doc.get("app")}))
        events = []
        for game in games:
            doc = game.doc
            seat = human_turn(doc, game.state)
            app = apps.get(doc.get("app", ""))
            if seat is not None and app is not None and listening(app, TURN_REMINDER):
                body = turn_payload(TURN_REMINDER, doc, game.version, seat)
                events.append(Announced(doc["app"], doc["id"], game.version, TURN_REMINDER, body))
        self._announce_many(events)
        sent = {event.game_id for event in events}
        return [game.id in sent for game in games]

    def announce(
        self, app_id: str, game_id: str, version: int, event_type: str, body: dict[str, Any], subscribed: bool = False,
        of_game: bool = True,
    ) -> bool:  # fmt: skip
        """Deliver an event that is no commit's (a reminder, a match found, a challenge) to the app if it
        subscribes to it (``subscribed``: known already), under a delivery id fixed by the game (``of_game``
        false: a challenge's id, no game to look for), version and event, so that one sent again after a crash
        is the same delivery. False when the app does not hear it."""
        if not subscribed:
            app = self.store.apps.get(app_id)
            if app is None or not listening(app, event_type):
                return False
        self._announce_many([Announced(app_id, game_id, version, event_type, body, of_game)])
        return True

    def _announce_many(self, events: list[Announced]) -> None:
        """Keep each event's delivery, landed, mark it due and hand it to the outbox, in one transaction (a
        crash before: nothing was kept; the caller sends it again, as the same delivery)."""
        if not events:
            return
        ttl, batch, tries = self.settings.app_event_ttl, self.store.batch(), []
        for event in events:
            delivery = delivery_id(event.game_id, event.version, event.event_type)
            body = orjson.dumps(event.body).decode()
            record: dict[str, Any] = {"app": event.app_id, "game": event.game_id, "body": body}
            if not event.of_game:
                record.update(game=None, checked=True)  # an event known to have happened: no game to look for
            self.store.app_deliveries.put(delivery, "announced", record, ttl, landed=True, batch=batch)
            self.store.app_hooks_due.mark(delivery, first_due(self.settings), attempt=1, batch=batch)
            tries.append((delivery, 0))
        hand_over(self.store, self.queues, tries, batch)
