"""Hosted bots, and registered bots with a webhook: on their turn, a worker POSTs the turn notice (the seat's
legal moves and view: :func:`api.service.notices.turn_notice`) to the webhook.

Signed as Standard Webhooks (https://www.standardwebhooks.com), with the ``standardwebhooks`` package:
``webhook-id`` (the same on every retry of one turn), ``webhook-timestamp`` (Unix seconds) and
``webhook-signature`` = ``v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`` with the seat's secret
``whsec_<base64>``, returned once when the game is created (a registered bot's: once, when it is registered).
The bot answers through the move endpoint with its seat token (a registered bot: its bot token).

Deliveries run on the ``webhooks`` queue: the job prepares the delivery (:meth:`Webhooks.dispatch`) and hands
it to the worker process's threads, many at once and fair per owner (:mod:`api.service.deliveries`), which
POST it (:meth:`Webhooks.send`), each thread on a connection it keeps open to the host
(:mod:`api.service.keepalive`). Redirects are never followed, the timeouts are short (connect
``webhook_connect_timeout``, read ``webhook_timeout``, and ``webhook_first_timeout`` for a host never seen
answering), only ``http``/``https`` URLs are accepted, and only public addresses are called (unless
``DOMINO_WEBHOOK_ALLOW_PRIVATE``), the address judged being the one connected to
(:mod:`api.service.addresses`). A host that does not answer is backed off (``webhook_host_delays``, counted
in Redis per host name for DNS and per address and port for connections): while it is, its deliveries
return at once instead of holding a thread. A failed delivery
is tried again by the sweep (:mod:`api.service.sweep`) after ``Settings.webhook_delays`` (the due times
live in Redis, so they survive restarts); a bot that never answers is covered by the game's turn timeout.
"""

from __future__ import annotations

import base64
import dataclasses
import functools
import logging
import secrets
import ssl
import time
from collections.abc import Callable
from datetime import datetime, timezone
from typing import Any
from urllib.parse import urlsplit

import certifi
import httpx
import orjson
from standardwebhooks.webhooks import Webhook

from api.config import Settings
from api.service import deliveries, keepalive, self_service
from api.service.addresses import Refused, host_key, literal, literal_target, pin
from api.service.games import Games
from api.service.notices import turn_notice
from api.service.records import HOSTED, REGISTERED, GameRecord, SeatRecord
from api.service.turns import webhook_member
from api.store import Batch, DueSet, Store, translated

log = logging.getLogger("api.service.webhooks")

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


def refusal(url: str, allow_private: bool) -> str | None:
    """Why ``url`` cannot be an app's or a registered bot's webhook, judged without DNS (None: it can): not an
    http(s) URL, or a literal address that is not public (unless ``allow_private``). Where a name resolves
    to is judged at each delivery."""
    why = check_url(url)
    return literal_target(url) if why is None and not allow_private else why


def app_secrets(app: dict[str, str], now: float | None = None) -> list[str]:
    """What an app's deliveries are signed with now (its record): the secret before the last rotation while
    its grace lasts, then the current one."""
    until = float(app.get("old_secret_until") or 0)
    old = [app["old_secret"]] if app.get("old_secret") and until > (time.time() if now is None else now) else []
    return [*old, app.get("webhook_secret", "")]


def message_id(game_id: str, version: int) -> str:
    return f"turn_{game_id}_{version}"


def signed_request(secret: str | list[str], msg_id: str, body: bytes, timestamp: float | None = None) -> dict[str, str]:
    """The headers of a signed delivery of ``body``: one signature per secret, space-separated (Standard
    Webhooks: a receiver accepts the delivery when any one of them checks out)."""
    ts = datetime.fromtimestamp(int(time.time() if timestamp is None else timestamp), tz=timezone.utc)
    keys = [secret] if isinstance(secret, str) else secret
    signature = " ".join(Webhook(key).sign(msg_id, ts, body.decode()) for key in keys)
    return {
        "content-type": "application/json",
        "user-agent": USER_AGENT,
        "webhook-id": msg_id,
        "webhook-timestamp": str(int(ts.timestamp())),
        "webhook-signature": signature,
    }


def _tls() -> ssl.SSLContext:
    """The TLS settings of a delivery: httpx's own (certifi's authorities, verified), made once per trust store,
    since a client given none loads the authorities' file again: about 25 ms of CPU, more than the rest of a
    delivery."""
    return _tls_trusting(certifi.where())


@functools.cache
def _tls_trusting(authorities: str) -> ssl.SSLContext:
    return ssl.create_default_context(cafile=authorities)  # what httpx makes of verify=True, trust_env=False


@dataclasses.dataclass(frozen=True)
class Outgoing:
    """A delivery ready to POST: whose it is (its turn in :mod:`api.service.deliveries`), its due entry, what
    to send, and what to do once it is delivered."""

    owner: str
    due: DueSet
    member: str
    url: str
    body: bytes
    headers: dict[str, str]
    attempt: int
    label: str
    lane: str  # its game: a game's deliveries go one at a time, in order
    turn: tuple[str, int] | None = None  # a turn's (game, version): not sent once the game has moved on
    delivered: Callable[[], None] | None = None
    # (outcome, code, ms, last, batch): an app's log note, which writes the batch of the try's outcome with it
    tried: Callable[[str, int | None, float, bool, Batch], None] | None = None


def turn_owner(game_id: str, doc: GameRecord) -> str:
    """Whose a turn delivery is, for fairness: the game's app, else the client that created it, else itself."""
    if doc.get("app"):
        return f"app:{doc.get('app')}"
    if doc.get("creator"):
        return f"client:{doc.get('creator')}"
    return f"game:{game_id}"


class Webhooks:
    def __init__(self, store: Store, settings: Settings, games: Games) -> None:
        self.store = store
        self.settings = settings
        self.games = games

    def dispatch(self, game_id: str, version: int, attempt: int) -> str:
        """The job: prepare the turn's delivery and hand it to this process's deliveries, fair per owner."""
        return self._hand_over(self.prepare_turn(game_id, version, attempt))

    def deliver(self, game_id: str, version: int, attempt: int) -> str:
        """Deliver the turn of ``version`` here and now (what a delivery thread does): its outcome."""
        prepared = self.prepare_turn(game_id, version, attempt)
        return prepared if isinstance(prepared, str) else self.send(prepared)

    def _hand_over(self, prepared: Outgoing | str, wait: float = 0.0) -> str:
        """To this process's deliveries; an owner whose backlog is full is waited for up to ``wait`` seconds."""
        if isinstance(prepared, str):
            return prepared
        s = self.settings
        return deliveries.pool(s.webhook_concurrency, s.webhook_per_owner).submit(
            prepared.owner, prepared.member, lambda: self.send(prepared), prepared.lane, wait
        )

    def prepare_turn(self, game_id: str, version: int, attempt: int) -> Outgoing | str:
        """The turn of ``version`` for the hosted bot to move, signed; or why there is nothing to send."""
        member = webhook_member(game_id, version)
        found = self.games.find(game_id)
        if found is None:
            self.store.hooks_due.clear(member)
            return "gone"
        doc, state = found.doc, found.state
        seat = state.to_move
        if found.version != version or state.finished or seat is None or doc["seats"][seat]["kind"] not in (HOSTED, REGISTERED):
            self.store.hooks_due.clear(member)
            return "stale"
        notice = turn_notice(doc, version, state, seat)
        url, secret, bot = self._target(doc["seats"][seat])
        if not url:  # a registered bot whose webhook was removed since: its stream has the turn instead
            self.store.bots.push([(bot, notice)])
            self.store.hooks_due.clear(member)
            return "streamed"
        body = orjson.dumps(notice)
        headers = signed_request(secret, message_id(game_id, version), body)
        headers["webhook-attempt"] = str(attempt + 1)
        answered = (lambda: self.store.bots.answered(bot)) if bot else None  # a bot that answers is available
        label = f"webhook {game_id}@{version}"
        owner = turn_owner(game_id, doc)
        due = self.store.hooks_due
        return Outgoing(owner, due, member, url, body, headers, attempt, label, game_id, (game_id, version), answered)

    def _target(self, seat: SeatRecord) -> tuple[str, str, str]:
        """(URL, signing secret, registered bot's name or "") of the seat's deliveries: a hosted seat's own, a
        registered bot's from its record (as its owner last set them)."""
        if seat["kind"] != REGISTERED:
            return seat.get("webhook", ""), seat.get("webhook_secret", ""), ""
        name = seat.get("bot", "")
        found = self.store.bots.get(name)
        record = found[0] if found is not None else {}
        return record.get("webhook") or "", record.get("webhook_secret") or "", name

    def drain_app_events(self, limit: int, budget: float, linger: float) -> tuple[int, bool]:
        """The drain job (:mod:`api.service.outbox`): tries of apps' deliveries out of the outbox by batches of
        ``limit``, each prepared together and handed to this process's deliveries, for up to ``budget`` seconds,
        waiting up to ``linger`` for more when none is left (a steady flow is served by one job, not a job each
        few moves); then the drainer flag is released. An owner whose backlog is full is waited for, up to
        ``webhook_first_timeout`` a batch (a fast receiver frees its slots within it; a slow one's deliveries
        stay due, for the sweep). (How many were taken, whether more wait.)"""
        outbox, end, taken = self.store.app_outbox, time.monotonic() + budget, 0
        while True:
            outbox.hold()  # pushes meanwhile enqueue no other job: this one takes them
            tries = outbox.take_within(limit, min(linger, max(0.0, end - time.monotonic())))
            if not tries:
                break
            taken += len(tries)
            until = time.monotonic() + self.settings.webhook_first_timeout
            for prepared in self.prepare_app_events(tries):
                self._hand_over(prepared, wait=max(0.0, until - time.monotonic()))
            if time.monotonic() >= end:
                break
        return taken, outbox.release()

    def prepare_app_events(self, tries: list[tuple[str, int]]) -> list[Outgoing | str]:
        """Apps' events (:mod:`api.service.app_events`), each (delivery id, attempt) of ``tries`` for its app's
        webhook, signed with the app's secrets as they are when it is sent (:func:`app_secrets`); retried like a
        turn. The records, apps and games of the batch are read together; those going out are noted pending in
        their apps' logs. A delivery is dropped when it, its app or the app's webhook is gone, the app revoked,
        or its game gone (a create undone after a lost race; a redelivery or a ping is ``checked``: known to
        have happened)."""
        records = self.store.app_deliveries.get_many([delivery_id for delivery_id, _ in tries])
        apps = self.store.apps.get_many(sorted({r["app"] for r in records if r is not None}))
        games = sorted({r["game"] for r in records if r is not None and not r.get("checked")})
        versions = self.store.games.versions(games) if games else {}
        out: list[Outgoing | str] = []
        gone, going = [], []
        for (delivery_id, attempt), record in zip(tries, records):
            app = None if record is None else apps.get(record["app"])
            if record is None or app is None or app.get("revoked_at") or not app.get("webhook") or (
                not record.get("checked") and versions.get(record["game"]) is None
            ):
                gone.append(delivery_id)
                out.append("gone")
                continue
            out.append(self._app_outgoing(delivery_id, attempt, record, app))
            going.append((delivery_id, record))
        self.store.app_hooks_due.clear_many(gone)
        self_service.queued(self.store, going)
        return out

    def _app_outgoing(self, delivery_id: str, attempt: int, record: dict[str, Any], app: dict[str, str]) -> Outgoing:
        body = record["body"].encode()
        headers = signed_request(app_secrets(app), delivery_id, body)
        headers["webhook-attempt"] = str(attempt + 1)
        label = f"app event {delivery_id}"
        owner, lane = f"app:{record['app']}", str(record.get("game") or delivery_id)

        def logged(outcome: str, code: int | None, ms: float, last: bool, batch: Batch) -> None:
            if outcome == "delivered":  # its record goes with its due entry
                self.store.app_deliveries.delete(delivery_id, batch=batch)
            self_service.tried(self.store, delivery_id, record, outcome, code, ms, last, batch)

        due = self.store.app_hooks_due
        return Outgoing(owner, due, delivery_id, app["webhook"], body, headers, attempt, label, lane, None, None, logged)

    def send(self, out: Outgoing) -> str:
        """POST a prepared delivery. Delivered, its due entry is cleared; a failure leaves it for the sweep, which
        tries again after the back-off. What comes of it is written in one transaction, with an app's log note
        (``tried``). A turn the game has moved past since is not sent."""
        if out.turn is not None and self.store.games.version(out.turn[0]) != out.turn[1]:
            out.due.clear(out.member)
            return "stale"
        began = time.monotonic()
        outcome, code = self._post(out.url, out.body, out.headers, out.owner)
        refused = outcome.startswith("failed: points to")  # a refused address is not tried again sooner
        batch = self.store.batch()
        if outcome == "delivered":
            out.due.clear(out.member, batch=batch)
        else:
            log.info("%s attempt %s failed: %s", out.label, out.attempt + 1, outcome)
            if not refused:
                self._retry_after_failure(out.due, out.member, out.attempt, batch)
        if out.tried is not None and not outcome.startswith("deferred"):
            last = refused or out.attempt >= len(self.settings.webhook_delays)
            out.tried(outcome, code, (time.monotonic() - began) * 1000, last, batch)
        elif len(batch):
            with translated():
                batch.execute()
        if outcome == "delivered" and out.delivered is not None:
            out.delivered()
        return outcome

    def _post(self, url: str, body: bytes, headers: dict[str, str], owner: str) -> tuple[str, int | None]:
        """POST to the address the URL's host was judged by; a host that does not answer (DNS, connect,
        read) is backed off, and while it is, nothing waits on it: the sweep retries after its delay. A host
        never seen answering gets the short first-contact timeout (``webhook_first_timeout``). (What came of it,
        the answer's status code.)"""
        s = self.settings
        parts = urlsplit(url)
        name = f"name:{parts.hostname}"
        # A name that did not resolve is backed off before it is looked up again (a literal address always resolves).
        if literal(parts.hostname or "") is None and self.store.hook_hosts.backoff_left(name) > 0:
            return "deferred: host backed off", None
        try:
            target = pin(url, s.webhook_allow_private, s.webhook_connect_timeout, owner)
        except Refused as exc:
            if str(exc).startswith("does not resolve"):
                self.store.hook_hosts.failed(name, s.webhook_host_delays)
            return f"failed: {exc}", None
        # An address and port: a black hole on one port of a machine does not back off its other services.
        host = f"addr:{host_key(target.address)}:{target.port}"
        known = self.store.hook_hosts.state(host)
        if known.backoff_left > 0:
            return "deferred: host backed off", None
        extensions = {"sni_hostname": target.host} if parts.scheme == "https" and target.host != str(target.address) else {}
        read = s.webhook_timeout if known.known else min(s.webhook_timeout, s.webhook_first_timeout)
        timeout = httpx.Timeout(read, connect=min(s.webhook_connect_timeout, read))
        key = (parts.scheme, target.host, str(target.address), target.port)  # the connection made for this judgement
        try:
            resp = keepalive.post(key, _tls(), target.url, body, {**headers, "host": target.host_header}, timeout, extensions)
        except httpx.TransportError as exc:  # no answer: DNS aside, connect refused or timed out, read timed out
            self.store.hook_hosts.failed(host, s.webhook_host_delays)
            return f"failed: {type(exc).__name__}", None
        except httpx.HTTPError as exc:
            return f"failed: {type(exc).__name__}", None
        if not known.fresh:  # a host that answers all day is recorded so once a day, not at each delivery
            self.store.hook_hosts.answered(host)
        return ("delivered" if 200 <= resp.status_code < 300 else f"failed: HTTP {resp.status_code}"), resp.status_code

    def _retry_after_failure(self, due: DueSet, member: str, attempt: int, batch: Batch) -> None:
        """Due the next try one back-off step after this failure (``DOMINO_WEBHOOK_BACKOFF``: 1 s, then 5 s, ...).

        Until a delivery ends, its due time also covers the delivery's own timeout (a worker that dies
        mid-request is retried by the sweep); once it has failed, the back-off counts from the failure."""
        delays = self.settings.webhook_delays
        if attempt < len(delays):
            due.mark(member, time.time() + delays[attempt], attempt=attempt + 1, batch=batch)
