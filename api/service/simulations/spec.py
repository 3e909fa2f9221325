"""A simulation's spec: a request checked into what the workers play (and how it is cut into chunks)."""

from __future__ import annotations

import dataclasses
import secrets
from typing import Any

import orjson

import domino
import domino.bots
import domino.core
from api.config import Settings
from api.service.simulations import cost
from api.service.validation import check_strategy, check_variant, invalid, resolve_rules


@dataclasses.dataclass(frozen=True)
class SimulationRequest:
    """What a client asks for (``POST /v1/simulations``), before it is checked."""

    variant: str
    strategies: list[str]
    games: int
    rules: dict[str, Any] | None = None
    seed: str | None = None
    duplicate: bool = False
    deal_version: int = domino.DEAL_VERSION


@dataclasses.dataclass(frozen=True)
class Spec:
    """What a simulation plays; stored as JSON in its record and never changed."""

    rules: dict[str, Any]  # resolved (Rules.to_dict)
    strategies: tuple[str, ...]  # one per seat
    per_team: bool  # the request named one strategy per team
    games: int
    deals: int
    rotations: int  # 1, or the distinct rotations of the strategies in duplicate mode
    duplicate: bool
    seed: str
    client_seeded: bool
    deal_version: int  # how every game's seed deals (domino.DEAL_VERSIONS)
    chunk_deals: int
    chunks: int
    engine: str  # "playout" | "engine"
    search_nodes: dict[str, int] | None  # per search strategy: its node budget per move
    window: int  # chunks queued at once: chunk c, starting, queues chunk c + window
    game_seconds: float = 0.0  # one game's estimated cost (api/service/simulations/cost.py); 0: not known

    def chunk_seconds(self, chunk: int) -> float:
        """The estimated cost of chunk ``chunk``: its deals, each in every rotation."""
        return self.game_seconds * self.rotations * len(self.deal_range(chunk))

    @property
    def players(self) -> int:
        return len(self.strategies)

    @property
    def teams(self) -> bool:
        return self.rules.get("teams") == "partners_opposite"

    @property
    def slots(self) -> int:
        """Result entries: one per team with teams, else one per seat (as given in the request)."""
        return 2 if self.teams else self.players

    def lineup(self, rotation: int) -> tuple[str, ...]:
        """The strategy on each seat in this rotation: request seat k sits on seat (k + rotation) mod n."""
        n = self.players
        return tuple(self.strategies[(s - rotation) % n] for s in range(n))

    def deal_range(self, chunk: int) -> range:
        lo = chunk * self.chunk_deals
        return range(lo, min(self.deals, lo + self.chunk_deals))

    def to_json(self) -> bytes:
        return orjson.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, raw: str | bytes) -> Spec:
        data = orjson.loads(raw)
        data["strategies"] = tuple(data["strategies"])
        data.setdefault("deal_version", 1)  # stored before deal version 2: its chunks were dealt by 1
        return cls(**data)


def _period(items: tuple[str, ...]) -> int:
    """The smallest rotation that maps the seating onto itself (the number of distinct rotations)."""
    n = len(items)
    for p in range(1, n + 1):
        if n % p == 0 and items[p:] + items[:p] == items:
            return p
    return n


def _calibrated_nodes(strategy: str) -> int:
    """The node budget a search bot was measured with: about its default live think time per move."""
    return int(getattr(domino.bots.get(strategy), "bench_nodes", 1))


def _chunk_deals(settings: Settings, deals: int, rotations: int, per_game: float) -> int:
    """Deals per chunk, or InvalidRequest when one deal (a game in each rotation: one chunk plays them all),
    or a chunk of a simulation that big, would hold a worker over ``simulation_max_game_seconds`` (by the
    cost model)."""
    most = settings.simulation_max_game_seconds
    per_deal = per_game * rotations
    if per_deal > most:
        raise invalid(
            "rules",
            f"one game estimated at {per_game:.0f} s of a worker, over {most:.0f} s",
            f"One game of these rules and strategies is estimated at {per_game:.0f} s of a worker"
            + (f" ({rotations} rotations a deal)" if rotations > 1 else "")
            + f", over the limit of {most:.0f} s: lower `target_score` or `rounds`, use a smaller set or faster "
            "strategies.",
        )
    per_chunk = cost.chunk_deals(settings, deals, rotations, per_game)
    if per_chunk * per_deal > max(most, settings.simulation_chunk_seconds):
        fits = settings.simulation_max_chunks * int(most / per_deal) * rotations
        raise invalid(
            "games",
            f"at most {fits} games of these rules and strategies",
            f"`games`: at most {fits} games of these rules and strategies (estimated at {per_game:.3f} s each).",
        )
    return per_chunk


def make_spec(
    settings: Settings,
    variant: str,
    strategies: list[str],
    games: int,
    rules: dict[str, Any] | None = None,
    seed: str | None = None,
    duplicate: bool = False,
    deal_version: int = domino.DEAL_VERSION,
) -> Spec:
    """Validate a request into a spec; every problem is an InvalidRequest naming the field."""
    check_variant(variant, rules, "strategies")
    if deal_version not in domino.DEAL_VERSIONS:
        raise invalid("deal_version", f"one of {', '.join(map(str, domino.DEAL_VERSIONS))}")
    for i, strategy in enumerate(strategies):
        check_strategy(strategy, "strategies", i)
    per_team = (rules or {}).get("teams") == "partners_opposite" and len(strategies) == 2
    seats = tuple(strategies * 2) if per_team else tuple(strategies)
    resolved = resolve_rules(variant, len(seats), rules, "strategies")
    if games < 1 or games > settings.simulation_max_games:
        raise invalid("games", f"between 1 and {settings.simulation_max_games}")
    rotations = _period(seats) if duplicate else 1
    if games % rotations:
        lo = games - games % rotations
        raise invalid(
            "games",
            f"a multiple of {rotations} in duplicate mode",
            f"`games`: duplicate mode plays each deal in {rotations} rotations; ask for a multiple of {rotations} "
            f"(e.g. {lo or rotations} or {lo + rotations}).",
        )
    native = resolved.is_line and all(s in domino.core.STRATEGIES for s in seats)
    # A search bot plays with its own calibrated budget (about its live think time) unless configured.
    nodes = {s: settings.simulation_search_nodes or _calibrated_nodes(s) for s in seats if s not in domino.core.STRATEGIES}
    deals = games // rotations
    per_game = cost.seconds_per_game(resolved, native, [nodes[s] for s in seats if s in nodes])
    per_chunk = _chunk_deals(settings, deals, rotations, per_game)
    return Spec(
        rules=resolved.to_dict(),
        strategies=seats,
        per_team=per_team,
        games=games,
        deals=deals,
        rotations=rotations,
        duplicate=duplicate,
        seed=seed if seed is not None else secrets.token_hex(16),
        client_seeded=seed is not None,
        deal_version=deal_version,
        chunk_deals=per_chunk,
        chunks=-(-deals // per_chunk),
        engine="playout" if native else "engine",
        search_nodes=nodes or None,
        window=settings.simulation_window,
        game_seconds=per_game,
    )
