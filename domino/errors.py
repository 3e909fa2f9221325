"""The engine's errors: one hierarchy, so callers can map each kind once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from domino.moves import Move


class DominoError(ValueError):
    """Base of every error the engine raises on bad input."""


class InvalidRulesError(DominoError):
    """The rules options are unknown, out of range, or contradict each other."""

    def __init__(self, option: str, reason: str) -> None:
        super().__init__(f"{option}: {reason}")
        self.option = option
        self.reason = reason


class InvalidMoveError(DominoError):
    """The move is malformed (not a move at all, a bad tile, an unknown end)."""


class IllegalMoveError(DominoError):
    """The move is well formed but not legal in this position."""

    def __init__(self, message: str, legal_moves: tuple[Move, ...] = ()) -> None:
        super().__init__(message)
        self.legal_moves = legal_moves


class AmbiguousMoveError(DominoError):
    """The move names no end and the tile fits more than one place."""

    def __init__(self, message: str, options: tuple[Move, ...] = ()) -> None:
        super().__init__(message)
        self.options = options


class NotYourTurnError(DominoError):
    """A seat tried to move while another seat is to move."""


class GameOverError(DominoError):
    """The game has ended; no more moves are accepted."""


def describe(error: DominoError) -> dict[str, Any]:
    """Public members of an error for problem details (never hidden tiles)."""
    data: dict[str, Any] = {}
    if isinstance(error, IllegalMoveError):
        data["legal_moves"] = [m.to_dict() for m in error.legal_moves]
    if isinstance(error, AmbiguousMoveError):
        data["options"] = [m.to_dict() for m in error.options]
    if isinstance(error, InvalidRulesError):
        data["option"] = error.option
    return data


class InvalidDealError(DominoError):
    """An explicit deal or position does not account for every tile of the set exactly once."""
