"""Round scoring for the line games (docs/rules.md#scoring-a-round, #all_fives, #team-play). Pure arithmetic on pip counts."""

from __future__ import annotations

from domino.rules import Rules


def round5(x: int) -> int:
    """Round to the nearest multiple of five; 1–2 round down, 3–4 up (docs/rules.md#all_fives)."""
    return 5 * ((x + 2) // 5)


def side_pips(rules: Rules, pips: tuple[int, ...]) -> list[int]:
    """Pips per scoring side: per seat, or per team (seats 0+2, 1+3)."""
    if rules.has_teams:
        return [pips[0] + pips[2], pips[1] + pips[3]]
    return list(pips)


def _fives(rules: Rules, counts: list[int]) -> int:
    if rules.fives_bonus_scope == "per_opponent":
        return sum(round5(c) for c in counts)
    return round5(sum(counts))


def _award_against(rules: Rules, winner: int, pips: tuple[int, ...], out: bool) -> int:
    """What a single winning side scores; ``winner`` is the seat that went out or the lowest side."""
    if rules.has_teams:
        own_team = winner % 2  # seats own_team and own_team + 2; the other team's are the other two
        own = [pips[own_team], pips[own_team + 2]]
        other = [pips[1 - own_team], pips[3 - own_team]]
        if rules.scoring == "pagat_difference":
            return max(0, sum(other) - sum(own))
        if rules.team_scoring == "opponents_only":
            counted = other
        elif out:  # all_hands: the three other hands, the partner's included
            counted = [pips[s] for s in range(4) if s != winner]
        else:  # all_hands, blocked: all four hands
            counted = list(pips)
        if rules.scoring == "all_fives":
            return 0 if (not out and rules.fives_blocked_award == "none") else _fives(rules, counted)
        return sum(counted)
    own_pips = pips[winner]
    others = [p for s, p in enumerate(pips) if s != winner]
    if rules.scoring == "pagat_difference":
        if rules.difference_mode == "pairwise":
            return sum(p - own_pips for p in others)
        return sum(others) - own_pips
    if rules.scoring == "all_fives":
        if not out and rules.fives_blocked_award == "none":
            return 0
        return _fives(rules, others)
    return sum(others)


def domino_award(rules: Rules, winner: int, pips: tuple[int, ...]) -> tuple[int, str]:
    """Points for the side of ``winner``, who went out."""
    points = _award_against(rules, winner, pips, out=True)
    return points, f"seat {winner} went out"


def blocked_award(rules: Rules, pips: tuple[int, ...]) -> tuple[int | None, list[int], str]:
    """(winning seat or None, points per side, why) for a blocked round (docs/rules.md#blocked_tie)."""
    sides = side_pips(rules, pips)
    low = min(sides)
    tied = [i for i, p in enumerate(sides) if p == low]
    points = [0] * len(sides)
    if len(tied) == 1:
        w = tied[0]
        points[w] = _award_against(rules, w, pips, out=False)
        who = f"team {w}" if rules.has_teams else f"seat {w}"
        return w, points, f"blocked; {who} had the fewest pips ({low})"
    if rules.blocked_tie != "split":
        return None, points, f"blocked; tie for the fewest pips ({low}): nobody scores"
    rest = [p for i, p in enumerate(sides) if p != low]
    if not rest:
        return None, points, f"blocked; everyone tied on {low}: nobody scores"
    if rules.scoring == "pagat_difference":
        a = sum(rest) - low if rules.difference_mode == "sum_minus_own" else sum(p - low for p in rest)
    elif rules.scoring == "all_fives":
        a = 0 if rules.fives_blocked_award == "none" else _fives(rules, rest)
    else:
        a = sum(rest)
    share = a // len(tied)
    for i in tied:
        points[i] = share
    return None, points, f"blocked; {len(tied)} tied on {low} and split {a}"


def round_award(rules: Rules, went_out: int | None, pips: tuple[int, ...]) -> tuple[int | None, int | None, tuple[int, ...], str]:
    """(winning seat, winning team, award per seat, why) of a round that ended by a domino of seat
    ``went_out`` or blocked (None); a side's award shows on each of its seats."""
    if went_out is not None:
        points, why = domino_award(rules, went_out, pips)
        if rules.has_teams:  # ``rules.side_of`` written out: a seat's side is its seat mod 2
            side = went_out % 2
            return went_out, side, tuple([points if i % 2 == side else 0 for i in range(rules.players)]), why
        return went_out, None, tuple([points if i == went_out else 0 for i in range(rules.players)]), why
    won, side_points, why = blocked_award(rules, pips)
    if rules.has_teams:
        return None, won, tuple(side_points[i % 2] for i in range(rules.players)), why
    return won, None, tuple(side_points), why
