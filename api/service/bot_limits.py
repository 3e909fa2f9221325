"""What a registered bot accepts (``PATCH /v1/bots/{name}``): ``max_games``, how many games it plays at once,
and ``min_turn_timeout_s``, the shortest time per move it plays with. A challenge to it, or a ticket it holds,
that would go beyond them is refused before anything is written: 409 ``bot-busy`` when it plays as many games
as it accepts, 422 ``deadline-too-short`` when the game's time per move is shorter.

A game's time per move is its ``turn_timeout_s``; with a Fischer clock, the clock's ``initial_s`` (the bank a
bot spends as it likes); with neither, a registered bot's turns still have ``Settings.bot_turn_timeout``.
A bot's games at once are the slots of ``Store.bot_games`` (taken when a game seating it is made, given back
when the game ends: :mod:`api.service.create`, :mod:`api.service.commits`).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from api.config import Settings
from api.service.errors import BotBusy, DeadlineTooShort
from api.store import Store


def time_per_move(settings: Settings, turn_timeout_s: float | None, clock: dict[str, float] | None) -> float:
    """The time a registered bot gets per move in a game of this timing."""
    if turn_timeout_s is not None:
        return float(turn_timeout_s)
    if clock is not None:
        return float(clock["initial_s"])
    return settings.bot_turn_timeout


class BotLimits:
    def __init__(self, store: Store, settings: Settings) -> None:
        self.store = store
        self.settings = settings

    def _record(self, name: str) -> dict[str, Any]:
        found = self.store.bots.get(name)
        return found[0] if found is not None else {}

    def check(self, name: str, turn_timeout_s: float | None, clock: dict[str, float] | None) -> None:
        """Refuse a game with the bot ``name`` that its limits exclude (its deadline, then its games at once)."""
        record = self._record(name)
        least = record.get("min_turn_timeout_s")
        given = time_per_move(self.settings, turn_timeout_s, clock)
        if least is not None and given < least:
            raise DeadlineTooShort(
                f"The bot {name!r} plays with at least {least:g} s per move; this game gives {given:g} s.",
                bot=name,
                min_turn_timeout_s=least,
            )
        self._busy(name, record)

    def check_busy(self, name: str) -> None:
        self._busy(name, self._record(name))

    def _busy(self, name: str, record: dict[str, Any]) -> None:
        most = record.get("max_games")
        if most is not None and self.store.bot_games.count(name) >= most:
            raise _busy_error(name, most)

    def hold(self, game_id: str, records: Iterable[dict[str, Any]], enforce: bool = True) -> None:
        """Each registered bot of a new game holds one of its slots for it (``enforce``: refused with 409
        ``bot-busy`` when one is at its ``max_games``, and then none is held; else counted only: an arena's
        games, which the bot's arena entry agreed to). Its lease is renewed by the game's idle checks
        (:mod:`api.service.idle`) and the slot given back when the game ends (:mod:`api.service.commits`)."""
        lease = math.ceil((self.settings.game_ttl + self.settings.expiry_margin) * 1000)
        held: list[str] = []
        for record in records:
            name, most = record["name"], record.get("max_games")
            if not self.store.bot_games.take(name, game_id, most if enforce and most is not None else 0, lease):
                self.release(game_id, held)
                raise _busy_error(name, most)
            held.append(name)

    def release(self, game_id: str, names: Iterable[str]) -> None:
        for name in names:
            self.store.bot_games.release(name, game_id)


def _busy_error(name: str, most: int | None) -> BotBusy:
    games = "game" if most == 1 else "games"
    return BotBusy(f"The bot {name!r} already plays {most} {games} at once, as many as it accepts.", bot=name, max_games=most)
