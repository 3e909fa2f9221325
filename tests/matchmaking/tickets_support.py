"""What the matchmaking tests share: opening a ticket from an address, reading it with its token."""

from __future__ import annotations

from typing import Any

TICKETS = "/v1/matchmaking/tickets"


def seek(client: Any, body: dict[str, Any], headers: dict[str, str] | None = None, address: str = "127.0.0.1") -> Any:
    return client.post(TICKETS, json=body, headers=headers or {}, environ_base={"REMOTE_ADDR": address})


def read(client: Any, answer: dict[str, Any], **query: Any) -> Any:
    ticket = answer["ticket"]
    return client.get(f"{TICKETS}/{ticket['id']}", query_string=query, headers={"Authorization": f"Bearer {answer['token']}"})
