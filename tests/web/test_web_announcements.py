"""In headless Chromium: the polite live region announces each move and whose turn it is, and a move redraws
only what it changed (the tiles already on the table and in the hand stay the same DOM nodes)."""

from __future__ import annotations

import re

import pytest
from test_web_play import TABLE

LINES = "() => window.heard"
# Every line the live region is given (it keeps only its last few), recorded as it is added.
LISTEN = """document.addEventListener('DOMContentLoaded', () => {
  window.heard = [];
  new MutationObserver((records) => records.forEach((r) => r.addedNodes.forEach((n) => window.heard.push(n.textContent))))
    .observe(document.getElementById('announcer'), { childList: true });
});"""
MOVE = re.compile(r"^(You|greedy) (played \d+-\d+( on the (left|right))?|drew a tile|passed)$")


@pytest.mark.slow
def test_moves_and_turns_are_announced_and_unchanged_tiles_are_kept(live_server, new_page):  # type: ignore[no-untyped-def]
    created = live_server.http.post(
        "/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}], "seed": "announce"}
    ).json()
    game_id, token = created["game"]["id"], created["tokens"][0]["token"]
    p = new_page()
    page = p.page
    page.add_init_script(f"localStorage.setItem('domino.seat.{game_id}', JSON.stringify({{seat: 0, token: '{token}'}}))")
    page.add_init_script(LISTEN)
    page.goto(f"{live_server.url}/play#game={game_id}")
    assert page.get_attribute("#announcer", "aria-live") == "polite"
    # Whoever opens, it is soon our turn (greedy's opening tile is announced first if it opened).
    page.wait_for_function(f"() => ({LINES})().at(-1) === 'Your turn'")
    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")
    assert page.get_attribute(TABLE, "data-turn-state") == "your-turn"

    said: list[str] = []
    for _ in range(30):  # until one of our tiles and one of greedy's moves have been said
        heard = len(page.evaluate(LINES))
        page.evaluate("() => document.querySelectorAll('[data-testid=line] .tile, .hand-tile').forEach((el) => { el.dataset.kept = '1'; })")
        hand_before = page.evaluate("() => [...document.querySelectorAll('.hand-tile')].map((el) => el.dataset.tile)")
        on_table = page.locator("[data-testid=line] .tile").count()
        if page.locator(".hand-tile.playable").count():
            tile = page.get_attribute(".hand-tile.playable >> nth=0", "data-tile")
            page.click(".hand-tile.playable >> nth=0")
            page.click(".target >> nth=0")
            ours = re.compile(rf"^You played {tile}( on the (left|right))?$")
        else:
            testid = "draw" if page.locator("[data-testid=draw]").count() else "pass"
            page.click(f"[data-testid={testid}]")
            ours = re.compile(r"^You drew a tile$" if testid == "draw" else r"^You passed$")
        page.wait_for_function(
            f"n => {{ const said = ({LINES})(); return (said.length >= n + 2 && said.at(-1) === 'Your turn')"
            " || document.querySelector('[data-testid=table]').dataset.turnState === 'over'; }",
            arg=heard,
        )
        if page.get_attribute(TABLE, "data-turn-state") == "over":
            break
        new = page.evaluate(LINES)[heard:]
        assert ours.match(new[0]) and new[-1] == "Your turn", new
        assert all(MOVE.match(line) or line == "greedy's turn" for line in new[1:-1]), new
        said += new
        # Only what changed was drawn again: the tiles still in the hand and those already on the table are
        # the nodes they were before the move.
        hand = page.evaluate("() => [...document.querySelectorAll('.hand-tile')].map((el) => [el.dataset.tile, el.dataset.kept || ''])")
        assert [t for t, mark in hand if mark] == [t for t, _ in hand if t in hand_before], hand
        assert page.locator("[data-testid=line] .tile[data-kept]").count() == on_table
        if any(line.startswith("You played") for line in said) and any(line.startswith("greedy ") for line in said):
            break
    else:
        raise AssertionError(f"no tile played and answered: {said}")
    assert p.console_errors == []
