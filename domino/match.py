"""What every variant shares once a round is over: scores, the round's record, the match's end, winners."""

from __future__ import annotations

from typing import Callable

from domino.errors import GameOverError, InvalidMoveError
from domino.rules import Rules
from domino.state import Deal, Event, Events, Outcome, RoundResult, State, evolve

# A variant's ``start_round``: (rules, round number, an explicit deal or None, seed, scores, the finished
# rounds' records, the last round's result, the deal version) -> the new round and its opening events.
StartRound = Callable[
    [Rules, int, Deal | None, str, tuple[int, ...] | None, tuple[RoundResult, ...], RoundResult | None, int],
    tuple[State, Events],
]


def add_points(rules: Rules, scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    """Add points to a seat, or to both partners when teams play (a seat shows its team's score)."""
    side = rules.side_of(seat)
    return tuple(s + points if rules.side_of(i) == side else s for i, s in enumerate(scores))


def winners_by_score(rules: Rules, scores: tuple[int, ...], reason: str) -> Outcome:
    """The seats with the best score (the lowest in Mexican Train's penalty scoring)."""
    best = min(scores) if rules.scoring == "mexican_penalty" else max(scores)
    winners = tuple(i for i, s in enumerate(scores) if s == best)
    sides = {rules.side_of(i) for i in winners}
    # A tie between the two teams (fixed_rounds) is a shared win: no single team won.
    team = sides.pop() if rules.has_teams and len(sides) == 1 else None
    return Outcome(reason, winners, team)


def match_over(rules: Rules, scores: tuple[int, ...], round_no: int) -> Outcome | None:
    """The outcome if the match ends after round ``round_no`` with these scores, else None."""
    if rules.match_end == "fixed_rounds":
        return winners_by_score(rules, scores, "fixed_rounds") if round_no >= (rules.rounds or 0) else None
    if max(scores) < (rules.target_score or 0):
        return None
    outcome = winners_by_score(rules, scores, "target_score")
    sides = {rules.side_of(s) for s in outcome.winners}
    return outcome if len(sides) == 1 else None  # tied leaders play another round


def finish(state: State, outcome: Outcome, events: list[Event] | None) -> State:
    """The match ends with ``outcome`` (its event appended to ``events``, unless None: ``domino.apply``)."""
    if events is not None:
        events.append(Event("game_ended", None, {**outcome.to_dict(), "scores": list(state.scores)}))
    return evolve(state, outcome=outcome, drawn=0, extra_play=False)


def record_round(state: State, result: RoundResult, events: list[Event] | None) -> State:
    """The round's result on record and its award added to the scores."""
    _announce(result, events)
    return evolve(state, scores=_scored(state, result), rounds=state.rounds + (result,), last_round=result)


def _scored(state: State, result: RoundResult) -> tuple[int, ...]:
    return tuple([s + a for s, a in zip(state.scores, result.award)])


def _announce(result: RoundResult, events: list[Event] | None) -> None:
    if events is not None:
        events.append(Event("round_ended", None, result.to_dict()))


def close_round(state: State, result: RoundResult, events: list[Event] | None, start_round: StartRound) -> State:
    """Score and record the round, then end the match or deal the next round (the variant's ``start_round``,
    given the scores and records: the state with them on is only built when the match ends)."""
    scores = _scored(state, result)
    outcome = match_over(state.rules, scores, state.round)
    if outcome is not None:
        return finish(record_round(state, result, events), outcome, events)
    _announce(result, events)
    fresh, started = start_round(
        state.rules, state.round + 1, None, state.seed, scores, state.rounds + (result,), result, state.deal_version
    )
    if events is not None:
        events.extend(started)
    return fresh if state.has_records else evolve(fresh, has_records=False)


def resign(state: State, seat: int) -> tuple[State, Events]:
    """``seat`` resigns: the match ends and the other side (every other seat, or the other team) wins."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    r = state.rules
    if not 0 <= seat < r.players:
        raise InvalidMoveError(f"no seat {seat}")
    winners = tuple(i for i in range(r.players) if r.side_of(i) != r.side_of(seat))
    team = winners[0] % 2 if r.has_teams else None
    events: list[Event] = [Event("resigned", seat, {})]
    return finish(state, Outcome("resigned", winners, team), events), tuple(events)


ENDINGS = ("expired", "aborted")  # how a game ends that nobody won (the server's decision, not a move)


def end(state: State, reason: str) -> tuple[State, Events]:
    """The match ends unplayed from here with ``reason`` (``expired``: left idle; ``aborted``: called off), no
    winners; the round under way is not scored."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    if reason not in ENDINGS:
        raise InvalidMoveError(f"a game ends by the server as one of {', '.join(ENDINGS)}, not {reason!r}")
    events: list[Event] = []
    return finish(state, Outcome(reason, ()), events), tuple(events)
