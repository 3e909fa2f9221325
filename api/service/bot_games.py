"""Games nobody attends: they must never delay live play.

Caps and queue placement follow who can be starved, not the kinds of the seats. A game is *attended* while
some seat that is not a built-in computer player (a human, a hosted or a registered bot) has made one of its
own last ``Settings.unattended_after`` (3) moves itself, not played by the server at its deadline. Its
computer players' turns then go to the live ``bots`` queue. Any other game is *unattended*: a game of
computer players only, a new game whose people have not moved yet, a game whose only person lets the
server move for it (one human seat with ``turn_timeout_s: 1`` and three slow ``expert`` seats would
otherwise play itself on the live queue). Its computer turns go to the ``bot-games`` queue
(``Settings.bot_games_queue``, served by a worker of its own at a lower priority), so a live game's turns
never wait behind them. A move a seat makes itself makes the game attended again at once.

The caps of a game of computer players only (``think_ms``, ``target_score``, ``rounds``) are checked at
creation (422 beyond): a short think time and a match of ordinary length; longer or many matches are what
simulations are for (``POST /v1/simulations``). An unattended game with computer players over these caps is
*held*: the server does not move for its late seat at the deadline that would leave it unattended, so no
computer turn follows; the game waits until a seat moves again itself, or the sweep ends it, idle for
``game_ttl`` (outcome ``expired``).

The record is ``doc["away"]``: for each seat that is not a computer player and has moved itself, how many
of its own moves the server has played since (counted up to ``unattended_after``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import domino
import domino.bots
from api.config import Settings
from api.service.errors import InvalidRequest
from api.service.records import BOT, GameRecord


def attended(settings: Settings, away: Mapping[str, int]) -> bool:
    """Some seat that is not a computer player made one of its own last ``unattended_after`` moves itself
    (``away``: a game document's ``away``)."""
    return any(n < settings.unattended_after for n in away.values())


def away_after(settings: Settings, doc: GameRecord, seat: int, auto: bool) -> dict[str, int]:
    """``doc["away"]`` once ``seat`` has moved (``auto``: the server moved for it at its deadline)."""
    away = dict(doc.get("away") or {})
    key = str(seat)
    if doc["seats"][seat]["kind"] == BOT:
        return away
    if not auto:
        away[key] = 0
    elif key in away:
        away[key] = min(away[key] + 1, settings.unattended_after)
    return away


def held(settings: Settings, doc: GameRecord, rules: domino.Rules, seat: int) -> bool:
    """The server must not move for late ``seat``: that move would leave the game unattended, and its computer
    players ask for more than a game of computer players only may."""
    if not any(s["kind"] == BOT for s in doc["seats"]):
        return False  # nothing the workers would play for it
    if attended(settings, away_after(settings, doc, seat, auto=True)):
        return False
    computers = [s for s in doc["seats"] if s["kind"] == BOT]
    seat_errors, rule_errors = over_caps(settings, computers, rules)
    return bool(seat_errors or rule_errors)


def over_caps(
    settings: Settings, seats: Sequence[Mapping[str, Any]], rules: domino.Rules
) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """What computer players ``seats`` and ``rules`` ask for beyond the caps of a game of computer players
    only: (seat index -> errors, rule option -> errors)."""
    s = settings
    seat_errors = {
        str(i): [f"at most {s.bot_game_max_think_ms} in a game of computer players only"]
        for i, seat in enumerate(seats)
        if seat.get("think_ms", 0) > s.bot_game_max_think_ms
    }
    caps = (
        ("target_score", rules.target_score, s.bot_game_max_target_score),
        ("rounds", rules.rounds, s.bot_game_max_rounds),
    )
    rule_errors = {
        option: [f"at most {cap} in a game of computer players only"]
        for option, value, cap in caps
        if value is not None and value > cap
    }
    return seat_errors, rule_errors


def check_limits(settings: Settings, seats: list[dict[str, Any]], rules: domino.Rules) -> None:
    """Raise InvalidRequest when a game of requested ``seats`` (all computer players) asks for more than a
    bot-only game may: ``think_ms``, ``target_score`` or ``rounds`` over their caps."""
    if not all(seat.get("bot") in domino.bots.ids() for seat in seats):
        return  # a human, or a registered bot (it thinks on its own machine): a live game
    seat_errors, rule_errors = over_caps(settings, seats, rules)
    s = settings
    if seat_errors:
        raise InvalidRequest(
            f"In a game of computer players only, `think_ms` is at most {s.bot_game_max_think_ms}.",
            errors={"json": {"seats": {i: {"think_ms": errors} for i, errors in seat_errors.items()}}},
        )
    for option, errors in rule_errors.items():
        cap = s.bot_game_max_target_score if option == "target_score" else s.bot_game_max_rounds
        raise InvalidRequest(
            f"In a game of computer players only, `{option}` is at most {cap}; run a simulation for longer matches.",
            errors={"json": {"rules": {option: errors}}},
        )
