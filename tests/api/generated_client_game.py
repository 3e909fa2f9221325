"""A 2-player draw game against `greedy`, played to the end with the client `openapi-python-client` generates
from `openapi/openapi.json` (package `domino_client`, made by the `generated_client` fixture of tests/conftest.py).
Typed: `mypy --strict` passes on this file (tests/test_typing.py). Every request goes through a generated
function, and every answer is a generated model (no `additional_properties`); only the SSE stream, which no
generated function can follow, is read from the generated client's own HTTP client, each event decoded by the
generated models."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx

from domino_client import AuthenticatedClient, Client
from domino_client.api.events import create_stream_ticket, get_game_events
from domino_client.api.games import create_game, get_game
from domino_client.api.moves import play_move
from domino_client.models import (
    BotSeat,
    CreatedGame,
    CreateGameDraw,
    CreateGameDrawVariant,
    DrawOrPass,
    EventsPage,
    GameStatus,
    GameView,
    HumanSeat,
    MinimalGameView,
    PlayMove,
    Ticket,
    TurnStartedEvent,
)
from domino_client.types import UNSET, Unset

Move = PlayMove | DrawOrPass


def pips(tile: str) -> int:
    return sum(int(half) for half in tile.split("-"))


def choose(moves: list[Move]) -> Move:
    """The heaviest play, else the draw or pass offered."""
    plays = [m for m in moves if isinstance(m, PlayMove)]
    return max(plays, key=lambda m: pips(m.tile)) if plays else moves[0]


def new_game(base_url: str) -> tuple[str, AuthenticatedClient, int]:
    """A draw game, Ana against greedy: (game id, Ana's client, her seat)."""
    body = CreateGameDraw(variant=CreateGameDrawVariant.DRAW, seats=[HumanSeat(name="Ana"), BotSeat(bot="greedy")])
    created = create_game.sync(client=Client(base_url=base_url), body=body)
    assert isinstance(created, CreatedGame), created
    token = created.tokens[0]
    return created.game.id, AuthenticatedClient(base_url=base_url, token=token.token, timeout=httpx.Timeout(30)), token.seat


def move(client: AuthenticatedClient, game_id: str, turn: TurnStartedEvent, minimal: bool = False) -> None:
    """Play the chosen move on the turn's version; with ``minimal``, ask for the minimal answer (what a client
    that follows the events needs)."""
    assert not isinstance(turn.legal_moves, Unset) and turn.legal_moves
    chosen = choose(turn.legal_moves)
    chosen.expected_version = turn.version
    if minimal:
        short = play_move.sync(game_id, client=client, body=chosen, prefer="return=minimal")
        assert isinstance(short, MinimalGameView) and short.version > turn.version, short
        return
    answer = play_move.sync(game_id, client=client, body=chosen)
    assert isinstance(answer, GameView), answer


def final_view(client: AuthenticatedClient, game_id: str) -> GameView:
    view = get_game.sync(game_id, client=client)
    assert isinstance(view, GameView), view
    assert view.status == GameStatus.FINISHED, view.status
    return view


def play_by_long_poll(base_url: str) -> tuple[GameView, int]:
    """Follow the long poll from the start (no `after` on the first call); move on each own `turn_started`."""
    game_id, client, seat = new_game(base_url)
    after: int | Unset = UNSET
    moves = 0
    while True:
        page = get_game_events.sync(game_id, client=client, after=after, wait=5)
        assert isinstance(page, EventsPage), page
        if page.last_version is not None:
            after = page.last_version
        last = page.events[-1] if page.events else None
        if isinstance(last, TurnStartedEvent) and last.seat == seat and not page.ended:
            move(client, game_id, last)
            moves += 1
        if page.ended:
            return final_view(client, game_id), moves


def events_of_stream(client: AuthenticatedClient, game_id: str, ticket: Ticket) -> Iterator[TurnStartedEvent | None]:
    """The stream opened with a ticket (as `EventSource` would): each event decoded by the generated union;
    yields own turns, and None for the other events."""
    with client.get_httpx_client().stream("GET", ticket.url, headers={"Accept": "text/event-stream"}) as stream:
        for line in stream.iter_lines():
            if not line.startswith("data: "):
                continue
            page = EventsPage.from_dict({"events": [json.loads(line[6:])], "last_version": None, "ended": False, "seat": None})
            event = page.events[0]
            yield event if isinstance(event, TurnStartedEvent) else None


def play_by_sse(base_url: str) -> tuple[GameView, int]:
    """Follow the Server-Sent Events with a stream ticket; move on each own `turn_started`, asking for the
    minimal answer (the events carry the rest)."""
    game_id, client, seat = new_game(base_url)
    ticket = create_stream_ticket.sync(game_id, client=client)
    assert isinstance(ticket, Ticket), ticket
    moves = 0
    for turn in events_of_stream(client, game_id, ticket):
        if turn is not None and turn.seat == seat and not isinstance(turn.legal_moves, Unset) and turn.legal_moves:
            move(client, game_id, turn, minimal=True)
            moves += 1
    return final_view(client, game_id), moves
