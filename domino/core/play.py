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
from domino.core.codes import DOWN, DRAW_CODE, LEFT, OPEN, RIGHT, UP, to_move
from domino.core.round import Config, config, dealt_order, hand_masks, opener, round_award
from domino.core.tables import Tables, pip_counts, tables
from domino.moves import Move
from domino.rules import Rules
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


def _general_round(
    cfg: Config,
    tab: Tables,
    hands: list[int],
    bone: list[int],
    opener: int,
    lead: int,
    by_rule: bool,
    scores: list[int],
    round_points: list[int],
    is_random: tuple[bool, ...],
    bits: Callable[[int], int],
    log: list[int] | None,
) -> tuple[str, int, int]:
    """One round of any line game, in place on ``hands``, ``scores`` and ``round_points``."""
    M = tab.value_mask
    PIPS = tab.pips
    DBL = tab.double
    players = cfg.players
    nxt = [(i + 1) % players for i in range(players)]
    side = cfg.side
    spinner_game, all_fives, immediate, target = cfg.spinner, cfg.all_fives, cfg.immediate, cfg.target
    options = cfg.options
    # Draws are possible while the boneyard index is below this (engine.can_draw).
    draw_limit = len(bone) - cfg.reserve if cfg.draws else 0
    bi = 0
    cnt = [h.bit_count() for h in hands]
    union = 0
    for h in hands:
        union |= h
    # The layout: open end values; whether the outermost tile there is a double (it counts twice);
    # the spinner's value (-1: none yet) and whether it is still the outermost tile of left / right.
    ntiles = 0
    lv = rv = uv = dv = 0
    ldb = rdb = udb = ddb = False
    ucnt = dcnt = 0
    sp = -1
    sp_at_left = sp_at_right = False
    arms = False
    drawn = 0
    extra = False
    p = opener
    moves = 0
    while True:
        h = hands[p]
        plays: list[int] = []  # encoded, in legal order
        if not ntiles:
            if lead >= 0:
                plays.append(lead << 3 | OPEN)
            else:
                c = h
                while c:
                    b = c & -c
                    plays.append((b.bit_length() - 1) << 3 | OPEN)
                    c ^= b
        else:
            ml, mr = M[lv], M[rv]
            c = h & (ml | mr | (M[uv] | M[dv] if arms else 0))
            while c:
                b = c & -c
                t8 = (b.bit_length() - 1) << 3
                if ml & b:
                    plays.append(t8 | LEFT)
                if mr & b:
                    plays.append(t8 | RIGHT)
                if arms:
                    if M[uv] & b:
                        plays.append(t8 | UP)
                    if M[dv] & b:
                        plays.append(t8 | DOWN)
                c ^= b
        # Draw and Pass, as variants.line._moves adds them (Config.options).
        extras = options[extra << 3 | (not drawn) << 2 | (not plays) << 1 | (bi < draw_limit)] if ntiles else ()
        if is_random[p]:
            n = len(plays) + len(extras)
            nb = n.bit_length()
            k = bits(nb)
            while k >= n:
                k = bits(nb)
            move = plays[k] if k < len(plays) else extras[k - len(plays)]
        elif plays:
            best = -1
            move = 0
            for code in plays:
                w = PIPS[code >> 3]
                if w > best:
                    best, move = w, code
        else:
            move = extras[0]
        moves += 1
        if log is not None:
            log.append(move)
        if move >= 0:
            t = move >> 3
            end = move & 7
            bit = 1 << t
            h ^= bit
            hands[p] = h
            union ^= bit
            cnt[p] -= 1
            ntiles += 1
            dbl = DBL[t]
            if end == OPEN:
                lv, rv = tab.high[t], tab.low[t]
                ldb = rdb = dbl
                if spinner_game and dbl:
                    sp, sp_at_left, sp_at_right = lv, True, True
                    uv = dv = sp
            elif end == LEFT:
                lv = PIPS[t] - lv
                ldb = dbl
                sp_at_left = spinner_game and sp < 0 and dbl
                if sp_at_left:
                    sp = uv = dv = lv
                arms = sp >= 0 and not sp_at_left and not sp_at_right
            elif end == RIGHT:
                rv = PIPS[t] - rv
                rdb = dbl
                sp_at_right = spinner_game and sp < 0 and dbl
                if sp_at_right:
                    sp = uv = dv = rv
                arms = sp >= 0 and not sp_at_left and not sp_at_right
            elif end == UP:
                uv = PIPS[t] - uv
                udb = dbl
                ucnt += 1
            else:
                dv = PIPS[t] - dv
                ddb = dbl
                dcnt += 1
            points = 0
            if all_fives:
                if ntiles == 1:
                    count = PIPS[t]
                else:
                    count = (lv + lv if ldb else lv) + (rv + rv if rdb else rv)
                    if ucnt:
                        count += uv + uv if udb else uv
                    if dcnt:
                        count += dv + dv if ddb else dv
                if count and not count % 5:
                    points = count
                    s = side[p]
                    for i in range(players):
                        if side[i] == s:
                            scores[i] += count
                            round_points[i] += count
            drawn = 0
            extra = False
            if points and immediate and scores[p] >= target:
                return "abandoned", -1, moves
            if not cnt[p]:
                return "domino", p, moves
            if end == OPEN and cfg.extra and by_rule and h & (M[lv] | M[rv]):
                extra = True
            else:
                p = nxt[p]
        elif move == DRAW_CODE:
            t = bone[bi]
            bi += 1
            bit = 1 << t
            hands[p] = h | bit
            union |= bit
            cnt[p] += 1
            drawn += 1
        else:
            p = nxt[p]
            drawn = 0
            extra = False
        # variants.line.is_blocked, after every move
        if ntiles and bi >= draw_limit:
            reach = M[lv] | M[rv]
            if arms:
                reach |= M[uv] | M[dv]
            if not union & reach:
                return "blocked", -1, moves


# -- matches --------------------------------------------------------------------------------------------


def playout(
    rules: Rules,
    strategies: Sequence[str],
    seed: str | int,
    *,
    rng: random.Random | None = None,
    record: bool = False,
    between_rounds: Callable[[], None] | None = None,
) -> PlayoutResult:
    """Play a whole match of a line game with the built-in ``random`` / ``greedy`` bots, one id per seat.

    The result is what the public engine gives for the same rules, seed and bots (the random bots
    sharing ``rng``, by default ``bot_rng(seed)``): the same deals, moves, round results and outcome.
    ``between_rounds`` is called before each round after the first; it may raise to abandon the match (a
    caller's cancel), so a long match need not be played to its end.
    """
    if not rules.is_line:
        raise ValueError("playout covers the line games")
    if len(strategies) != rules.players:
        raise ValueError(f"{len(strategies)} strategies for {rules.players} seats")
    for s in strategies:
        if s not in STRATEGIES:
            raise ValueError(f"unknown strategy {s!r}; one of {', '.join(STRATEGIES)}")
    if rng is None:
        rng = bot_rng(seed)
    elif type(rng) is not random.Random:
        # The bots below reproduce Random.randrange from getrandbits, which holds for Random itself.
        raise TypeError("rng must be a random.Random")
    cfg = config(rules)
    tab = tables(rules.set_max_pips)
    seed_text = str(seed)
    is_random = tuple(s == "random" for s in strategies)
    bits = rng.getrandbits
    players = cfg.players
    scores = [0] * players
    summaries: list[RoundSummary] = []
    log: list[int] | None = [] if record else None
    moves = 0
    round_no = 1
    previous: tuple[str, int | None] | None = None
    while True:
        order = dealt_order(cfg, tab, seed_text, round_no)
        hands, bone = hand_masks(cfg, tab, order), order[players * cfg.hand_size :]
        first, lead, by_rule = opener(cfg, tab, seed_text, round_no, hands, previous)
        round_points = [0] * players
        if cfg.fast:
            end, out, n = block_round(tab, hands, first, lead, is_random, bits, log)
        else:
            end, out, n = _general_round(
                cfg, tab, hands, bone, first, lead, by_rule, scores, round_points, is_random, bits, log
            )
        moves += n
        pips = pip_counts(hands, tab)
        if end == "abandoned":
            zero = (0,) * players
            summaries.append(RoundSummary(round_no, end, None, None, pips, tuple(round_points), zero, tuple(hands)))
            outcome = match.winners_by_score(rules, tuple(scores), "target_score")
            break
        winner, team, award = round_award(rules, cfg, out if end == "domino" else -1, pips)
        for i in range(players):
            scores[i] += award[i]
        summaries.append(
            RoundSummary(
                round_no,
                end,
                winner,
                team,
                pips,
                tuple(rp + a for rp, a in zip(round_points, award)) if cfg.all_fives else award,
                award,
                tuple(hands),
            )
        )
        over = match.match_over(rules, tuple(scores), round_no)
        if over is not None:
            outcome = over
            break
        previous = (end, winner)
        round_no += 1
        if between_rounds is not None:
            between_rounds()
    return PlayoutResult(tuple(summaries), outcome, tuple(scores), moves, None if log is None else tuple(log))
