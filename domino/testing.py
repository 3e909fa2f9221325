"""Build any mid-round position for tests: ``position(rules, layout="[2-5][5-1]", ...)`` for the
line games, ``position(rules, trains=[...], markers=..., ...)`` for Mexican Train. Every fixture lives here,
the fair-play screen's cheat too (``Peeker``, ``screened_game``: tests and bench/fairplay.py only)."""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping

from domino import bots, variants
from domino.analysis.fairplay import Choice, position_choice
from domino.analysis.omniscient import omniscient_values
from domino.analysis.values import move_values
from domino.bots.base import Budget
from domino.dealing import sorted_hand
from domino.engine import legal_moves, new_game, settle, step
from domino.errors import InvalidDealError
from domino.moves import Move
from domino.notation.acts import Act, act_of, build
from domino.rules import Rules
from domino.shuffle import DEAL_VERSION, check_version
from domino.state import Deal, LineBoard, Placed, State
from domino.tiles import Tile, full_set
from domino.variants import line, mexican_train, train_rounds
from domino.views import view
from domino.variants.trains import MEXICAN, PHASES, TrainBoard, TrainTurn
from domino.core.tables import mask_of, tables
from domino.core.trains import PHASE_OF, TrainConfig, TrainSim, train_index

_PLACED = re.compile(r"\[(\d+)-(\d+)\]")


def parse_layout(text: str, start: int | None = None, what: str = "layout") -> tuple[Placed, ...]:
    """``"[2-5][5-1]"`` → ((2, 5), (5, 1)); touching halves must match, and the first tile must touch
    ``start`` when given (a train's hub)."""
    placed = tuple((int(a), int(b)) for a, b in _PLACED.findall(text or ""))
    prev = start
    for a, b in placed:
        if prev is not None and a != prev:
            raise InvalidDealError(f"{what} {text!r}: {a} does not touch {prev}")
        prev = b
    return placed


def tiles(text: str | Iterable[str]) -> tuple[Tile, ...]:
    """``"6-4 3-3"`` or ``["6-4", "3-3"]`` → tiles."""
    items = text.split() if isinstance(text, str) else list(text)
    return tuple(Tile.parse(s) for s in items)


def account(
    rules: Rules, on_table: Iterable[Tile], hands: list[list[Tile]], pile: list[Tile], rest: str
) -> None:
    """Check that every tile named is in the set and named once; put the tiles not named where ``rest`` says:
    ``"error"`` (none may be missing), ``"boneyard"`` (below the named boneyard, in set order) or
    ``"hand:<seat>"``. Changes ``hands`` and ``pile`` in place."""
    named = list(on_table) + [t for h in hands for t in h] + pile
    dup = [t for t, k in Counter(named).items() if k > 1]
    if dup:
        raise InvalidDealError(f"named twice: {', '.join(map(str, dup))}")
    every = full_set(rules.set_max_pips)
    unknown = [t for t in named if t not in every]
    if unknown:
        raise InvalidDealError(f"not in the set: {', '.join(map(str, unknown))}")
    seen = set(named)
    missing = [t for t in every if t not in seen]
    if not missing:
        return
    if rest == "boneyard":
        pile += missing
    elif rest.startswith("hand:") and rest[5:].isdigit() and int(rest[5:]) < len(hands):
        hands[int(rest[5:])] += missing
    else:
        raise InvalidDealError(f"not placed anywhere: {', '.join(map(str, missing))}")


def mid_round(
    rules: Rules,
    seed: str,
    round: int,
    hands: list[list[Tile]],
    pile: list[Tile],
    board: Any,
    to_move: int,
    scores: Iterable[int] | None,
    drawn: int,
    **fields: Any,
) -> State:
    """The State of a position, every hand sorted; the deal on record is the position itself."""
    n = rules.players
    sorted_hands = tuple(sorted_hand(h) for h in hands)
    return State(
        rules=rules,
        seed=seed,
        round=round,
        deal=Deal(sorted_hands, tuple(pile)),
        hands=sorted_hands,
        boneyard=tuple(pile),
        board=board,
        turn=to_move,
        scores=tuple(scores) if scores is not None else (0,) * n,
        drawn=drawn,
        round_points=(0,) * n,
        **fields,
    )


def position(rules: Rules, layout: str = "", **arguments: Any) -> State:
    """A state in the middle of a round, checked so that every tile of the set is somewhere exactly once; the
    variant's end-of-turn tests run at once, so a blocked position is already at round end. The arguments are
    the variant's: see ``_line_position`` and ``_train_position``."""
    if layout:
        arguments["layout"] = layout  # the line games' layout; Mexican Train names its trains instead
    return _BUILDERS[variants.of(rules)](rules, **arguments)


def _line_position(
    rules: Rules,
    layout: str = "",
    hands: Iterable[str | Iterable[str]] = (),
    boneyard: str | Iterable[str] = (),
    to_move: int = 0,
    scores: Iterable[int] | None = None,
    round: int = 1,
    seed: str = "position",
    deal_version: int = DEAL_VERSION,
    rest: str = "error",
    spinner: str | None = None,
    up: str = "",
    down: str = "",
    drawn: int = 0,
    extra_play: bool = False,
    **variant_state: Any,
) -> State:
    """A state in the middle of a round, checked so that every tile of the set is somewhere exactly once.

    ``rest``: where tiles not named go: ``"error"`` (every tile must be named), ``"boneyard"`` (below the
    named boneyard, in set order; out of play where nobody draws) or ``"hand:<seat>"``.
    ``spinner``: the spinner tile in ``layout`` (All Fives); by default the only double on the line, if any.
    The blocked test runs at once, so a blocked position is already at round end.
    """
    if variant_state:
        raise TypeError(f"unknown arguments for a line game: {', '.join(variant_state)}")
    line = parse_layout(layout)
    arm_up, arm_down = parse_layout(up), parse_layout(down)
    hand_tiles = [list(tiles(h)) for h in hands]
    if len(hand_tiles) != rules.players:
        raise InvalidDealError(f"{len(hand_tiles)} hands for {rules.players} players")
    pile = list(tiles(boneyard))
    account(rules, [Tile(a, b) for a, b in line + arm_up + arm_down], hand_tiles, pile, rest)
    spin_index: int | None = None
    if rules.spinner == "first_double" and line:
        doubles = [i for i, (a, b) in enumerate(line) if a == b]
        if spinner is not None:
            target = Tile.parse(spinner)
            found = [i for i, (a, b) in enumerate(line) if Tile(a, b) == target and a == b]
            if not found:
                raise InvalidDealError(f"the spinner {spinner} is not a double on the line")
            spin_index = found[0]
        elif len(doubles) == 1:
            spin_index = doubles[0]
        elif len(doubles) > 1:
            raise InvalidDealError("several doubles on the line: name the spinner")
    if (arm_up or arm_down) and (spin_index is None or not 0 < spin_index < len(line) - 1):
        raise InvalidDealError("up/down arms need a spinner with both sides covered")
    board = LineBoard(line, spin_index, arm_up, arm_down)
    version = check_version(deal_version)
    state = mid_round(rules, seed, round, hand_tiles, pile, board, to_move, scores, drawn, extra_play=extra_play, deal_version=version)
    return settle(state)


def _train_position(
    rules: Rules,
    hands: Iterable[str | Iterable[str]] = (),
    boneyard: str | Iterable[str] = (),
    to_move: int = 0,
    scores: Iterable[int] | None = None,
    round: int = 1,
    seed: str = "position",
    deal_version: int = DEAL_VERSION,
    rest: str = "error",
    trains: Mapping[int, str] | Iterable[str] = (),
    mexican: str = "",
    markers: Iterable[int] = (),
    pending_doubles: Iterable[str] | None = None,
    first_turn_pending: Iterable[int] = (),
    phase: str = "start",
    drawn: int = 0,
) -> State:
    """A Mexican Train state in the middle of a round.

    ``trains``: each seat's train as an oriented layout from the hub, e.g. ``["[12-5][5-9]", "", …]`` or
    ``{1: "[12-7][7-7]"}``; ``mexican`` likewise. ``markers``: seats whose trains are marked (open).
    ``pending_doubles``: the uncovered doubles, oldest first, as tiles (``"7-7"``) or trains (``"train:1"``);
    by default every train that ends in a double, in seat order then the Mexican train. ``first_turn_pending``:
    seats that have not had their first turn (default: none, the opening cycle is over). ``phase``: ``start``,
    ``sequence`` (the seat to move is in a first-turn run) or ``follow`` (it has just played a double).
    ``rest``: ``"error"``, ``"boneyard"`` or ``"hand:<seat>"`` for the tiles not named.
    The block test runs at once for a position at the start of a turn.
    """
    n = rules.players
    board = _train_board(rules, round, trains, mexican)
    hand_tiles = [list(tiles(h)) for h in hands]
    if len(hand_tiles) != n:
        raise InvalidDealError(f"{len(hand_tiles)} hands for {n} players")
    pile = list(tiles(boneyard))
    account(rules, board.tiles(), hand_tiles, pile, rest)
    ends_in_double = [name for name in board.names(True) if board.train(name) and _is_double(board.train(name)[-1])]
    if pending_doubles is None:
        pending = tuple(ends_in_double)
    else:
        pending = tuple(_pending_name(board, item) for item in pending_doubles)
        if any(name not in ends_in_double for name in pending):
            raise InvalidDealError("a pending double must be the last tile of its train")
    marked = set(markers)
    if phase not in PHASES:
        raise InvalidDealError(f"phase must be one of {', '.join(PHASES)}")
    first = sorted(set(first_turn_pending), key=lambda s: (s - to_move) % n)
    turn = TrainTurn(tuple(s in marked for s in range(n)), pending, tuple(first), phase)
    version = check_version(deal_version)
    return settle(mid_round(rules, seed, round, hand_tiles, pile, board, to_move, scores, drawn, variant=turn, deal_version=version))


def _train_board(rules: Rules, round: int, trains: Mapping[int, str] | Iterable[str], mexican: str) -> TrainBoard:
    """The board of ``_train_position``'s ``trains`` and ``mexican`` layouts."""
    n = rules.players
    e = train_rounds.engine_value(rules, round)
    if isinstance(trains, Mapping):
        texts = [str(trains.get(s, "")) for s in range(n)]
    else:
        texts = list(trains) or [""] * n
    if len(texts) != n:
        raise InvalidDealError(f"{len(texts)} trains for {n} players")
    board = TrainBoard(
        e, tuple(parse_layout(t, e, f"train:{s}") for s, t in enumerate(texts)), parse_layout(mexican, e, "mexican")
    )
    if board.mexican and not rules.mexican_train:
        raise InvalidDealError("there is no Mexican train (mexican_train = false)")
    return board


def _is_double(p: Placed) -> bool:
    return p[0] == p[1]


def _pending_name(board: TrainBoard, item: str) -> str:
    if item == MEXICAN or item.startswith("train:"):
        return item
    tile = Tile.parse(item)
    for name in board.names(True):
        t = board.train(name)
        if t and Tile(*t[-1]) == tile:
            return name
    raise InvalidDealError(f"{item} is not the last tile of any train")


def train_sim(state: State) -> TrainSim:
    """The kernel simulator at a Mexican Train state, every hand and the boneyard known (for tests)."""
    board, turn = state.board, state.variant
    assert isinstance(board, TrainBoard) and isinstance(turn, TrainTurn)
    rules = state.rules
    tb = tables(rules.set_max_pips)
    n = rules.players
    sim = TrainSim.new(tb, TrainConfig.of(rules), board.engine)
    sim.hands = [mask_of(h, tb) for h in state.hands]
    sim.bone = tuple(tb.index_of[t] for t in state.boneyard)
    sim.ends = [board.end(name) for name in board.names(bool(rules.mexican_train))]
    sim.markers = sum(1 << s for s, m in enumerate(turn.markers) if m)
    sim.pending = [train_index(name, n) for name in turn.pending]
    sim.first = list(turn.first_turn)
    sim.phase = PHASE_OF[turn.phase]
    sim.drawn, sim.turn = state.drawn, state.turn
    return sim


_BUILDERS: dict[object, Callable[..., State]] = {line: _line_position, mexican_train: _train_position}


def bot_record(
    rules: Rules, seed: str, players: list[str], nodes: int = 2000, game_id: str = "g0000000000000000"
) -> dict[str, Any]:
    """The revealed record (history document) of a game that the built-in bots ``players`` (one id a seat) play
    to the end from ``seed``, each search at ``nodes`` a move (deterministic)."""
    rng = random.Random(f"{game_id}:{seed}")
    strategies = [bots.get(name) for name in players]
    state = new_game(rules, seed=seed)
    acts = [Act(0, "created")]
    while not state.finished:
        seat = state.turn
        move = strategies[seat].choose(view(state, seat), rng, Budget(nodes=nodes))
        state, events = step(state, move)
        acts.append(act_of(len(acts), events[0].to_dict(for_seat=seat)))
    seats = [{"seat": i, "name": name, "kind": "bot"} for i, name in enumerate(players)]
    given = {
        "id": game_id, "variant": rules.preset_name, "version": len(acts) - 1, "seats": seats, "rules": rules.to_dict(),
        "seed_commitment": "", "client_seeded": True, "seed": seed, "salt": "", "deal_version": DEAL_VERSION,
    }  # fmt: skip
    return build(given, acts)[0]


@dataclass(frozen=True, slots=True)
class Peeker:
    """A cheat, for the fair-play screen's tests and bench only (never a listed bot: nothing public seats it): it
    sees the other hands (not the boneyard's order) and plays the move best to that eye."""

    nodes: int = 20000

    def choose_seen(self, state: State, rng: random.Random) -> Move:
        moves = legal_moves(state)
        if len(moves) == 1:
            return moves[0]
        values = omniscient_values(state, rng, self.nodes)
        return max(values, key=lambda mv: mv[1])[0]


def screened_game(rules: Rules, seed: str, player: str, opponent: str, nodes: int) -> tuple[list[Choice], int]:
    """A game played through the engine, side 0 (seat 0, or team 0) by ``player`` (``"peeker"``, or a bot id) and
    the others by ``opponent``, every search at ``nodes``; then side 0's choice positions as the fair-play screen
    reads them (each at ``nodes``, seeded from ``seed`` and the version): (the readings, the moves made)."""
    state = new_game(rules, seed=seed)
    rng = random.Random(seed)
    me, them = _mover(player, nodes), _mover(opponent, nodes)
    choices: list[Choice] = []
    version = 0
    while state.outcome is None:
        version += 1
        moves = legal_moves(state)
        screened = rules.side_of(state.turn) == 0
        move = (me if screened else them)(state, rng) if len(moves) > 1 else moves[0]
        if screened and len(moves) > 1:
            at = f"{seed}:{version}"
            info = move_values(view(state, state.turn), random.Random(f"{at}:info"), nodes)
            choices.append(position_choice(state, move, [(v.move, v.value) for v in info], at, nodes))
        state, _ = step(state, move)
    return choices, version


def _mover(kind: str, nodes: int) -> Callable[[State, random.Random], Move]:
    if kind == "peeker":
        return Peeker(nodes).choose_seen
    bot = bots.get(kind)
    return lambda state, rng: bot.choose(view(state, state.turn), rng, Budget(nodes=nodes))
