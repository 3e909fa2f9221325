"""The line games (block, draw, draw_family, All Fives; docs/rules.md): one line of play, the
All Fives spinner and its arms, drawing policies, in-play scoring, blocked rounds. A variant of the registry
(``domino.variants``); the board's geometry is in :mod:`domino.variants.line_board`."""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from domino import match, scoring, shuffle
from domino.dealing import checked_deal, draw_tile, shuffled_deal
from domino.errors import InvalidDealError
from domino.moves import DRAW, PASS, Draw, Move, Play
from domino.rules import Rules
from domino.state import Deal, Event, Events, LineBoard, LogEntry, RoundResult, State
from domino.tiles import Tile, full_set, hand_pips, rank
from domino.variants import line_board

# -- dealing and starting a round ------------------------------------------------------------------


def deal_round(rules: Rules, seed: str, round_no: int) -> Deal:
    """Round ``round_no``'s deal from the seed; under ``reshuffle`` redeal until a double is dealt."""
    tiles = full_set(rules.set_max_pips)
    attempt = 0
    while True:
        deal = shuffled_deal(rules, tiles, seed, round_no, "deal" if attempt == 0 else f"reshuffle{attempt}")
        if not _needs_reshuffle(rules, deal):
            return deal
        attempt += 1


def _needs_reshuffle(rules: Rules, deal: Deal) -> bool:
    return (
        rules.starting_rule == "highest_double"
        and rules.no_double_fallback == "reshuffle"
        and not any(t.is_double for h in deal.hands for t in h)
    )


def check_deal(rules: Rules, deal: Deal, round_no: int = 1) -> Deal:
    """An explicit deal must hold every tile of the set once and give each seat ``hand_size`` tiles."""
    deal = checked_deal(rules, deal, full_set(rules.set_max_pips), "every tile of the set")
    if _needs_reshuffle(rules, deal):
        raise InvalidDealError("no double was dealt, and no_double_fallback = reshuffle")
    return deal


def start_round(
    rules: Rules,
    round_no: int,
    deal: Deal | None = None,
    seed: str = "",
    scores: tuple[int, ...] | None = None,
    rounds: tuple[RoundResult, ...] = (),
    previous: RoundResult | None = None,
) -> tuple[State, Events]:
    """Round ``round_no`` dealt from ``seed`` (or laid out as ``deal``), its opener to move, and its events."""
    deal = deal_round(rules, seed, round_no) if deal is None else check_deal(rules, deal, round_no)
    opener, lead, by_rule = _opener(rules, seed, round_no, deal, previous)
    state = State(
        rules=rules,
        seed=seed,
        round=round_no,
        deal=deal,
        hands=deal.hands,
        boneyard=deal.boneyard,
        board=LineBoard(),
        turn=opener,
        scores=scores if scores is not None else (0,) * rules.players,
        lead=lead,
        opened_by_rule=by_rule,
        rounds=rounds,
        round_points=(0,) * rules.players,
        last_round=previous,
    )
    return state, opening_events(state)


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
    """The events that start the current round."""
    # The tile the opener must lead is theirs alone until it is on the table.
    private = None if state.lead is None else {"lead": str(state.lead)}
    return (Event("round_started", None, {"round": state.round, "opener": state.turn}, private, state.turn),)


def _next_round(state: State, result: RoundResult) -> tuple[State, Events]:
    return start_round(state.rules, state.round + 1, None, state.seed, state.scores, state.rounds, result)


# -- legal moves -----------------------------------------------------------------------------------


def can_draw(state: State) -> bool:
    r = state.rules
    return r.draw_policy != "no_draw" and len(state.boneyard) > r.boneyard_reserve


def legal_moves(state: State) -> tuple[Move, ...]:
    """The moves the seat to move may make, sorted (the game is not over): plays come in legal order (by
    tile, then end), and a draw or a pass after them."""
    return tuple(_moves(state))


def _moves(state: State) -> list[Move]:
    r = state.rules
    hand = state.hands[state.turn]
    board = state.board
    if not board.line:
        if state.lead is not None:
            return [line_board.play(state.lead, None)]
        return [line_board.play(t, None) for t in reversed(hand)]
    plays: list[Move] = list(line_board.placements(board, hand))
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
    """Nobody can draw and nobody holds a tile that fits (docs/rules.md#the-line-games)."""
    if not state.board.line or can_draw(state):
        return False
    return not line_board.anyone_can_place(state.board, state.hands)


# -- stepping --------------------------------------------------------------------------------------


def step(state: State, move: Move) -> tuple[State, Events]:
    """The state after a legal ``move`` (already resolved by the engine), and its events."""
    events: list[Event] = []
    if isinstance(move, Play):
        state = _play(state, move, events)
    elif isinstance(move, Draw):
        state = settle_with(draw_tile(state, events), events)
    else:
        state = _pass(state, events)
    return state, tuple(events)


def _play(state: State, move: Play, events: list[Event]) -> State:
    r = state.rules
    p = state.turn
    tile = move.tile
    opening = not state.board.line
    hand = list(state.hands[p])
    hand.remove(tile)
    hands = state.hands[:p] + (tuple(hand),) + state.hands[p + 1 :]
    board = line_board.place(state.board, tile, move.end, r.spinner == "first_double")
    points = 0
    if r.scoring == "all_fives":
        c = line_board.count(board)
        if c > 0 and c % 5 == 0:
            points = c
    events.append(Event("tile_played", p, {"tile": str(tile), "end": move.end, "points": points}))
    scores, round_points = state.scores, state.round_points
    if points:
        scores = match.add_points(r, scores, p, points)
        round_points = match.add_points(r, round_points, p, points)
    abandon = bool(points) and r.target_check == "immediate" and scores[p] >= (r.target_score or 0)
    ends_round = abandon or not hand
    extra = bool(
        not ends_round and opening and r.opener_extra_play and state.opened_by_rule and line_board.can_place(board, hands[p])
    )
    # One State built directly, not dataclasses.replace: this is the public API's hottest line.
    state = State(
        rules=r,
        seed=state.seed,
        round=state.round,
        deal=state.deal,
        hands=hands,
        boneyard=state.boneyard,
        board=board,
        turn=p if ends_round or extra else (p + 1) % r.players,
        scores=scores,
        lead=state.lead,
        opened_by_rule=state.opened_by_rule,
        drawn=0,
        extra_play=extra,
        log=state.log + (LogEntry(p, "play", tile, move.end),),
        rounds=state.rounds,
        outcome=state.outcome,
        round_points=round_points,
        variant=state.variant,
        last_round=state.last_round,
        has_records=state.has_records,
    )
    if abandon:
        return _abandon(state, events)
    if not hand:
        return _end_round(state, "domino", p, events)
    return settle_with(state, events)


def _pass(state: State, events: list[Event]) -> State:
    p = state.turn
    events.append(Event("passed", p, {}))
    state = replace(state, turn=(p + 1) % state.rules.players, drawn=0, extra_play=False, log=state.log + (LogEntry(p, "pass"),))
    return settle_with(state, events)


def settle(state: State) -> State:
    """The end-of-turn test (a blocked round ends) for a position built by hand (``domino.testing``)."""
    return settle_with(state, [])


def settle_with(state: State, events: list[Event]) -> State:
    if is_blocked(state):
        return _end_round(state, "blocked", None, events)
    return state


# -- round ends ------------------------------------------------------------------------------------


def _end_round(state: State, end: str, went_out: int | None, events: list[Event]) -> State:
    r = state.rules
    pips = tuple(hand_pips(h) for h in state.hands)
    winner, team, award, why = scoring.round_award(r, went_out if end == "domino" else None, pips)
    result = RoundResult(
        round=state.round,
        end=end,
        winner=winner,
        pips_left=pips,
        hands=state.hands,
        points=tuple(rp + a for rp, a in zip(state.round_points, award)),
        award=award,
        why=why,
        deal=state.deal,
        team=team,
    )
    return match.close_round(state, result, events, _next_round)


def _abandon(state: State, events: list[Event]) -> State:
    """All Fives with an immediate target: the match ends mid-round; the round is recorded as abandoned."""
    result = RoundResult(
        round=state.round,
        end="abandoned",
        winner=None,
        pips_left=tuple(hand_pips(h) for h in state.hands),
        hands=state.hands,
        points=state.round_points,
        award=(0,) * state.rules.players,
        why="the target was reached during play",
        deal=state.deal,
    )
    state = match.record_round(state, result, events)
    return match.finish(state, match.winners_by_score(state.rules, state.scores, "target_score"), events)


# -- views and storage -----------------------------------------------------------------------------


def table(state: State) -> tuple[dict[str, Any], tuple[tuple[str, int], ...], tuple[Tile, ...]]:
    """What a view shows of the table: the board, the open ends, the tiles laid."""
    board = state.board
    shown = line_board.shown(board, state.rules.spinner == "first_double")
    return shown, tuple(line_board.open_ends(board)), line_board.tiles(board)


def board_to_dict(board: Any) -> dict[str, Any]:
    assert isinstance(board, LineBoard)
    return line_board.to_dict(board)


def board_from_dict(data: Mapping[str, Any]) -> LineBoard:
    return line_board.from_dict(data)


def turn_to_dict(turn: Any) -> Any:
    return None  # the line games keep no turn state beyond the State's own fields


def turn_from_dict(data: Any) -> Any:
    return None
