"""``domino-admin``: operators' commands, talking to Redis through the service (``DOMINO_REDIS_URL``,
``DOMINO_QUEUE_URL``, ``DOMINO_KEY_PREFIX`` as the API's).

``domino-admin apps create NAME [--webhook URL] [--rate-limit 6000/60] [--max-games N] [--events a,b]`` prints the
app's key (and its webhook secret) once; ``apps update APP --events a,b`` changes what its webhook hears; ``apps list``,
``apps rotate APP [--grace 24h]`` (a new key; the old one works until its grace ends, ``--grace 0``: at once),
``apps rotate-secret APP [--grace 24h]`` (a new webhook secret; deliveries are signed with both until the grace
ends) and ``apps revoke APP`` (every key stops working at once) take an app's id or name.

``domino-admin archive migrate`` brings the archive's schema (``DOMINO_ARCHIVE_URL``) to the newest migration:
run it once per release before the API and workers start (``domino-serve`` does it itself for its SQLite);
``archive status`` prints the migration the archive is at and how many games it holds.

``domino-admin fairplay player APP PLAYER [--games 20] [--wait 30]`` and ``fairplay bot NAME [...]``: the operator
reads (or queues) any app's player's or any registered bot's fair-play screen, as its owner would, and prints
it as JSON (docs/analysis.md#fair-play-screen).
"""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime, timezone

from api.archive import ArchiveUnavailable
from api.config import Settings
from api.service.errors import InvalidRequest, ServiceError
from api.service.app_events import LIFECYCLE_EVENTS, WEBHOOK_EVENTS
from api.service.apps import Issued, parse_grace
from api.service.service import Service
from api.store import StoreUnavailable


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="domino-admin", description=__doc__.split("\n\n")[0])
    groups = parser.add_subparsers(dest="group", required=True)
    apps = groups.add_parser("apps", help="third-party apps and their keys").add_subparsers(dest="command", required=True)
    create = apps.add_parser("create", help="make an app; prints its key (and webhook secret) once")
    create.add_argument("name")
    create.add_argument("--webhook", help="https:// URL for signed game.started, round.ended and game.ended deliveries")
    create.add_argument("--rate-limit", help="<requests>/<seconds> for this app's key (default DOMINO_APP_RATE_LIMIT)")
    create.add_argument("--max-games", type=int, help="games waiting or playing at once, 0: no cap (default DOMINO_APP_MAX_GAMES)")
    events = f"comma-separated webhook events, of {', '.join(WEBHOOK_EVENTS)} (default {','.join(LIFECYCLE_EVENTS)})"
    create.add_argument("--events", help=events)
    update = apps.add_parser("update", help="change what an app's webhook subscribes to")
    update.add_argument("app", help="the app's id or name")
    update.add_argument("--events", required=True, help=events)
    apps.add_parser("list", help="every app: id, name, limits, webhook, whether revoked (never keys)")
    rotations = (
        ("rotate", "a new key; the old one works until the grace ends"),
        ("rotate-secret", "a new webhook secret; deliveries are signed with both until the grace ends"),
    )
    for command, text in rotations:
        rotate = apps.add_parser(command, help=text)
        rotate.add_argument("app", help="the app's id or name")
        rotate.add_argument("--grace", default="24h", help="how long the old one keeps working: 90s, 30m, 24h, 7d, 0 (default 24h)")
    apps.add_parser("revoke", help="every key stops working").add_argument("app", help="the app's id or name")
    archive = groups.add_parser("archive", help="the archive of finished games (DOMINO_ARCHIVE_URL)")
    archive_commands = archive.add_subparsers(dest="command", required=True)
    archive_commands.add_parser("migrate", help="bring the schema to the newest migration (safe to run again)")
    archive_commands.add_parser("status", help="the migration it is at, and how many games it holds")
    fairplay = groups.add_parser("fairplay", help="fair-play screens of any app's player or any registered bot")
    subjects = fairplay.add_subparsers(dest="command", required=True)
    player = subjects.add_parser("player", help="an app's player: queue or read its screen")
    player.add_argument("app", help="the app's id or name")
    player.add_argument("name", help="the app's id of the player")
    subjects.add_parser("bot", help="a registered bot: queue or read its screen").add_argument("name")
    for subject in (player, subjects.choices["bot"]):
        subject.add_argument("--games", type=int, default=20, choices=range(1, 101), metavar="1-100", help="last finished games (20)")
        subject.add_argument("--wait", type=float, default=0.0, help="seconds to wait for it to be done (at most 30)")
    return parser


def _issued(issued: Issued, verb: str) -> None:
    app = issued.app
    print(f"app {verb}: {app.name} (id {app.id})")
    if issued.key:
        print(f"key: {issued.key}")
    if issued.webhook_secret:
        print(f"webhook secret: {issued.webhook_secret}")
    print("Shown only now: store it safely.")


def _grace(what: str, until: float) -> None:
    if until:
        print(f"The previous {what} keeps working until {datetime.fromtimestamp(until, tz=timezone.utc):%Y-%m-%d %H:%M:%S} UTC.")
    else:
        print(f"The previous {what} no longer works.")


def _archive(service: Service, command: str) -> None:
    if command == "migrate":
        print(f"archive {service.archive.dialect}: at migration {service.migrate_archive()}")
    else:
        ping = service.archive.ping()
        print(f"archive {ping['dialect']}: at migration {ping['revision']} (newest {service.archive.head()}), "
              f"{service.archive.count()} games")  # fmt: skip


def _run(service: Service, args: argparse.Namespace) -> None:
    if args.group == "archive":
        _archive(service, args.command)
    elif args.group == "fairplay":
        found = service.operator_fairplay(args.command, args.name, getattr(args, "app", None), args.games, args.wait)
        print(json.dumps(found, indent=2))
    elif args.command == "create":
        _issued(service.create_app(args.name, args.webhook, args.rate_limit, args.max_games, args.events), "created")
    elif args.command == "update":
        app = service.update_app(args.app, args.events)
        print(f"app updated: {app.name} (id {app.id}); events: {','.join(app.events)}")
    elif args.command == "rotate":
        issued = service.rotate_app_key(args.app, parse_grace(args.grace))
        _issued(issued, "key rotated")
        _grace("key", issued.app.old_key_until)
    elif args.command == "rotate-secret":
        issued = service.rotate_webhook_secret(args.app, parse_grace(args.grace))
        _issued(issued, "webhook secret rotated")
        _grace("webhook secret", issued.app.old_secret_until)
    elif args.command == "revoke":
        app = service.revoke_app(args.app)
        print(f"app revoked: {app.name} (id {app.id}); its key no longer works")
    else:
        print("id\tname\tstatus\trate_limit\tmax_games\twebhook\tevents")
        for app in service.list_apps():
            status = "revoked" if app.revoked_at is not None else "active"
            row = f"{app.id}\t{app.name}\t{status}\t{app.rate_limit}\t{app.max_games}\t{app.webhook or '-'}"
            print(f"{row}\t{','.join(app.events)}")


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        _run(Service(Settings.from_env()), args)
    except InvalidRequest as exc:
        print(f"domino-admin: {exc.detail}", file=sys.stderr)
        return 2
    except ServiceError as exc:  # no such bot, nothing to screen, too many screens queued
        print(f"domino-admin: {exc.detail}", file=sys.stderr)
        return 1
    except StoreUnavailable:
        print("domino-admin: Redis does not answer (DOMINO_REDIS_URL)", file=sys.stderr)
        return 1
    except ArchiveUnavailable as exc:
        print(f"domino-admin: {exc} (DOMINO_ARCHIVE_URL)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
