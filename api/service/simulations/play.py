"""Playing a simulation's games in memory: pure (no Redis), deterministic for a spec and a chunk."""

from __future__ import annotations

import dataclasses
import random
from collections import Counter
from collections.abc import Callable

import domino
import domino.bots
from api.service.simulations.spec import Spec


class Stopped(Exception):
    """``keep_going`` said stop (a cancel): the chunk is abandoned, mid-game if need be."""


Check = Callable[[], None]  # raises Stopped when the chunk must stop


@dataclasses.dataclass(frozen=True)
class GameSummary:
    rounds: tuple[str, ...]  # how each round ended
    moves: int
    winners: tuple[int, ...]
    team: int | None
    scores: tuple[int, ...]


def game_seed(spec: Spec, deal: int) -> str:
    return f"{spec.seed}:{deal}"


def bots_rng(spec: Spec, deal: int, rotation: int) -> random.Random:
    """The bots' generator for one game: apart from the deal's hashes, distinct per rotation."""
    return random.Random(f"{spec.seed}:{deal}:{rotation}|bots")


def play_game(spec: Spec, rules: domino.Rules, deal: int, rotation: int, check: Check | None = None) -> GameSummary:
    """One whole match of the deal seed in this rotation, in memory; ``check`` is called before each move
    (each round in the fast core), so a cancel stops even a long match."""
    lineup = spec.lineup(rotation)
    rng = bots_rng(spec, deal, rotation)
    seed = game_seed(spec, deal)
    if spec.engine == "playout":
        res = domino.playout(rules, lineup, seed, deal_version=spec.deal_version, rng=rng, between_rounds=check)
        o = res.outcome
        return GameSummary(tuple(r.end for r in res.rounds), res.moves, tuple(o.winners), o.team, tuple(res.scores))
    bots = [domino.bots.get(s) for s in lineup]
    budgets = [domino.bots.Budget(nodes=(spec.search_nodes or {}).get(s, 1)) for s in lineup]
    state = domino.new_game(rules, seed=seed, deal_version=spec.deal_version)
    moves = 0
    while not state.finished:
        if check is not None:
            check()
        seat = state.turn
        move = bots[seat].choose(domino.view(state, seat), rng, budgets[seat])
        state, _ = domino.step(state, move)
        moves += 1
    end = state.outcome
    assert end is not None
    return GameSummary(tuple(r.end for r in state.rounds), moves, tuple(end.winners), end.team, tuple(state.scores))


def _slot_of_seat(spec: Spec, seat: int, rotation: int) -> int:
    k = (seat - rotation) % spec.players  # the request seat sitting there
    return k % 2 if spec.teams else k


def _slot_points(spec: Spec, g: GameSummary, rotation: int) -> list[int]:
    if spec.teams:  # a seat's score is its team's: team t is seats t and t+2
        return [g.scores[(t + rotation) % 2] for t in range(2)]
    return [g.scores[(k + rotation) % spec.players] for k in range(spec.players)]


def play_chunk(spec: Spec, chunk: int, keep_going: Callable[[], bool] | None = None) -> Counter[str] | None:
    """Play one chunk's deals (every rotation of each) and return its counts; None if ``keep_going`` said
    stop (asked between deals and within games). Counts are integers, so adding chunks in any order gives one
    total."""

    def check() -> None:
        if keep_going is not None and not keep_going():
            raise Stopped

    try:
        return _play_deals(spec, chunk, check)
    except Stopped:
        return None


def _play_deals(spec: Spec, chunk: int, check: Check) -> Counter[str]:
    rules = domino.Rules.from_dict(spec.rules)
    c: Counter[str] = Counter()
    slots = spec.slots
    for deal in spec.deal_range(chunk):
        check()
        deal_pts = [0] * slots
        deal_wins = [0] * slots
        for rot in range(spec.rotations):
            g = play_game(spec, rules, deal, rot, check)
            c["games"] += 1
            c[f"r{rot}:games"] += 1
            c["rounds"] += len(g.rounds)
            c["blocked"] += sum(1 for e in g.rounds if e == "blocked")
            c["moves"] += g.moves
            if spec.teams:
                winner = None if g.team is None else (g.team - rot) % 2
                shared: list[int] = []
            else:
                winner = _slot_of_seat(spec, g.winners[0], rot) if len(g.winners) == 1 else None
                shared = [_slot_of_seat(spec, w, rot) for w in g.winners] if len(g.winners) > 1 else []
            if winner is None:
                c["draws"] += 1
            else:
                c[f"e{winner}:wins"] += 1
                deal_wins[winner] += 1
            for k in shared:
                c[f"e{k}:shared"] += 1
            for k, p in enumerate(_slot_points(spec, g, rot)):
                c[f"e{k}:pts"] += p
                c[f"e{k}:pts2"] += p * p
                deal_pts[k] += p
        if spec.duplicate:
            # Per deal (all its rotations): the sums behind intervals clustered by deal, and each slot's
            # points against the table's average (times the slot count, to stay in integers).
            table = sum(deal_pts)
            for k in range(slots):
                c[f"e{k}:dw2"] += deal_wins[k] ** 2
                c[f"e{k}:dp2"] += deal_pts[k] ** 2
                margin = slots * deal_pts[k] - table
                c[f"e{k}:dm"] += margin
                c[f"e{k}:dm2"] += margin * margin
    return c
