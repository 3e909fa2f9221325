"""Events as documented: `Event` is the union (anyOf) of one schema per type, discriminated by `type`, and last
the catch-all `OtherEvent` for types added later. Real games played
to the end over the API (a draw game, an All Fives team game, Mexican Train, and a resignation after a turn
timed out) are followed through the long poll, by seats and by the spectator, and read back from the history;
every event must match exactly its type's schema, every member must be documented, and every documented
member must have been seen."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from typing import Any

import pytest

from conftest import Player, openapi_document, schema_validator
from support import ask_hint, eventually

from workers import sweep as sweep_mod

SCHEMAS = openapi_document()["components"]["schemas"]
DISCRIMINATOR = SCHEMAS["Event"]["discriminator"]
NAMES = {event_type: ref.rsplit("/", 1)[1] for event_type, ref in DISCRIMINATOR["mapping"].items()}
EVENT = schema_validator("Event")
BY_TYPE = {event_type: schema_validator(name) for event_type, name in NAMES.items()}
PAGE = schema_validator("EventsPage")
HISTORY = schema_validator("History")
# type: (its private member, the member naming the seat it is private to)
PRIVATE = {"tile_drawn": ("tile", "seat"), "turn_started": ("legal_moves", "seat"), "round_started": ("lead", "opener")}


def properties(event_type: str) -> set[str]:
    return set(SCHEMAS[NAMES[event_type]]["properties"])


def check(event: dict[str, Any], seen: dict[str, set[str]]) -> None:
    """``event`` is an `Event` (exactly one schema of the union matches), its type has a schema of its own,
    it is valid under it, and each of its members is documented there; records its members in ``seen``."""
    EVENT.validate(event)
    assert event["type"] in BY_TYPE, f"no schema for the event type {event['type']!r}"
    BY_TYPE[event["type"]].validate(event)
    undocumented = set(event) - properties(event["type"])
    assert not undocumented, (undocumented, event)
    seen[event["type"]] |= set(event)


def test_event_is_a_discriminated_union_of_one_open_schema_per_type() -> None:
    union = SCHEMAS["Event"]
    assert DISCRIMINATOR["propertyName"] == "type"
    refs = [s["$ref"] for s in union["anyOf"]]
    assert refs == [*DISCRIMINATOR["mapping"].values(), "#/components/schemas/OtherEvent"]
    for event_type, name in NAMES.items():
        schema = SCHEMAS[name]
        assert schema["properties"]["type"]["enum"] == [event_type]
        assert {"id", "version", "type", "seat"} <= set(schema["required"])
        assert schema["additionalProperties"] is True  # a member added later breaks no client
    for page in ("EventsPage", "History"):
        assert SCHEMAS[page]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}


def test_the_documented_examples_are_events() -> None:
    seen: dict[str, set[str]] = defaultdict(set)
    paths = openapi_document()["paths"]
    content = paths["/v1/games/{game_id}/events"]["get"]["responses"]["200"]["content"]
    for event in content["application/json"]["example"]["events"]:
        check(event, seen)
    frames = re.findall(r"^data: (.*)$", content["text/event-stream"]["example"], re.M)
    assert frames
    for data in frames:
        check(json.loads(data), seen)
    history = paths["/v1/games/{game_id}/history"]["get"]["responses"]["200"]["content"]["application/json"]
    for event in history["example"]["events"]:
        check(event, seen)


class Follower:
    """Follows a game's events through the long poll, as a seat (with its token) or the spectator."""

    def __init__(self, player: Player) -> None:
        self.player = player
        self.events: list[dict[str, Any]] = []
        self.after = -1

    def poll(self) -> dict[str, Any]:
        url = f"/v1/games/{self.player.game_id}/events?after={self.after}"
        resp = self.player.client.get(url, headers=self.player.headers)
        assert resp.status_code == 200, resp.get_json()
        page: dict[str, Any] = resp.get_json()
        PAGE.validate(page)
        self.events += page["events"]
        self.after = page["last_version"]
        return page


def follow(humans: dict[int, Player], spectator: Player) -> dict[int | None, Follower]:
    return {**{seat: Follower(p) for seat, p in humans.items()}, None: Follower(spectator)}


def poll_all(followers: dict[int | None, Follower]) -> bool:
    """Poll as everyone; whether the game is over."""
    return all([f.poll()["ended"] for f in followers.values()])


def play_to_the_end(run_bots, humans: dict[int, Player], followers: dict[int | None, Follower]):  # type: ignore[no-untyped-def]
    """The computer players move through the worker; a human seat plays the first legal move of its own
    `turn_started`, the way a client following the events does."""
    for _ in range(5000):
        if poll_all(followers):
            return
        turn = followers[None].events[-1]
        assert turn["type"] == "turn_started", turn
        if turn["seat"] not in humans:
            run_bots()  # until a human seat is to move, or the game is over
            continue
        own = followers[turn["seat"]].events[-1]
        assert own["id"] == turn["id"] and own["legal_moves"], own
        resp = humans[turn["seat"]].move({**own["legal_moves"][0], "expected_version": own["version"]})
        assert resp.status_code == 200, resp.get_json()
    raise AssertionError("the game did not end")


def check_games(games: list[tuple[dict[int, Player], dict[int | None, Follower]]]) -> dict[str, set[str]]:
    """Every event each follower saw, and each seat's history, is as documented; the members seen per type."""
    seen: dict[str, set[str]] = defaultdict(set)
    for _, followers in games:
        for seat, follower in followers.items():
            ended = [e["type"] for e in follower.events if e["type"] != "rematch_created"]  # a link after the end
            assert ended[-1] == "game_ended"
            for event in follower.events:
                check(event, seen)
            resp = follower.player.history()
            assert resp.status_code == 200
            history = resp.get_json()
            HISTORY.validate(history)
            assert len(history["events"]) == sum(e["type"] != "turn_started" for e in follower.events)
            for event in history["events"]:
                check(event, seen)
        # Through the long poll, a private member reaches only its seat (the spectator: none).
        for seat, follower in followers.items():
            for event in follower.events:
                member, owner = PRIVATE.get(event["type"], (None, None))
                assert member not in event or event[owner] == seat, (seat, event)
    return seen


@pytest.mark.slow
def test_real_games_send_exactly_the_documented_events(client, create_game, run_bots, service):  # type: ignore[no-untyped-def]
    games: list[tuple[dict[int, Player], dict[int | None, Follower]]] = []

    # A 2-player draw game with hints: seat 1 open, claimed; both human, on a Fischer clock that never runs out;
    # the first seat to move asks for a hint (`hint_used`).
    _, humans, spectator = create_game(
        [{"name": "Ana"}, {"open": True}], seed="events-draw", clock={"initial_s": 3600, "increment_s": 0}, hints=True
    )
    claimed = client.post(f"/v1/games/{spectator.game_id}/seats/1", json={"name": "Bo"})
    assert claimed.status_code == 201, claimed.get_json()
    humans[1] = Player(client, spectator.game_id, claimed.get_json()["token"])
    games.append((humans, follow(humans, spectator)))
    mover = humans[spectator.view().get_json()["turn"]]
    assert ask_hint(service, client, mover.game_id, mover.headers).status_code == 200
    play_to_the_end(run_bots, humans, games[-1][1])

    # A 4-player All Fives team game and a 4-player Mexican Train game (its engine found by search draws).
    for variant, rules, seed in (
        ("all_fives", {"teams": "partners_opposite"}, "events-fives"),
        ("mexican_train", {"rounds": 2}, "events-mt-3"),
    ):
        seats = [{"name": "Ana"}] + [{"bot": "greedy"}] * 3
        _, humans, spectator = create_game(seats, variant=variant, rules=rules, seed=seed)
        games.append((humans, follow(humans, spectator)))
        play_to_the_end(run_bots, humans, games[-1][1])

    # Seat 0's time runs out (the server moves for it: `auto`), then it resigns; the game carries metadata.
    _, humans, spectator = create_game(
        [{"name": "Ana"}, {"bot": "greedy"}], seed="events-resign", turn_timeout_s=0.05, metadata={"table": "t-17"}
    )
    followers = follow(humans, spectator)
    games.append((humans, followers))

    def moved_for_seat_0() -> bool:
        run_bots()
        poll_all(followers)
        if any(e.get("auto") for e in followers[None].events):
            return True
        sweep_mod.sweep_once(service)
        return False

    eventually(moved_for_seat_0, "seat 0's time ran out and the server moved for it", 60, 0.05)
    resp = client.post(f"/v1/games/{spectator.game_id}/resign", headers=humans[0].headers)
    assert resp.status_code == 200, resp.get_json()
    # The table plays again (the computer player accepts at once): `rematch_created` on the finished game.
    assert client.post(f"/v1/games/{spectator.game_id}/rematch", headers=humans[0].headers).status_code == 201
    assert poll_all(followers)

    seen = check_games(games)

    # Every type occurred, and every member a type documents was seen (the common optional ones, somewhere).
    assert set(seen) == set(NAMES)
    common = set.intersection(*map(properties, NAMES))
    for event_type, members in seen.items():
        assert properties(event_type) - common <= members, (event_type, properties(event_type) - common - members)
    assert common <= set.union(*seen.values())
