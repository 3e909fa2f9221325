"""A simulation record as ``GET /v1/simulations/{id}`` shows it."""

from __future__ import annotations

import datetime
from typing import Any

from api.service.simulations.spec import Spec
from api.service.simulations.stats import mean_ci, wilson


def _r(x: float | None, digits: int = 6) -> float | None:
    return None if x is None else round(x, digits)


def _ri(ci: tuple[float, float] | None, digits: int = 6) -> list[float] | None:
    return None if ci is None else [round(ci[0], digits), round(ci[1], digits)]


def _iso(ts: str | None) -> str | None:
    if not ts:
        return None
    return datetime.datetime.fromtimestamp(float(ts), datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _slot(spec: Spec, k: int) -> dict[str, Any]:
    """Who result entry ``k`` is: a seat and its strategy, or a team, its seats and strategies."""
    if not spec.teams:
        return {"seat": k, "strategy": spec.strategies[k]}
    seats = [k, k + 2]
    names = [spec.strategies[s] for s in seats]
    return {"team": k, "seats": seats, "strategy": names[0] if names[0] == names[1] else "+".join(names)}


def _by_deal(spec: Spec, c: dict[str, int], k: int, deals: int) -> dict[str, Any]:
    """Duplicate mode: intervals clustered by deal (all its rotations), and points against the table."""
    rot = spec.rotations
    _, w_ci = mean_ci(c.get(f"e{k}:wins", 0), c.get(f"e{k}:dw2", 0), deals)
    _, p_ci = mean_ci(c.get(f"e{k}:pts", 0), c.get(f"e{k}:dp2", 0), deals)
    m_mean, m_ci = mean_ci(c.get(f"e{k}:dm", 0), c.get(f"e{k}:dm2", 0), deals)
    scale = spec.slots * rot  # per deal -> per game, and back from "times the slot count"
    return {
        "win_rate_ci95": _ri(None if w_ci is None else (max(0.0, w_ci[0] / rot), min(1.0, w_ci[1] / rot))),
        "points_mean_ci95": _ri(None if p_ci is None else (p_ci[0] / rot, p_ci[1] / rot)),
        "points_vs_table": _r(None if m_mean is None else m_mean / scale),
        "points_vs_table_ci95": _ri(None if m_ci is None else (m_ci[0] / scale, m_ci[1] / scale)),
    }


def _result(spec: Spec, c: dict[str, int], k: int, games: int, deals: int) -> dict[str, Any]:
    wins = c.get(f"e{k}:wins", 0)
    mean, ci = mean_ci(c.get(f"e{k}:pts", 0), c.get(f"e{k}:pts2", 0), games)
    entry = _slot(spec, k)
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
        entry["by_deal"] = _by_deal(spec, c, k, deals)
    return entry


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
    results = [_result(spec, c, k, games, deals) for k in range(spec.slots)]
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
        "deal_version": spec.deal_version,
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
