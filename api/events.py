"""A game's events for clients: long polls and Server-Sent Events over the game's Redis Stream (issue 5).

Stream ids are ``<version>-<n>``; ``after=V`` means the events of versions greater than V (the XREAD id
``V-<max>``), ``Last-Event-ID`` resumes after exactly that event. Waiting is a blocking XREAD on the store's
blocking connection (no lock held, nothing polled). Private details (the tile a seat drew) reach only
their seat: a seat token (or a stream ticket) gets its own, everyone else the public events.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import orjson

import domino.codec
from api.errors import InvalidRequest, Unauthorized
from api.store import StoreUnavailable

if TYPE_CHECKING:
    from api.service import Service

MAX_SEQ = 2**64 - 1
STREAM_ID = re.compile(r"^\d{1,19}-\d{1,19}$")


def cursor_after(after: int | None) -> str:
    """The XREAD id for "events of versions greater than ``after``" (all events for None)."""
    return "0-0" if after is None else f"{after}-{MAX_SEQ}"


def parse_last_event_id(value: str) -> str:
    value = value.strip()
    if not STREAM_ID.match(value):
        raise InvalidRequest(
            "`Last-Event-ID` must be an event id like `17-2`.", errors={"headers": {"Last-Event-ID": ["not an event id"]}}
        )
    return value


def render(stream_id: str, stored: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """One event as ``seat`` may see it (None: a spectator)."""
    full = stored.get("full")
    data = full if full is not None and seat is not None and seat == stored.get("private_to") else stored["public"]
    return {"id": stream_id, "version": int(stream_id.split("-", 1)[0]), **data}


def _ticket_hash(ticket: str) -> str:
    return hashlib.sha256(ticket.encode()).hexdigest()


def create_ticket(service: Service, game_id: str, token: str | None) -> dict[str, Any]:
    """A short-lived stream ticket for the token's seat, for ``EventSource`` (which cannot send headers)."""
    if token is None:
        raise Unauthorized("A seat token is needed for a stream ticket: `Authorization: Bearer <token>`.")
    _, doc = service._load(game_id)
    seat = service.authenticate(doc, token)
    assert seat is not None
    ticket = secrets.token_urlsafe(24)
    ttl = service.settings.stream_ticket_ttl
    service.store.put_ticket(game_id, _ticket_hash(ticket), seat, ttl)
    return {"ticket": ticket, "seat": seat, "expires_in": ttl, "url": f"/v1/games/{game_id}/events?ticket={ticket}"}


def resolve_seat(service: Service, game_id: str, token: str | None, ticket: str | None) -> tuple[int | None, bool]:
    """(the caller's seat or None, whether the game is over). Raises 404 for no game, 401 for a bad token or
    an unknown or expired ticket."""
    _, doc = service._load(game_id)
    finished = domino.codec.is_finished(doc["state"])  # a long poll must not decode the whole game
    if token is not None:
        return service.authenticate(doc, token), finished
    if ticket is not None:
        seat = service.store.take_ticket(game_id, _ticket_hash(ticket))
        if seat is None:
            raise Unauthorized(
                "This stream ticket is unknown, used or expired; get a new one with POST .../events/ticket."
            )
        return seat, finished
    return None, finished


def long_poll(
    service: Service, game_id: str, token: str | None, ticket: str | None, cursor: str, wait: float
) -> dict[str, Any]:
    """The events after the stream id ``cursor`` (:func:`cursor_after` or a ``Last-Event-ID``), waiting up to
    ``wait`` seconds for the first; [] if none came."""
    seat, finished = resolve_seat(service, game_id, token, ticket)
    block_ms = 0 if finished else int(min(wait, service.settings.max_wait) * 1000)
    entries = service.store.read_events(game_id, cursor)
    if not entries and block_ms:
        entries = service.store.read_events(game_id, cursor, block_ms=block_ms)
    events = [render(sid, stored, seat) for sid, stored in entries]
    last_version = events[-1]["version"] if events else _version_before(cursor)
    ended = finished or any(e["type"] == "game_ended" for e in events)
    return {"events": events, "last_version": last_version, "ended": ended, "seat": seat}


def _version_before(cursor: str) -> int | None:
    """The ``after`` a cursor stands for (None: from the start). A version's events are appended together, so
    a ``Last-Event-ID`` with nothing after it means its whole version was read."""
    return None if cursor == cursor_after(None) else int(cursor.partition("-")[0])


def sse_frame(event: dict[str, Any]) -> bytes:
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (event["id"].encode(), event["type"].encode(), orjson.dumps(event))


def sse(service: Service, game_id: str, seat: int | None, cursor: str, finished: bool) -> Iterator[bytes]:
    """Server-Sent Events from ``cursor`` on: one frame per event (``id:`` the stream id), a keep-alive comment
    when nothing happened for ``keepalive_interval``; the stream ends after ``game_ended`` (or at once when
    the game was already over and nothing is left), when the game expires, or when Redis fails (the client
    reconnects with ``Last-Event-ID``)."""
    store = service.store
    follower = store.follow(game_id)
    block_ms = max(1, int(service.settings.keepalive_interval * 1000))
    batch = 500
    caught_up = False  # a wait is for the next commit: catch up without one first
    yield b"retry: 2000\n\n"
    try:
        while True:
            wait = caught_up and not finished
            entries = follower.read(cursor, block_ms=block_ms if wait else None, count=batch)
            caught_up = len(entries) < batch
            if not entries:
                if not wait and not finished:
                    continue
                if finished or store.version(game_id) is None:
                    return
                yield b": keep-alive\n\n"
                continue
            # One write per read: a commit's events (a move, then turn_started) arrive together.
            frames = []
            for sid, stored in entries:
                event = render(sid, stored, seat)
                frames.append(sse_frame(event))
                cursor = sid
                if event["type"] == "game_ended":
                    yield b"".join(frames)
                    return
            yield b"".join(frames)
    except StoreUnavailable:
        return
    finally:
        follower.close()  # also when the client goes away: the server closes the generator
