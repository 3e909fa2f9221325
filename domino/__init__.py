"""domino: a pure, reproducible dominoes rules engine (docs/rules.md), with simple computer players.

    rules = domino.Rules.preset("draw", players=2)
    state = domino.new_game(rules, seed="k3v9")
    state, events = domino.step(state, domino.legal_moves(state)[0])
    domino.view(state, 0).to_dict()
"""

from domino.codec import ended_rounds, from_dict, from_live, round_record, to_dict, to_live
from domino.core import PlayoutResult, RoundSummary, playout
from domino.engine import apply, deal_round, end, legal_moves, new_game, opening_events, resign, step
from domino.errors import (
    AmbiguousMoveError,
    DominoError,
    GameOverError,
    IllegalMoveError,
    InvalidDealError,
    InvalidMoveError,
    InvalidRulesError,
    NotationError,
    NotYourTurnError,
    RecordError,
    ReplayError,
)
from domino.moves import Draw, Move, Pass, Play, parse_move
from domino.rules import PRESETS, Rules, describe_variants
from domino.shuffle import DEAL_VERSION, DEAL_VERSIONS
from domino.state import Deal, Event, LineBoard, LogEntry, Outcome, RoundResult, State
from domino.tiles import Tile, full_set
from domino.views import View, view
from domino import notation
from domino.notation import replay

__all__ = [
    "AmbiguousMoveError",
    "DEAL_VERSION",
    "DEAL_VERSIONS",
    "Deal",
    "DominoError",
    "Draw",
    "Event",
    "GameOverError",
    "IllegalMoveError",
    "InvalidDealError",
    "InvalidMoveError",
    "InvalidRulesError",
    "LineBoard",
    "LogEntry",
    "Move",
    "NotYourTurnError",
    "NotationError",
    "Outcome",
    "PRESETS",
    "Pass",
    "Play",
    "PlayoutResult",
    "RecordError",
    "ReplayError",
    "RoundResult",
    "RoundSummary",
    "Rules",
    "State",
    "Tile",
    "View",
    "apply",
    "deal_round",
    "describe_variants",
    "end",
    "ended_rounds",
    "from_dict",
    "from_live",
    "full_set",
    "legal_moves",
    "new_game",
    "notation",
    "opening_events",
    "parse_move",
    "playout",
    "replay",
    "resign",
    "round_record",
    "step",
    "to_dict",
    "to_live",
    "view",
]
