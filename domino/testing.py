"""Build any mid-round position for tests: ``position(rules, layout="[2-5][5-1]", ...)``."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any, Iterable

from domino.engine import _after_turn, sorted_hand
from domino.errors import InvalidDealError
from domino.rules import Rules
from domino.state import Deal, LineBoard, Placed, State
from domino.tiles import Tile, full_set

_PLACED = re.compile(r"\[(\d+)-(\d+)\]")


def parse_layout(text: str) -> tuple[Placed, ...]:
    """``"[2-5][5-1]"`` → ((2, 5), (5, 1)); touching halves must match."""
    placed = tuple((int(a), int(b)) for a, b in _PLACED.findall(text or ""))
    for (_, right), (left, _) in zip(placed, placed[1:]):
        if right != left:
            raise InvalidDealError(f"layout {text!r}: {right} does not touch {left}")
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


def position(
    rules: Rules,
    layout: str = "",
    hands: Iterable[str | Iterable[str]] = (),
    boneyard: str | Iterable[str] = (),
    to_move: int = 0,
    scores: Iterable[int] | None = None,
    round: int = 1,
    seed: str = "position",
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
    if not rules.is_line:
        from domino.variants import mexican_train

        return mexican_train.position(rules, hands=hands, boneyard=boneyard, to_move=to_move, scores=scores,
                                      round=round, seed=seed, rest=rest, drawn=drawn, **variant_state)
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
    state = mid_round(rules, seed, round, hand_tiles, pile, board, to_move, scores, drawn, extra_play=extra_play)
    return _after_turn(state, [])
