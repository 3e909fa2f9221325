"""Issue 17: the OpenAPI document says exactly what the server does. One test (or more) per finding."""

from __future__ import annotations

import logging
import re
import time
from pathlib import Path

from conftest import openapi_document, schema_validator

DOC = openapi_document()
SCHEMAS = DOC["components"]["schemas"]
PATHS = DOC["paths"]
ROOT = Path(__file__).resolve().parents[2]


def _params(path: str, method: str = "get") -> dict[str, dict]:  # type: ignore[type-arg]
    return {p["name"]: p for p in PATHS[path][method].get("parameters", [])}


# 1. The events operation documents every parameter the server reads.
def test_1_events_document_after_wait_ticket_and_last_event_id() -> None:
    params = _params("/v1/games/{game_id}/events")
    assert {"after", "wait", "ticket", "Last-Event-ID"} <= set(params)
    assert params["Last-Event-ID"]["schema"]["pattern"]


# 2. The JSON long poll honours Last-Event-ID.
def test_2_the_long_poll_resumes_after_last_event_id(client, create_game) -> None:  # type: ignore[no-untyped-def]
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="resume")
    url = f"/v1/games/{data['game']['id']}/events"
    everything = client.get(url).get_json()["events"]
    assert [e["id"] for e in everything][:2] == ["0-1", "0-2"]
    resumed = client.get(url, headers={"Last-Event-ID": "0-1"}).get_json()
    assert [e["id"] for e in resumed["events"]] == [e["id"] for e in everything[1:]]
    assert client.get(url, headers={"Last-Event-ID": ""}).status_code == 422  # empty is no event id


# 3. Versions start at 0: the first call omits `after` and gets the version-0 events, the first turn too.
def test_3_the_first_call_without_after_delivers_the_first_turn(client, create_game) -> None:  # type: ignore[no-untyped-def]
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="first")
    turn = data["game"]["turn"]
    page = client.get(f"/v1/games/{data['game']['id']}/events?wait=0", headers=players[turn].headers).get_json()
    first_turn = [e for e in page["events"] if e["type"] == "turn_started"]
    assert first_turn and first_turn[0]["version"] == 0 and first_turn[0]["seat"] == turn
    assert first_turn[0]["legal_moves"]
    assert "omit `after`" in _params("/v1/games/{game_id}/events")["after"]["description"]
    readme = (ROOT / "README.md").read_text()
    assert "after=0" not in readme and "events?wait=25" in readme


# 4. GET /v1/variants matches its schema; Mexican Train's rounds default is shown as a game resolves it.
def test_4_variants_match_their_schema(client) -> None:  # type: ignore[no-untyped-def]
    body = client.get("/v1/variants").get_json()
    schema_validator("Variants").validate(body)
    assert body["options"]["rounds"]["defaults"]["mexican_train"] == 13
    game = client.post("/v1/games", json={"variant": "mexican_train", "seats": [{"name": "a"}, {"name": "b"}]}).get_json()
    assert game["game"]["rules"]["rounds"] == 13
    mexican = next(v for v in body["variants"] if v["id"] == "mexican_train")
    assert mexican["defaults"]["rounds"] == 13


# 5. Every response schema lists the members always present as `required`.
def test_5_response_schemas_list_required_members() -> None:
    # Members present only sometimes: an app's game's metadata and a seat's player; the app listing's extras.
    # A bot's members of one kind only (documented so: "built-in: ...", "registered: ...").
    sometimes = {"LobbyGame": {"round", "scores", "winners", "metadata", "turn", "deadline"}, "AppEventData": {"result", "outcome", "last_round"},
                 "History": {"arena", "archived"},  # archived: not in a record (the same wherever it is kept)
                 "ViewSeat": {"hints_used"},  # games with hints only
                 "Bot": {"strength", "owner", "variants", "delivery", "available", "missed_turns", "arenas", "created_at",
                         "max_games", "min_turn_timeout_s"}}  # fmt: skip
    for name in ("GameView", "CreatedGame", "History", "EventsPage", "Ticket", "Simulation", "SimulationPage",
                 "LobbyPage", "LobbyGame", "ClaimedSeat", "Variants", "Bot", "Problem", "ViewSeat", "Token", "App",
                 "AppEvent", "AppEventData", "BotEventsPage"):  # fmt: skip
        schema = SCHEMAS[name]
        always = set(schema["properties"]) - {"hand", "legal_moves", "webhook_secret", "deals", "seed", "salt", "deal_version",
                                              "errors", "legal_moves", "options", "current_version", "last_move",
                                              "checks", "metadata", "player"} - sometimes.get(name, set())  # fmt: skip
        assert always <= set(schema.get("required", [])), (name, always - set(schema.get("required", [])))


# 6. A typed Move wherever a move appears; Move.end documents Mexican Train's trains.
def test_6_moves_are_typed_everywhere() -> None:
    move = {"$ref": "#/components/schemas/Move"}
    assert SCHEMAS["GameView"]["properties"]["legal_moves"]["items"] == move
    assert SCHEMAS["GameView"]["properties"]["log"]["items"] == {"$ref": "#/components/schemas/LogEntry"}
    assert SCHEMAS["Problem"]["properties"]["legal_moves"]["items"] == move
    assert SCHEMAS["Problem"]["properties"]["options"]["items"] == move
    assert SCHEMAS["TurnStartedEvent"]["properties"]["legal_moves"]["items"] == move
    end = SCHEMAS["PlayMove"]["properties"]["end"]
    assert "train:<seat>" in end["description"] and "mexican" in end["description"]
    for ok in ("left", "up", "train:3", "mexican"):
        assert re.match(end["pattern"], ok)
    validator = schema_validator("Move")
    assert validator.is_valid({"type": "play", "tile": "6-4", "end": "train:2"})
    assert not validator.is_valid({"type": "draw", "tile": "6-4"})


# 7. Spectator operations: a token is optional.
def test_7_spectator_operations_have_optional_security() -> None:
    for path in ("/v1/games/{game_id}", "/v1/games/{game_id}/history", "/v1/games/{game_id}/events"):
        assert PATHS[path]["get"]["security"] == [{}, {"bearer": []}], path
    assert PATHS["/v1/games/{game_id}/moves"]["post"]["security"] == [{"bearer": []}]


# 8. One Problem shape: every 422 has `errors`, a bad rule option too.
def test_8_every_422_names_where_it_failed(client) -> None:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": "draw", "rules": {"spinner": "nope"}, "seats": [{"name": "a"}, {"name": "b"}]})
    problem = resp.get_json()
    assert resp.status_code == 422 and problem["errors"]["json"]["rules"]["spinner"], problem
    assert "option" not in problem
    schema_validator("Problem").validate(problem)


# 9. The hosted-bot delivery is in `webhooks`, `move_url` included; retries count from the failure.
def test_9_the_turn_delivery_is_documented() -> None:
    post = DOC["webhooks"]["turn"]["post"]
    assert post["requestBody"]["content"]["application/json"]["schema"] == {"$ref": "#/components/schemas/TurnDelivery"}
    assert "move_url" in SCHEMAS["TurnDelivery"]["required"]
    assert {p["name"] for p in post["parameters"]} >= {"webhook-id", "webhook-signature", "webhook-attempt"}


def test_9_a_failed_delivery_is_retried_one_backoff_step_after_the_failure(settings, create_game, caplog) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    from api.service.service import Service

    slow = Service(replace(settings, webhook_timeout=3.0, webhook_backoff="1,5"))
    data, _, _ = create_game([{"name": "mybot", "webhook": "http://127.0.0.1:9/turn"}, {"name": "Bo"}], seed="hook2")
    game_id, version = data["game"]["id"], data["game"]["version"]
    assert data["game"]["turn"] == 0, "seeded so that the hosted bot moves first"
    with caplog.at_level(logging.INFO, logger="api.service.webhooks"):
        before = time.time()
        assert slow.webhooks.deliver(game_id, version, 0).startswith("failed")
        after = time.time()  # the failure was between the two, however long the machine took
    assert "attempt 1 failed" in caplog.text and "attempt 0" not in caplog.text
    member = f"{game_id}:{version}"
    assert member in dict(slow.store.hooks_due.overdue(after + 1.0))
    assert slow.store.hooks_due.attempt(member) == 1, "the next try is the second"
    assert member not in dict(slow.store.hooks_due.overdue(before + 0.5)), "due 1 s after the failure, not timeout + 1 s"


# 10. Names and shapes.
def test_10_names_and_shapes() -> None:
    assert "games" in SCHEMAS["Simulation"]["required"] and "games_total" not in SCHEMAS["Simulation"]["properties"]
    assert SCHEMAS["History"]["properties"]["status"] == {"$ref": "#/components/schemas/GameStatus"}
    phase = SCHEMAS["TrainBoard"]["properties"]["phase"]
    assert phase["anyOf"] == [{"$ref": "#/components/schemas/TurnPhase"}, {"type": "null"}]
    assert "PaginationMetadata" not in SCHEMAS
    assert PATHS["/v1/games"]["get"]["tags"] == ["games"]


# 11. New event types: said how, and tolerated by the union.
def test_11_the_event_union_tolerates_new_types() -> None:
    union = SCHEMAS["Event"]
    assert union["anyOf"][-1] == {"$ref": "#/components/schemas/OtherEvent"}
    assert "new types" in union["description"]
    schema_validator("Event").validate({"id": "3-1", "version": 3, "type": "tile_flipped", "seat": 0})


# 12. 406, single-use tickets cut short in the access log.
def test_12_json_only_answers_406_to_xml(client) -> None:  # type: ignore[no-untyped-def]
    resp = client.get("/v1/variants", headers={"Accept": "application/xml"})
    assert resp.status_code == 406 and resp.mimetype == "application/problem+json"
    assert "406" in PATHS["/v1/variants"]["get"]["responses"]
    assert client.get("/v1/variants", headers={"Accept": "application/xml, application/json;q=0.5"}).status_code == 200


def test_12_the_access_log_keeps_only_a_tickets_first_characters() -> None:
    from workers.accesslog import redact

    line = redact("GET /v1/games/abc/events?after=3&ticket=Zk3q9V0xSECRETSECRET&wait=1 HTTP/1.1")
    assert "SECRET" not in line and "ticket=Zk3q..." in line and "after=3" in line and "wait=1" in line


# The server is as strict as the document.
def test_booleans_are_booleans_and_patterns_hold(client) -> None:  # type: ignore[no-untyped-def]
    seats = [{"name": "Ana"}, {"bot": "greedy"}]
    for body in (
        {"variant": "draw", "seats": seats, "unlisted": 0},
        {"variant": "draw", "seats": seats, "turn_timeout_s": "60"},
        {"variant": "draw", "seats": [{"name": "Ana", "open": False}, {"bot": "greedy"}]},
        {"variant": "draw", "seats": [{"name": "A\u0007na"}, {"bot": "greedy"}]},
        {"variant": "draw", "seats": [{"name": "   "}, {"bot": "greedy"}]},
        {"variant": "dominoes", "seats": seats},
    ):
        assert client.post("/v1/games", json=body).status_code == 422, body
    sim = {"variant": "draw", "strategies": ["greedy", "random"], "games": 10}
    assert client.post("/v1/simulations", json={**sim, "duplicate": 0}).status_code == 422
    name = SCHEMAS["HumanSeat"]["properties"]["name"]["pattern"]
    assert re.match(name, "Ana") and not re.match(name, "A\u0007na") and not re.match(name, "  ")


def test_an_empty_if_match_is_refused_as_documented(create_game) -> None:  # type: ignore[no-untyped-def]
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="ifmatch")
    seat = data["game"]["turn"]
    move = players[seat].view().get_json()["legal_moves"][0]
    assert players[seat].move(move, **{"If-Match": ""}).status_code == 422
    assert not re.match(PATHS["/v1/games/{game_id}/moves"]["post"]["parameters"][0]["schema"]["pattern"], "")


def test_cancel_keeps_a_simulation_and_delete_removes_it(client) -> None:  # type: ignore[no-untyped-def]
    body = {"variant": "draw", "strategies": ["greedy", "random"], "games": 10}
    sim = client.post("/v1/simulations", json=body).get_json()
    owner = {"Authorization": f"Bearer {sim['token']}"}
    assert client.post(f"/v1/simulations/{sim['id']}/cancel", headers=owner).get_json()["status"] == "cancelled"
    assert client.get(f"/v1/simulations/{sim['id']}").get_json()["status"] == "cancelled"
    assert client.delete(f"/v1/simulations/{sim['id']}", headers=owner).status_code == 204
    assert client.get(f"/v1/simulations/{sim['id']}").status_code == 404
    assert client.delete(f"/v1/simulations/{sim['id']}", headers=owner).status_code == 404


def test_links_lead_from_a_new_game_and_a_new_simulation_to_their_operations() -> None:
    links = PATHS["/v1/games"]["post"]["responses"]["201"]["links"]
    assert {link["operationId"] for link in links.values()} >= {
        "getGame", "playMove", "getGameEvents", "claimSeat", "resignGame"
    }  # fmt: skip
    assert links["PlayMove"]["parameters"]["header.Authorization"] == "Bearer {$response.body#/tokens/0/token}"
    sim_links = PATHS["/v1/simulations"]["post"]["responses"]["202"]["links"]
    assert {link["operationId"] for link in sim_links.values()} == {"getSimulation", "cancelSimulation", "deleteSimulation"}


# Issue 33: each variant's `rules` take only that variant's options, chosen by `variant` (a discriminator).
def test_rules_are_one_schema_per_variant_chosen_by_variant(client) -> None:  # type: ignore[no-untyped-def]
    options = client.get("/v1/variants").get_json()["options"]
    for body in ("CreateGame", "CreateSimulation", "CreateArena", "CreateTicket"):
        assert SCHEMAS[body]["discriminator"]["propertyName"] == "variant"
        mapping = SCHEMAS[body]["discriminator"]["mapping"]
        assert [{"$ref": ref} for ref in mapping.values()] == SCHEMAS[body]["oneOf"]
        for variant, ref in mapping.items():
            branch = SCHEMAS[ref.rsplit("/", 1)[-1]]
            assert branch["properties"]["variant"]["enum"] == [variant]
            rules = SCHEMAS[branch["properties"]["rules"]["$ref"].rsplit("/", 1)[-1]]
            assert set(rules["properties"]) == {name for name, o in options.items() if variant in o["defaults"]}
    create = schema_validator("CreateGame")
    seats = [{"name": "Ana"}, {"name": "Bo"}]
    assert create.is_valid({"variant": "mexican_train", "rules": {"double_blank_value": 0}, "seats": seats})
    assert not create.is_valid({"variant": "draw", "rules": {"double_blank_value": 0}, "seats": seats})
    assert not create.is_valid({"variant": "draw", "seats": seats * 3})  # a line game seats at most 4
    refused = client.post("/v1/games", json={"variant": "draw", "rules": {"double_blank_value": 0}, "seats": seats})
    assert refused.status_code == 422 and "double_blank_value" in refused.get_json()["detail"]
    ticket = schema_validator("CreateTicket")
    assert ticket.is_valid({"variant": "mexican_train", "players": 8})
    assert not ticket.is_valid({"variant": "draw", "players": 8})  # a line game seats at most 4
    refused = client.post("/v1/matchmaking/tickets", json={"variant": "draw", "players": 8})
    assert refused.status_code == 422 and "players" in refused.get_json()["errors"]["json"]


# Issue 33: the document has no orphans: every component schema is referenced from an operation, a webhook or
# another schema that is (a generated client would carry a type nothing uses, and a reader would look for it).
def test_every_component_schema_is_referenced() -> None:
    def refs(node: object) -> set[str]:
        if isinstance(node, dict):
            found = {node["$ref"].rsplit("/", 1)[-1]} if isinstance(node.get("$ref"), str) else set()
            return found.union(*(refs(value) for value in node.values()))
        return set().union(*(refs(value) for value in node)) if isinstance(node, list) else set()

    reached: set[str] = set()
    frontier = refs({key: value for key, value in DOC.items() if key != "components"})
    while frontier - reached:
        reached |= frontier
        frontier = set().union(*(refs(SCHEMAS[name]) for name in reached if name in SCHEMAS))
    assert set(SCHEMAS) - reached == set()


# Issue 33: an app sends its key on any call (its own rate limit), so every counted operation may answer 401 to a
# key that names no app: the document says so (an optional `appKey` by default, a 401 everywhere but /healthz).
def test_an_unknown_app_key_is_a_documented_401_everywhere(client) -> None:  # type: ignore[no-untyped-def]
    assert DOC["security"] == [{}, {"appKey": []}]
    for path, item in PATHS.items():
        for method, operation in item.items():
            if path != "/healthz" and method != "parameters":
                assert "401" in operation["responses"], (method, path)
    resp = client.get("/v1/variants", headers={"Authorization": "Bearer dsk_app_" + "x" * 43})
    assert resp.status_code == 401 and resp.get_json()["type"] == "/problems/unauthorized"
    assert client.get("/healthz", headers={"Authorization": "Bearer dsk_app_" + "x" * 43}).status_code == 200


# Issue 33: /readyz names one count per queue its workers listen on, each in its schema (`hints_workers` was not).
def test_readyz_answers_as_documented(client) -> None:  # type: ignore[no-untyped-def]
    resp = client.get("/readyz")
    assert schema_validator("Ready").is_valid(resp.get_json()), resp.get_json()


# Issue 33: credentials first: a resignation naming a `seat` with a token that is none of the game's is a 401, not
# the 422 of a seat token naming a seat.
def test_a_resignation_judges_the_token_before_its_seat(create_game) -> None:  # type: ignore[no-untyped-def]
    _, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}])
    client, url = players[0].client, f"/v1/games/{players[0].game_id}/resign"
    assert client.post(url, json={"seat": 0}, headers={"Authorization": "Bearer nope"}).status_code == 401
    assert client.post(url, json={"seat": 0}, headers=players[0].headers).status_code == 422
