from __future__ import annotations

from typing import Any

import flask

from api import errors as E
from api.extensions import BODY_PROBLEMS, Blueprint, current_service, no_body
from api.ratelimit import client_id
from api.resources.common import bearer_token, json_response
from api.service.simulations.spec import SimulationRequest
from api.resources.simulations.schemas import (
    CreatedSimulationSchema,
    CreateSimulationSchema,
    SimulationListQuerySchema,
    SimulationPageSchema,
    SimulationSchema,
    encode_cursor,
)

blp = Blueprint(
    "simulations", __name__, url_prefix="/v1/simulations", description="Bot-against-bot games in bulk, run by workers."
)

EXAMPLE = {
    "id": "q7x2mzk4c3n9b2rt",
    "status": "finished",
    "variant": "draw",
    "rules": {"variant": "draw", "players": 2, "target_score": 100},
    "strategies": ["greedy", "random"],
    "teams": False,
    "mode": "duplicate",
    "duplicate": True,
    "rotations": 2,
    "seed": "bench-1",
    "client_seeded": True,
    "deal_version": 2,
    "engine": "playout",
    "search_nodes": None,
    "games": 10000,
    "games_done": 10000,
    "deals_total": 5000,
    "deals_done": 5000,
    "chunks_total": 5,
    "chunks_done": 5,
    "chunk_games": 2000,
    "created_at": "2025-01-01T12:00:00.000Z",
    "started_at": "2025-01-01T12:00:00.010Z",
    "finished_at": "2025-01-01T12:00:05.210Z",
    "elapsed_seconds": 5.2,
    "games_per_second": 1923.1,
    "worker_seconds": 9.9,
    "worker_cpu_seconds": 9.7,
    "results": [
        {
            "seat": 0,
            "strategy": "greedy",
            "games": 10000,
            "wins": 6420,
            "shared_wins": 0,
            "win_rate": 0.642,
            "win_rate_ci95": [0.6326, 0.6513],
            "points_mean": 92.1,
            "points_mean_ci95": [91.2, 93.0],
            "by_deal": {
                "win_rate_ci95": [0.6351, 0.6489],
                "points_mean_ci95": [91.5, 92.7],
                "points_vs_table": 14.2,
                "points_vs_table_ci95": [13.6, 14.8],
            },
        },
        {
            "seat": 1,
            "strategy": "random",
            "games": 10000,
            "wins": 3580,
            "shared_wins": 0,
            "win_rate": 0.358,
            "win_rate_ci95": [0.3487, 0.3674],
            "points_mean": 61.4,
            "points_mean_ci95": [60.3, 62.5],
        },
    ],
    "draws": 0,
    "draw_rate": 0.0,
    "rounds": {"total": 81240, "per_game": 8.124, "blocked": 3010, "blocked_share": 0.037, "moves_per_round": 30.05},
    "lineups": [
        {"rotation": 0, "seats": ["greedy", "random"], "games": 5000},
        {"rotation": 1, "seats": ["random", "greedy"], "games": 5000},
    ],
    "error": None,
}

# Cancelling or deleting a simulation needs its creator's token (shown once, by POST /v1/simulations).
SIMULATION_TOKEN: list[dict[str, list[str]]] = [{"simulationToken": []}]

LIST_EXAMPLE = {
    "simulations": [EXAMPLE],
    "next_before": "MTczNTczMjgwMC4wOnE3eDJtems0YzNuOWIycnQ",
    "next": "/v1/simulations?limit=1&before=MTczNTczMjgwMC4wOnE3eDJtems0YzNuOWIycnQ&status=finished",
}


SIM_ID = {"sim_id": "$response.body#/id"}
CREATED_LINKS = {
    "GetSimulation": {"operationId": "getSimulation", "parameters": SIM_ID},
    "CancelSimulation": {"operationId": "cancelSimulation", "parameters": SIM_ID},
    "DeleteSimulation": {"operationId": "deleteSimulation", "parameters": SIM_ID},
}


@blp.route("", methods=["POST"])
@blp.doc(operationId="createSimulation", responses={202: {"links": CREATED_LINKS}})
@blp.arguments(
    CreateSimulationSchema(),
    example={"variant": "draw", "strategies": ["greedy", "random"], "games": 10000, "seed": "bench-1", "duplicate": True},
)
@blp.response(
    202,
    CreatedSimulationSchema,
    example={
        **EXAMPLE, "status": "queued", "games_done": 0, "started_at": None, "finished_at": None,
        "token": "q1V0cX2b...43 characters",
    },  # fmt: skip
    headers={"Location": {"description": "the simulation's URL", "schema": {"type": "string"}}},
)
@blp.problems(*BODY_PROBLEMS, E.TOO_MANY_SIMULATIONS, E.UNAVAILABLE, path="/v1/simulations")
def create_simulation(body: dict[str, Any]) -> flask.Response:
    """Start a simulation: a variant, rule overrides, a strategy per seat (or team), a number of games

    The games are split into chunks of a few seconds on the `simulations` queue; any number of workers play
    them. With a `seed`, the results are the same however many workers run it. With `duplicate: true`, every
    deal is played once per rotation of the strategies over the seats.

    The answer's `token` (shown once) is the creator's: only it cancels the simulation. The simulation is
    listed for the client (address) that created it. A client may have `DOMINO_SIMULATIONS_PER_CLIENT`
    simulations queued or running (429 `too-many-simulations` beyond); one game whose estimated cost is over
    `DOMINO_SIMULATION_MAX_GAME_SECONDS` is refused (422)."""
    request = SimulationRequest(
        body["variant"],
        body["strategies"],
        body["games"],
        rules=body.get("rules"),
        seed=body.get("seed"),
        duplicate=body.get("duplicate", False),
        deal_version=body["deal_version"],
    )
    sim_id, sim, token = current_service().create_simulation(request, client_id())
    headers = {"Location": f"/v1/simulations/{sim_id}", "Cache-Control": "no-store"}
    return json_response({**sim, "token": token}, status=202, headers=headers)


@blp.route("", methods=["GET"])
@blp.doc(operationId="listSimulations")
@blp.arguments(SimulationListQuerySchema(), location="query", as_kwargs=True)
@blp.response(200, SimulationPageSchema, example=LIST_EXAMPLE)
@blp.problems(E.INVALID_REQUEST, E.UNAVAILABLE, path="/v1/simulations")
def list_simulations(limit: int, before: tuple[float, str] | None = None, status: str | None = None) -> flask.Response:
    """List this client's simulations, newest first, each as `GET /v1/simulations/{id}` shows it

    Only the simulations created from the caller's address are listed (another client's are read by their
    id, which only their creator knows unless it shares it). Paginated: `limit` simulations (at most 100) per page; follow `next`. `status` keeps only the simulations
    in that status; such a page may hold fewer than `limit` (even none) while `next` goes on. A simulation
    leaves the list when its record expires (`DOMINO_SIMULATION_TTL`: 7 days after its creation or its last
    counted chunk)."""
    sims, next_before = current_service().list_simulations(client_id(), before, limit, status)
    cursor = None if next_before is None else encode_cursor(next_before)
    next_url = None
    if cursor is not None:
        next_url = f"/v1/simulations?limit={limit}&before={cursor}" + (f"&status={status}" if status else "")
    return json_response(
        {"simulations": sims, "next_before": cursor, "next": next_url}, headers={"Cache-Control": "no-store"}
    )


@blp.route("/<string:sim_id>")
@blp.doc(operationId="getSimulation")
@blp.response(200, SimulationSchema, example=EXAMPLE)
@blp.problems(E.NOT_FOUND, E.UNAVAILABLE, path="/v1/simulations/q7x2mzk4c3n9b2rt")
def get_simulation(sim_id: str) -> flask.Response:
    """Read a simulation: status, progress, speed and the results so far

    Per seat (or team) and strategy: wins, win rate with its 95% Wilson interval, mean points per game with
    its 95% interval; for the games: the share of blocked rounds, rounds per game and moves per round."""
    return json_response(current_service().simulation(sim_id), headers={"Cache-Control": "no-store"})


@blp.route("/<string:sim_id>/cancel", methods=["POST"])
@blp.doc(operationId="cancelSimulation", security=SIMULATION_TOKEN)
@blp.response(200, SimulationSchema, example={**EXAMPLE, "status": "cancelled"})
@blp.problems(
    *BODY_PROBLEMS, E.UNAUTHORIZED, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/simulations/q7x2mzk4c3n9b2rt/cancel"
)
@no_body
def cancel_simulation(sim_id: str) -> flask.Response:
    """Cancel a simulation with its creator's token: chunks not yet started never run, a running one stops
    within a moment; it stays readable, with the results so far

    Needs `Authorization: Bearer <token>` with the `token` `POST /v1/simulations` answered (401 without it).
    Its status becomes `cancelled`; a simulation already over keeps its status. No body is needed."""
    sim = current_service().cancel_simulation(sim_id, bearer_token())
    return json_response(sim, headers={"Cache-Control": "no-store"})


@blp.route("/<string:sim_id>", methods=["DELETE"])
@blp.doc(operationId="deleteSimulation", security=SIMULATION_TOKEN)
@blp.response(204, description="Deleted: reading it now answers 404")
@blp.problems(E.UNAUTHORIZED, E.NOT_FOUND, E.UNAVAILABLE, path="/v1/simulations/q7x2mzk4c3n9b2rt")
def delete_simulation(sim_id: str) -> flask.Response:
    """Delete a simulation with its creator's token: cancel it if it is still going, then remove it and its
    results

    Needs `Authorization: Bearer <token>` with the `token` `POST /v1/simulations` answered (401 without it)."""
    current_service().delete_simulation(sim_id, bearer_token())
    return flask.Response(status=204)
