"""The simulation use cases of :class:`api.service.service.Service`, in their own module beside it (as the
apps' and matchmaking's are)."""

from __future__ import annotations

from typing import Any

from api.service.simulations.runner import Cursor, Simulations
from api.service.simulations.spec import SimulationRequest


class SimulationCalls:
    simulations: Simulations

    def create_simulation(self, request: SimulationRequest, client: str) -> tuple[str, dict[str, Any], str]:
        """(its id, the simulation as queued, its owner's token: shown once). ``client``: the caller's address,
        which lists it and holds one of its simulation slots while it is queued or running."""
        return self.simulations.create(request, client)

    def simulation(self, sim_id: str) -> dict[str, Any]:
        return self.simulations.get(sim_id)

    def list_simulations(
        self, client: str, before: Cursor | None, limit: int, status: str | None = None
    ) -> tuple[list[dict[str, Any]], Cursor | None]:
        """The simulations ``client`` (an address) created."""
        return self.simulations.list_page(client, before, limit, status)

    def cancel_simulation(self, sim_id: str, token: str | None) -> dict[str, Any]:
        """Only with the token its creator was given."""
        return self.simulations.cancel(sim_id, token)

    def delete_simulation(self, sim_id: str, token: str | None) -> None:
        """Only with the token its creator was given."""
        self.simulations.delete(sim_id, token)

    def run_chunk(self, sim_id: str, chunk: int) -> str:
        return self.simulations.run_chunk(sim_id, chunk)

    def chunk_failed(self, sim_id: str, error: str) -> None:
        self.simulations.chunk_failed(sim_id, error)
