"""End to end in headless Chromium: play a whole game by clicking, and watch a game as a spectator."""

from __future__ import annotations

import re
from typing import Any

import pytest
from support import eventually

TABLE = "[data-testid=table]"


def table_attr(page: Any, name: str) -> str | None:
    return page.get_attribute(TABLE, name)  # type: ignore[no-any-return]


def page_scores(page: Any, seats: int, testid: str = "score") -> list[int]:
    return [int(page.inner_text(f"[data-testid={testid}-{s}]")) for s in range(seats)]


def click_a_move(page: Any, moves: dict[str, int]) -> None:
    """Seat 0's move, clicked (the first tile played by keyboard): a playable tile where it fits, else draw, else pass."""
    if page.locator(".hand-tile.playable").count():
        if moves["keyboard"] == 0:
            # Keyboard: focus a tile, Enter selects it and moves focus to the first place it fits, Enter plays.
            page.focus(".hand-tile.playable >> nth=0")
            page.keyboard.press("Enter")
            page.wait_for_selector(".target:focus")
            page.keyboard.press("Enter")
            moves["keyboard"] += 1
        else:
            # No illegal click is possible: only playable tiles are enabled.
            assert page.locator(".hand-tile:not(.playable):not([disabled])").count() == 0
            page.click(".hand-tile.playable >> nth=0")
            page.click(".target >> nth=0")
        moves["tile"] += 1
    elif page.locator("[data-testid=draw]").count():
        page.click("[data-testid=draw]")
        moves["draw"] += 1
    else:
        page.click("[data-testid=pass]")
        moves["pass"] += 1


@pytest.mark.slow
def test_play_a_draw_game_against_greedy_to_the_end_by_clicking(live_server, new_page):  # type: ignore[no-untyped-def]
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play")
    page.wait_for_selector("#variant")
    p.screenshot("web-new-game")
    assert not re.search(r"\b(null|undefined|NaN)\b", page.inner_text("body"))
    page.select_option("#variant", "draw")
    page.select_option("#players", "2")
    page.fill("#name", "Ana")
    assert page.input_value("#seat-0") == "me"
    page.select_option("#seat-1", "bot:greedy")
    page.fill("#target", "20")  # a short match: rules override target_score
    page.click("#start")
    page.wait_for_selector(TABLE)
    game_id = re.search(r"#game=(\w+)", page.url).group(1)  # type: ignore[union-attr]
    token_in_url = page.evaluate("() => JSON.parse(localStorage.getItem('domino.seat.' + location.hash.slice(6))).token")
    assert token_in_url and token_in_url not in page.url

    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")
    moves = {"tile": 0, "draw": 0, "pass": 0, "keyboard": 0}
    reloaded = False
    for _ in range(600):
        page.wait_for_function(
            "() => ['your-turn', 'over'].includes(document.querySelector('[data-testid=table]')?.dataset.turnState)"
        )
        if table_attr(page, "data-turn-state") == "over":
            break
        version = table_attr(page, "data-version")
        click_a_move(page, moves)
        page.wait_for_function(
            "v => document.querySelector('[data-testid=table]')?.dataset.version !== v", arg=version
        )
        if not reloaded and moves["tile"] >= 3:
            # A reload keeps the seat: the token is in localStorage, keyed by the game id.
            page.reload()
            page.wait_for_selector(TABLE)
            assert table_attr(page, "data-seat") == "0"
            page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")
            reloaded = True
    else:
        raise AssertionError("the game did not end")

    api_view = live_server.http.get(f"/v1/games/{game_id}").json()
    assert api_view["status"] == "finished"
    page.wait_for_selector("[data-testid=game-over]")
    assert page.inner_text("[data-testid=status]").lower() == "finished"
    assert page_scores(page, 2) == api_view["scores"]
    assert page_scores(page, 2, "final-score") == api_view["scores"]
    assert max(api_view["scores"]) >= 20
    assert moves["tile"] > 3 and reloaded
    winner_names = [api_view["seats"][s]["name"] for s in api_view["winners"]]
    text = page.inner_text("[data-testid=game-over]")
    assert "You won!" in text if 0 in api_view["winners"] else winner_names[0] in text
    assert not re.search(r"\b(null|undefined|NaN)\b", page.inner_text("body"))
    p.screenshot("web-play-draw-finished")
    assert p.console_errors == []


@pytest.mark.slow
def test_watch_a_four_bot_game_as_a_spectator_until_it_ends(live_server_without_bots, new_page):  # type: ignore[no-untyped-def]
    live = live_server_without_bots
    created = live.http.post(
        "/v1/games",
        json={"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}, {"bot": "greedy"}, {"bot": "random"}]},
    )
    assert created.status_code == 201, created.text
    game_id = created.json()["game"]["id"]
    p = new_page(390, 844)  # a phone-sized screen
    page = p.page
    page.goto(f"{live.url}/play/watch?game={game_id}")
    page.wait_for_selector(TABLE)
    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")
    assert table_attr(page, "data-turn-state") == "spectating"
    assert table_attr(page, "data-version") == "0"
    assert page.locator(".hand").count() == 0  # a spectator sees no hand
    p.screenshot("web-watch-four-bots-start")

    live.start_worker()  # the computer players start moving; the page follows them over SSE
    versions = set()

    def ended() -> bool:
        versions.add(table_attr(page, "data-version"))
        return page.locator("[data-testid=game-over]").count() > 0

    eventually(ended, "the page shows the game over", 120, 0.05)
    api_view = live.http.get(f"/v1/games/{game_id}").json()
    assert api_view["status"] == "finished"
    assert len(versions) >= 2
    assert table_attr(page, "data-version") == str(api_view["version"])
    assert page_scores(page, 4) == api_view["scores"]
    assert page_scores(page, 4, "final-score") == api_view["scores"]
    assert page.locator("[data-testid=round-result]").count() == 1
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert not re.search(r"\b(null|undefined|NaN)\b", page.inner_text("body"))
    p.screenshot("web-watch-four-bots-finished")
    assert p.console_errors == []


@pytest.mark.slow
def test_open_a_seat_and_a_friend_takes_it_from_the_shared_link(live_server, new_page):  # type: ignore[no-untyped-def]
    ana = new_page()
    ana.page.goto(f"{live_server.url}/play")
    ana.page.select_option("#variant", "all_fives")
    ana.page.fill("#name", "Ana")
    ana.page.select_option("#seat-1", "open")
    ana.page.click("#start")
    ana.page.wait_for_selector("#share-link")
    assert table_attr(ana.page, "data-turn-state") == "waiting-players"
    link = ana.page.input_value("#share-link")
    game_id = link.rsplit("=", 1)[1]
    assert link == f"{live_server.url}/play#game={game_id}"
    ana.page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")

    bo = new_page(390, 844)  # another browser profile (its own localStorage), on a phone
    bo.page.goto(link)
    bo.page.wait_for_selector("[data-testid=claim-1]")
    bo.page.fill("#claim-name", "Bo")
    bo.page.click("[data-testid=claim-1]")
    bo.page.wait_for_function("() => document.querySelector('[data-testid=table]')?.dataset.seat === '1'")
    assert bo.page.inner_text("[data-testid=status]").lower() == "playing"
    # Ana's page hears of it over SSE, without a reload.
    ana.page.wait_for_function("() => document.querySelector('[data-testid=status]')?.dataset.status === 'playing'")
    assert "Bo" in ana.page.inner_text("[data-testid=seats]")
    view = live_server.http.get(f"/v1/games/{game_id}").json()
    assert view["status"] == "playing" and [s["name"] for s in view["seats"]] == ["Ana", "Bo"]
    # Whoever opens plays a tile; the other's page shows it.
    opener, other = (ana, bo) if view["turn"] == 0 else (bo, ana)
    opener.page.wait_for_function("() => document.querySelector('[data-testid=table]')?.dataset.turnState === 'your-turn'")
    opener.page.click(".hand-tile.playable >> nth=0")
    opener.page.click(".target >> nth=0")
    other.page.wait_for_function("() => document.querySelectorAll('[data-testid=line] .tile').length === 1")
    ana.screenshot("web-open-seat-ana")
    bo.screenshot("web-open-seat-bo-phone")
    assert ana.console_errors == [] and bo.console_errors == []


@pytest.mark.slow
def test_after_a_network_blip_the_stream_resumes_without_a_reload(live_server_without_bots, blip_proxy, new_page):  # type: ignore[no-untyped-def]
    live = live_server_without_bots
    created = live.http.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}]})
    game_id = created.json()["game"]["id"]
    p = new_page()
    page = p.page
    page.goto(f"{blip_proxy.url}/play/watch?game={game_id}")
    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")
    page.evaluate("() => { window.notReloaded = true; }")
    assert table_attr(page, "data-version") == "0"

    blip_proxy.cut()  # the stream drops; while the network is down, the game is played to its end
    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'reconnecting'")
    live.start_worker()
    eventually(lambda: live.http.get(f"/v1/games/{game_id}").json()["status"] == "finished", "the game finished", 60, 0.05)
    assert table_attr(page, "data-version") == "0", "nothing reached the page during the blip"
    blip_proxy.restore()

    # EventSource reconnects by itself (Last-Event-ID), and the page catches up, in the same document.
    page.wait_for_selector("[data-testid=game-over]", timeout=30_000)
    assert page.evaluate("() => window.notReloaded") is True
    final = live.http.get(f"/v1/games/{game_id}").json()
    assert table_attr(page, "data-version") == str(final["version"])
    assert page_scores(page, 2, "final-score") == final["scores"]
    # The only console messages allowed are the browser's own about the dropped connection.
    unexpected = [m for m in p.console_errors if "net::ERR_" not in m]
    assert unexpected == []


def test_api_errors_are_shown_in_words(live_server, new_page):  # type: ignore[no-untyped-def]
    p = new_page()
    p.page.goto(f"{live_server.url}/play#game=nosuchgame0000000")
    p.page.wait_for_selector("#error:not([hidden])")
    text = p.page.inner_text("#error")
    problem = live_server.http.get("/v1/games/nosuchgame0000000").json()
    assert problem["title"] in text and problem["detail"] in text
    assert "There is no such game" in p.page.inner_text("#app")
    # The browser reports the 404 itself; nothing else went wrong.
    assert [m for m in p.console_errors if "404" not in m] == []


@pytest.mark.slow
def test_a_move_answer_arriving_after_the_bots_reply_leaves_the_hand_playable(live_server, new_page):  # type: ignore[no-untyped-def]
    """The answer to our move can arrive after the stream has already shown the bot's reply (a newer view).
    The page keeps the newer view, and the tiles disabled while the move was pending must come back."""
    created = live_server.http.post(
        "/v1/games",
        json={"variant": "block", "seats": [{"name": "Ana"}, {"bot": "greedy"}], "seed": "late-answer",
              "rules": {"match_end": "fixed_rounds", "rounds": 1}},
    ).json()  # fmt: skip
    game_id = created["game"]["id"]
    token = created["tokens"][0]["token"]
    auth = {"Authorization": f"Bearer {token}"}
    p = new_page()
    page = p.page
    page.add_init_script(f"localStorage.setItem('domino.seat.{game_id}', JSON.stringify({{token: '{token}'}}))")
    page.goto(f"{live_server.url}/play#game={game_id}")
    page.wait_for_function("() => document.querySelector('#conn')?.dataset.state === 'live'")

    def hold_the_answer(route: Any) -> None:
        answer = route.fetch()  # the move lands now; its answer reaches the page only once the bot has replied
        landed = answer.json()["version"]
        eventually(lambda: live_server.http.get(f"/v1/games/{game_id}", headers=auth).json()["version"] > landed,
                   "the bot replied", 60, 0.05)  # fmt: skip
        # The stream's refresh shows the newer view first.
        eventually(lambda: int(table_attr(page, "data-version") or -1) > landed, "the page shows the bot's reply", 60, 0.05)
        route.fulfill(response=answer)

    for _ in range(3):  # a few turns, each with the answer held back
        page.wait_for_function(
            "() => ['your-turn', 'over'].includes(document.querySelector('[data-testid=table]')?.dataset.turnState)"
        )
        if table_attr(page, "data-turn-state") == "over":
            break
        tiles = page.locator(".hand-tile.playable:not([disabled])")
        if not tiles.count():
            break  # nothing to click (a pass): the race needs a tile
        page.route("**/moves", hold_the_answer)
        tiles.first.click()
        page.locator(".target").first.click()
        page.wait_for_function("() => !document.querySelector('[data-testid=table]').classList.contains('busy')")
        page.unroute("**/moves")
        state = table_attr(page, "data-turn-state")
        if state == "your-turn" and page.locator(".hand-tile.playable").count():
            page.wait_for_selector(".hand-tile.playable:not([disabled])", timeout=30_000)
    assert not p.console_errors, p.console_errors



def test_a_page_answered_late_never_draws_over_the_one_opened_since(live_server_without_bots, new_page):  # type: ignore[no-untyped-def]
    """The new-game form waits for the variants; the user opens a game meanwhile; the variants arrive
    afterwards: the game stays on screen (the late answer belongs to a page the user has left)."""
    live = live_server_without_bots
    created = live.http.post(
        "/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"name": "Bo"}], "seed": "late"}
    ).json()
    game_id = created["game"]["id"]
    p = new_page()
    page = p.page
    held: list[Any] = []

    def hold(route: Any) -> None:  # keep the variants' answer until released below
        held.append(route)

    page.route("**/v1/variants", hold)
    page.goto(f"{live.url}/play")
    page.wait_for_selector("#app .loading")
    while not held:
        page.wait_for_timeout(20)  # lets Playwright dispatch the intercepted request to hold()
    page.evaluate(f"() => {{ location.hash = 'watch={game_id}'; }}")
    page.wait_for_selector(TABLE)
    assert table_attr(page, "data-version") == "0"
    held[0].continue_()
    page.wait_for_function(
        "() => performance.getEntriesByType('resource').some((e) => e.name.endsWith('/v1/variants') && e.responseEnd > 0)"
    )
    page.wait_for_timeout(300)  # the late answer's continuation has run
    assert page.locator(TABLE).count() == 1 and page.locator("#variant").count() == 0
    assert not p.console_errors, p.console_errors


@pytest.mark.slow
def test_docs_render_under_their_policy_and_no_page_can_be_framed(live_server_without_bots, new_page):  # type: ignore[no-untyped-def]
    p = new_page()
    p.page.goto(live_server_without_bots.url + "/docs")
    p.page.wait_for_selector(".swagger-ui .info .title")
    p.page.wait_for_selector(".opblock-tag-section")
    # (the browser's own /favicon.ico request is a 404; nothing else may fail, no policy violation)
    assert [m for m in p.console_errors if "404" not in m] == [], p.console_errors
    # A page of another origin that frames /play gets nothing drawn: the browser refuses the frame.
    framer = new_page()
    framer.page.goto(live_server_without_bots.url.replace("127.0.0.1", "localhost") + "/play/nope.js")
    framer.page.set_content(f'<iframe id="f" src="{live_server_without_bots.url}/play"></iframe>')
    framer.page.wait_for_timeout(1500)
    frame = framer.page.frame_locator("#f")
    assert frame.locator("header.top").count() == 0
    assert any("frame-ancestors" in m or "Refused to display" in m for m in framer.console_errors), framer.console_errors
