"""Third-party apps: an app key is a bearer credential for app-level calls.

``domino-admin apps create NAME`` makes an app and prints its key once: ``dsk_app_`` + 32 random bytes
(urlsafe base64), a prefix no seat token has (those are bare base64), so the two are never confused and a
secret scanner can find a leaked key. Only the key's SHA-256 is stored (a key has 256 random bits, so a
plain hash is as good as a slow one), and a key is looked up by its hash; the stored hash is compared again
in constant time.

Rotating the key (``domino-admin apps rotate NAME --grace 24h``) makes a new key and keeps the old one working
until its grace ends, so an app swaps keys without a failed request; the webhook secret rotates on its own
(``rotate-secret``), and during its grace every delivery is signed with both secrets (Standard Webhooks allows
several signatures), so a receiver that still checks the old one, or already the new one, verifies each
delivery, retries of events queued before the rotation too. Only one earlier key (or secret) is kept: rotating
again ends the grace of the one before. Revoking retires every key at once, on the next request.

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
GRACE_UNITS = {"s": 1, "m": 60, "h": 3600, "d": 86400}
DEFAULT_GRACE_S = 24 * 3600  # how long a rotated key or secret keeps working unless told otherwise
MAX_GRACE_S = 30 * 86400


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
    old_key_hash: str = dataclasses.field(default="", repr=False)  # the key before the last rotation ...
    old_key_until: float = 0.0  # ... works until then
    old_secret: str = dataclasses.field(default="", repr=False)  # the webhook secret before ...
    old_secret_until: float = 0.0  # ... signs deliveries (beside the current one) until then
    key_used: str = "current"  # which key the request carried: "current" or "previous"

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
            old_key_hash=record.get("old_key_hash", ""),
            old_key_until=float(record.get("old_key_until") or 0),
            old_secret=record.get("old_secret", ""),
            old_secret_until=float(record.get("old_secret_until") or 0),
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
            "keys": _generations(self.old_key_hash, self.old_key_until, self.key_used),
            "webhook_secrets": _generations(self.old_secret, self.old_secret_until) if self.webhook else [],
        }


def _generations(old: str, until: float, used: str | None = None) -> list[dict[str, Any]]:
    """The current key (or secret), and the previous one while its grace lasts: when each stops working
    (never the key itself); ``used``: which one this request carried."""
    found: list[dict[str, Any]] = [{"generation": "current", "expires_at": None}]
    if old and until > time.time():
        found.append({"generation": "previous", "expires_at": round(until, 3)})
    if used is not None:
        for entry in found:
            entry["in_use"] = entry["generation"] == used
    return found


@dataclasses.dataclass(frozen=True)
class Issued:
    """An app with its key and webhook secret, as ``create`` and the rotations show them: once (None: not
    changed)."""

    app: App
    key: str | None
    webhook_secret: str | None


def check_events(text: str) -> tuple[str, ...]:
    """A comma-separated list of webhook event names (each once, in the order of :data:`WEBHOOK_EVENTS`)."""
    names = [n.strip() for n in text.split(",") if n.strip()]
    unknown = [n for n in names if n not in WEBHOOK_EVENTS]
    if unknown or not names:
        said = ", ".join(repr(n) for n in unknown) or "none"
        raise InvalidRequest(f"Unknown webhook events: {said}. The events are {', '.join(WEBHOOK_EVENTS)}.")
    return tuple(e for e in WEBHOOK_EVENTS if e in names)


def parse_grace(text: str) -> int:
    """A grace period in seconds from ``90s``, ``30m``, ``24h``, ``7d`` or bare seconds (``0``: none)."""
    text = text.strip().lower()
    unit = GRACE_UNITS.get(text[-1:]) if text else None
    number = text[:-1] if unit else text
    if not number.isdigit() or int(number) * (unit or 1) > MAX_GRACE_S:
        raise InvalidRequest(f"A grace is a number of seconds, or like 90s, 30m, 24h, 7d (at most 30d), not {text!r}.")
    return int(number) * (unit or 1)


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
        if webhook is not None and (why := webhooks.refusal(webhook, self.settings.webhook_allow_private)):
            raise InvalidRequest(f"The webhook {why}.")
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
        """The app whose current key is ``key``, or whose previous one during its grace; Unauthorized for an
        unknown, revoked or retired one."""
        wanted = key_hash(key)
        record = self.store.apps.by_key_hash(wanted)
        app = None if record is None or record.get("revoked_at") else App.from_record(record)
        if app is not None and hmac.compare_digest(app.key_hash, wanted):
            return app
        if app is not None and hmac.compare_digest(app.old_key_hash, wanted) and app.old_key_until > time.time():
            return dataclasses.replace(app, key_used="previous")
        raise Unauthorized("This app key is unknown, rotated out or revoked.")

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

    def rotate(self, id_or_name: str, grace_s: int = DEFAULT_GRACE_S) -> Issued:
        """A new key; the old one keeps working for ``grace_s`` seconds (0: it stops at once)."""
        app = self._active(id_or_name)
        key = new_app_key()
        until = time.time() + grace_s if grace_s else 0.0
        self.store.apps.rotate_key(app.id, app.key_hash, key_hash(key), app.old_key_hash, grace_s, until)
        changed = dataclasses.replace(app, key_hash=key_hash(key), old_key_hash=app.key_hash if grace_s else "", old_key_until=until)
        return Issued(changed, key, None)

    def rotate_secret(self, id_or_name: str, grace_s: int = DEFAULT_GRACE_S) -> Issued:
        """A new webhook secret; deliveries are signed with the old one too for ``grace_s`` seconds."""
        app = self._active(id_or_name)
        if not app.webhook:
            raise InvalidRequest(f"App {app.name!r} has no webhook, so no secret to rotate.")
        secret = webhooks.new_secret()
        until = time.time() + grace_s if grace_s else 0.0
        changes = {"webhook_secret": secret, "old_secret": app.webhook_secret if grace_s else "", "old_secret_until": repr(until)}
        self.store.apps.update(app.id, changes)
        changed = dataclasses.replace(app, webhook_secret=secret, old_secret=changes["old_secret"], old_secret_until=until)
        return Issued(changed, None, secret)

    def _active(self, id_or_name: str) -> App:
        app = self.find(id_or_name)
        if app.revoked_at is not None:
            raise InvalidRequest(f"App {app.name!r} is revoked.")
        return app

    def update(self, id_or_name: str, events: str | None) -> App:
        """Change what the app's webhook subscribes to (``events``: comma-separated names)."""
        app = self.find(id_or_name)
        if events is None:
            return app
        subscribed = check_events(events)
        self.store.apps.update(app.id, {"events": ",".join(subscribed)})
        return dataclasses.replace(app, events=subscribed)

    def change(self, app: App, changes: dict[str, Any]) -> tuple[App, str | None]:
        """The app's own changes (``PATCH /v1/app``): ``webhook`` (null: none; judged as at creation) and
        ``events``. A webhook where there was none gets a new secret (returned, shown once); another URL keeps
        it; none drops it."""
        fields: dict[str, str] = {}
        secret = None
        if "events" in changes:
            fields["events"] = ",".join(check_events(",".join(changes["events"])))
        if "webhook" in changes:
            url = changes["webhook"]
            if url and (why := webhooks.refusal(url, self.settings.webhook_allow_private)):
                raise InvalidRequest(f"The webhook {why}.", errors={"json": {"webhook": [why]}})
            fields["webhook"] = url or ""
            if url and not app.webhook:
                secret = fields["webhook_secret"] = webhooks.new_secret()
            elif not url:
                fields.update(webhook_secret="", old_secret="", old_secret_until="0")
        if fields:
            self.store.apps.update(app.id, fields)
        record = self.store.apps.get(app.id) or {}
        return dataclasses.replace(App.from_record(record), key_used=app.key_used), secret

    def revoke(self, id_or_name: str) -> App:
        """Every key stops working at once; the app's games play on, and its record stays listed as revoked."""
        app = self.find(id_or_name)
        now = time.time()
        self.store.apps.revoke(app.id, [app.key_hash, app.old_key_hash], repr(now))
        return dataclasses.replace(app, revoked_at=now)
