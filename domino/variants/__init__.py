"""The variants: each is a module with the rules of one family of games, found through a registry by preset.

A variant implements :class:`Variant`; ``domino.engine``, ``domino.views`` and ``domino.codec`` call it through
:func:`of` and never test which variant they hold. To add one, write its module and register its presets
in ``REGISTRY`` (see docs/engine.md).
"""

from __future__ import annotations

from typing import Any, Mapping, Protocol

from domino.moves import Move
from domino.rules import LINE_PRESETS, Rules
from domino.shuffle import DEAL_VERSION
from domino.state import Deal, Event, Events, RoundResult, State
from domino.tiles import Tile
from domino.variants import line, mexican_train

__all__ = ["REGISTRY", "Variant", "of", "presets"]

Table = tuple[dict[str, Any], tuple[tuple[str, int], ...], tuple[Tile, ...]]


class Variant(Protocol):
    """The rules of one family of games. Every function is pure; states are never mutated."""

    def deal_round(self, rules: Rules, seed: str, round_no: int, deal_version: int) -> Deal:
        """Round ``round_no``'s deal from the seed, by deal version ``deal_version`` (domino.shuffle)."""

    def start_round(
        self,
        rules: Rules,
        round_no: int,
        deal: Deal | None = None,
        seed: str = "",
        scores: tuple[int, ...] | None = None,
        rounds: tuple[RoundResult, ...] = (),
        previous: RoundResult | None = None,
        deal_version: int = DEAL_VERSION,
    ) -> tuple[State, Events]:
        """The round dealt (or laid out as an explicit ``deal``, checked), its first seat to move, its events;
        the state keeps ``deal_version`` for the rounds after it."""

    def opening_events(self, state: State) -> Events:
        """The events that started the current round."""

    def legal_moves(self, state: State) -> tuple[Move, ...]:
        """The sorted legal moves of the seat to move; the game is not over."""

    def advance(self, state: State, move: Move, events: list[Event] | None) -> State:
        """The next state for a move that is one of ``legal_moves(state)``; its events are appended to
        ``events`` (None: the caller does not want them, as ``domino.apply``)."""

    def settle(self, state: State) -> State:
        """The end-of-turn tests (a blocked round ends) for a position built by hand."""

    def table(self, state: State) -> Table:
        """What a view shows of the table: the board (JSON-safe), the playable places with their values, the
        tiles laid."""

    def board_to_dict(self, board: Any) -> dict[str, Any]: ...

    def board_from_dict(self, data: Mapping[str, Any]) -> Any: ...

    def turn_to_dict(self, turn: Any) -> Any:
        """The variant's own turn state (the State's ``variant``), JSON-safe."""

    def turn_from_dict(self, data: Any) -> Any: ...


# preset name -> the variant that plays it (``of``; ``domino.apply`` reads it directly, a call a move less)
REGISTRY: dict[str, Variant] = {**{name: line for name in LINE_PRESETS}, "mexican_train": mexican_train}


def of(rules: Rules) -> Variant:
    """The variant that plays these rules."""
    return REGISTRY[rules.preset_name]


def presets() -> tuple[str, ...]:
    """Every preset a variant plays."""
    return tuple(REGISTRY)
