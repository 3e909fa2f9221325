"""Third-party apps: an app key is a bearer credential for app-level calls.

``domino-admin apps create NAME`` makes an app and prints its key once: ``dsk_app_`` + 32 random bytes
(urlsafe base64), a prefix no seat token has (those are bare base64), so the two are never confused and a
secret scanner can find a leaked key. Only the key's SHA-256 is stored (a key has 256 random bits, so a
plain hash is as good as a slow one), and a key is looked up by its hash; the stored hash is compared again
in constant time. Rotating makes a new key and webhook secret and retires the old key at once; revoking
retires it. Either takes effect on the next request.

Games created with an app key belong to the app (``GET /v1/games?owner=me``), count against its cap of
unfinished games, and its webhook hears of what it subscribes to (``events``: their lifecycle by default,
the turns of their human seats and reminders on request; :mod:`api.service.app_events`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import hmac
import secrets
import time
from typing import Any

from api.config import Settings
from api.service.app_events import LIFECYCLE_EVENTS, WEBHOOK_EVENTS
from api.service.errors import InvalidRequest, Unauthorized
from api.service import webhooks
from api.service.security import new_id
from api.store import Store

APP_KEY_PREFIX = "dsk_app_"


def new_app_key() -> str:
    return APP_KEY_PREFIX + secrets.token_urlsafe(32)


def is_app_key(token: str) -> bool:
    return token.startswith(APP_KEY_PREFIX)


def key_hash(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()


@dataclasses.dataclass(frozen=True)
class App:
    """An app as the service uses it; ``key_hash`` and ``webhook_secret`` never leave the service."""

    id: str
    name: str
    webhook: str | None
    rate_limit: str  # "<requests>/<seconds>"; "0": no limit of its own
    max_games: int  # games waiting or playing at once; 0: no cap
    created_at: float
    revoked_at: float | None = None
    events: tuple[str, ...] = LIFECYCLE_EVENTS  # what its webhook subscribes to
    key_hash: str = dataclasses.field(default="", repr=False)
    webhook_secret: str = dataclasses.field(default="", repr=False)

    @classmethod
    def from_record(cls, record: dict[str, str]) -> App:
        return cls(
            id=record["id"],
            name=record["name"],
            webhook=record.get("webhook") or None,
            rate_limit=record.get("rate_limit", ""),
            max_games=int(record.get("max_games", "0")),
            created_at=float(record["created_at"]),
            revoked_at=float(record["revoked_at"]) if record.get("revoked_at") else None,
            events=tuple(record["events"].split(",")) if record.get("events") else LIFECYCLE_EVENTS,
            key_hash=record.get("key_hash", ""),
            webhook_secret=record.get("webhook_secret", ""),
        )

    def public(self) -> dict[str, Any]:
        """What ``GET /v1/app`` and ``domino-admin apps list`` show: never the key, its hash or the secret."""
        return {
            "id": self.id,
            "name": self.name,
            "webhook": self.webhook,
            "rate_limit": self.rate_limit,
            "max_games": self.max_games,
            "created_at": self.created_at,
            "revoked": self.revoked_at is not None,
            "events": list(self.events),
        }


@dataclasses.dataclass(frozen=True)
class Issued:
    """An app with its key and webhook secret, as ``create`` and ``rotate`` show them: once."""

    app: App
    key: str
    webhook_secret: str | None


def check_events(text: str) -> tuple[str, ...]:
    """A comma-separated list of webhook event names (each once, in the order of :data:`WEBHOOK_EVENTS`)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in WEBHOOK_EVENTS]
    if unknown or not names:
        said = ", ".join(repr(n) for n in unknown) or "none"
        raise InvalidRequest(f"Unknown webhook events: {said}. The events are {', '.join(WEBHOOK_EVENTS)}.")
    return tuple(e for e in WEBHOOK_EVENTS if e in names)


def check_rate_limit(text: str) -> str:
    """``"<requests>/<seconds>"`` with both positive, or ``"0"`` (none); else InvalidRequest."""
    limit, _, window = text.strip().partition("/")
    if text.strip() == "0":
        return "0"
    if not (limit.isdigit() and window.isdigit() and int(limit) > 0 and int(window) > 0):
        raise InvalidRequest(f"A rate limit is `<requests>/<seconds>` (like 6000/60), not {text!r}.")
    return f"{int(limit)}/{int(window)}"


class Apps:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    def create(
        self, name: str, webhook: str | None, rate_limit: str | None, max_games: int | None, events: str | None = None
    ) -> Issued:
        if not 1 <= len(name) <= 64 or not name.isprintable():
            raise InvalidRequest("An app's name is 1-64 printable characters.")
        if webhook is not None and webhooks.check_url(webhook):
            raise InvalidRequest(f"The webhook {webhooks.check_url(webhook)}.")
        limit = check_rate_limit(rate_limit or self.settings.app_rate_limit)
        cap = self.settings.app_max_games if max_games is None else max_games
        if cap < 0:
            raise InvalidRequest("--max-games is 0 (no cap) or more.")
        subscribed = LIFECYCLE_EVENTS if events is None else check_events(events)
        key, secret = new_app_key(), webhooks.new_secret() if webhook else None
        record = {
            "id": new_id(),
            "name": name,
            "key_hash": key_hash(key),
            "webhook": webhook or "",
            "webhook_secret": secret or "",
            "rate_limit": limit,
            "max_games": str(cap),
            "created_at": repr(time.time()),
            "events": ",".join(subscribed),
        }
        if not self.store.apps.add(record):
            raise InvalidRequest(f"An app named {name!r} exists.")
        return Issued(App.from_record(record), key, secret)

    def authenticate(self, key: str) -> App:
        """The app whose current key is ``key``; Unauthorized for an unknown, rotated or revoked one."""
        wanted = key_hash(key)
        record = self.store.apps.by_key_hash(wanted)
        if record is None or not hmac.compare_digest(record.get("key_hash", ""), wanted) or record.get("revoked_at"):
            raise Unauthorized("This app key is unknown, rotated or revoked.")
        return App.from_record(record)

    def find(self, id_or_name: str) -> App:
        """An app by its id or its name (``domino-admin``)."""
        record = self.store.apps.get(id_or_name)
        if record is None:
            app_id = self.store.apps.id_named(id_or_name)
            record = None if app_id is None else self.store.apps.get(app_id)
        if record is None:
            raise InvalidRequest(f"No app {id_or_name!r}.")
        return App.from_record(record)

    def all(self) -> list[App]:
        records = (self.store.apps.get(app_id) for app_id in self.store.apps.ids())
        return [App.from_record(r) for r in records if r is not None]

    def rotate(self, id_or_name: str) -> Issued:
        """A new key and webhook secret; the old key stops working at once."""
        app = self.find(id_or_name)
        if app.revoked_at is not None:
            raise InvalidRequest(f"App {app.name!r} is revoked.")
        key, secret = new_app_key(), webhooks.new_secret() if app.webhook else None
        changes = {"key_hash": key_hash(key), "webhook_secret": secret or ""}
        self.store.apps.replace_key(app.id, app.key_hash, changes)
        return Issued(dataclasses.replace(app, key_hash=changes["key_hash"], webhook_secret=secret or ""), key, secret)

    def update(self, id_or_name: str, events: str | None) -> App:
        """Change what the app's webhook subscribes to (``events``: comma-separated names)."""
        app = self.find(id_or_name)
        if events is None:
            return app
        subscribed = check_events(events)
        self.store.apps.update(app.id, {"events": ",".join(subscribed)})
        return dataclasses.replace(app, events=subscribed)

    def revoke(self, id_or_name: str) -> App:
        """The key stops working at once; the app's games play on, and its record stays listed as revoked."""
        app = self.find(id_or_name)
        now = time.time()
        self.store.apps.replace_key(app.id, app.key_hash, {"revoked_at": repr(now)})
        return dataclasses.replace(app, revoked_at=now)
