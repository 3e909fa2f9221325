"""The start page's "Find a game": two browsers looking for the same table sit at one game; one looking alone
can stop looking."""

from __future__ import annotations

import re

TABLE = "[data-testid=table]"


def test_two_browsers_finding_a_game_sit_at_the_same_table(live_server, new_page):  # type: ignore[no-untyped-def]
    pages = [new_page(), new_page()]
    for p, name in zip(pages, ("Ana", "Bo")):
        p.page.goto(f"{live_server.url}/play")
        p.page.wait_for_selector("#variant")
        p.page.select_option("#variant", "draw")
        p.page.select_option("#players", "2")
        p.page.fill("#name", name)
        p.page.click("#find")
        if name == "Ana":  # the first waits for the second
            p.page.wait_for_selector("[data-testid=seeking]")
    games = []
    for p in pages:
        p.page.wait_for_selector(TABLE)
        games.append(re.search(r"#game=(\w+)", p.page.url).group(1))  # type: ignore[union-attr]
    pages[0].screenshot("web-found-a-game")
    assert games[0] == games[1]
    seats = [p.page.evaluate(f"() => JSON.parse(localStorage.getItem('domino.seat.{games[0]}')).seat") for p in pages]
    assert sorted(seats) == [0, 1]
    assert all(not p.console_errors for p in pages), [p.console_errors for p in pages]


def test_looking_alone_can_be_stopped(live_server_without_bots, new_page):  # type: ignore[no-untyped-def]
    p = new_page()
    p.page.goto(f"{live_server_without_bots.url}/play")
    p.page.wait_for_selector("#variant")
    p.page.select_option("#players", "3")
    p.page.click("#find")
    p.page.wait_for_selector("[data-testid=seeking]")
    p.page.click("#stop-seeking")
    p.page.wait_for_function("() => document.querySelector('#seek-status').textContent.includes('cancelled')")
    assert not p.console_errors, p.console_errors


def test_play_again_opens_the_same_table_in_a_new_game(live_server_without_bots, new_page):  # type: ignore[no-untyped-def]
    http = live_server_without_bots.http
    created = http.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "random"}]}).json()
    game_id, token = created["game"]["id"], created["tokens"][0]["token"]
    assert http.post(f"/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {token}"}).status_code == 200
    p = new_page()
    p.page.goto(f"{live_server_without_bots.url}/play")
    p.page.evaluate(
        "([id, token]) => localStorage.setItem('domino.seat.' + id, JSON.stringify({seat: 0, token, name: 'Ana', saved: 1}))",
        [game_id, token],
    )
    p.page.goto(f"{live_server_without_bots.url}/play#game={game_id}")
    p.page.wait_for_selector("#rematch")
    p.page.click("#rematch")
    p.page.wait_for_function(f"() => location.hash.startsWith('#game=') && !location.hash.endsWith('{game_id}')")
    new_id = p.page.evaluate("() => location.hash.slice(6)")
    p.page.wait_for_selector(TABLE)
    assert http.get(f"/v1/games/{game_id}").json()["next_game_id"] == new_id
    assert not p.console_errors, p.console_errors
