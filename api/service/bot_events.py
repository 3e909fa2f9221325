"""A registered bot's one stream for all its games (``GET /v1/bot/events`` with its bot token): a long poll,
or Server-Sent Events, over its Redis stream (:class:`api.store.BotStore`), served as a game's events are
(:mod:`api.service.events`): the same stream slots, keep-alives, frames and ``Last-Event-ID``.

Ids are the stream's own (``<ms>-<n>``, increasing); ``after`` (or ``Last-Event-ID``) resumes after exactly
that notice, and without either a read starts at the oldest notice kept. Opening the stream (a long poll or
an SSE connection) tells the service the bot is back (:mod:`api.service.registered_bots`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from api.config import Settings
from api.service.registered_bots import RegisteredBots
from api.service.events import sse_frame
from api.service.streams import StreamSlot, held
from api.store import Store, StoreUnavailable

START = "0-0"
BATCH = 100  # notices per answer (a long poll) or per read (a stream)


def _event(stream_id: str, notice: dict[str, Any]) -> dict[str, Any]:
    return {"id": stream_id, **notice}


class BotEvents:
    def __init__(self, store: Store, settings: Settings, bots: RegisteredBots) -> None:
        self.store = store
        self.settings = settings
        self.bots = bots

    def _open(self, token: str | None) -> str:
        """The bot the token is for, which is back now (it listens)."""
        name = self.bots.caller(token)
        self.store.bots.answered(name)
        return name

    def _slot(self, client: str, name: str) -> StreamSlot:
        s = self.settings
        return StreamSlot.take_for(self.store.streams, s, client, f"bot:{name}", s.streams_per_bot, "This bot")

    def long_poll(self, token: str | None, cursor: str | None, wait: float, client: str) -> dict[str, Any]:
        """The notices after the stream id ``cursor`` (None: from the oldest kept), at most ``BATCH``, waiting
        up to ``wait`` seconds for the first; a wait holds a stream slot of ``client`` and of the bot."""
        name = self._open(token)
        after = cursor or START
        waits = self._slot(client, name) if wait else None
        try:
            entries = self.store.bots.read(name, after, count=BATCH)
            if not entries and wait:
                block_ms = max(1, int(min(wait, self.settings.max_wait) * 1000))
                entries = self.store.bots.read(name, after, block_ms=block_ms, count=BATCH)
        finally:
            if waits is not None:
                waits.release()
        events = [_event(sid, notice) for sid, notice in entries]
        return {"bot": name, "events": events, "last_id": events[-1]["id"] if events else cursor}

    def stream(self, token: str | None, cursor: str | None, client: str) -> Iterator[bytes]:
        """Server-Sent Events after ``cursor``, holding a stream slot while open. The caller is checked now (a
        401 or 429 is an answer, not a stream)."""
        name = self._open(token)
        slot = self._slot(client, name)
        return held(slot, self._frames(name, cursor or START))

    def _frames(self, name: str, cursor: str) -> Iterator[bytes]:
        """One frame per notice, a keep-alive comment when nothing came for ``keepalive_interval``. The stream
        goes on across games; it ends when Redis fails (the client reconnects with ``Last-Event-ID``)."""
        block_ms = max(1, int(self.settings.keepalive_interval * 1000))
        yield b"retry: 2000\n\n"
        try:
            while True:
                entries = self.store.bots.read(name, cursor, block_ms=block_ms, count=BATCH)
                if not entries:
                    yield b": keep-alive\n\n"
                    continue
                cursor = entries[-1][0]
                yield b"".join(sse_frame(_event(sid, notice)) for sid, notice in entries)
        except StoreUnavailable:
            return
