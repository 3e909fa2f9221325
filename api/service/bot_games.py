"""Games of computer players only: they must never delay live play.

A game is *bot-only* while every seat is a computer player (``kind == "bot"``). Its turns go to a queue of
their own (``Settings.bot_games_queue``, served by its own worker), so a live game's bot turns (a game with a
human or hosted seat) never wait behind them. The class is read from the game document whenever a turn is
enqueued: a game with an open seat is waiting (no turns), and a claimed seat is a human's, so a game can
only ever leave the class, never enter it after creation.

A bot-only game is also capped at creation (422 beyond): a short think time and a match of ordinary length.
Long or many matches of computer players are what simulations are for (``POST /v1/simulations``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import domino
import domino.bots
from api.config import Settings
from api.service.errors import InvalidRequest


def bot_only(seats: Iterable[Mapping[str, Any]]) -> bool:
    """Every seat (of a game document) is a computer player."""
    return all(s["kind"] == "bot" for s in seats)


def check_limits(settings: Settings, seats: list[dict[str, Any]], rules: domino.Rules) -> None:
    """Raise InvalidRequest when a game of requested ``seats`` (all computer players) asks for more than a
    bot-only game may: ``think_ms``, ``target_score`` or ``rounds`` over their caps."""
    if not all(seat.get("bot") in domino.bots.ids() for seat in seats):
        return  # a human, or a registered bot (it thinks on its own machine): a live game
    s = settings
    seat_errors = {
        str(i): {"think_ms": [f"at most {s.bot_game_max_think_ms} in a game of computer players only"]}
        for i, seat in enumerate(seats)
        if seat.get("think_ms", 0) > s.bot_game_max_think_ms
    }
    if seat_errors:
        raise InvalidRequest(
            f"In a game of computer players only, `think_ms` is at most {s.bot_game_max_think_ms}.",
            errors={"json": {"seats": seat_errors}},
        )
    caps = (("target_score", rules.target_score, s.bot_game_max_target_score), ("rounds", rules.rounds, s.bot_game_max_rounds))
    for option, value, cap in caps:
        if value is not None and value > cap:
            raise InvalidRequest(
                f"In a game of computer players only, `{option}` is at most {cap}; run a simulation for longer matches.",
                errors={"json": {"rules": {option: [f"at most {cap} in a game of computer players only"]}}},
            )
