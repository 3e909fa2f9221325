"""An arena as ``GET /v1/arenas/{id}`` shows it: progress, its games, and the standings with 95% intervals
(as simulations give them: Wilson for win rates, normal for means; in duplicate mode also clustered by deal,
over the deals whose every seating has ended, where the luck of the deal cancels out)."""

from __future__ import annotations

import datetime
from typing import Any

import orjson

from api.service.arenas.spec import ArenaSpec
from api.service.simulations.stats import mean_ci, wilson

Result = dict[str, Any]  # a counted game: scores, winners, places (per seat)


def _iso(ts: str | None) -> str | None:
    if not ts:
        return None
    return datetime.datetime.fromtimestamp(float(ts), datetime.UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _interval(ci: tuple[float, float] | None) -> list[float] | None:
    return None if ci is None else [round(ci[0], 6), round(ci[1], 6)]


def _by_deal(spec: ArenaSpec, bot: str, results: dict[int, Result]) -> dict[str, Any]:
    """Duplicate mode: the bot's win rate per complete deal (every seating ended), its mean and interval."""
    rates = []
    for deal in range(spec.deals):
        indexes = range(deal * spec.seatings, (deal + 1) * spec.seatings)
        if not all(i in results for i in indexes):
            continue
        wins = sum(spec.lineup(i).index(bot) in results[i]["winners"] for i in indexes)
        rates.append(wins / spec.seatings)
    mean, ci = mean_ci(sum(rates), sum(r * r for r in rates), len(rates))
    clamped = None if ci is None else (max(0.0, ci[0]), min(1.0, ci[1]))  # a rate's interval stays within [0, 1]
    return {"deals": len(rates), "win_rate": _round(mean), "win_rate_ci95": _interval(clamped)}


def _standing(spec: ArenaSpec, bot: str, results: dict[int, Result], rating: dict[str, Any] | None) -> dict[str, Any]:
    games = wins = 0
    points: list[int] = []
    places: list[int] = []
    for index, result in results.items():
        seat = spec.lineup(index).index(bot)
        games += 1
        wins += seat in result["winners"]
        points.append(result["scores"][seat])
        places.append(result["places"][seat])
    mean, ci = mean_ci(sum(points), sum(p * p for p in points), games)
    entry: dict[str, Any] = {
        "bot": bot,
        "games": games,
        "wins": wins,
        "win_rate": _round(wins / games) if games else None,
        "win_rate_ci95": _interval(wilson(wins, games)),
        "points_mean": _round(mean),
        "points_mean_ci95": _interval(ci),
        "place_mean": _round(sum(places) / games) if games else None,
        "rating": rating,
    }
    if spec.duplicate:
        entry["by_deal"] = _by_deal(spec, bot, results)
    return entry


def render(
    arena_id: str, spec: ArenaSpec, fields: dict[str, str], now: float, ratings: dict[str, dict[str, Any] | None]
) -> dict[str, Any]:
    """The arena from its record; ``ratings``: each bot's current rating in the variant (None: none yet)."""
    results = {int(k[2:]): orjson.loads(v) for k, v in fields.items() if k.startswith("r:")}
    started = {int(k[2:]): v for k, v in fields.items() if k.startswith("g:")}
    games = []
    for index in range(spec.games):
        status = "finished" if index in results else "playing" if index in started else "pending"
        game: dict[str, Any] = {
            "index": index,
            "deal": spec.deal(index),
            "seats": list(spec.lineup(index)),
            "id": started.get(index),
            "status": status,
        }
        if index in results:
            game["scores"] = results[index]["scores"]
            game["winners"] = results[index]["winners"]
        games.append(game)
    standings = [_standing(spec, b, results, ratings.get(b)) for b in spec.bots]
    standings.sort(key=lambda e: (-(e["win_rate"] or 0.0), e["bot"]))
    created, finished = fields.get("created_at"), fields.get("finished_at")
    elapsed = max(0.0, (float(finished) if finished else now) - float(created)) if created else 0.0
    return {
        "id": arena_id,
        "status": fields.get("status", "running"),
        "variant": spec.variant,
        "rules": spec.rules,
        "bots": list(spec.bots),
        "duplicate": spec.duplicate,
        "deals": spec.deals,
        "seatings": spec.seatings,
        "games_per_bot": spec.per_bot,
        "games_total": spec.games,
        "games_started": len(started),
        "games_done": len(results),
        "games_playing": len(set(started) - set(results)),
        "created_at": _iso(created),
        "finished_at": _iso(finished),
        "elapsed_seconds": round(elapsed, 3),
        "standings": standings,
        "games": games,
        "error": fields.get("error") or None,
    }
