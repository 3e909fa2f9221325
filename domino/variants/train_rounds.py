"""Mexican Train's rounds (docs/rules.md#mexican_train): each round's engine double, the deal, and how the
engine is found and placed (from a hand, or by search draws), with the events that open the round."""

from __future__ import annotations

from dataclasses import dataclass

from domino.dealing import checked_deal, shuffled_deal, sorted_hand
from domino.rules import Rules
from domino.shuffle import DEAL_VERSION
from domino.state import Deal, Event, Events, LogEntry, RoundResult, State
from domino.tiles import Tile, full_set
from domino.variants.trains import TrainBoard, TrainTurn


def engine_value(rules: Rules, round_no: int) -> int:
    """Round r's engine: n-n, (n-1)-(n-1), … 0-0 for a double-n set; beyond n+1 rounds it starts again [engine]."""
    n = rules.set_max_pips
    return n - (round_no - 1) % (n + 1)


def _tiles(rules: Rules, round_no: int) -> tuple[Tile, ...]:
    """The tiles dealt: the whole set, or the set without the engine under ``engine_setup = set_aside``."""
    tiles = full_set(rules.set_max_pips)
    if rules.engine_setup == "set_aside":
        e = engine_value(rules, round_no)
        tiles = tuple(t for t in tiles if t != Tile(e, e))
    return tiles


def deal_round(rules: Rules, seed: str, round_no: int, deal_version: int) -> Deal:
    """The seeded deal (purpose ``deal``); with ``engine_setup = set_aside`` the engine is taken out first."""
    return shuffled_deal(rules, _tiles(rules, round_no), seed, round_no, deal_version)


def check_deal(rules: Rules, deal: Deal, round_no: int = 1) -> Deal:
    """An explicit deal: ``hand_size`` tiles per seat and the whole set once (minus the engine if set aside)."""
    aside = rules.engine_setup == "set_aside"
    what = "every tile of the set except the engine" if aside else "every tile of the set"
    return checked_deal(rules, deal, _tiles(rules, round_no), what)


@dataclass(frozen=True, slots=True)
class _Setup:
    hands: tuple[tuple[Tile, ...], ...]
    boneyard: tuple[Tile, ...]
    placer: int
    search: tuple[tuple[int, Tile], ...]  # the search draws (seat, tile), the last one the engine if any


def _setup(rules: Rules, round_no: int, deal: Deal) -> _Setup:
    """Find and place the engine (docs/rules.md#mexican_train, the engine double): from a hand, or by search draws from seat (r−1) mod N."""
    n = rules.players
    e = engine_value(rules, round_no)
    engine = Tile(e, e)
    hands = [list(h) for h in deal.hands]
    boneyard = list(deal.boneyard)
    first = (round_no - 1) % n
    if rules.engine_setup == "set_aside":
        return _Setup(deal.hands, deal.boneyard, first, ())
    holder = next((s for s, h in enumerate(hands) if engine in h), None)
    search: list[tuple[int, Tile]] = []
    if holder is None:
        s = first
        while True:
            tile = boneyard.pop(0)
            search.append((s, tile))
            if tile == engine:
                holder = s
                break
            hands[s].append(tile)
            s = (s + 1) % n
    else:
        hands[holder].remove(engine)
    return _Setup(tuple(sorted_hand(h) for h in hands), tuple(boneyard), holder, tuple(search))


def _setup_events(rules: Rules, round_no: int, setup: _Setup) -> list[Event]:
    e = engine_value(rules, round_no)
    events = [Event("round_started", None, {"round": round_no, "opener": setup.placer, "engine_double": f"{e}-{e}"})]
    left = len(setup.boneyard) + len(setup.search)
    for seat, tile in setup.search:
        left -= 1
        events.append(Event("tile_drawn", seat, {"boneyard_count": left, "search": True}, {"tile": str(tile)}, seat))
    events.append(Event("engine_double_placed", setup.placer, {"tile": f"{e}-{e}"}))
    return events


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
    """Round ``round_no`` dealt from ``seed`` by ``deal_version`` (or laid out as ``deal``), its engine placed,
    and its events."""
    deal = deal_round(rules, seed, round_no, deal_version) if deal is None else check_deal(rules, deal, round_no)
    setup = _setup(rules, round_no, deal)
    n = rules.players
    state = State(
        rules=rules,
        seed=seed,
        deal_version=deal_version,
        round=round_no,
        deal=deal,
        hands=setup.hands,
        boneyard=setup.boneyard,
        board=TrainBoard(engine_value(rules, round_no), ((),) * n),
        turn=setup.placer,
        scores=scores if scores is not None else (0,) * n,
        log=tuple(LogEntry(s, "draw") for s, _ in setup.search),
        rounds=rounds,
        round_points=(0,) * n,
        variant=TrainTurn(markers=(False,) * n, first_turn=tuple((setup.placer + i) % n for i in range(n))),
        last_round=previous,
    )
    return state, tuple(_setup_events(rules, round_no, setup))


def opening_events(state: State) -> Events:
    """The events that started the current round (replayed from its deal)."""
    return tuple(_setup_events(state.rules, state.round, _setup(state.rules, state.round, state.deal)))
