"""Whole matches of the line games played by built-in bots on integers and bitmasks.

It must agree move for move with the public engine (tests/engine/test_core_agrees.py), so every rule
below mirrors domino/engine.py and domino/variants/line.py; the deal and the lot come from
domino/shuffle.py and the round awards from domino/scoring.py, unchanged.

Representation: a tile is its index in ``full_set`` order (= legal-move order), a hand an int bitmask,
an open end its value, ``value_mask[v]`` the tiles that match v. Nothing is re-validated: the core only
ever generates legal moves.
"""

from __future__ import annotations

import random
from typing import Callable, NamedTuple, Sequence

from domino import match
from domino.core.block import block_round
from domino.core.codes import to_move
from domino.core.position import LineSim
from domino.core.round import Config, config, dealt_order, hand_masks, opener, round_award
from domino.core.tables import Tables, pip_counts, tables
from domino.moves import Move
from domino.rules import Rules
from domino.shuffle import DEAL_VERSION, check_version
from domino.state import Outcome

STRATEGIES = ("random", "greedy")


class RoundSummary(NamedTuple):
    """The core's ``RoundResult``: how the round ended and what it was worth."""

    round: int
    end: str  # "domino" | "blocked" | "abandoned"
    winner: int | None
    team: int | None
    pips_left: tuple[int, ...]
    points: tuple[int, ...]  # in-play points plus the award, per seat (a team's on both partners)
    award: tuple[int, ...]
    hands: tuple[int, ...]  # tile masks of what each seat still held


class PlayoutResult(NamedTuple):
    rounds: tuple[RoundSummary, ...]
    outcome: Outcome
    scores: tuple[int, ...]
    moves: int  # every Play, Draw and Pass
    log: tuple[int, ...] | None  # the encoded moves, when recorded

    @property
    def round_count(self) -> int:
        return len(self.rounds)


def bot_rng(seed: str | int) -> random.Random:
    """The random bot's generator for a match: seeded from the game seed, apart from the deal's hashes."""
    return random.Random(f"{seed}|bots")


def decode(code: int, max_pips: int) -> Move:
    """The public move for an encoded one (``record=True``; see domino/core/codes.py)."""
    return to_move(code, tables(max_pips))


# -- every other line game ---------------------------------------------------------------------------


def _sim_round(
    sim: LineSim, scores: list[int], is_random: tuple[bool, ...], bits: Callable[[int], int], log: list[int] | None
) -> tuple[str, int, int]:
    """One round of any line game on the kernel (``LineSim``), played in place: (end kind, seat that went
    out or -1, moves). ``scores`` are the match's before the round: the All Fives immediate target ends
    the match mid-round, which the kernel leaves to its caller."""
    cfg = sim.cfg
    pips = sim.tb.pips
    side = cfg.side
    immediate, target = cfg.immediate, cfg.target
    moves = 0
    while True:
        p = sim.turn
        legal = sim.moves()
        if is_random[p]:  # Random.randrange(n), from the same bits
            n = len(legal)
            nb = n.bit_length()
            k = bits(nb)
            while k >= n:
                k = bits(nb)
            move = legal[k]
        else:  # greedy: the heaviest play, the first in legal order among equals; else the draw or pass
            move = legal[0]
            for code in legal:
                if code >= 0 and pips[code >> 3] > pips[move >> 3]:
                    move = code
        moves += 1
        if log is not None:
            log.append(move)
        before = sim.pts[side[p]]
        sim.apply(move)
        if immediate and sim.pts[side[p]] != before and scores[p] + sim.pts[side[p]] >= target:
            return "abandoned", -1, moves
        if sim.over:
            return ("domino", p, moves) if move >= 0 and not sim.hands[p] else ("blocked", -1, moves)


# -- matches --------------------------------------------------------------------------------------------


def _check(rules: Rules, strategies: Sequence[str], rng: random.Random | None) -> None:
    if not rules.is_line:
        raise ValueError("playout covers the line games")
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} seats")
    for s in strategies:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}; one of {', '.join(STRATEGIES)}")
    if rng is not None and type(rng) is not random.Random:
        # The bots below reproduce Random.randrange from getrandbits, which holds for Random itself.
        raise TypeError("rng must be a random.Random")


def _round(
    rules: Rules,
    cfg: Config,
    tab: Tables,
    seed: str,
    deal_version: int,
    round_no: int,
    previous: tuple[str, int | None] | None,
    scores: list[int],
    is_random: tuple[bool, ...],
    bits: Callable[[int], int],
    log: list[int] | None,
) -> tuple[RoundSummary, int]:
    """Deal and play round ``round_no``: its summary (scores not yet added) and its number of moves."""
    order = dealt_order(cfg, tab, seed, round_no, deal_version)
    hands = hand_masks(cfg, tab, order)
    first, lead, by_rule = opener(cfg, tab, seed, round_no, deal_version, hands, previous)
    players = cfg.players
    if cfg.fast:
        end, out, n = block_round(tab, hands, first, lead, is_random, bits, log)
        round_points = [0] * players
    else:
        sim = LineSim.new(tab, rules, by_rule)
        sim.hands, sim.bone, sim.turn, sim.lead = hands, order[players * cfg.hand_size :], first, lead
        end, out, n = _sim_round(sim, scores, is_random, bits, log)
        hands = sim.hands
        round_points = [sim.pts[cfg.side[i]] for i in range(players)]
    pips = pip_counts(hands, tab)
    if end == "abandoned":
        zero = (0,) * players
        return RoundSummary(round_no, end, None, None, pips, tuple(round_points), zero, tuple(hands)), n
    winner, team, award = round_award(rules, cfg, out if end == "domino" else -1, pips)
    points = tuple(rp + a for rp, a in zip(round_points, award)) if cfg.all_fives else award
    return RoundSummary(round_no, end, winner, team, pips, points, award, tuple(hands)), n


def playout(
    rules: Rules,
    strategies: Sequence[str],
    seed: str | int,
    *,
    deal_version: int = DEAL_VERSION,
    rng: random.Random | None = None,
    record: bool = False,
    between_rounds: Callable[[], None] | None = None,
) -> PlayoutResult:
    """Play a whole match of a line game with the built-in ``random`` / ``greedy`` bots, one id per seat.

    The result is what the public engine gives for the same rules, seed, deal version and bots (the random
    bots sharing ``rng``, by default ``bot_rng(seed)``): the same deals, moves, round results and outcome.
    ``between_rounds`` is called before each round after the first; it may raise to abandon the match (a
    caller's cancel), so a long match need not be played to its end.
    """
    _check(rules, strategies, rng)
    check_version(deal_version)
    cfg = config(rules)
    tab = tables(rules.set_max_pips)
    bits = (rng or bot_rng(seed)).getrandbits
    is_random = tuple(s == "random" for s in strategies)
    scores = [0] * rules.players
    summaries: list[RoundSummary] = []
    log: list[int] | None = [] if record else None
    moves = 0
    previous: tuple[str, int | None] | None = None
    while True:
        if summaries and between_rounds is not None:
            between_rounds()
        summary, n = _round(
            rules, cfg, tab, str(seed), deal_version, len(summaries) + 1, previous, scores, is_random, bits, log
        )
        summaries.append(summary)
        moves += n
        if summary.end == "abandoned":
            scores = [s + rp for s, rp in zip(scores, summary.points)]
            outcome = match.winners_by_score(rules, tuple(scores), "target_score")
            break
        scores = [s + p for s, p in zip(scores, summary.points)]
        over = match.match_over(rules, tuple(scores), summary.round)
        if over is not None:
            outcome = over
            break
        previous = (summary.end, summary.winner)
    return PlayoutResult(tuple(summaries), outcome, tuple(scores), moves, None if log is None else tuple(log))
