"""A game's events for clients: long polls and Server-Sent Events over the game's Redis Stream.

Stream ids are ``<version>-<n>``; ``after=V`` means the events of versions greater than V (the XREAD id
``V-<max>``), ``Last-Event-ID`` resumes after exactly that event. Waiting is a blocking XREAD on the store's
blocking connection (no lock held, nothing polled). Private details (the tile a seat drew) reach only
their seat: a seat token (or a stream ticket) gets its own, everyone else the public events. A game read
from the archive is over: its events come from there, with the same ids, and nothing is waited for.
"""

from __future__ import annotations

import dataclasses
import re
import secrets
from collections.abc import Iterator
from typing import Any

import orjson

import domino.codec
from api.config import Settings
from api.service.errors import InvalidRequest, Unauthorized
from api.service.games import Games
from api.service.records import waiting
from api.service.security import authenticate, ticket_hash, token_bot
from api.service.streams import StreamSlot, held
from api.service.views import render_event
from api.store import Store, StoreUnavailable

MAX_SEQ = 2**64 - 1
STREAM_ID = re.compile(r"^[0-9]{1,19}-[0-9]{1,19}$")


def cursor_after(after: int | None) -> str:
    """The XREAD id for "events of versions greater than ``after``" (all events for None)."""
    return "0-0" if after is None else f"{after}-{MAX_SEQ}"


def event_cursor(after: int | None, last_event_id: str | None) -> str:
    """Where a read starts: after exactly ``last_event_id`` when given, else after version ``after`` (-1 or
    None: from the start)."""
    if last_event_id is not None:
        return parse_last_event_id(last_event_id)
    return cursor_after(None if after == -1 else after)


def version_before(cursor: str) -> int | None:
    """The ``after`` a cursor stands for (None: from the start). A version's events are appended together, so
    a ``Last-Event-ID`` with nothing after it means its whole version was read."""
    return None if cursor == cursor_after(None) else int(cursor.partition("-")[0])


def parse_last_event_id(value: str) -> str:
    value = value.strip()
    if not STREAM_ID.match(value):
        raise InvalidRequest(
            "`Last-Event-ID` must be an event id like `17-2`.", errors={"headers": {"Last-Event-ID": ["not an event id"]}}
        )
    return value


def stream_order(stream_id: str) -> tuple[int, int]:
    version, _, n = stream_id.partition("-")
    return int(version), int(n)


def after(entries: list[tuple[str, dict[str, Any]]], cursor: str) -> list[tuple[str, dict[str, Any]]]:
    """The entries with stream ids greater than ``cursor`` (what an XREAD after it reads)."""
    start = stream_order(cursor)
    return [(sid, e) for sid, e in entries if stream_order(sid) > start]


@dataclasses.dataclass(frozen=True)
class Reader:
    seat: int | None  # the caller's, or None
    finished: bool  # the game is over
    waits: bool  # it waits for seats
    archived_events: list[tuple[str, dict[str, Any]]] | None  # every event, when the game was read from the archive


def sse_frame(event: dict[str, Any]) -> bytes:
    return b"id: %s\nevent: %s\ndata: %s\n\n" % (event["id"].encode(), event["type"].encode(), orjson.dumps(event))


def rendered(
    entries: list[tuple[str, dict[str, Any]]], seat: int | None, waits: bool
) -> tuple[list[dict[str, Any]], bool]:
    """The events as ``seat`` sees them, and whether the game still waits for seats after them. While it waits,
    no seat sees its private details (the opener's lead, its first legal moves): the game's creator would see
    its hand, and could keep only the deals it likes for whoever joins. The game's start ends that."""
    out = []
    for sid, stored in entries:
        out.append(render_event(sid, stored, None if waits else seat))
        if waits and stored["public"].get("type") == "game_started":
            waits = False
    return out, waits


class Events:
    def __init__(self, store: Store, settings: Settings, games: Games) -> None:
        self.store = store
        self.settings = settings
        self.games = games

    def ticket(self, game_id: str, token: str | None) -> dict[str, Any]:
        """A short-lived stream ticket for the token's seat, for ``EventSource`` (which cannot send headers)."""
        if token is None:
            raise Unauthorized("A seat token is needed for a stream ticket: `Authorization: Bearer <token>`.")
        seat = authenticate(self.games.read(game_id).doc, token, token_bot(self.store, token))
        assert seat is not None
        ticket = secrets.token_urlsafe(24)
        ttl = self.settings.stream_ticket_ttl
        self.store.games.put_ticket(game_id, ticket_hash(ticket), seat, ttl)
        return {"ticket": ticket, "seat": seat, "expires_in": ttl, "url": f"/v1/games/{game_id}/events?ticket={ticket}"}

    def reader(self, game_id: str, token: str | None, ticket: str | None) -> Reader:
        """Who reads, and what state the game is in. Raises 404 for no game, 401 for a bad token or an unknown
        or expired ticket."""
        game = self.games.read(game_id, ("events",))
        doc = game.doc
        finished = domino.codec.is_finished(doc["state"])  # a long poll must not decode the whole game
        stored = None if game.stored is None else game.stored.events
        seat = None
        if token is not None:
            seat = authenticate(doc, token, token_bot(self.store, token))
        elif ticket is not None:
            seat = self.store.games.take_ticket(game_id, ticket_hash(ticket))
            if seat is None:
                raise Unauthorized(
                    "This stream ticket is unknown, used or expired; get a new one with POST .../events/ticket."
                )
        return Reader(seat, finished, waiting(doc), stored)

    def long_poll(
        self, game_id: str, token: str | None, ticket: str | None, cursor: str, wait: float, client: str
    ) -> dict[str, Any]:
        """The events after the stream id ``cursor`` (:func:`event_cursor`), waiting up to ``wait`` seconds for
        the first; [] if none came. A poll that may wait holds a stream slot of ``client`` (and of the game,
        or of the caller's seat) meanwhile."""
        r = self.reader(game_id, token, ticket)
        slot = self._slot(client, game_id, r.seat) if wait else None  # no wait: a plain read
        try:
            return self._poll(game_id, r, cursor, wait)
        finally:
            if slot is not None:
                slot.release()

    def _poll(self, game_id: str, r: Reader, cursor: str, wait: float) -> dict[str, Any]:
        block_ms = 0 if r.finished else int(min(wait, self.settings.max_wait) * 1000)
        if r.archived_events is not None:
            entries = after(r.archived_events, cursor)
        else:
            entries = self.store.games.read_events(game_id, cursor)
        if not entries and block_ms:
            entries = self.store.games.read_events(game_id, cursor, block_ms=block_ms)
        events, _ = rendered(entries, r.seat, r.waits)
        last_version = events[-1]["version"] if events else version_before(cursor)
        ended = r.finished or any(e["type"] == "game_ended" for e in events)
        return {"events": events, "last_version": last_version, "ended": ended, "seat": r.seat}

    def stream(
        self,
        game_id: str,
        token: str | None,
        ticket: str | None,
        cursor: str,
        client: str,
    ) -> Iterator[bytes]:
        """Server-Sent Events for the caller after the stream id ``cursor`` (:func:`event_cursor`), holding a
        stream slot of ``client`` (and of the game, or of the caller's seat) while open. The caller is checked
        now, before the stream starts (a 401, 404 or 429 is an answer, not a stream)."""
        r = self.reader(game_id, token, ticket)
        slot = self._slot(client, game_id, r.seat)
        if r.archived_events is not None:
            return held(slot, self._archived_frames(after(r.archived_events, cursor), r.seat))
        return held(slot, self._frames(game_id, r.seat, cursor, r.finished, r.waits))

    def _slot(self, client: str, game_id: str, seat: int | None) -> StreamSlot:
        return StreamSlot.take(self.store.streams, self.settings, client, game_id, seat)

    @staticmethod
    def _archived_frames(entries: list[tuple[str, dict[str, Any]]], seat: int | None) -> Iterator[bytes]:
        """An archived game's events after the cursor, then the end of the stream (the game is over)."""
        yield b"retry: 2000\n\n"
        events, _ = rendered(entries, seat, False)
        if events:
            yield b"".join(sse_frame(event) for event in events)

    def _frames(self, game_id: str, seat: int | None, cursor: str, finished: bool, waits: bool) -> Iterator[bytes]:
        """One frame per event (``id:`` the stream id), a keep-alive comment when nothing happened for
        ``keepalive_interval``; the stream ends after ``game_ended`` (or at once when the game was already
        over and nothing is left), when the game expires, or when Redis fails (the client reconnects with
        ``Last-Event-ID``)."""
        follower = self.store.games.follow(game_id)
        block_ms = max(1, int(self.settings.keepalive_interval * 1000))
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
                    if finished or self.store.games.version(game_id) is None:
                        return
                    yield b": keep-alive\n\n"
                    continue
                # One write per read: a commit's events (a move, then turn_started) arrive together.
                frames = []
                events, waits = rendered(entries, seat, waits)
                for (sid, _), event in zip(entries, events):
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
