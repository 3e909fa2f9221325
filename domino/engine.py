"""The rules of play: dealing, legal moves, steps, round ends and match ends (docs/rules.md)."""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from domino import scoring, shuffle
from domino.errors import (
    AmbiguousMoveError,
    GameOverError,
    IllegalMoveError,
    InvalidDealError,
    InvalidMoveError,
    NotYourTurnError,
)
from domino.moves import _END as END_TEXT
from domino.moves import DRAW, PASS, Draw, Move, Pass, Play, move_key
from domino.rules import Rules
from domino.state import Deal, Event, LineBoard, LogEntry, Outcome, RoundResult, State
from domino.tiles import Tile, full_set, hand_pips, rank
from domino.variants import line

Events = tuple[Event, ...]


def sorted_hand(tiles: Iterable[Tile]) -> tuple[Tile, ...]:
    """Hands are kept heaviest first, so equal hands are equal tuples."""
    return tuple(sorted(tiles, reverse=True))


# -- dealing -------------------------------------------------------------------------------------


def deal_round(rules: Rules, seed: str, round_no: int) -> Deal:
    """Round ``round_no``'s deal from the seed; under ``reshuffle`` redeal until a double is dealt."""
    tiles = full_set(rules.set_max_pips)
    attempt = 0
    while True:
        purpose = "deal" if attempt == 0 else f"reshuffle{attempt}"
        order = shuffle.shuffled(tiles, seed, round_no, purpose)
        deal = _split(rules, order)
        if not _needs_reshuffle(rules, deal):
            return deal
        attempt += 1


def _split(rules: Rules, order: list[Tile]) -> Deal:
    n = rules.hand_size
    hands = tuple(sorted_hand(order[i * n : (i + 1) * n]) for i in range(rules.players))
    return Deal(hands=hands, boneyard=tuple(order[rules.players * n :]))


def _needs_reshuffle(rules: Rules, deal: Deal) -> bool:
    return (
        rules.starting_rule == "highest_double"
        and rules.no_double_fallback == "reshuffle"
        and not any(t.is_double for h in deal.hands for t in h)
    )


def check_deal(rules: Rules, deal: Deal) -> None:
    """An explicit deal must hold every tile of the set once and give each seat ``hand_size`` tiles."""
    if len(deal.hands) != rules.players:
        raise InvalidDealError(f"the deal has {len(deal.hands)} hands for {rules.players} players")
    for seat, hand in enumerate(deal.hands):
        if len(hand) != rules.hand_size:
            raise InvalidDealError(f"seat {seat} was dealt {len(hand)} tiles, not {rules.hand_size}")
    tiles = [t for h in deal.hands for t in h] + list(deal.boneyard)
    if sorted(tiles) != sorted(full_set(rules.set_max_pips)):
        raise InvalidDealError("the deal must hold every tile of the set exactly once")
    if _needs_reshuffle(rules, deal):
        raise InvalidDealError("no double was dealt, and no_double_fallback = reshuffle")


# -- starting a round ------------------------------------------------------------------------------


def new_game(rules: Rules, seed: str | int | None = None, deal: Deal | None = None) -> State:
    """A new match with round 1 dealt from ``seed`` (or laid out as ``deal``) and its opener to move."""
    if seed is None and deal is None:
        raise InvalidDealError("give a seed or a deal")
    seed_text = "" if seed is None else str(seed)
    if not rules.is_line:
        from domino.variants import mexican_train

        return mexican_train.new_game(rules, seed_text, deal)
    if deal is None:
        deal = deal_round(rules, seed_text, 1)
    else:
        deal = Deal(tuple(sorted_hand(h) for h in deal.hands), tuple(deal.boneyard))
        check_deal(rules, deal)
    zero = (0,) * rules.players
    return _start_round(rules, seed_text, 1, deal, zero, (), previous=None)


def _start_round(
    rules: Rules,
    seed: str,
    round_no: int,
    deal: Deal,
    scores: tuple[int, ...],
    rounds: tuple[RoundResult, ...],
    previous: RoundResult | None,
) -> State:
    opener, lead, by_rule = _opener(rules, seed, round_no, deal, previous)
    return State(
        rules=rules,
        seed=seed,
        round=round_no,
        deal=deal,
        hands=deal.hands,
        boneyard=deal.boneyard,
        board=LineBoard(),
        turn=opener,
        scores=scores,
        lead=lead,
        opened_by_rule=by_rule,
        rounds=rounds,
        round_points=(0,) * rules.players,
    )


def _opener(
    rules: Rules, seed: str, round_no: int, deal: Deal, previous: RoundResult | None
) -> tuple[int, Tile | None, bool]:
    """(opening seat, tile it must lead or None for any, opened under starting_rule)."""
    if rules.next_round_starter == "previous_winner" and previous is not None and previous.end == "domino":
        assert previous.winner is not None
        return previous.winner, None, False
    if rules.starting_rule == "lot":
        return shuffle.uniform(seed, round_no, "lot", 0, rules.players), None, True
    best: tuple[tuple[int, int, int], int, Tile] | None = None
    for seat, hand in enumerate(deal.hands):
        for t in hand:
            if rules.no_double_fallback == "reshuffle" and not t.is_double:
                continue
            key = rank(t)
            if best is None or key > best[0]:
                best = (key, seat, t)
    assert best is not None, "a deal always has a tile to lead"
    return best[1], best[2], True


def opening_events(state: State) -> Events:
    """The events that start the current round (for the first round of a new game)."""
    if not state.rules.is_line:
        from domino.variants import mexican_train

        return mexican_train.opening_events(state)
    return (_round_started(state),)


def _round_started(state: State) -> Event:
    # The tile the opener must lead is theirs alone until it is on the table.
    private = None if state.lead is None else {"lead": str(state.lead)}
    return Event("round_started", None, {"round": state.round, "opener": state.turn}, private, state.turn)


# -- legal moves -----------------------------------------------------------------------------------


def can_draw(state: State) -> bool:
    r = state.rules
    return r.draw_policy != "no_draw" and len(state.boneyard) > r.boneyard_reserve


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves the seat to move may make, sorted; ``()`` once the game is over."""
    if state.outcome is not None:
        return ()
    if not state.rules.is_line:
        from domino.variants import mexican_train

        return mexican_train.legal_moves(state)
    return tuple(sorted(_line_moves(state), key=move_key))


def _line_moves(state: State) -> list[Move]:
    r = state.rules
    hand = state.hands[state.turn]
    board = state.board
    if not board.line:
        if state.lead is not None:
            return [Play(state.lead)]
        return [Play(t) for t in hand]
    plays: list[Move] = list(line.placements(board, hand))
    if state.extra_play:
        return plays + [PASS]
    drawable = can_draw(state)
    if state.drawn == 0:
        if plays:
            return plays + ([DRAW] if r.may_draw_when_playable and drawable else [])
        return [DRAW] if drawable else [PASS]
    if r.draw_policy == "draw_one":
        if not plays:
            return [PASS]
        return plays + ([PASS] if r.drawn_tile_play == "may" else [])
    if not plays:
        return [DRAW] if drawable else [PASS]
    extra: list[Move] = [DRAW] if r.may_draw_when_playable and drawable else []
    if r.drawn_tile_play == "may":
        extra.append(PASS)
    return plays + extra


def is_blocked(state: State) -> bool:
    """Line games: nobody can draw and nobody holds a tile that fits (docs/rules.md#the-line-games)."""
    if not state.board.line or can_draw(state):
        return False
    return not any(line.can_place(state.board, h) for h in state.hands)


# -- stepping --------------------------------------------------------------------------------------


def resolve(state: State, move: Move) -> Move:
    """The legal move meant by ``move`` (filling an omitted end), or the engine error saying why not."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    legal = legal_moves(state)
    if isinstance(move, Play):
        top = state.rules.set_max_pips
        if move.tile.high > top or move.tile.low < 0:
            raise InvalidMoveError(f"{move.tile} is not in a double-{top} set")
        if move.end is not None and (not isinstance(move.end, str) or END_TEXT.match(move.end) is None):
            # A malformed end is malformed input, not an illegal placement (errors.InvalidMoveError).
            raise InvalidMoveError("'end' must be left, right, up, down, mexican or train:<seat>")
        if move in legal:
            return move
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
    if move in legal:
        return move
    raise IllegalMoveError(f"you may not {move} now", legal)


def step(state: State, move: Move, seat: int | None = None) -> tuple[State, Events]:
    """The state after ``move`` by the seat to move, and the events it produced; raises on illegal input."""
    if state.outcome is not None:
        raise GameOverError("the game is over")
    if seat is not None and seat != state.turn:
        raise NotYourTurnError(f"it is seat {state.turn}'s turn")
    move = resolve(state, move)
    if not state.rules.is_line:
        from domino.variants import mexican_train

        return mexican_train.step(state, move)
    events: list[Event] = []
    if isinstance(move, Play):
        state = _play(state, move, events)
    elif isinstance(move, Draw):
        state = _draw(state, events)
    else:
        state = _pass(state, events)
    return state, tuple(events)


def apply(state: State, move: Move, seat: int | None = None) -> State:
    return step(state, move, seat)[0]


def _next_seat(state: State, seat: int) -> int:
    return (seat + 1) % state.rules.players


def _play(state: State, move: Play, events: list[Event]) -> State:
    r = state.rules
    p = state.turn
    tile = move.tile
    opening = not state.board.line
    hand = list(state.hands[p])
    hand.remove(tile)
    hands = state.hands[:p] + (tuple(hand),) + state.hands[p + 1 :]
    board = line.place(state.board, tile, move.end, r.spinner == "first_double")
    log = state.log + (LogEntry(p, "play", tile, move.end),)
    points = 0
    if r.scoring == "all_fives":
        c = line.count(board)
        if c > 0 and c % 5 == 0:
            points = c
    events.append(Event("tile_played", p, {"tile": str(tile), "end": move.end, "points": points}))
    scores, round_points = state.scores, state.round_points
    if points:
        scores = _add(r, scores, p, points)
        round_points = _add(r, round_points, p, points)
    state = replace(state, hands=hands, board=board, log=log, scores=scores, round_points=round_points, drawn=0, extra_play=False)
    if points and r.target_check == "immediate" and scores[p] >= (r.target_score or 0):
        return _abandon(state, events)
    if not hand:
        return _end_round(state, "domino", p, events)
    if opening and r.opener_extra_play and state.opened_by_rule and line.can_place(board, hands[p]):
        state = replace(state, extra_play=True)
    else:
        state = replace(state, turn=_next_seat(state, p))
    return _after_turn(state, events)


def draw_tile(state: State, events: list[Event]) -> State:
    """The seat to move takes the top tile of the boneyard (every variant draws this way)."""
    p = state.turn
    tile = state.boneyard[0]
    hands = state.hands[:p] + (sorted_hand(state.hands[p] + (tile,)),) + state.hands[p + 1 :]
    events.append(Event("tile_drawn", p, {"boneyard_count": len(state.boneyard) - 1}, {"tile": str(tile)}, p))
    return replace(
        state, hands=hands, boneyard=state.boneyard[1:], drawn=state.drawn + 1, log=state.log + (LogEntry(p, "draw"),)
    )


def _draw(state: State, events: list[Event]) -> State:
    return _after_turn(draw_tile(state, events), events)


def _pass(state: State, events: list[Event]) -> State:
    p = state.turn
    events.append(Event("passed", p, {}))
    state = replace(state, turn=_next_seat(state, p), drawn=0, extra_play=False, log=state.log + (LogEntry(p, "pass"),))
    return _after_turn(state, events)


def _after_turn(state: State, events: list[Event]) -> State:
    if is_blocked(state):
        return _end_round(state, "blocked", None, events)
    return state


def _add(rules: Rules, scores: tuple[int, ...], seat: int, points: int) -> tuple[int, ...]:
    """Add points to a seat, or to both partners when teams play (a seat shows its team's score)."""
    side = rules.side_of(seat)
    return tuple(s + points if rules.side_of(i) == side else s for i, s in enumerate(scores))


# -- round and match ends -------------------------------------------------------------------------


def _pips(state: State) -> tuple[int, ...]:
    return tuple(hand_pips(h) for h in state.hands)


def _end_round(state: State, end: str, went_out: int | None, events: list[Event]) -> State:
    r = state.rules
    pips = _pips(state)
    award = [0] * r.players
    team: int | None = None
    if end == "domino":
        assert went_out is not None
        winner: int | None = went_out
        points, why = scoring.domino_award(r, went_out, pips)
        award = list(_add(r, tuple(award), went_out, points))
        if r.has_teams:
            team = went_out % 2
    else:
        side, side_points, why = scoring.blocked_award(r, pips)
        if r.has_teams:
            team = side
            winner = None
            award = [side_points[i % 2] for i in range(4)]
        else:
            winner = side
            award = side_points
    scores = tuple(s + a for s, a in zip(state.scores, award))
    total_points = tuple(rp + a for rp, a in zip(state.round_points, award))
    result = RoundResult(
        round=state.round,
        end=end,
        winner=winner,
        pips_left=pips,
        hands=state.hands,
        points=total_points,
        award=tuple(award),
        why=why,
        deal=state.deal,
        team=team,
    )
    events.append(Event("round_ended", None, result.to_dict()))
    state = replace(state, scores=scores, rounds=state.rounds + (result,))
    outcome = _match_over(state)
    if outcome is not None:
        return _finish(state, outcome, events)
    nxt = state.round + 1
    fresh = _start_round(r, state.seed, nxt, deal_round(r, state.seed, nxt), scores, state.rounds, result)
    events.append(_round_started(fresh))
    return fresh


def _abandon(state: State, events: list[Event]) -> State:
    """All Fives with an immediate target: the match ends mid-round; the round is recorded as abandoned."""
    pips = _pips(state)
    result = RoundResult(
        round=state.round,
        end="abandoned",
        winner=None,
        pips_left=pips,
        hands=state.hands,
        points=state.round_points,
        award=(0,) * state.rules.players,
        why="the target was reached during play",
        deal=state.deal,
    )
    events.append(Event("round_ended", None, result.to_dict()))
    state = replace(state, rounds=state.rounds + (result,))
    return _finish(state, _winners_by_score(state, "target_score"), events)


def _winners_by_score(state: State, reason: str) -> Outcome:
    r = state.rules
    best = min(state.scores) if r.scoring == "mexican_penalty" else max(state.scores)
    winners = tuple(i for i, s in enumerate(state.scores) if s == best)
    sides = {r.side_of(i) for i in winners}
    # A tie between the two teams (fixed_rounds) is a shared win: no single team won.
    team = sides.pop() if r.has_teams and len(sides) == 1 else None
    return Outcome(reason, winners, team)


def _match_over(state: State) -> Outcome | None:
    r = state.rules
    if r.match_end == "fixed_rounds":
        return _winners_by_score(state, "fixed_rounds") if state.round >= (r.rounds or 0) else None
    target = r.target_score or 0
    if max(state.scores) < target:
        return None
    outcome = _winners_by_score(state, "target_score")
    sides = {r.side_of(s) for s in outcome.winners}
    return outcome if len(sides) == 1 else None  # tied leaders play another round


def _finish(state: State, outcome: Outcome, events: list[Event]) -> State:
    events.append(Event("game_ended", None, {**outcome.to_dict(), "scores": list(state.scores)}))
    return replace(state, outcome=outcome, drawn=0, extra_play=False)


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
    return _finish(state, Outcome("resigned", winners, team), events), tuple(events)
