"""Match simulations: bot-against-bot games in bulk, split into chunks that any number of workers run.

A simulation is a spec (rules, one strategy per seat, number of games, seed, duplicate or not) and counts.
Deal ``d`` is the match seeded ``"<seed>:<d>"``. In duplicate mode each deal is played once per distinct
rotation of the strategies over the seats, with the same deal seed, so the luck of the deal cancels out.
Chunk ``c`` plays deals ``[c * chunk_deals, (c + 1) * chunk_deals)``: its counts depend only on the spec and
``c``, never on which worker runs it or how many there are, and the store adds them once per chunk index.

Simulations share the workers: only the first ``window`` chunks are queued at creation, and chunk ``c``, when
it starts, queues chunk ``c + window`` at the back of the queue, behind the chunks of every simulation
created since. A small simulation therefore waits for a few chunks of each running one, not for all of them.

Games run in memory: ``domino.playout`` (the fast core) when every strategy is one it plays natively and
the variant is a line game; otherwise the public engine loop, with search bots on a node ``Budget`` so that
results stay deterministic.

Routes (``api/resources/simulations``) and the job (``workers.jobs.run_chunk``) call :func:`create`,
:func:`get`, :func:`list_page`, :func:`cancel` and :func:`run_chunk`; :func:`play_chunk` is pure (no Redis).
"""

from __future__ import annotations

import dataclasses
import datetime
import logging
import math
import random
import secrets
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import orjson

import domino
import domino.bots
from api.errors import InvalidRequest, SimulationNotFound
from api.store import Store

log = logging.getLogger("api.simulations")

STATUSES = ("queued", "running", "finished", "cancelled", "failed")
# Index entries one page may read: with a status filter a page can come back short (even empty) with a next
# cursor, instead of one request reading a week of simulations to find a rare status.
LIST_SCAN = 1000
_FILTERED_BATCH = 100
Z95 = 1.959963984540054

# Rough seconds per game, to size chunks (about ``simulation_chunk_seconds`` of work each). Only the chunk
# size depends on these, never the results.
_SECONDS_PER_GAME = {"playout": 1 / 1000, "engine_line": 1 / 40, "engine_mexican": 1 / 8}
_SECONDS_PER_SEARCH_NODE = 60 * 0.075e-3  # ~60 moves a game for a search seat, ~0.075 ms per node


# -- statistics ---------------------------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """The Wilson score interval of a proportion (None without trials)."""
    if n <= 0:
        return None
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mean_ci(total: float, total_sq: float, n: int, z: float = Z95) -> tuple[float | None, tuple[float, float] | None]:
    """Mean and its normal 95% interval from a sum and a sum of squares (no interval below two samples)."""
    if n <= 0:
        return None, None
    mean = total / n
    if n < 2:
        return mean, None
    var = max(0.0, (total_sq - n * mean * mean) / (n - 1))
    half = z * math.sqrt(var / n)
    return mean, (mean - half, mean + half)


def _r(x: float | None, digits: int = 6) -> float | None:
    return None if x is None else round(x, digits)


def _ri(ci: tuple[float, float] | None, digits: int = 6) -> list[float] | None:
    return None if ci is None else [round(ci[0], digits), round(ci[1], digits)]


# -- the spec -----------------------------------------------------------------------------------------------


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
    chunk_deals: int
    chunks: int
    engine: str  # "playout" | "engine"
    search_nodes: dict[str, int] | None  # per search strategy: its node budget per move
    window: int  # chunks queued at once: chunk c, starting, queues chunk c + window

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


def _invalid(field: str, message: str, detail: str | None = None) -> InvalidRequest:
    return InvalidRequest(detail or f"`{field}`: {message}", errors={"json": {field: [message]}})


def make_spec(
    settings: Any,
    variant: str,
    strategies: list[str],
    games: int,
    rules: dict[str, Any] | None = None,
    seed: str | None = None,
    duplicate: bool = False,
) -> Spec:
    """Validate a request into a spec; every problem is an InvalidRequest naming the field."""
    overrides = dict(rules or {})
    if "players" in overrides:
        raise InvalidRequest(
            "`players` comes from `strategies`, not from `rules`.", errors={"json": {"rules": {"players": ["not allowed"]}}}
        )
    if variant not in domino.PRESETS:
        raise _invalid("variant", f"one of {list(domino.PRESETS)}", f"Unknown variant {variant!r}; see GET /v1/variants.")
    known = domino.bots.ids()
    for i, sid in enumerate(strategies):
        if sid not in known:
            raise InvalidRequest(
                f"Unknown strategy {sid!r}; see GET /v1/bots.",
                errors={"json": {"strategies": {str(i): [f"one of {sorted(known)}"]}}},
            )
    teams = overrides.get("teams") == "partners_opposite"
    per_team = teams and len(strategies) == 2
    seats = tuple(strategies * 2) if per_team else tuple(strategies)
    try:
        resolved = domino.Rules.preset(variant, players=len(seats), **overrides)
    except domino.InvalidRulesError as exc:
        field = "strategies" if exc.option == "players" else "rules"
        members: dict[str, Any] = {field: [exc.reason]} if field == "strategies" else {"rules": {exc.option: [exc.reason]}}
        raise InvalidRequest(f"{exc.option}: {exc.reason}", errors={"json": members}, option=exc.option) from exc
    if games < 1 or games > settings.simulation_max_games:
        raise _invalid("games", f"between 1 and {settings.simulation_max_games}")
    rotations = _period(seats) if duplicate else 1
    if games % rotations:
        lo = games - games % rotations
        raise _invalid(
            "games",
            f"a multiple of {rotations} in duplicate mode",
            f"`games`: duplicate mode plays each deal in {rotations} rotations; ask for a multiple of {rotations} "
            f"(e.g. {lo or rotations} or {lo + rotations}).",
        )
    native = resolved.is_line and all(s in domino.core.STRATEGIES for s in seats)
    engine = "playout" if native else "engine"
    search = [s for s in seats if s not in domino.core.STRATEGIES]
    # A search bot plays with its own calibrated budget (about its live think time) unless configured.
    nodes = {s: settings.simulation_search_nodes or _calibrated_nodes(s) for s in search}
    if native:
        per_game = _SECONDS_PER_GAME["playout"]
    else:
        per_game = _SECONDS_PER_GAME["engine_line" if resolved.is_line else "engine_mexican"]
        per_game += sum(nodes[s] for s in search) * _SECONDS_PER_SEARCH_NODE
    deals = games // rotations
    chunk_deals = max(1, int(settings.simulation_chunk_seconds / (per_game * rotations)))
    if -(-deals // chunk_deals) > settings.simulation_max_chunks:
        chunk_deals = -(-deals // settings.simulation_max_chunks)
    chunk_deals = min(chunk_deals, deals)
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
        chunk_deals=chunk_deals,
        chunks=-(-deals // chunk_deals),
        engine=engine,
        search_nodes=nodes or None,
        window=settings.simulation_window,
    )


# -- playing ------------------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class GameSummary:
    rounds: tuple[str, ...]  # how each round ended
    moves: int
    winners: tuple[int, ...]
    team: int | None
    scores: tuple[int, ...]


def game_seed(spec: Spec, deal: int) -> str:
    return f"{spec.seed}:{deal}"


def bots_rng(spec: Spec, deal: int, rotation: int) -> random.Random:
    """The bots' generator for one game: apart from the deal's hashes, distinct per rotation."""
    return random.Random(f"{spec.seed}:{deal}:{rotation}|bots")


def play_game(spec: Spec, rules: domino.Rules, deal: int, rotation: int) -> GameSummary:
    """One whole match of the deal seed in this rotation, in memory."""
    lineup = spec.lineup(rotation)
    rng = bots_rng(spec, deal, rotation)
    seed = game_seed(spec, deal)
    if spec.engine == "playout":
        res = domino.playout(rules, lineup, seed, rng=rng)
        o = res.outcome
        return GameSummary(tuple(r.end for r in res.rounds), res.moves, tuple(o.winners), o.team, tuple(res.scores))
    bots = [domino.bots.get(s) for s in lineup]
    budgets = [domino.bots.Budget(nodes=(spec.search_nodes or {}).get(s, 1)) for s in lineup]
    state = domino.new_game(rules, seed=seed)
    moves = 0
    while not state.finished:
        seat = state.turn
        move = bots[seat].choose(domino.view(state, seat), rng, budgets[seat])
        state, _ = domino.step(state, move)
        moves += 1
    end = state.outcome
    assert end is not None
    return GameSummary(tuple(r.end for r in state.rounds), moves, tuple(end.winners), end.team, tuple(state.scores))


def _slot_of_seat(spec: Spec, seat: int, rotation: int) -> int:
    k = (seat - rotation) % spec.players  # the request seat sitting there
    return k % 2 if spec.teams else k


def _slot_points(spec: Spec, g: GameSummary, rotation: int) -> list[int]:
    if spec.teams:  # a seat's score is its team's: team t is seats t and t+2
        return [g.scores[(t + rotation) % 2] for t in range(2)]
    return [g.scores[(k + rotation) % spec.players] for k in range(spec.players)]


def play_chunk(spec: Spec, chunk: int, keep_going: Callable[[], bool] | None = None) -> Counter[str] | None:
    """Play one chunk's deals (every rotation of each) and return its counts; None if ``keep_going`` said
    stop (checked between deals). Counts are integers, so adding chunks in any order gives one total."""
    rules = domino.Rules.from_dict(spec.rules)
    c: Counter[str] = Counter()
    slots = spec.slots
    for deal in spec.deal_range(chunk):
        if keep_going is not None and not keep_going():
            return None
        deal_pts = [0] * slots
        deal_wins = [0] * slots
        for rot in range(spec.rotations):
            g = play_game(spec, rules, deal, rot)
            c["games"] += 1
            c[f"r{rot}:games"] += 1
            c["rounds"] += len(g.rounds)
            c["blocked"] += sum(1 for e in g.rounds if e == "blocked")
            c["moves"] += g.moves
            if spec.teams:
                winner = None if g.team is None else (g.team - rot) % 2
                shared: list[int] = []
            else:
                winner = _slot_of_seat(spec, g.winners[0], rot) if len(g.winners) == 1 else None
                shared = [_slot_of_seat(spec, w, rot) for w in g.winners] if len(g.winners) > 1 else []
            if winner is None:
                c["draws"] += 1
            else:
                c[f"e{winner}:wins"] += 1
                deal_wins[winner] += 1
            for k in shared:
                c[f"e{k}:shared"] += 1
            for k, p in enumerate(_slot_points(spec, g, rot)):
                c[f"e{k}:pts"] += p
                c[f"e{k}:pts2"] += p * p
                deal_pts[k] += p
        if spec.duplicate:
            # Per deal (all its rotations): the sums behind intervals clustered by deal, and each slot's
            # points against the table's average (times the slot count, to stay in integers).
            table = sum(deal_pts)
            for k in range(slots):
                c[f"e{k}:dw2"] += deal_wins[k] ** 2
                c[f"e{k}:dp2"] += deal_pts[k] ** 2
                margin = slots * deal_pts[k] - table
                c[f"e{k}:dm"] += margin
                c[f"e{k}:dm2"] += margin * margin
    return c


# -- the service --------------------------------------------------------------------------------------------


def new_simulation_id() -> str:
    from api.service import new_game_id

    return new_game_id()


def create(
    store: Store,
    variant: str,
    strategies: list[str],
    games: int,
    rules: dict[str, Any] | None = None,
    seed: str | None = None,
    duplicate: bool = False,
) -> tuple[str, dict[str, Any]]:
    """Validate, write the record (``queued``) and enqueue its first ``window`` chunks. Returns (id, the
    simulation)."""
    from workers.queues import enqueue_chunks, simulation_window

    spec = make_spec(store.settings, variant, strategies, games, rules=rules, seed=seed, duplicate=duplicate)
    spec = dataclasses.replace(spec, window=simulation_window(store))
    sim_id = new_simulation_id()
    store.create_simulation(
        sim_id, {"status": "queued", "spec": spec.to_json(), "chunks": spec.chunks, "chunks_done": 0}
    )
    try:
        enqueue_chunks(store, sim_id, range(min(spec.window, spec.chunks)))
    except Exception:
        store.end_simulation(sim_id, "failed", "could not enqueue its chunks")
        raise
    return sim_id, get(store, sim_id)


def _iso(ts: str | None) -> str | None:
    if not ts:
        return None
    return datetime.datetime.fromtimestamp(float(ts), datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def render(sim_id: str, fields: dict[str, str], now: float) -> dict[str, Any]:
    """The simulation as ``GET /v1/simulations/{id}`` shows it, from its record."""
    spec = Spec.from_json(fields["spec"])
    c = {k[2:]: int(v) for k, v in fields.items() if k.startswith("c:")}
    games = c.get("games", 0)
    deals = games // spec.rotations
    started, finished = fields.get("started_at"), fields.get("finished_at")
    elapsed = 0.0
    if started:
        elapsed = max(0.0, (float(finished) if finished else now) - float(started))
    results = []
    for k in range(spec.slots):
        wins = c.get(f"e{k}:wins", 0)
        pts, pts2 = c.get(f"e{k}:pts", 0), c.get(f"e{k}:pts2", 0)
        mean, ci = mean_ci(pts, pts2, games)
        entry: dict[str, Any]
        if spec.teams:
            seats = [k, k + 2]
            names = [spec.strategies[s] for s in seats]
            entry = {"team": k, "seats": seats, "strategy": names[0] if names[0] == names[1] else "+".join(names)}
        else:
            entry = {"seat": k, "strategy": spec.strategies[k]}
        entry.update(
            games=games,
            wins=wins,
            shared_wins=c.get(f"e{k}:shared", 0),
            win_rate=_r(wins / games) if games else None,
            win_rate_ci95=_ri(wilson(wins, games)),
            points_mean=_r(mean),
            points_mean_ci95=_ri(ci),
        )
        if spec.duplicate:
            rot = spec.rotations
            _, w_ci = mean_ci(wins, c.get(f"e{k}:dw2", 0), deals)
            _, p_ci = mean_ci(pts, c.get(f"e{k}:dp2", 0), deals)
            m_mean, m_ci = mean_ci(c.get(f"e{k}:dm", 0), c.get(f"e{k}:dm2", 0), deals)
            scale = spec.slots * rot  # per deal -> per game, and back from "times the slot count"
            entry["by_deal"] = {
                "win_rate_ci95": _ri(None if w_ci is None else (max(0.0, w_ci[0] / rot), min(1.0, w_ci[1] / rot))),
                "points_mean_ci95": _ri(None if p_ci is None else (p_ci[0] / rot, p_ci[1] / rot)),
                "points_vs_table": _r(None if m_mean is None else m_mean / scale),
                "points_vs_table_ci95": _ri(None if m_ci is None else (m_ci[0] / scale, m_ci[1] / scale)),
            }
        results.append(entry)
    rounds = c.get("rounds", 0)
    body: dict[str, Any] = {
        "id": sim_id,
        "status": fields.get("status", "failed"),
        "variant": spec.rules["variant"],
        "rules": spec.rules,
        "strategies": list(spec.strategies),
        "teams": spec.teams,
        "mode": "duplicate" if spec.duplicate else "independent",
        "duplicate": spec.duplicate,
        "rotations": spec.rotations,
        "seed": spec.seed,
        "client_seeded": spec.client_seeded,
        "engine": spec.engine,
        "search_nodes": spec.search_nodes,
        "games": spec.games,
        "games_done": games,
        "deals_total": spec.deals,
        "deals_done": deals,
        "chunks_total": spec.chunks,
        "chunks_done": int(fields.get("chunks_done", 0)),
        "chunk_games": spec.chunk_deals * spec.rotations,
        "created_at": _iso(fields.get("created_at")),
        "started_at": _iso(started),
        "finished_at": _iso(finished),
        "elapsed_seconds": round(elapsed, 3),
        "games_per_second": round(games / elapsed, 1) if elapsed > 0 else None,
        "worker_seconds": round(c.get("busy_ms", 0) / 1000, 3),
        "worker_cpu_seconds": round(c.get("cpu_ms", 0) / 1000, 3),
        "results": results,
        "draws": c.get("draws", 0),
        "draw_rate": _r(c.get("draws", 0) / games) if games else None,
        "rounds": {
            "total": rounds,
            "per_game": _r(rounds / games) if games else None,
            "blocked": c.get("blocked", 0),
            "blocked_share": _r(c.get("blocked", 0) / rounds) if rounds else None,
            "moves_per_round": _r(c.get("moves", 0) / rounds) if rounds else None,
        },
        "lineups": [
            {"rotation": r, "seats": list(spec.lineup(r)), "games": c.get(f"r{r}:games", 0)} for r in range(spec.rotations)
        ],
        "error": fields.get("error") or None,
    }
    return body


def get(store: Store, sim_id: str) -> dict[str, Any]:
    found = store.load_simulation(sim_id)
    if found is None:
        raise SimulationNotFound(f"No simulation {sim_id[:40]!r} (or it expired).")
    fields, now = found
    return render(sim_id, fields, now)


def list_page(
    store: Store, before: tuple[float, str] | None, limit: int, status: str | None = None
) -> tuple[list[dict[str, Any]], tuple[float, str] | None]:
    """Simulations newest first, each as :func:`get` shows it, optionally only those in ``status``:
    (the page, the cursor of the next page or None). A cursor is the (created_at, id) of the last index
    entry read. Entries whose records have expired are dropped from the index as they are met."""
    sims: list[dict[str, Any]] = []
    cursor = before
    scanned = 0
    exhausted = False
    while len(sims) < limit and scanned < LIST_SCAN and not exhausted:
        want = limit - len(sims) if status is None else min(_FILTERED_BATCH, LIST_SCAN - scanned)
        rows = store.simulation_index_page(cursor, want)
        exhausted = len(rows) < want
        records, now = store.load_simulations([sim_id for sim_id, _ in rows])
        gone = []
        for (sim_id, created_at), fields in zip(rows, records):
            if len(sims) == limit:
                exhausted = False  # this batch has more than the page takes
                break
            cursor = (created_at, sim_id)
            scanned += 1
            if fields is None:
                gone.append(sim_id)
            elif status is None or fields.get("status") == status:
                sims.append(render(sim_id, fields, now))
        store.forget_simulations(*gone)
    more = not exhausted and cursor is not None and bool(store.simulation_index_page(cursor, 1))
    return sims, cursor if more else None


def cancel(store: Store, sim_id: str) -> dict[str, Any]:
    """Cancel a queued or running simulation: chunks not started never run, a running chunk stops at its next
    check and adds nothing, the counts so far stay readable. A simulation already over is left as it is."""
    before = store.end_simulation(sim_id, "cancelled")
    if before is None:
        raise SimulationNotFound(f"No simulation {sim_id[:40]!r} (or it expired).")
    sim = get(store, sim_id)
    if before in ("queued", "running"):
        from workers.queues import drop_chunks

        try:
            drop_chunks(store, sim_id, sim["chunks_total"])
        except Exception:  # they stay queued and do nothing when they run
            log.warning("could not drop the queued chunks of %s", sim_id, exc_info=True)
    return sim


def delete(store: Store, sim_id: str) -> None:
    """Cancel a simulation (its queued chunks never run, a running one adds nothing) and remove it: reading it
    afterwards is a 404."""
    cancel(store, sim_id)
    store.delete_simulation(sim_id)


def run_chunk(store: Store, sim_id: str, chunk: int) -> str:
    """The job: play chunk ``chunk`` unless the simulation is over (or the chunk was counted), and add its
    counts once. Returns what happened (RQ keeps it as the job's result).

    First it queues the chunk a window later, so that a worker dying mid-chunk loses nothing: the retry
    queues it if it is not queued yet. A chunk found counted queues it too (counted some other way, it may
    never have)."""
    status = store.start_simulation_chunk(sim_id, chunk)
    if status not in ("queued", "running", "done"):
        return f"skipped: {status}"
    found = store.load_simulation(sim_id)
    if found is None:
        return "skipped: gone"
    fields = found[0]
    spec = Spec.from_json(fields["spec"])
    later = chunk + spec.window
    if later < spec.chunks and fields.get("status") in ("queued", "running"):
        if not store.simulation_chunk_counted(sim_id, later):  # counted: it queued its own later chunk
            from workers.queues import enqueue_later_chunk

            enqueue_later_chunk(store, sim_id, later)
    if status == "done":
        return "skipped: done"
    every = store.settings.simulation_cancel_check
    next_check = time.monotonic() + every

    def keep_going() -> bool:
        nonlocal next_check
        now = time.monotonic()
        if now < next_check:
            return True
        next_check = now + every
        return store.simulation_status(sim_id) in ("queued", "running")

    t0, cpu0 = time.perf_counter(), time.process_time()
    counts = play_chunk(spec, chunk, keep_going)  # an exception fails the job: RQ retries it, then chunk_failed
    if counts is None:
        return "stopped: cancelled"
    counts["busy_ms"] = round((time.perf_counter() - t0) * 1000)
    counts["cpu_ms"] = round((time.process_time() - cpu0) * 1000)
    added = store.add_simulation_chunk(sim_id, chunk, {f"c:{k}": v for k, v in counts.items()})
    return {1: "counted", 0: "already counted", -1: "not counted: cancelled", -2: "not counted: gone"}[added]


def chunk_failed(store: Store, sim_id: str, error: str) -> None:
    """RQ's failure callback after the last attempt (a worker died mid-chunk, a timeout)."""
    store.end_simulation(sim_id, "failed", error[:500])
