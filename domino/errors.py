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


class RecordError(DominoError):
    """A game record (docs/notation.md) that cannot be read, or does not replay."""


class NotationError(RecordError):
    """A text record's ``line`` (counted from 1) is not what the notation allows there: ``expected`` says what
    would be."""

    def __init__(self, line: int, expected: str, found: str = "") -> None:
        shown = f"; found {found!r}" if found else ""
        super().__init__(f"line {line}: expected {expected}{shown}")
        self.line = line
        self.expected = expected


class ReplayError(RecordError):
    """A record that does not replay through the engine: the move (its ``version``, in ``round``) the engine
    refused or whose outcome differs from the record's, and the text's ``line`` when it came from text."""

    def __init__(self, reason: str, round: int | None = None, version: int | None = None, line: int | None = None) -> None:
        where = [f"line {line}"] if line is not None else []
        where += [f"round {round}"] if round is not None else []
        where += [f"move {version}"] if version is not None else []
        super().__init__(f"{', '.join(where)}: {reason}" if where else reason)
        self.reason = reason
        self.round = round
        self.version = version
        self.line = line
