"""The app use cases of :class:`api.service.service.Service` (keys, webhooks and their deliveries, operators'
commands), in their own module so that the Service stays one screenful per area."""

from __future__ import annotations

from typing import Any

from api.service.apps import DEFAULT_GRACE_S, App, Apps, Issued
from api.service.registered_bots import RegisteredBots
from api.service.self_service import SelfService


class AppCalls:
    apps: Apps
    self_service: SelfService
    registry: RegisteredBots

    def authenticate_app(self, key: str) -> App:
        """The app whose current key ``key`` is; Unauthorized for an unknown, rotated or revoked key."""
        return self.apps.authenticate(key)

    def create_app(
        self, name: str, webhook: str | None, rate_limit: str | None, max_games: int | None, events: str | None = None
    ) -> Issued:
        """A new app, its key and its webhook secret (shown once); ``events``: what its webhook subscribes to
        (comma-separated names; default the lifecycle's three)."""
        return self.apps.create(name, webhook, rate_limit, max_games, events)

    def update_app(self, id_or_name: str, events: str | None) -> App:
        return self.apps.update(id_or_name, events)

    def change_app(self, app: App, changes: dict[str, Any]) -> tuple[App, str | None]:
        """The calling app's own changes (webhook, events): the app, and a new webhook secret if one was made."""
        return self.apps.change(app, changes)

    def app_deliveries(self, app: App, before: tuple[float, str] | None, limit: int) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
        """What the app's webhook was sent (the last 7 days, at most 1,000), newest first: (page, next cursor)."""
        return self.self_service.deliveries(app, before, limit)

    def redeliver(self, app: App, delivery_id: str) -> dict[str, Any]:
        return self.self_service.redeliver(app, delivery_id)

    def ping_webhook(self, app: App) -> dict[str, Any]:
        return self.self_service.ping(app)

    def list_apps(self) -> list[App]:
        return self.apps.all()

    def rotate_app_key(self, id_or_name: str, grace_s: int = DEFAULT_GRACE_S) -> Issued:
        """A new key; the old one keeps working ``grace_s`` seconds (0: retired at once)."""
        return self.apps.rotate(id_or_name, grace_s)

    def rotate_webhook_secret(self, id_or_name: str, grace_s: int = DEFAULT_GRACE_S) -> Issued:
        """A new webhook secret; deliveries are signed with both for ``grace_s`` seconds."""
        return self.apps.rotate_secret(id_or_name, grace_s)

    def revoke_app(self, id_or_name: str) -> App:
        """Its keys stop at once, and its bots are retired (their tokens stop too)."""
        app = self.apps.revoke(id_or_name)
        self.registry.retire_owned(app.id)
        return app
