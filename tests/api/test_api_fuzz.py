"""Property-based fuzzing of the whole API from its own OpenAPI document (schemathesis, in process).

Every operation gets generated requests, valid and invalid (schemathesis' positive and negative modes),
half of them aimed at a real game (with a seat token of it, or of another game). Each answer must not be a
5xx, must have a documented status and content type, and its body must match the documented schema. The
long-poll wait is capped at 50 ms here so that waiting requests stay cheap; rate limits are off.
"""

from __future__ import annotations

import copy

import os
from dataclasses import replace

import pytest
import schemathesis
from hypothesis import HealthCheck
from hypothesis import settings as hypothesis_settings
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_schema_conformance,
    status_code_conformance,
)

from api.app import create_app
from api.config import Settings
from api.service.create import GameRequest

# Generated cases per operation (besides schemathesis's explicit and coverage cases): 65 over the document's 54
# operations send ~11,700 requests, 140 s of CPU; 220 (the size when there were 16) sent ~19,600, 240 s. The
# contract fuzz sends 100 per operation besides, in every phase.
EXAMPLES = int(os.environ.get("DOMINO_FUZZ_EXAMPLES", "65"))
pytestmark = pytest.mark.slow  # about a minute
CHECKS = [not_a_server_error, status_code_conformance, content_type_conformance, response_schema_conformance]
REQUESTS: list[tuple[str, int]] = []


@pytest.fixture
def fuzz_app(settings):  # type: ignore[no-untyped-def]
    # One client sends every case: its limits are off.
    s = replace(settings, rate_limit="", games_per_client=0, simulations_per_client=0, max_wait=0.05, keepalive_interval=0.05)
    return create_app({"DOMINO": s, "TESTING": True})


# The document the app serves (create_app connects to nothing); each case is sent to the test's own app.
# (schemathesis.pytest.from_fixture would load it per test, but it does not work with pytest 9.) A copy: the
# examples' dicts are the resource modules' own, which the hooks edit in place as cases (a new bot name, a
# seat), and every app of this process would then serve the edited document.
schema = schemathesis.openapi.from_dict(copy.deepcopy(create_app({"DOMINO": Settings()}).extensions["domino.api"].spec.to_dict()))


@pytest.fixture
def real_games(fuzz_app):  # type: ignore[no-untyped-def]
    """A few real games to aim at: (game id, a seat token of it), created once per operation."""
    service = fuzz_app.extensions["domino.service"]
    games = []
    for seats in (
        [{"name": "Ana"}, {"name": "Bo"}],
        [{"name": "Ana"}, {"open": True}],
        [{"name": "Ana"}, {"bot": "greedy"}, {"bot": "random"}],
        [{"name": "Ana"}, {"open": True}, {"open": True}],
    ):
        _view, tokens, _version, game_id = service.create_game(GameRequest("draw", seats), "127.0.0.1")
        games.append((game_id, tokens[0]["token"]))
    return games


@schema.parametrize()
@hypothesis_settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_no_5xx_and_every_answer_matches_the_document(case, fuzz_app, real_games):  # type: ignore[no-untyped-def]
    salt = sum(map(ord, repr(case.body)[:64] + repr(case.query)))
    if "game_id" in (case.path_parameters or {}) and salt % 2 == 0:
        game_id, token = real_games[salt % len(real_games)]
        case.path_parameters["game_id"] = game_id
        if salt % 3:
            other = real_games[(salt + 1) % len(real_games)][1]  # sometimes another game's token
            case.headers = {**(case.headers or {}), "Authorization": f"Bearer {token if salt % 3 == 1 else other}"}
    if case.path.endswith("/events"):
        case.headers = {**(case.headers or {}), "Accept": "application/json"}  # no endless SSE here
    if case.path == "/readyz":  # a documented 503 while Redis refuses reads or writes, not a bug
        response = case.call_and_validate(app=fuzz_app, checks=CHECKS[1:])
        assert response.status_code < 500 or response.status_code == 503
    else:
        response = case.call_and_validate(app=fuzz_app, checks=CHECKS)
    REQUESTS.append((case.operation.label, response.status_code))


def test_the_fuzzer_sent_thousands_of_requests():
    """Runs after the fuzzing above (file order): at least a few thousand requests, every operation hit."""
    if not REQUESTS:
        pytest.skip("the fuzz test did not run in this session (selected alone)")
    operations = {label for label, _ in REQUESTS}
    print(f"\nfuzz: {len(REQUESTS)} requests over {len(operations)} operations")
    assert len(operations) >= 16
    if EXAMPLES >= 60:
        assert len(REQUESTS) >= 2000
