"""In headless Chromium: a team game set up from the form, its end shown with the partners and why it ended;
a seat's live stream back after a network blip."""

from __future__ import annotations

from typing import Any

import pytest
from support import eventually
from test_web_play import TABLE


@pytest.mark.slow
def test_a_team_game_from_the_form_ends_showing_the_partnerships_and_why(live_server, new_page):  # type: ignore[no-untyped-def]
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play")
    page.select_option("#variant", "block")
    page.select_option("#players", "4")
    for seat in range(4):
        page.select_option(f"#seat-{seat}", "bot:greedy")
    page.check("#teams")
    page.fill("#target", "20")
    page.click("#start")
    page.wait_for_selector(TABLE)
    game_id = page.evaluate("() => location.hash").split("=", 1)[1]
    view = live_server.http.get(f"/v1/games/{game_id}").json()
    assert view["rules"]["teams"] == "partners_opposite" and view["team_scores"] is not None
    page.wait_for_selector("[data-testid=end-reason]", timeout=60_000)
    assert page.inner_text("[data-testid=end-reason]") == "The target of 20 points was reached."
    teams = page.inner_text("[data-testid=team-scores]")
    final = live_server.http.get(f"/v1/games/{game_id}").json()
    assert teams.startswith("Teams: ") and teams.count("&") == 2 and str(final["team_scores"][0]) in teams, teams
    p.screenshot("web-team-game-over")
    assert p.console_errors == []


@pytest.mark.slow
def test_a_seats_stream_is_live_again_soon_after_a_blip(live_server_without_bots, blip_proxy, new_page):  # type: ignore[no-untyped-def]
    """A seat streams with a single-use ticket: after a blip the page takes a new one (the browser's own retry
    would send the spent one), goes live on the stream again, not on the long poll, and clears the message
    about the lost connection."""
    live = live_server_without_bots
    created = live.http.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]}).json()
    token = created["tokens"][0]["token"]
    p = new_page()
    page = p.page
    page.goto(f"{blip_proxy.url}/play")
    page.evaluate(
        "([id, token]) => localStorage.setItem('domino.seat.' + id, JSON.stringify({seat: 0, token, name: 'Ana', saved: 1}))",
        [created["game"]["id"], token],
    )
    page.goto(f"{blip_proxy.url}/play#game={created['game']['id']}")
    conn: Any = "() => document.querySelector('#conn')?.dataset.state"
    page.wait_for_function(f"() => ({conn})() === 'live'")
    for _ in range(2):
        blip_proxy.cut()
        page.wait_for_function(f"() => ({conn})() === 'reconnecting'")
        refused = blip_proxy.refused
        eventually(lambda: blip_proxy.refused >= refused + 2, "a few of the page's tries failed", 60, 0.05)
        blip_proxy.restore()
        page.wait_for_function(f"() => ({conn})() === 'live'", timeout=60_000)  # a ceiling: back within seconds
    assert page.locator("#error:not([hidden])").count() == 0
    unexpected = [m for m in p.console_errors if "net::ERR_" not in m]
    assert unexpected == [], unexpected
    eventually(lambda: page.get_attribute(TABLE, "data-version") is not None, "the table shows a version", 60, 0.05)
