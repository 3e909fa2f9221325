"""The line games (block, draw, draw_family, All Fives; docs/rules.md): one line of play, the
All Fives spinner and its arms, drawing policies, in-play scoring, blocked rounds. A variant of the registry
(``domino.variants``); the board's geometry is in :mod:`domino.variants.line_board`."""

from __future__ import annotations

from operator import itemgetter
from typing import Any, Mapping

from domino import match, scoring
from domino.core.codes import DRAW_CODE, END_NAMES
from domino.core.position import LineSim
from domino.core.round import config, dealt_order, opener
from domino.core.tables import Tables, index, mask_of, tables
from domino.dealing import checked_deal
from domino.errors import InvalidDealError
from domino.moves import Move, Play
from domino.rules import Rules
from domino.shuffle import DEAL_VERSION
from domino.state import Deal, Event, Events, LineBoard, RoundResult, State, successor
from domino.tiles import Tile, full_set, hand_pips
from domino.variants import line_board, line_kernel

# -- dealing and starting a round ------------------------------------------------------------------


def deal_round(rules: Rules, seed: str, round_no: int, deal_version: int) -> Deal:
    """Round ``round_no``'s deal from the seed; under ``reshuffle`` redeal until a double is dealt."""
    tab = tables(rules.set_max_pips)
    return _deal_of(rules, dealt_order(config(rules), tab, seed, round_no, deal_version), tab)[0]


def _deal_of(rules: Rules, order: list[int], tab: Tables) -> tuple[Deal, list[int]]:
    """The Deal of a dealt order (hands heaviest first: index order is tile order; the boneyard in draw
    order) and its hands as masks, built in one pass (once per round)."""
    n = rules.hand_size
    dealt = rules.players * n
    tiles, bits = tab.tiles, tab.bit
    hands = []
    masks = []
    for i in range(0, dealt, n):
        hand = order[i : i + n]
        hand.sort(reverse=True)
        if n > 1:  # an itemgetter picks the tiles and the bits in C (of one index it returns the item itself)
            pick = itemgetter(*hand)
            hands.append(pick(tiles))
            masks.append(sum(pick(bits)))  # distinct bits: the sum is the union
        else:
            hands.append((tiles[hand[0]],))
            masks.append(bits[hand[0]])
    return Deal(tuple(hands), tuple([tiles[t] for t in order[dealt:]])), masks


def check_deal(rules: Rules, deal: Deal, round_no: int = 1) -> Deal:
    """An explicit deal must hold every tile of the set once and give each seat ``hand_size`` tiles."""
    deal = checked_deal(rules, deal, full_set(rules.set_max_pips), "every tile of the set")
    if (
        rules.starting_rule == "highest_double"
        and rules.no_double_fallback == "reshuffle"
        and not any(t.is_double for h in deal.hands for t in h)
    ):
        raise InvalidDealError("no double was dealt, and no_double_fallback = reshuffle")
    return deal


_EMPTY = LineBoard()  # a round's board before its first tile (boards are immutable: one is shared)


def start_round(
    rules: Rules,
    round_no: int,
    deal: Deal | None = None,
    seed: str = "",
    scores: tuple[int, ...] | None = None,
    rounds: tuple[RoundResult, ...] = (),
    previous: RoundResult | None = None,
    deal_version: int = DEAL_VERSION,
) -> tuple[State, Events]:
    """Round ``round_no`` dealt from ``seed`` by ``deal_version`` (or laid out as ``deal``), its opener to
    move, and its events.
    The deal and the opener come from the kernel (``domino.core.round``), which the state keeps."""
    cfg = config(rules)
    tab = tables(rules.set_max_pips)
    if deal is None:
        order = dealt_order(cfg, tab, seed, round_no, deal_version)
        deal, hands = _deal_of(rules, order, tab)
        boneyard = order[rules.players * rules.hand_size :]
    else:
        deal = check_deal(rules, deal, round_no)
        hands = [mask_of(h, tab) for h in deal.hands]
        boneyard = list(map(index, deal.boneyard))
    last = None if previous is None else (previous.end, previous.winner)
    seat, lead, by_rule = opener(cfg, tab, seed, round_no, deal_version, hands, last)
    state = State(
        rules=rules,
        seed=seed,
        deal_version=deal_version,
        round=round_no,
        deal=deal,
        hands=deal.hands,
        boneyard=deal.boneyard,
        board=_EMPTY,
        turn=seat,
        scores=scores if scores is not None else (0,) * rules.players,
        lead=None if lead < 0 else tab.tiles[lead],
        opened_by_rule=by_rule,
        rounds=rounds,
        round_points=(0,) * rules.players,
        last_round=previous,
    )
    line_kernel.start(state, tab, hands, boneyard, lead)
    return state, opening_events(state)


def opening_events(state: State) -> Events:
    """The events that start the current round."""
    # The tile the opener must lead is theirs alone until it is on the table.
    private = None if state.lead is None else {"lead": str(state.lead)}
    return (Event("round_started", None, {"round": state.round, "opener": state.turn}, private, state.turn),)


# -- legal moves and steps, on the kernel (domino.variants.line_kernel) ---------------------------------


# The moves the seat to move may make, sorted (the game is not over): plays in legal order (by tile, then
# end), and a draw or a pass after them.
legal_moves = line_kernel.legal_moves


def is_blocked(state: State) -> bool:
    """Nobody can draw and nobody holds a tile that fits (docs/rules.md#the-line-games): the kernel's test."""
    return line_kernel.fresh(state).blocked()


def advance(state: State, move: Move, events: list[Event] | None) -> State:
    """The state after a legal ``move`` (already resolved by the engine); its events are appended to
    ``events`` unless that is None (``domino.apply``)."""
    if state.rules.scoring == "all_fives" and isinstance(move, Play):
        pos, sim, code = line_kernel.take(state, move)
        return _play_scoring(state, pos, sim, code, events)
    after, sim, code = line_kernel.step(state, move)
    p = state.turn
    if events is not None:
        if code >= 0:
            events.append(_played(sim, p, code, 0))
        elif code == DRAW_CODE:
            tile = state.boneyard[0]
            events.append(Event("tile_drawn", p, {"boneyard_count": len(state.boneyard) - 1}, {"tile": str(tile)}, p))
        else:
            events.append(Event("passed", p, {}))
    if sim.over:
        out = code >= 0 and not sim.hands[p]
        return _end_round(after, "domino" if out else "blocked", p if out else None, events)
    return after


def _played(sim: LineSim, p: int, code: int, points: int) -> Event:
    return Event("tile_played", p, {"tile": str(sim.tb.tiles[code >> 3]), "end": END_NAMES[code & 7], "points": points})


def _play_scoring(
    state: State, pos: line_kernel.Position, sim: LineSim, code: int, events: list[Event] | None
) -> State:
    """A play under All Fives: what it scores, and the match's end mid-round under an immediate target."""
    r = state.rules
    p = state.turn
    side = sim.cfg.side[p]
    before = sim.pts[side]
    sim.play(code >> 3, code & 7)
    points = sim.pts[side] - before
    if events is not None:
        events.append(_played(sim, p, code, points))
    scores, round_points = state.scores, state.round_points
    abandon = False
    if points:
        scores = match.add_points(r, scores, p, points)
        round_points = match.add_points(r, round_points, p, points)
        abandon = r.target_check == "immediate" and scores[p] >= (r.target_score or 0)
    out = not sim.hands[p]
    turn = p if abandon else sim.turn
    moved = pos.then(sim, p, code)
    ongoing = not (abandon or out or sim.over)
    moves = line_kernel.listed(sim, pos.origin) if ongoing else None
    after = successor(state, moved, turn, 0, sim.extra and not abandon, state.boneyard, scores, round_points, moves)
    if abandon:
        return _abandon(after, events)
    if out:
        return _end_round(after, "domino", p, events)
    if sim.over:
        return _end_round(after, "blocked", None, events)
    return after


def settle(state: State) -> State:
    """The end-of-turn test (a blocked round ends) for a position built by hand (``domino.testing``)."""
    return settle_with(state, [])


def settle_with(state: State, events: list[Event] | None) -> State:
    if is_blocked(state):
        return _end_round(state, "blocked", None, events)
    return state


# -- round ends ------------------------------------------------------------------------------------


def _end_round(state: State, end: str, went_out: int | None, events: list[Event] | None) -> State:
    r = state.rules
    hands = state.hands
    pips = tuple([hand_pips(h) for h in hands])
    winner, team, award, why = scoring.round_award(r, went_out if end == "domino" else None, pips)
    result = RoundResult(
        round=state.round,
        end=end,
        winner=winner,
        pips_left=pips,
        hands=hands,
        points=tuple([rp + a for rp, a in zip(state.round_points, award)]),
        award=award,
        why=why,
        deal=state.deal,
        team=team,
    )
    return match.close_round(state, result, events, start_round)


def _abandon(state: State, events: list[Event] | None) -> State:
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
    spinner = state.rules.spinner == "first_double"
    shown = line_board.shown(board, spinner, line_kernel.fresh(state).count() if spinner and board.line else 0)
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
