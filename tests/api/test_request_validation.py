"""One request validation for games and simulations: the same mistake gets the same 422 body on both."""

from __future__ import annotations

import pytest


def _problem(resp):  # type: ignore[no-untyped-def]
    assert resp.status_code == 422, resp.get_json()
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    body.pop("instance")  # the path and the request id differ, by design
    return body


@pytest.mark.parametrize(
    "rules, variant",
    [
        ({"hand_size": 99}, "draw"),
        ({"target_score": -5}, "draw"),
        ({"no_such_option": 1}, "draw"),
        ({"preset_name": "block"}, "draw"),  # the variant is named once, by `variant`
        ({"hand_size": {"02": 5}}, "draw"),  # a player count is written as a number is: 2, not 02
        ({"hand_size": {"2": 7, "02": 5}}, "draw"),  # else one of the two would silently win
        ({"draw_policy": "sometimes"}, "block"),
        ({}, "chess"),
    ],
)
def test_a_bad_rule_or_variant_gets_the_same_422_on_both_create_endpoints(client, stored_keys, rules, variant):
    before = stored_keys()
    game = client.post("/v1/games", json={"variant": variant, "rules": rules, "seats": [{"name": "Ana"}, {"bot": "greedy"}]})
    sim = client.post("/v1/simulations", json={"variant": variant, "rules": rules, "strategies": ["greedy", "random"], "games": 10})
    assert _problem(game) == _problem(sim)
    assert stored_keys() == before


def test_a_bad_rule_option_names_the_option_and_where_it_is(client):
    body = _problem(client.post("/v1/games", json={"variant": "draw", "rules": {"hand_size": 99}, "seats": [{"name": "A"}, {"name": "B"}]}))
    assert body["type"] == "/problems/invalid-request"
    assert "option" not in body, "one problem shape: the option is named under `errors`"
    assert list(body["errors"]["json"]["rules"]) == ["hand_size"]
