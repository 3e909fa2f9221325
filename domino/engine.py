"""The public entry points of play: new games, legal moves, steps, resignation (docs/rules.md).

Each dispatches through the variant registry (``domino.variants.of``); the rules themselves live in the
variant modules, and what every variant shares in ``domino.match`` and ``domino.dealing``.
"""

from __future__ import annotations

from domino import match, variants
from domino.errors import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidDealError,
    InvalidMoveError,
    NotYourTurnError,
)
from domino.moves import Draw, Move, Pass, Play, valid_end
from domino.rules import Rules
from domino.shuffle import DEAL_VERSION, check_version
from domino.state import Deal, Event, Events, State


def deal_round(rules: Rules, seed: str, round_no: int, deal_version: int = DEAL_VERSION) -> Deal:
    """Round ``round_no``'s deal from the seed by deal version ``deal_version``, as the variant deals it."""
    return variants.of(rules).deal_round(rules, seed, round_no, check_version(deal_version))


def new_game(
    rules: Rules, seed: str | int | None = None, deal: Deal | None = None, deal_version: int = DEAL_VERSION
) -> State:
    """A new match with round 1 dealt from ``seed`` (or laid out as ``deal``) and its first seat to move; its
    rounds are dealt by ``deal_version`` (docs/engine.md#deal-versions: 2, or 1 to replay an older game)."""
    if seed is None and deal is None:
        raise InvalidDealError("give a seed or a deal")
    seed_text = "" if seed is None else str(seed)
    return variants.of(rules).start_round(rules, 1, deal, seed_text, deal_version=check_version(deal_version))[0]


def opening_events(state: State) -> Events:
    """The events that start the current round (for the first round of a new game)."""
    return variants.of(state.rules).opening_events(state)


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves the seat to move may make, sorted; ``()`` once the game is over."""
    memo = state.moves_memo
    if memo is None:
        memo = () if state.outcome is not None else variants.of(state.rules).legal_moves(state)
        object.__setattr__(state, "moves_memo", memo)  # a cache, not part of the state's value
    return memo


def resolve(state: State, move: Move) -> Move:
    """The legal move meant by ``move`` (filling an omitted end), or the engine error saying why not."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    legal = state.moves_memo or legal_moves(state)
    for m in legal:
        if m is move:  # the usual case, a move taken from the list: no comparisons
            return move
    if move in legal:
        return move
    if isinstance(move, Play):
        top = state.rules.set_max_pips
        if move.tile.high > top or move.tile.low < 0:
            raise InvalidMoveError(f"{move.tile} is not in a double-{top} set")
        if move.end is not None and not valid_end(move.end):
            # A malformed end is malformed input, not an illegal placement (errors.InvalidMoveError).
            raise InvalidMoveError("'end' must be left, right, up, down, mexican or train:<seat>")
        if move.end is None:
            options = tuple(m for m in legal if isinstance(m, Play) and m.tile == move.tile)
            if len(options) == 1:
                return options[0]
            if len(options) > 1:
                raise AmbiguousMoveError(f"{move.tile} fits more than one end; name one", options)
        if move.tile not in state.hands[state.turn]:
            raise IllegalMoveError(f"{move.tile} is not in your hand", legal)
        raise IllegalMoveError(f"{move} is not legal now", legal)
    if not isinstance(move, (Draw, Pass)):
        raise InvalidMoveError("a move is a Play, a Draw or a Pass")
    raise IllegalMoveError(f"you may not {move} now", legal)


def step(state: State, move: Move, seat: int | None = None) -> tuple[State, Events]:
    """The state after ``move`` by the seat to move, and the events it produced; raises on illegal input."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    if seat is not None and seat != state.turn:
        raise NotYourTurnError(f"it is seat {state.turn}'s turn")
    events: list[Event] = []
    after = variants.of(state.rules).advance(state, resolve(state, move), events)
    return after, tuple(events)


def apply(state: State, move: Move, seat: int | None = None) -> State:
    """``step(state, move, seat)[0]``, without building the events."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    if seat is not None and seat != state.turn:
        raise NotYourTurnError(f"it is seat {state.turn}'s turn")
    for m in state.moves_memo or legal_moves(state):
        if m is move:  # the usual case, a move taken from the list (``resolve`` without its call)
            break
    else:
        move = resolve(state, move)
    return variants.REGISTRY[state.rules.preset_name].advance(state, move, None)


def settle(state: State) -> State:
    """A position built by hand after the variant's end-of-turn tests (a blocked round ends at once)."""
    return variants.of(state.rules).settle(state)


def resign(state: State, seat: int) -> tuple[State, Events]:
    """``seat`` resigns: the match ends and the other side (every other seat, or the other team) wins."""
    return match.resign(state, seat)


def end(state: State, reason: str) -> tuple[State, Events]:
    """The server ends the match with ``reason`` (``expired`` or ``aborted``): nobody wins."""
    return match.end(state, reason)
