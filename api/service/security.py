"""Ids, seat tokens, the seed commitment and sealed idempotent answers."""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
import secrets
from typing import Any

import orjson

from api.service.errors import Unauthorized
from api.service.records import GameRecord
from api.store import Store

_B32 = "abcdefghijklmnopqrstuvwxyz234567"
_ID = re.compile(r"[a-z2-7]{16}")


def new_id() -> str:
    """16 random lowercase base32 characters (80 bits): game and simulation ids."""
    return "".join(secrets.choice(_B32) for _ in range(16))


def derived_id(owner: str, index: int) -> str:
    """An id of :func:`new_id`'s form fixed by ``owner``'s id and ``index`` (an arena's games), so that a step
    run twice names the same game instead of making a second one."""
    digest = hashlib.sha256(f"{owner}:{index}".encode()).digest()
    return base64.b32encode(digest).decode().lower()[:16]


def is_id(text: str) -> bool:
    """Whether ``text`` is of :func:`new_id`'s form; anything else names nothing, and no key is built from it
    (``<sim>:chunks`` would name a simulation's set of counted chunks)."""
    return _ID.fullmatch(text) is not None


def new_token() -> str:
    return secrets.token_urlsafe(32)  # 256 random bits, shown once


BOT_TOKEN_PREFIX = "dsk_bot_"  # a registered bot's token says what it is (and secret scanners can spot it)


def new_bot_token() -> str:
    return BOT_TOKEN_PREFIX + secrets.token_urlsafe(32)


def bot_key(token: str) -> str:
    """What we store for a registered bot's token (in its record and in every seat it holds): one hash for
    every game, since one token moves in all of them."""
    return hashlib.sha256(f"bot:{token}".encode()).hexdigest()


def token_hash(owned_id: str, token: str) -> str:
    """What we store for a seat's (or a simulation's) token: bound to its game (or simulation), so a token is
    useless in another one."""
    return hashlib.sha256(f"{owned_id}:{token}".encode()).hexdigest()


def owns(stored: str, owned_id: str, token: str) -> bool:
    """``token`` is the one whose hash (``token_hash(owned_id, token)``) was stored; compared in constant time."""
    return hmac.compare_digest(stored, token_hash(owned_id, token))


def ticket_hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def seed_commitment(seed: str, salt: str) -> str:
    """SHA-256 (hex) of ``<seed>:<salt>``; both are revealed by the history once the game ends."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def deal_seed(secret: str, deal: int) -> str:
    """The seed of deal ``deal`` of an arena whose secret is ``secret``: HMAC-SHA256, so the seed one game reveals
    when it ends tells nothing of the arena's other deals."""
    return hmac.new(secret.encode(), str(deal).encode(), hashlib.sha256).hexdigest()


def private_rng_seed(doc: GameRecord, purpose: str) -> bytes:
    """Seed material for the server's own random choices in a game (a computer player's, a timed-out seat's):
    the game's secret salt with ``purpose``, so nobody can predict them from public values while the game is
    on; a job run twice chooses the same (the salt is revealed with the seed when the game ends)."""
    return hashlib.sha256(f"{doc['salt']}:{purpose}".encode()).digest()


def fingerprint(*parts: Any) -> str:
    """What a request asked for, so that an Idempotency-Key reused for another request is caught."""
    return hashlib.sha256(orjson.dumps(parts, option=orjson.OPT_SORT_KEYS)).hexdigest()


def seal(key: str, data: bytes) -> bytes:
    """Seal (or open) a stored create answer (it holds seat tokens) with the client's Idempotency-Key:
    without the key, the Redis record is useless. One record per key, so a SHAKE-256 keystream is a one-time
    pad."""
    pad = hashlib.shake_256(b"domino-idempotency:" + key.encode()).digest(len(data))
    return bytes(a ^ b for a, b in zip(data, pad))


def token_bot(store: Store, token: str | None) -> str | None:
    """The registered bot a bot token (``dsk_bot_...``) names now, by its index (so a rotated token works in
    the games seated before it, and a retired bot's, a revoked app's or a token rotated out names none); None
    for another kind of token or none."""
    if token is None or not token.startswith(BOT_TOKEN_PREFIX):
        return None
    return store.bots.name_for_token(bot_key(token)) or ""


def authenticate(doc: GameRecord, token: str | None, bot: str | None = None) -> int | None:
    """The seat a token belongs to (a seat token, or the token of the registered bot ``bot`` that holds the
    seat: :func:`token_bot`, "" when it names no bot); None for no token (a spectator); Unauthorized for a
    wrong one."""
    if token is None:
        return None
    if token.startswith(BOT_TOKEN_PREFIX):
        held = [s["seat"] for s in doc["seats"] if bot and s.get("bot") == bot and s.get("bot_key")]
        if not bot:
            raise Unauthorized("This bot token is unknown, rotated out, or its bot retired.")
        if not held:
            raise Unauthorized("This bot token is not that of a bot seated in this game.")
        return held[-1]
    found: int | None = None
    presented = token_hash(doc["id"], token)  # one hash, compared with every seat's (all: constant time)
    for seat in doc["seats"]:
        stored = seat.get("token_hash")
        if stored is not None and hmac.compare_digest(stored, presented):
            found = seat["seat"]
    if found is None:
        raise Unauthorized("This token is not a seat token of this game.")
    return found
