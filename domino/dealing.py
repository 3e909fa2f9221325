"""Dealing and drawing, the same in every variant: seeded deals, explicit deals checked, the top tile drawn."""

from __future__ import annotations

from typing import Iterable

from domino import shuffle
from domino.errors import InvalidDealError
from domino.rules import Rules
from domino.state import Deal, Event, LogEntry, State, evolve
from domino.tiles import Tile


def sorted_hand(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """Hands are kept heaviest first, so equal hands are equal tuples."""
    return tuple(sorted(tiles, reverse=True))


def shuffled_deal(rules: Rules, tiles: tuple[Tile, ...], seed: str, round_no: int, deal_version: int) -> Deal:
    """``tiles`` shuffled from the seed (purpose ``deal``) by ``deal_version``: hand i is the i-th run of
    ``hand_size`` tiles, the boneyard the rest."""
    order = shuffle.shuffled(tiles, seed, round_no, "deal", deal_version, unordered=rules.hand_size)  # hands are sorted
    n = rules.hand_size
    hands = tuple(sorted_hand(order[i * n : (i + 1) * n]) for i in range(rules.players))
    return Deal(hands=hands, boneyard=tuple(order[rules.players * n :]))


def checked_deal(rules: Rules, deal: Deal, expected: Iterable[Tile], what: str) -> Deal:
    """An explicit deal with its hands sorted: ``hand_size`` tiles a seat, and ``expected`` (``what``) once each."""
    if len(deal.hands) != rules.players:
        raise InvalidDealError(f"the deal has {len(deal.hands)} hands for {rules.players} players")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.hand_size:
            raise InvalidDealError(f"seat {seat} was dealt {len(hand)} tiles, not {rules.hand_size}")
    tiles = [t for h in deal.hands for t in h] + list(deal.boneyard)
    if sorted(tiles) != sorted(expected):
        raise InvalidDealError(f"the deal must hold {what} exactly once")
    return Deal(tuple(sorted_hand(h) for h in deal.hands), tuple(deal.boneyard))


def draw_tile(state: State, events: list[Event]) -> State:
    """The seat to move takes the top tile of the boneyard."""
    p = state.turn
    tile = state.boneyard[0]
    hands = state.hands[:p] + (sorted_hand(state.hands[p] + (tile,)),) + state.hands[p + 1 :]
    events.append(Event("tile_drawn", p, {"boneyard_count": len(state.boneyard) - 1}, {"tile": str(tile)}, p))
    return evolve(
        state, hands=hands, boneyard=state.boneyard[1:], drawn=state.drawn + 1, log=state.log + (LogEntry(p, "draw"),)
    )
