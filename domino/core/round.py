"""The rules of one round of a line game in the forms both simulators use: the match core
(domino/core/play.py) and the mid-round kernel the search plays on (domino/core/position.py).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from domino import scoring, shuffle
from domino.core.codes import DRAW_CODE, PASS_CODE
from domino.core.tables import Tables
from domino.rules import Rules


@dataclass(frozen=True, slots=True)
class Config:
    """The rules of a line game as the simulators read them (per Rules, cached; slots: the search's
    simulator reads its fields on every move)."""

    players: int
    hand_size: int
    teams: bool
    side: tuple[int, ...]  # seat -> scoring side (team or seat)
    sides: int
    spinner: bool
    all_fives: bool
    draws: bool
    draw_one: bool
    reserve: int
    may_draw: bool  # may_draw_when_playable
    may_pass: bool  # drawn_tile_play = may
    extra: bool  # opener_extra_play
    # The draw and pass moves listed after the plays once the round is open (variants.line._moves),
    # indexed by extra << 3 | (not drawn) << 2 | (not plays) << 1 | can_draw: the opener's extra
    # play is pending, no draw yet this turn, no placement fits, the boneyard allows a draw.
    options: tuple[tuple[int, ...], ...]
    lot: bool
    reshuffle: bool
    previous_winner: bool
    immediate: bool
    target: int
    fixed_rounds: int  # 0 with match_end = target_score
    fast: bool  # the block fast path applies
    plain_total: bool  # opponents_total, ties score nothing, teams (if any) take all hands: see round_award
    awards: dict[tuple[int, tuple[int, ...]], tuple[int | None, int | None, tuple[int, ...]]]  # see round_award


# id of a Rules -> (the Rules, its Config); holding the Rules keeps its id from being reused.
_BY_ID: dict[int, tuple[Rules, Config]] = {}


def config(rules: Rules) -> Config:
    """The rules as the simulators read them: found by the Rules object's identity first (a round start
    asks twice, and hashing a Rules hashes every field), then by its value."""
    hit = _BY_ID.get(id(rules))
    if hit is not None and hit[0] is rules:
        return hit[1]
    if len(_BY_ID) >= 256:
        _BY_ID.clear()
    cfg = _config(rules)
    _BY_ID[id(rules)] = (rules, cfg)
    return cfg


@lru_cache(maxsize=256)
def _config(rules: Rules) -> Config:
    spinner = rules.spinner == "first_double"
    all_fives = rules.scoring == "all_fives"
    draws = rules.draw_policy != "no_draw"
    extra = bool(rules.opener_extra_play)
    draw_one = rules.draw_policy == "draw_one"
    may_draw = rules.may_draw_when_playable
    may_pass = rules.drawn_tile_play == "may"
    return Config(
        players=rules.players,
        hand_size=rules.hand_size,
        teams=rules.has_teams,
        side=tuple(rules.side_of(i) for i in range(rules.players)),
        sides=rules.sides,
        spinner=spinner,
        all_fives=all_fives,
        draws=draws,
        draw_one=draw_one,
        reserve=rules.boneyard_reserve,
        may_draw=may_draw,
        may_pass=may_pass,
        extra=extra,
        options=_options(draw_one, may_draw, may_pass),
        lot=rules.starting_rule == "lot",
        reshuffle=rules.starting_rule == "highest_double" and rules.no_double_fallback == "reshuffle",
        previous_winner=rules.next_round_starter == "previous_winner",
        immediate=rules.target_check == "immediate",
        target=rules.target_score or 0,
        fixed_rounds=(rules.rounds or 0) if rules.match_end == "fixed_rounds" else 0,
        fast=not (spinner or all_fives or draws or extra),
        plain_total=rules.scoring == "opponents_total"
        and rules.blocked_tie == "no_score"
        and (not rules.has_teams or rules.team_scoring == "all_hands"),
        awards={},
    )


def round_award(
    rules: Rules, cfg: Config, out: int, pips: tuple[int, ...]
) -> tuple[int | None, int | None, tuple[int, ...]]:
    """(winner, team, award per seat) of a round that ended by a domino of seat ``out`` or blocked
    (``out`` -1), as variants.line._end_round computes it with domino/scoring.py. Memoised per rules: the
    same pip counts recur all the time, and scoring builds lists and messages."""
    if cfg.plain_total:
        # The commonest rules, inlined (4 seats rarely repeat pip counts, so the memo misses there):
        # the winner's side takes every pip left but its own; a tie for the fewest scores nothing.
        total = sum(pips)
        if cfg.teams:
            if out >= 0:
                w = out % 2
            else:
                t0, t1 = pips[0] + pips[2], pips[1] + pips[3]
                if t0 == t1:
                    return None, None, (0, 0, 0, 0)
                w = 0 if t0 < t1 else 1
            return (out if out >= 0 else None), w, (total, 0, total, 0) if w == 0 else (0, total, 0, total)
        if out < 0:
            out = min(range(cfg.players), key=pips.__getitem__)
            if pips.count(pips[out]) > 1:
                return None, None, (0,) * cfg.players
        return out, None, tuple(total - pips[out] if i == out else 0 for i in range(cfg.players))
    key = (out, pips)
    hit = cfg.awards.get(key)
    if hit is not None:
        return hit
    winner, team, award, _ = scoring.round_award(rules, out if out >= 0 else None, pips)
    if len(cfg.awards) >= 1 << 14:
        cfg.awards.clear()
    cfg.awards[key] = hit = (winner, team, award)
    return hit


def dealt_order(cfg: Config, tab: Tables, seed: str, round_no: int, deal_version: int) -> list[int]:
    """The round's shuffled set as tile indices (``variants.line.deal_round``), redealt under ``reshuffle``
    until a double is dealt: hand i is ``order[i*n:(i+1)*n]`` (in no particular order), the boneyard the rest,
    in draw order."""
    n, count = cfg.hand_size, len(tab.tiles)
    attempt = 0
    while True:
        purpose = "deal" if attempt == 0 else f"reshuffle{attempt}"
        order = shuffle.order(count, seed, round_no, purpose, deal_version, unordered=n)  # hand 0's order is its own
        if not cfg.reshuffle or any(tab.double[t] for t in order[: cfg.players * n]):
            return order
        attempt += 1


def hand_masks(cfg: Config, tab: Tables, order: list[int]) -> list[int]:
    """The hands of a dealt order as masks."""
    n = cfg.hand_size
    bit = tab.bit.__getitem__
    return [sum(map(bit, order[i : i + n])) for i in range(0, cfg.players * n, n)]  # distinct bits: sum = or


def opener(
    cfg: Config,
    tab: Tables,
    seed: str,
    round_no: int,
    deal_version: int,
    hands: list[int],
    previous: tuple[str, int | None] | None,
) -> tuple[int, int, bool]:
    """(opening seat, tile it must lead or -1 for any, opened under starting_rule); ``previous`` is the last
    round's (end, winner) (docs/rules.md#the-line-games)."""
    if cfg.previous_winner and previous is not None and previous[0] == "domino" and previous[1] is not None:
        return previous[1], -1, False
    if cfg.lot:
        return shuffle.first_draw(seed, round_no, "lot", cfg.players, deal_version), -1, True
    dealt = 0
    for h in hands:
        dealt |= h
    for t in tab.by_rank:  # with reshuffle a double was dealt, and doubles rank first
        if dealt >> t & 1:
            for seat, h in enumerate(hands):
                if h >> t & 1:
                    return seat, t, True
    raise AssertionError("a deal always has a tile to lead")


def _options(draw_one: bool, may_draw: bool, may_pass: bool) -> tuple[tuple[int, ...], ...]:
    """Config.options for every case."""
    out = []
    for key in range(16):
        extra, fresh, stuck, can_draw = key >> 3 & 1, key >> 2 & 1, key >> 1 & 1, key & 1
        draw = (DRAW_CODE,) if can_draw else ()
        if extra:
            opts: tuple[int, ...] = (PASS_CODE,)
        elif stuck:  # no placement: draw while the rules allow, else pass
            opts = draw if draw and (fresh or not draw_one) else (PASS_CODE,)
        elif fresh:
            opts = draw if may_draw else ()
        elif draw_one:
            opts = (PASS_CODE,) if may_pass else ()
        else:
            opts = (draw if may_draw else ()) + ((PASS_CODE,) if may_pass else ())
        out.append(opts)
    return tuple(out)
