"""What the server plays for a seat: a computer player's move, or a timed-out seat's (the fallback strategy).

Each is a ``choose`` for :meth:`api.service.moves.Moves.play_for_seat`. Randomness is seeded by the game's
secret salt and its version: a job run twice chooses the same move, and no player can predict it.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

import domino
import domino.bots
from api.config import Settings
from api.service.bot_games import held
from api.service.moves import Choose
from api.service.records import BOT, MOVING_KINDS, GameRecord, retired_seat
from api.service.security import private_rng_seed


def think_budget(think_ms: int | None) -> domino.bots.Budget:
    """A live computer player's budget: the seat's think time, else the strategy's own default."""
    if think_ms is None:
        return domino.bots.Budget()
    return domino.bots.Budget(deadline=time.monotonic() + think_ms / 1000)


def bot_to_move(doc: GameRecord, state: domino.State) -> int | None:
    """The seat to move when a computer player holds it."""
    seat = state.to_move
    if seat is None or doc["seats"][seat]["kind"] != BOT:
        return None
    return int(seat)


def _rng(doc: GameRecord, purpose: str) -> random.Random:
    return random.Random(private_rng_seed(doc, purpose))


def bot_move(game_id: str, version: int) -> Choose:
    """The computer player to move chooses, within its seat's think time."""

    def choose(doc: GameRecord, state: domino.State) -> tuple[int, domino.Move] | str:
        seat = bot_to_move(doc, state)
        if seat is None:
            return "no-bot"
        record = doc["seats"][seat]
        strategy = domino.bots.get(record.get("bot", ""))
        view = domino.view(state, seat)
        return seat, strategy.choose(view, _rng(doc, f"{game_id}:{version}"), think_budget(record.get("think_ms")))

    return choose


def timeout_move(game_id: str, version: int, settings: Settings, gone: Callable[[str], bool]) -> Choose:
    """The fallback strategy (``Settings.timeout_strategy``) moves for the human or hosted seat whose deadline
    has passed, or the registered bot's that has retired (``gone``: :func:`api.service.records.retired_seat`),
    unless that leaves a game over the caps unattended (``held``: :mod:`api.service.bot_games`)."""

    def choose(doc: GameRecord, state: domino.State) -> tuple[int, domino.Move] | str:
        deadline = doc.get("deadline")
        seat = state.to_move
        if deadline is None or seat is None or state.finished or doc["seats"][seat]["kind"] not in MOVING_KINDS:
            return "no-deadline"
        if deadline > time.time() and not retired_seat(doc, seat, gone):
            return "not-due"
        if held(settings, doc, state.rules, seat):
            return "held"
        strategy = domino.bots.get(settings.timeout_strategy)
        rng = _rng(doc, f"timeout:{game_id}:{version}")
        return seat, strategy.choose(domino.view(state, seat), rng, domino.bots.Budget())

    return choose
