"""Rated games: who may play one, the ratings their end updates once (however often or concurrently the job
runs), team and three-player games, and the leaderboard."""

from __future__ import annotations

import threading

import pytest
from openskill.models import PlackettLuce

from api.queues import BOT_GAMES, Queues
from api.store.ratings import CHANGED, RatingWrite
from support import work_burst
from workers import jobs

FAST = {"target_score": 30}


def _rated(client, seats: list[dict], variant: str = "draw", **body: object) -> str:  # type: ignore[no-untyped-def]
    resp = client.post("/v1/games", json={"variant": variant, "seats": seats, "rated": True, "rules": FAST, **body})
    assert resp.status_code == 201, resp.get_json()
    assert resp.get_json()["game"]["rated"] is True
    return str(resp.get_json()["game"]["id"])


def _play_turns_only(service) -> None:  # type: ignore[no-untyped-def]
    """Play the bot-only games' turns to the end (their own queue), leaving the rating jobs queued."""
    work_burst(service, (BOT_GAMES,))


def _board(client, variant: str = "draw") -> dict[str, dict]:  # type: ignore[no-untyped-def]
    resp = client.get(f"/v1/ratings/{variant}")
    assert resp.status_code == 200, resp.get_json()
    return {r["name"]: r for r in resp.get_json()["ratings"]}


def _final(client, game_id: str) -> dict:  # type: ignore[no-untyped-def]
    view = client.get(f"/v1/games/{game_id}").get_json()
    assert view["status"] == "finished", view["status"]
    return view  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "body, where",
    [
        ({"seed": "mine"}, "seed"),
        ({"seats": [{"name": "Ana"}, {"bot": "greedy"}]}, "seats"),
        ({"seats": [{"bot": "greedy"}, {"open": True}]}, "seats"),
        ({"seats": [{"bot": "greedy"}, {"bot": "greedy"}]}, "seats"),
    ],
    ids=["client-seed", "anonymous-human", "open-seat", "same-bot-twice"],
)
def test_a_rated_game_refuses_a_client_seed_and_seats_that_cannot_be_rated(client, body, where):
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "greedy"}, {"bot": "random"}], "rated": True, **body})
    assert resp.status_code == 422, resp.get_json()
    problem = resp.get_json()
    assert problem["type"] == "/problems/invalid-request"
    assert where in problem["errors"]["json"], problem
    if where == "seed":
        assert "seed" in problem["detail"]


def test_an_unrated_game_says_so_and_changes_no_rating(client, create_game, run_bots):
    data, _, spectator = create_game([{"bot": "greedy"}, {"bot": "random"}], rules=FAST)
    assert data["game"]["rated"] is False
    run_bots()
    assert spectator.view().get_json()["status"] == "finished"
    assert _board(client) == {}


def test_a_rated_game_updates_both_ratings_once_however_often_its_end_is_processed(client, service, run_bots):
    game_id = _rated(client, [{"bot": "greedy"}, {"bot": "random"}])
    _play_turns_only(service)
    view = _final(client, game_id)
    assert service.store.ratings_due.size() == 1 and len(Queues(service.store).bots) == 1  # marked, then enqueued

    # The job four times at once, then twice in a row, then the queued one by a real worker.
    outcomes: list[str] = []
    threads = [threading.Thread(target=lambda: outcomes.append(jobs.rate_game(game_id))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["already rated"] * 3 + ["rated"]
    assert jobs.rate_game(game_id) == jobs.rate_game(game_id) == "already rated"
    run_bots()
    assert service.store.ratings_due.size() == 0

    board = _board(client)
    assert set(board) == {"greedy", "random"}
    winner = view["seats"][view["winners"][0]]["name"]
    loser = ({"greedy", "random"} - {winner}).pop()
    model = PlackettLuce()
    [won], [lost] = model.rate([[model.rating()], [model.rating()]], ranks=[0, 1])
    assert board[winner]["games"] == board[loser]["games"] == 1
    assert board[winner]["mu"] == pytest.approx(won.mu) and board[loser]["mu"] == pytest.approx(lost.mu)
    assert board[winner]["sigma"] == pytest.approx(won.sigma)
    assert board[winner]["ordinal"] == pytest.approx(won.mu - 3 * won.sigma)


def test_concurrent_jobs_of_the_first_games_count_each_game_once(client, service):
    games = [_rated(client, [{"bot": "greedy"}, {"bot": "random"}]) for _ in range(3)]
    _play_turns_only(service)
    threads = [threading.Thread(target=jobs.rate_game, args=(g,)) for g in games for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    board = _board(client)
    assert board["greedy"]["games"] == board["random"]["games"] == 3  # no game lost, none counted twice


def test_a_write_over_a_rating_that_changed_since_it_was_read_is_refused(service):
    ratings = service.store.ratings
    write = RatingWrite("builtin:greedy", "bots", None, '{"mu": 1}', 1.0)
    assert ratings.write_once("draw", "aaaaaaaaaaaaaaaa", [write]) == 1
    stale = RatingWrite("builtin:greedy", "bots", None, '{"mu": 2}', 2.0)  # read before the first write
    assert ratings.write_once("draw", "bbbbbbbbbbbbbbbb", [stale]) == CHANGED
    assert ratings.read("draw", ["builtin:greedy"]) == ['{"mu": 1}']
    assert not ratings.rated("bbbbbbbbbbbbbbbb"), "nothing of a refused write lands, the game's mark neither"


def test_a_team_game_rates_partners_together(client, service, run_bots):
    seats = [{"bot": "greedy"}, {"bot": "random"}, {"bot": "club", "think_ms": 1}, {"bot": "expert", "think_ms": 1}]
    game_id = _rated(client, seats, rules={**FAST, "teams": "partners_opposite"})
    run_bots()
    view = _final(client, game_id)
    board = _board(client)
    assert {r["games"] for r in board.values()} == {1} and len(board) == 4
    winners = {view["seats"][s]["name"] for s in view["winners"]}
    assert len(winners) == 2
    for name, rating in board.items():
        assert (rating["mu"] > 25) == (name in winners), (name, rating, winners)
    # Partners start equal and move by the same amount.
    won = sorted(board[n]["mu"] for n in winners)
    assert won[0] == pytest.approx(won[1])


def test_a_three_player_game_ranks_by_result_then_score(client, run_bots):
    game_id = _rated(client, [{"bot": "greedy"}, {"bot": "random"}, {"bot": "club", "think_ms": 1}])
    run_bots()
    view = _final(client, game_id)
    board = _board(client)
    assert {r["games"] for r in board.values()} == {1} and len(board) == 3
    winner = view["seats"][view["winners"][0]]["name"]
    by_mu = sorted(board, key=lambda n: -board[n]["mu"])
    assert by_mu[0] == winner
    scores = {view["seats"][s]["name"]: view["scores"][s] for s in range(3)}
    assert scores[by_mu[1]] >= scores[by_mu[2]]


def test_the_leaderboard_lists_bots_best_first_with_their_fields(client, service, run_bots):
    for _ in range(3):
        _rated(client, [{"bot": "greedy"}, {"bot": "random"}])
    run_bots()
    resp = client.get("/v1/ratings/draw")
    assert resp.status_code == 200
    ratings = resp.get_json()["ratings"]
    assert [set(r) for r in ratings] == [{"name", "kind", "mu", "sigma", "ordinal", "games", "last_game_at"}] * 2
    assert [r["ordinal"] for r in ratings] == sorted((r["ordinal"] for r in ratings), reverse=True)
    assert {r["kind"] for r in ratings} == {"builtin"} and {r["games"] for r in ratings} == {3}
    assert all(r["last_game_at"] > 1.7e9 for r in ratings)
    assert resp.get_json()["next"] is None and "Link" not in resp.headers
    first = client.get("/v1/ratings/draw?limit=1")
    assert first.get_json()["ratings"] == ratings[:1] and first.get_json()["next_cursor"]
    assert first.headers["Link"] == f'<{first.get_json()["next"]}>; rel="next"'
    second = client.get(first.get_json()["next"]).get_json()
    assert second["ratings"] == ratings[1:] and second["next"] is None and second["next_cursor"] is None
    for cursor in ("nonsense", "W1sxXV0", "x" * 401):
        assert client.get(f"/v1/ratings/draw?cursor={cursor}").status_code == 422, cursor
    assert client.get("/v1/ratings/block").get_json() == {"variant": "block", "ratings": [], "next_cursor": None, "next": None}
    missing = client.get("/v1/ratings/no-such-variant")
    assert missing.status_code == 404 and missing.get_json()["type"] == "/problems/not-found"


def test_a_retired_bot_leaves_the_leaderboard(client, app_key, register_bot, run_bots):
    bot = register_bot("oldtimer")
    headers = {"Authorization": f"Bearer {app_key}"}
    resp = client.post("/v1/games", json={"variant": "draw", "seats": [{"bot": "oldtimer"}, {"bot": "greedy"}],
                                          "rated": True, "rules": FAST}, headers=headers)  # fmt: skip
    game_id = resp.get_json()["game"]["id"]
    assert client.post(f"/v1/games/{game_id}/resign", headers={"Authorization": f"Bearer {bot['token']}"}).status_code == 200
    run_bots()
    assert set(_board(client)) == {"oldtimer", "greedy"}
    assert client.delete("/v1/bots/oldtimer", headers=headers).status_code == 204
    assert set(_board(client)) == {"greedy"}


def test_a_lost_rating_job_is_enqueued_again_by_the_sweep(client, service, run_bots):
    game_id = _rated(client, [{"bot": "greedy"}, {"bot": "random"}])
    _play_turns_only(service)
    Queues(service.store).bots.empty()  # the job is lost (a failed enqueue, a killed worker)
    assert _board(client) == {}
    due_at = service.store.ratings_due.due_at(game_id)
    assert due_at is not None
    report = service.sweep(due_at + 1)
    assert [job[0] for job in report.ratings] == [game_id]
    run_bots()
    assert {r["games"] for r in _board(client).values()} == {1}
    assert service.store.ratings_due.size() == 0


def _play_out(client, run_bots, game_id: str, token: str) -> dict:  # type: ignore[no-untyped-def]
    """Play a human seat's first legal move whenever it is its turn, the bots' turns on a real worker."""
    headers = {"Authorization": f"Bearer {token}"}
    for _ in range(1000):
        run_bots()
        view = client.get(f"/v1/games/{game_id}", headers=headers).get_json()
        if view["status"] == "finished":
            run_bots()  # the rating job
            return view  # type: ignore[no-any-return]
        if view["legal_moves"]:
            move = {**view["legal_moves"][0], "expected_version": view["version"]}
            assert client.post(f"/v1/games/{game_id}/moves", json=move, headers=headers).status_code == 200
    raise AssertionError("the game did not end")


def test_an_apps_players_are_rated_on_the_apps_own_leaderboard(client, make_app, run_bots):
    app, other = make_app(), make_app()
    seats = [{"name": "Ana", "player": "user-1"}, {"bot": "greedy"}]
    body = {"variant": "draw", "seats": seats, "rated": True, "rules": FAST}
    without_key = client.post("/v1/games", json=body)
    assert without_key.status_code == 422 and "0" in without_key.get_json()["errors"]["json"]["seats"]
    resp = client.post("/v1/games", json=body, headers={"Authorization": f"Bearer {app.key}"})
    assert resp.status_code == 201, resp.get_json()
    game = resp.get_json()
    _play_out(client, run_bots, game["game"]["id"], game["tokens"][0]["token"])

    mine = client.get("/v1/ratings/draw?app=me", headers={"Authorization": f"Bearer {app.key}"})
    assert mine.status_code == 200, mine.get_json()
    (rating,) = mine.get_json()["ratings"]
    assert rating["name"] == "user-1" and rating["kind"] == "player" and rating["games"] == 1
    assert _board(client) == {}, "a game with app players moves only theirs: the bots keep their ratings"
    theirs = client.get("/v1/ratings/draw?app=me", headers={"Authorization": f"Bearer {other.key}"})
    assert theirs.get_json()["ratings"] == []
    assert client.get("/v1/ratings/draw?app=me").status_code == 401
    assert client.get("/v1/ratings/draw?app=someone").status_code == 422
