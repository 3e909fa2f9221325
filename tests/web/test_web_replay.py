"""The replay page, /play/replay?game=<id>&v=<version>, in headless Chromium: a finished game stepped through by
buttons and by keys with every hand shown, the URL's version honoured and kept up to date, the analysis of the
move shown, the positions the same as the engine's at every version, and a live game replayed as a spectator
sees it (no hidden tile)."""

from __future__ import annotations

from dataclasses import replace
from typing import Any
from urllib.parse import parse_qs, urlparse

import pytest

import domino

REPLAY = "[data-testid=replay]"
CAPTION = "[data-testid=replay-caption]"
NODES = 200


@pytest.fixture
def settings(settings):  # type: ignore[no-untyped-def]
    """Small analysis budgets: a few hundred simulator moves a position."""
    return replace(settings, analysis_nodes=NODES)


def finished_bot_game(live: Any, variant: str, bots: list[str], **rules: Any) -> dict[str, Any]:
    """A game of computer players played to its end by the live server's worker (followed by the events'
    long poll): its history."""
    body = {"variant": variant, "seats": [{"bot": b} for b in bots], "rules": {"match_end": "fixed_rounds", **rules}}
    created = live.http.post("/v1/games", json=body)
    assert created.status_code == 201, created.json()
    game_id = created.json()["game"]["id"]
    after = 0
    for _ in range(200):
        page = live.http.get(f"/v1/games/{game_id}/events", params={"after": after, "wait": 10}, timeout=20).json()
        after = page["last_version"]
        if page["ended"]:
            break
    history = live.http.get(f"/v1/games/{game_id}/history").json()
    assert history["status"] == "finished", "the bots finished the game"
    return history  # type: ignore[no-any-return]


def shown(page: Any) -> dict[str, Any]:
    """The step the page shows: its version (attribute and URL), step number and caption."""
    query = parse_qs(urlparse(page.url).query)
    return {
        "version": int(page.get_attribute(REPLAY, "data-version")),
        "step": int(page.get_attribute(REPLAY, "data-step")),
        "url_v": int(query["v"][0]),
        "caption": page.inner_text(CAPTION),
    }


def wait_step(page: Any, step: int) -> dict[str, Any]:
    page.wait_for_selector(f"{REPLAY}[data-step='{step}']")
    now = shown(page)
    assert now["url_v"] == now["version"], "the URL names the version shown"
    return now


def hand_tiles(page: Any, seat: int) -> list[str]:
    return page.eval_on_selector_all(f"[data-testid=hand-{seat}] .tile", "els => els.map(e => e.getAttribute('aria-label'))")  # type: ignore[no-any-return]


def said(move: dict[str, Any]) -> str:
    """A move of a draw game as the page names it."""
    if move["type"] != "play":
        return str(move["type"])
    return f"{move['tile']} on the {move['end']}" if move.get("end") else f"{move['tile']} to open"


def assert_no_errors(p: Any) -> None:
    """No error in the console but the 404 that answers a game without an analysis (the browser logs it)."""
    assert set(p.console_errors) <= {"Failed to load resource: the server responded with a status of 404 (NOT FOUND)"}, p.console_errors


def canonical(tile: str) -> str:
    a, b = (int(x) for x in tile.split("-"))
    return f"{max(a, b)}-{min(a, b)}"


def test_a_finished_game_replayed_by_buttons_and_by_keys(live_server, new_page):  # type: ignore[no-untyped-def]
    history = finished_bot_game(live_server, "draw", ["greedy", "random"], rounds=2)
    game_id = history["id"]
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play/replay?game={game_id}")
    page.wait_for_selector(CAPTION)
    last = shown(page)
    assert last["version"] == history["version"] and "Game over" in last["caption"], "no v: the game's end"
    assert page.get_attribute(REPLAY, "data-live") is None
    assert page.is_disabled("[data-testid=replay-forward]") and page.is_disabled("[data-testid=replay-last]")

    page.keyboard.press("Home")
    first = wait_step(page, 0)
    assert first["version"] == 0 and first["caption"] == "Round 1 dealt."
    assert page.is_disabled("[data-testid=replay-back]")
    deal = history["deals"][0]["hands"]
    for seat in (0, 1):
        assert sorted(hand_tiles(page, seat)) == sorted(deal[seat]), "every hand of a finished game is shown"

    page.click("[data-testid=replay-forward]")
    one = wait_step(page, 1)
    opening = next(e for e in history["events"] if e["type"] == "tile_played")
    assert one["version"] == opening["version"] and f"played {opening['tile']}" in one["caption"]
    board = page.eval_on_selector_all("[data-testid=board] .tile", "els => els.map(e => e.getAttribute('aria-label'))")
    assert [canonical(t) for t in board] == [opening["tile"]]
    assert opening["tile"] not in hand_tiles(page, opening["seat"]), "the tile left its hand"

    page.keyboard.press("ArrowRight")
    assert wait_step(page, 2)["version"] > one["version"]
    page.keyboard.press("ArrowLeft")
    assert wait_step(page, 1) == one
    page.click("[data-testid=replay-last]")
    assert wait_step(page, last["step"]) == last
    page.click("[data-testid=replay-first]")
    wait_step(page, 0)

    # The round's boundary: its end (the hands left, its result), then the next deal, at one version.
    ended = next(e for e in history["events"] if e["type"] == "round_ended")
    page.goto(f"{live_server.url}/play/replay?game={game_id}&v={ended['version']}")
    page.wait_for_selector("[data-testid=round-result]")
    at_end = shown(page)
    assert at_end["version"] == ended["version"] and "Round 1:" in at_end["caption"]
    assert page.inner_text("[data-testid=round-scores]").count("+") == 2
    page.keyboard.press("ArrowRight")
    dealt = wait_step(page, at_end["step"] + 1)
    assert dealt["version"] == ended["version"] and dealt["caption"] == "Round 2 dealt."
    assert sorted(hand_tiles(page, 0)) == sorted(history["deals"][1]["hands"][0])
    assert page.locator("[data-testid=moves-list] h3").all_inner_texts() == ["Round 1", "Round 2"]
    assert page.get_attribute(CAPTION, "aria-live") == "polite", "each step is announced"
    p.screenshot("web-replay-finished")

    page.goto(f"{live_server.url}/play#watch={game_id}")  # the finished game's table links to its replay
    page.click("[data-testid=replay-link]")
    assert wait_step(page, 0)["version"] == 0
    assert_no_errors(p)


def test_the_urls_version_opens_there_with_the_analysis_of_its_move(live_server, new_page, run_analyses):  # type: ignore[no-untyped-def]
    history = finished_bot_game(live_server, "draw", ["greedy", "random"], rounds=1)
    game_id = history["id"]
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play/replay?game={game_id}&v=1")
    page.wait_for_selector("[data-testid=analyse]")
    assert shown(page)["version"] == 1
    page.click("[data-testid=analyse]")  # POST .../analysis: queued, the page follows it
    page.wait_for_selector("[data-testid=analysis-status]")
    assert run_analyses()
    analysis = live_server.http.get(f"/v1/games/{game_id}/analysis").json()
    assert analysis["status"] == "done" and analysis["moves"]
    move = max(analysis["moves"], key=lambda m: m["loss"])
    page.goto(f"{live_server.url}/play/replay?game={game_id}&v={move['version']}")
    page.wait_for_selector("[data-testid=analysis-loss]")
    assert shown(page)["version"] == move["version"]
    assert page.inner_text("[data-testid=analysis-played]").endswith(said(move["played"]))
    assert page.inner_text("[data-testid=analysis-best]") == said(move["best"])
    loss = page.inner_text("[data-testid=analysis-loss]")
    assert loss.startswith(f"{move['loss']:.2f}") if move["loss"] > 0 else loss.startswith("0")
    assert page.locator(".analysis tbody tr").count() == len(move["values"])
    losses = page.locator("[data-testid=step-loss]").all_inner_texts()
    assert len(losses) == sum(1 for m in analysis["moves"] if m["loss"] > 0.5), "the list of moves marks each inaccurate one"
    if move["loss"] > 0.5:
        assert f"loss {move['loss']:.2f}" in page.inner_text(".step-link[aria-current=step]")
    page.keyboard.press("Home")
    wait_step(page, 0)
    assert page.inner_text("[data-testid=analysis-move]") == "No choice to weigh at this step."
    p.screenshot("web-replay-analysis")
    assert_no_errors(p)


def engine_positions(history: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The engine's position after every commit of a finished game (replayed from its seed): the spectator's
    view and every hand, by version."""
    state = domino.new_game(domino.Rules.from_dict(history["rules"]), seed=history["seed"], deal_version=history["deal_version"])

    def seen(s: domino.State) -> dict[str, Any]:
        v = domino.view(s).to_dict()
        return {"board": v["board"], "scores": v["scores"], "counts": v["hand_counts"], "boneyard": v["boneyard_count"],
                "hands": [[str(t) for t in hand] for hand in s.hands]}  # fmt: skip

    out = {0: seen(state)}
    firsts: dict[int, dict[str, Any]] = {}
    for e in history["events"]:
        firsts.setdefault(e["version"], e)
    kinds = {"tile_played": "play", "tile_drawn": "draw", "passed": "pass"}
    for version, e in firsts.items():
        if e["type"] in kinds:
            move = domino.parse_move({"type": kinds[e["type"]], "tile": e.get("tile"), "end": e.get("end")})
            state = domino.step(state, move, seat=e["seat"])[0]
            out[version] = seen(state)
    return out


@pytest.mark.parametrize(
    ("variant", "bots", "rules"),
    [
        ("draw", ["greedy", "random"], {"rounds": 2}),
        ("all_fives", ["greedy"] * 4, {"rounds": 2, "teams": "partners_opposite"}),
        ("mexican_train", ["greedy"] * 3, {"rounds": 1}),
    ],
)
def test_every_position_is_the_engines(live_server, new_page, variant, bots, rules):  # type: ignore[no-untyped-def]
    """The page's positions (replay-state.js, from the history alone) against the engine's, at every version."""
    history = finished_bot_game(live_server, variant, bots, **rules)
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play/replay?game={history['id']}")
    page.wait_for_selector(CAPTION)
    steps = page.evaluate(
        """async (history) => {
          const { replaySteps } = await import('/play/replay-state.js');
          const last = new Map();
          for (const s of replaySteps(history)) last.set(s.version, s);  // the last step of a version: after it
          return [...last.values()].map((s) => ({ version: s.version, board: s.board, scores: s.scores,
            counts: s.seats.map((x) => x.hand_count), boneyard: s.boneyard_count, hands: s.hands }));
        }""",
        history,
    )
    expected = engine_positions(history)
    assert [s["version"] for s in steps] == sorted(expected)
    ignored = ("active_double", "first_turn_pending", "phase")  # the turn's state: not a replay's
    for step in steps:
        want = expected[step["version"]]
        for board in (step["board"], want["board"]):
            for key in ignored:
                board.pop(key, None)
        if step["version"] == history["version"]:
            want["hands"] = step["hands"]  # the engine's final state holds the hands left; so does the page
        assert step == {"version": step["version"], **want}, f"version {step['version']}"


def ana_moves(live: Any, game_id: str, ana: dict[str, str], times: int) -> dict[str, Any]:
    """Seat 0 (Ana) makes its first legal move `times` times, the bot answering in between (followed by the
    events' long poll); Ana's view after her last move."""
    view = live.http.get(f"/v1/games/{game_id}", headers=ana).json()
    for _ in range(10 * times):
        if not times:
            break
        if view["turn"] != 0:
            live.http.get(f"/v1/games/{game_id}/events", params={"after": view["version"], "wait": 10}, timeout=20)
            view = live.http.get(f"/v1/games/{game_id}", headers=ana).json()
            continue
        moved = live.http.post(f"/v1/games/{game_id}/moves", headers=ana, json=view["legal_moves"][0])
        assert moved.status_code == 200, moved.json()
        view, times = moved.json(), times - 1
    assert not times, "Ana moved"
    return view  # type: ignore[no-any-return]


def test_a_live_games_replay_shows_no_hidden_tile(live_server, new_page):  # type: ignore[no-untyped-def]
    created = live_server.http.post("/v1/games", json={"variant": "draw", "seats": [{"name": "Ana"}, {"bot": "greedy"}]}).json()
    game_id = created["game"]["id"]
    ana = {"Authorization": f"Bearer {created['tokens'][0]['token']}"}
    view = ana_moves(live_server, game_id, ana, 2)
    spectator = live_server.http.get(f"/v1/games/{game_id}").json()
    assert spectator["status"] == "playing"
    p = new_page()
    page = p.page
    page.goto(f"{live_server.url}/play/replay?game={game_id}")
    page.wait_for_selector(CAPTION)
    assert page.get_attribute(REPLAY, "data-live") == "true"
    assert "still being played" in page.inner_text("[data-testid=replay-status]")
    version = shown(page)["version"]
    assert version >= spectator["version"], "everything played so far (the bot may have answered since)"
    for step in range(shown(page)["step"], -1, -1):  # back through everything played so far
        wait_step(page, step)
        for seat in (0, 1):
            assert page.get_attribute(f"[data-testid=hand-{seat}]", "data-hidden") == "true"
            assert hand_tiles(page, seat) == [], "no tile of a hand is drawn"
        page.keyboard.press("ArrowLeft")
    html = page.content()
    for tile in view["hand"]:  # never on the table: in Ana's hand all along
        assert f'aria-label="{tile}"' not in html, f"Ana's {tile} is nowhere in the page"
    assert "greedy" in page.inner_text("[data-testid=seats]")

    # The page follows the game: a new move adds its step; a page on an earlier step stays there.
    count = int(page.get_attribute(REPLAY, "data-steps"))
    view = ana_moves(live_server, game_id, ana, 1)
    page.wait_for_function(f"() => Number(document.querySelector('{REPLAY}').dataset.steps) > {count}")
    assert shown(page)["step"] == 0
    page.keyboard.press("End")
    page.wait_for_function(f"() => Number(document.querySelector('{REPLAY}').dataset.version) >= {view['version']}")
    assert page.get_attribute("[data-testid=hand-0]", "data-hidden") == "true"
    p.screenshot("web-replay-live")

    # The game ends (Ana resigns): the page becomes the finished game's, every hand shown.
    assert live_server.http.post(f"/v1/games/{game_id}/resign", headers=ana).status_code == 200
    page.wait_for_selector(f"{REPLAY}:not([data-live])")
    page.keyboard.press("End")
    assert "resigned" in page.inner_text(CAPTION)
    assert sorted(hand_tiles(page, 0)) == sorted(view["hand"]), "Ana's hand, revealed with the game's end"
    assert_no_errors(p)
