"""Caps on open event streams: per client and per game, counted in Redis so they hold across API processes.

An SSE stream, or a long poll that waits, holds a *slot* in its client's set and in its game's set
(:class:`api.store.streams.StreamSlots`) while it is open; a take beyond ``Settings.streams_per_client`` or
``streams_per_game`` (spectators; each seat has ``streams_per_seat`` of its own) is a 429
``too-many-streams`` with ``Retry-After``. A slot is a lease
(``Settings.stream_lease``): an open stream renews it as it goes (an SSE stream wakes at least every
keep-alive interval; a long poll is shorter than a lease), a stream that ends releases it (the client went
away, the game ended, the server stops), and the slots of a process that died lapse with their lease.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Generator, Iterator

from api.config import Settings
from api.service.errors import TooManyStreams
from api.store import StoreUnavailable
from api.store.streams import StreamSlots


class StreamSlot:
    """One open stream's place in its client's and its game's counts."""

    def __init__(self, slots: StreamSlots, settings: Settings, client: str, game_id: str) -> None:
        self.slots = slots
        self.settings = settings
        self.client = client
        self.game_id = game_id
        self.id = secrets.token_hex(8)
        self.lease_ms = int(settings.stream_lease * 1000)
        self.renewed = time.monotonic()

    @classmethod
    def take(cls, slots: StreamSlots, settings: Settings, client: str, game_id: str, seat: int | None) -> StreamSlot:
        """A slot for a new stream of a game's ``seat`` (None: a spectator's), or TooManyStreams (429) when the
        client, or the game's spectators (``streams_per_game``), or the seat (``streams_per_seat``) are at their
        cap. Each seat counts apart from the spectators: spectators filling the game never lock its players out."""
        if seat is None:
            return cls.take_for(slots, settings, client, game_id, settings.streams_per_game, "This game")
        owner, cap = f"{game_id}:seat:{seat}", settings.streams_per_seat
        return cls.take_for(slots, settings, client, owner, cap, f"Seat {seat} of this game")

    @classmethod
    def take_for(
        cls, slots: StreamSlots, settings: Settings, client: str, owner: str, cap: int, who: str
    ) -> StreamSlot:
        """A slot for a new stream of ``owner`` (a game id, or ``bot:<name>`` for a registered bot's stream,
        ``who`` in the 429), which may have ``cap`` open."""
        s = settings
        slot = cls(slots, settings, client, owner)
        full = slots.take(client, owner, slot.id, (s.streams_per_client, cap), slot.lease_ms)
        if full == 1:
            raise TooManyStreams(
                f"This client has {s.streams_per_client} event streams open, as many as it may; close one first.",
                s.stream_retry_after,
            )
        if full == 2:
            raise TooManyStreams(f"{who} has {cap} event streams open, as many as it may; retry later.", s.stream_retry_after)
        return slot

    def renew_if_due(self) -> None:
        """Renew the lease once a third of it has passed (cheap to call on every frame)."""
        now = time.monotonic()
        if now - self.renewed >= self.settings.stream_lease / 3:
            self.renewed = now
            try:
                self.slots.renew(self.client, self.game_id, self.id, self.lease_ms)
            except StoreUnavailable:
                pass  # the stream itself ends when Redis is gone; otherwise the next renewal catches up

    def release(self) -> None:
        try:
            self.slots.release(self.client, self.game_id, self.id)
        except StoreUnavailable:
            pass  # the lease lapses on its own


def held(slot: StreamSlot, frames: Iterator[bytes]) -> Generator[bytes, None, None]:
    """``frames`` while holding ``slot``, renewing it as frames go out; released when the stream ends, also
    when the server closes it because the client went away (then ``frames`` is closed first)."""
    try:
        for frame in frames:
            yield frame
            slot.renew_if_due()
    finally:
        close = getattr(frames, "close", None)
        if close is not None:
            close()
        slot.release()
