"""Registered bots: an app registers a bot by name; the bot is seated by that name like a computer player
(``{"bot": "<name>"}``), moves with its own token in every game it sits in (a seat it holds carries its
token's hash, ``bot_key``: :func:`api.service.security.authenticate`), and hears of its turns on its webhook
or on its stream (:mod:`api.service.notices`, :mod:`api.service.bot_events`).

A bot that misses ``Settings.bot_max_misses`` turn deadlines in a row (the server moved for it) is
*unavailable*: not seated in new games until it is back (it moves, its stream reconnects, its webhook
answers a delivery, or its owner updates it). A retired bot is never seated again; its name stays taken.

Its owner rotates its token (``POST /v1/bots/{name}/token``): the old one stops at once, or after a grace.
Retiring a bot, or revoking its app, stops its tokens at once (their index entries go: a token names its bot
only through them, :func:`api.service.security.token_bot`), and the server moves for its seats from then on.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any

import domino
import domino.bots
from api.config import Settings
from api.service.errors import BotNotFound, Forbidden, InvalidRequest, Unauthorized
from api.service import webhooks
from api.service.security import BOT_TOKEN_PREFIX, bot_key, new_bot_token
from api.service.validation import unknown_strategy
from api.store import Store

BOT_NAME_PATTERN = r"^[a-z][a-z0-9_-]{2,31}$"  # 3-32 characters: a-z, digits, `_`, `-`; a letter first
_BOT_NAME = re.compile(BOT_NAME_PATTERN)
REGISTERED_KIND, BUILTIN_KIND = "registered", "builtin"
ARENA_ENTRY = ["closed", "open"]  # who may enter a bot in an arena: its owner only, or anyone
LIMITS = ("max_games", "min_turn_timeout_s")  # what a bot accepts (api/service/bot_limits.py); its token sets them too
SCAN_PAGES = 5  # a listing page reads at most this many times its limit of registered bots
Position = tuple[float, str]  # (registered at, name) of a listing's last entry; computer players are at 0


def _field_error(field: str, message: str, detail: str) -> InvalidRequest:
    return InvalidRequest(detail, errors={"json": {field: [message]}})


def _builtin_entries() -> list[dict[str, Any]]:
    """The computer players' entries (``kind: builtin``), as ``GET /v1/bots`` lists them."""
    return [{**bot, "kind": BUILTIN_KIND} for bot in domino.bots.catalog()]


class RegisteredBots:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    # -- what everybody sees ------------------------------------------------------------------------------

    def available(self, record: dict[str, Any], misses: int) -> bool:
        return not record.get("retired") and misses < self.settings.bot_max_misses

    def entry(self, record: dict[str, Any], misses: int) -> dict[str, Any]:
        """A registered bot as ``GET /v1/bots`` lists it (never its token's hash, URL or secret)."""
        return {
            "id": record["name"],
            "kind": REGISTERED_KIND,
            "description": record["description"],
            "owner": record["owner_name"],
            "variants": record["variants"],
            "delivery": "webhook" if record.get("webhook") else "stream",
            "available": self.available(record, misses),
            "missed_turns": misses,
            "arenas": record.get("arenas", "closed"),
            "created_at": record["created_at"],
            **{limit: record.get(limit) for limit in LIMITS},
        }

    def catalog(self, after: Position | None, limit: int, owner: str | None = None) -> tuple[list[dict[str, Any]], Position | None]:
        """A page of the computer players (``kind: builtin``, at time 0), then the registered bots not retired, in
        registration order (of the app ``owner`` only, if given: no computer player then), strictly after the
        position ``after`` (registered at, name); and the position of the next page (None: no more). A page reads
        at most ``SCAN_PAGES`` x ``limit`` registered bots, so one full of skipped ones may come short."""
        shown: list[dict[str, Any]] = []
        position = after
        if owner is None and (after is None or after[0] == 0):
            builtins = _builtin_entries()
            start = 0 if after is None else next((i + 1 for i, b in enumerate(builtins) if b["id"] == after[1]), len(builtins))
            shown = builtins[start : start + limit]
            if shown:
                position = (0.0, shown[-1]["id"])
            if start + limit < len(builtins):
                return shown, position
        read, done = 0, False
        while len(shown) < limit and not done and read < SCAN_PAGES * limit:
            rows, done = self.store.bots.page(position if position and position[0] else None, limit - len(shown))
            for name, at, record, misses in rows:
                position, read = (at, name), read + 1
                if not record.get("retired") and (owner is None or record["owner"] == owner):
                    shown.append(self.entry(record, misses))
        return shown, None if done else position

    def get(self, name: str) -> dict[str, Any]:
        """A bot's entry by its id, a computer player's or a registered bot's (as :meth:`catalog` lists it)."""
        builtin = next((bot for bot in _builtin_entries() if bot["id"] == name), None)
        if builtin is not None:
            return builtin
        record, misses = self._found(name)
        if record.get("retired"):
            raise BotNotFound(f"The bot {name!r} is retired.")
        return self.entry(record, misses)

    # -- its owner ------------------------------------------------------------------------------------------

    def register(
        self, owner: str, owner_name: str, name: str, description: str, variants: list[str], webhook: str | None
    ) -> dict[str, Any]:
        """Register a bot for the app ``owner`` (shown as ``owner_name``): its entry, with its ``token`` and,
        for a webhook bot, its ``webhook_secret`` (both shown this once)."""
        if not _BOT_NAME.fullmatch(name):
            raise _field_error("name", f"must match {BOT_NAME_PATTERN}", f"A bot's name must match {BOT_NAME_PATTERN}.")
        if name in domino.bots.ids():
            raise _field_error("name", "a computer player's id", f"{name!r} is a computer player's id; choose another name.")
        self._check_variants(variants)
        self._check_webhook(webhook)
        token = new_bot_token()
        record: dict[str, Any] = {
            "name": name,
            "description": description,
            "variants": sorted(set(variants)),
            "webhook": webhook,
            "webhook_secret": webhooks.new_secret() if webhook else None,
            "owner": owner,
            "owner_name": owner_name,
            "token_hash": bot_key(token),
            "created_at": round(time.time(), 3),
            "retired": False,
        }
        if not self.store.bots.create(name, record, record["token_hash"], record["created_at"]):
            raise _field_error("name", "taken", f"The name {name!r} is taken (bot names are never reused).")
        shown = {**self.entry(record, 0), "token": token}
        if webhook:
            shown["webhook_secret"] = record["webhook_secret"]
        return shown

    def update(self, owner: str, name: str, changes: dict[str, Any]) -> dict[str, Any]:
        """Change ``description``, ``variants``, ``arenas`` (``open``: anyone may enter it in an arena), its
        limits (``max_games``, ``min_turn_timeout_s``) or ``webhook`` (null: no webhook, the bot plays from its stream). A webhook set where there was none gets a new ``webhook_secret``, shown this once; another URL
        keeps the secret. Also clears the bot's missed
        turns: its owner says it is back."""
        record, _ = self._owned(owner, name)
        if record.get("retired"):
            raise InvalidRequest(f"The bot {name!r} is retired; register a new one.")
        if "variants" in changes:
            self._check_variants(changes["variants"])
            record["variants"] = sorted(set(changes["variants"]))
        if "description" in changes:
            record["description"] = changes["description"]
        if "arenas" in changes:
            record["arenas"] = changes["arenas"]
        record.update({limit: changes[limit] for limit in LIMITS if limit in changes})
        secret = None
        if "webhook" in changes:
            webhook = changes["webhook"]
            self._check_webhook(webhook)
            if webhook and not record.get("webhook"):
                secret = record["webhook_secret"] = webhooks.new_secret()
            elif not webhook:
                record["webhook_secret"] = None
            record["webhook"] = webhook
        self.store.bots.put(name, record)
        self.store.bots.answered(name)
        shown = self.entry(record, 0)
        return {**shown, "webhook_secret": secret} if secret else shown

    def set_limits(self, token: str | None, name: str, changes: dict[str, Any]) -> dict[str, Any]:
        """The bot itself (its ``token``) sets what it accepts (:data:`LIMITS`), and only that: its entry."""
        if self.caller(token) != name:
            raise Forbidden(f"A bot token changes its own bot only, not {name!r}.")
        others = sorted(set(changes) - set(LIMITS))
        if others:
            raise Forbidden(f"A bot's token changes only its {' and '.join(LIMITS)}; {', '.join(others)} need its owner's app key.")
        record, _ = self._found(name)
        record.update(changes)
        self.store.bots.put(name, record)
        self.store.bots.answered(name)
        return self.entry(record, 0)

    def rotate_token(self, owner: str, name: str, grace_s: int) -> dict[str, Any]:
        """A new token for the bot (its entry with ``token``, shown this once); the old one stops at once, or
        after ``grace_s`` seconds (``previous_token_expires_at``). Rotating again ends the earlier grace."""
        record, misses = self._owned(owner, name)
        if record.get("retired"):
            raise InvalidRequest(f"The bot {name!r} is retired; register a new one.")
        token = new_bot_token()
        current, earlier = record["token_hash"], record.get("old_token_hash")
        until = round(time.time() + grace_s, 3) if grace_s else None
        record = {**record, "token_hash": bot_key(token), "old_token_hash": current if grace_s else None, "old_token_until": until}
        retired = [h for h in (earlier,) if h and h != current] + ([] if grace_s else [current])
        self.store.bots.rotate_token(name, record, retired, current if grace_s else "", grace_s)
        return {**self.entry(record, misses), "token": token, "previous_token_expires_at": until}

    def retire(self, owner: str, name: str) -> None:
        """Never seated again, and its tokens stop at once; the server moves for it in the games it sits in
        until they end (:mod:`api.service.turns`). Its name stays taken."""
        record, _ = self._owned(owner, name)
        self._retire(record)

    def retire_owned(self, owner: str) -> int:
        """Retire every bot of the app ``owner`` (its app is revoked): how many were not yet."""
        records = [record for record, _ in self.store.bots.all() if record["owner"] == owner and not record.get("retired")]
        for record in records:
            self._retire(record)
        return len(records)

    def _retire(self, record: dict[str, Any]) -> None:
        name = record["name"]
        self.store.bots.retire(name, {**record, "retired": True}, [record["token_hash"], record.get("old_token_hash") or ""])
        # Its turns already begun are due now, not at their deadline (the timer moves for it: api/service/timer.py);
        # its other games keep their own deadlines, which the timer finds again.
        self.store.turns_due.mark_many(self.store.bot_games.held(name), time.time())

    # -- the game path -------------------------------------------------------------------------------------

    def seatable(
        self, name: str, variant: str, index: int, consented: Callable[[dict[str, Any]], bool]
    ) -> dict[str, Any]:
        """The record of the bot named in seat ``index`` of a new ``variant`` game; 422 (naming the seat) when
        it is unknown, retired, unavailable, or does not play ``variant``; 403 when its owner did not consent
        (``consented(record)`` is false: not the owner's key, not an arena it was entered in)."""
        found = self.store.bots.get(name) if _BOT_NAME.fullmatch(name) else None
        if found is None:
            raise unknown_strategy(name, "seats", index, inner="bot")
        record, misses = found
        if not consented(record):
            raise Forbidden(
                f"Seat {index}: the bot {name!r} is seated only by its owner's app key, in a game it agreed to (a "
                "challenge it accepted, a ticket it holds), or in an arena its owner created or entered it in."
            )
        why = None
        if record.get("retired"):
            why = "is retired"
        elif variant not in record["variants"]:
            why = f"does not play {variant!r} (it plays {', '.join(record['variants'])})"
        elif not self.available(record, misses):
            why = f"is unavailable: it missed its last {misses} turn deadlines (it is back when it reconnects)"
        if why:
            raise InvalidRequest(f"The bot {name!r} {why}.", errors={"json": {"seats": {str(index): {"bot": [why]}}}})
        return record

    def caller(self, token: str | None) -> str:
        """The name of the registered bot whose token this is; 401 otherwise."""
        if token is None or not token.startswith(BOT_TOKEN_PREFIX):
            raise Unauthorized(f"A bot token is needed: `Authorization: Bearer {BOT_TOKEN_PREFIX}...`.")
        name = self.store.bots.name_for_token(bot_key(token))
        if name is None:
            raise Unauthorized("This bot token is unknown.")
        return name

    # -- checks --------------------------------------------------------------------------------------------------

    def _found(self, name: str) -> tuple[dict[str, Any], int]:
        found = self.store.bots.get(name) if _BOT_NAME.fullmatch(name) else None
        if found is None:
            raise BotNotFound(f"No registered bot {name!r}.")
        return found

    def check_owner(self, owner: str, name: str) -> None:
        """BotNotFound for no such bot, Forbidden when the app ``owner`` did not register it."""
        self._owned(owner, name)

    def _owned(self, owner: str, name: str) -> tuple[dict[str, Any], int]:
        record, misses = self._found(name)
        if record["owner"] != owner:
            raise Forbidden(f"The bot {name!r} belongs to another app; only its owner's app key changes it.")
        return record, misses

    @staticmethod
    def _check_variants(variants: list[str]) -> None:
        unknown = [v for v in variants if v not in domino.PRESETS]
        if not variants or unknown:
            message = f"one or more of {list(domino.PRESETS)}"
            raise _field_error("variants", message, f"`variants`: {message}" + (f"; unknown: {unknown}" if unknown else "."))

    def _check_webhook(self, webhook: str | None) -> None:
        if not webhook:
            return
        why = webhooks.refusal(webhook, self.settings.webhook_allow_private)
        if why:
            raise _field_error("webhook", why, f"The webhook {why}.")
