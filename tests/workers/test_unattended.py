"""Games nobody attends (issue 32, item 2): a seat the server keeps moving for (the one-seat bypass of the caps
of games of computer players only) leaves its game's computer turns on the bot-games queue, and a game over
those caps waits instead of playing itself; a move the seat makes itself brings the game back."""

from __future__ import annotations

import time
from typing import Any

import domino

from api.queues import BOT_GAMES, BOTS, Queues
from support import eventually, work_burst

SLOW = {"bot": "greedy", "think_ms": 1000}  # over the 250 ms cap of a game of computer players only (greedy is quick)


def _to_move(service, game_id: str) -> tuple[int, str, int] | None:  # type: ignore[no-untyped-def]
    """(seat to move, its kind, version), or None once the game is over."""
    found = service.store.games.load(game_id)
    state = domino.from_live(found.doc["state"])
    if state.finished:
        return None
    return state.to_move, found.doc["seats"][state.to_move]["kind"], found.version


def _bot_job_queues(service, game_id: str) -> list[str]:  # type: ignore[no-untyped-def]
    """The purposes of the queues holding a computer turn of ``game_id``."""
    queues = Queues(service.store).by_purpose()
    return [p for p in (BOTS, BOT_GAMES) for j in queues[p].job_ids if j.startswith(f"bot-{game_id}-")]


def _move_itself(player) -> None:  # type: ignore[no-untyped-def]
    view = player.view().get_json()
    assert player.move({**view["legal_moves"][0], "expected_version": view["version"]}).status_code == 200


def _time_out(service, game_id: str) -> bool:  # type: ignore[no-untyped-def]
    """Let the seat to move run past its deadline: True when the sweep enqueued the server's move for it and a
    worker played it, False when the sweep dropped the turn (held)."""
    version = _to_move(service, game_id)[2]

    def swept() -> str | None:
        report = service.sweep()
        if any(job[0] == game_id for job in report.timeouts):
            return "enqueued"
        return "dropped" if service.store.turns_due.due_at(game_id) is None else None

    if eventually(swept, "the sweep judged the late turn") == "dropped":
        return False
    assert work_burst(service, (BOTS,))
    assert service.store.games.load(game_id).version > version
    return True


def test_a_seat_the_server_moves_for_leaves_its_game_unattended_until_it_moves_itself(create_game, service):
    data, players, _ = create_game([{"name": "Ana"}, {"bot": "greedy"}], turn_timeout_s=0.01, seed="away-1")
    game_id = data["game"]["id"]
    seen: list[tuple[int | None, list[str]]] = []  # (Ana's moves played for her since her own, where the bot turn went)
    autos: int | None = None  # None: Ana has not moved herself yet
    while (turn := _to_move(service, game_id)) is not None and len(seen) < 12:
        kind = turn[1]
        if kind == "bot":
            where = _bot_job_queues(service, game_id)
            seen.append((autos, where))
            assert work_burst(service, tuple(where))
        elif autos is None or len(seen) >= 9:  # she moves herself at first, and again at the end
            _move_itself(players[0])
            autos = 0
        else:
            assert _time_out(service, game_id), "a game within the caps is never held"
            autos += 1
    # Before her first own move, and after 3 moves in a row played for her, nobody attends the game.
    for since, where in seen:
        assert where == ([BOTS] if since is not None and since < 3 else [BOT_GAMES]), seen
    assert {since for since, _ in seen} >= {0, 3}, f"both kinds of turn happened: {seen}"
    assert seen[-1][1] == [BOTS], "her own move brought the game back to the live queue"


def test_an_unattended_game_over_the_caps_waits_for_its_seat_to_move(create_game, service):
    data, players, _ = create_game(
        [{"name": "Ana"}, SLOW], rules={"target_score": 100000}, turn_timeout_s=0.01, seed="away-2"
    )
    game_id = data["game"]["id"]
    if _to_move(service, game_id)[1] == "bot":  # the opening computer turn: nobody has moved yet
        assert _bot_job_queues(service, game_id) == [BOT_GAMES]
        assert work_burst(service, (BOT_GAMES,))
    version = _to_move(service, game_id)[2]
    assert not _time_out(service, game_id), "held: the server does not move for her"
    assert _to_move(service, game_id)[2] == version and _bot_job_queues(service, game_id) == []
    assert service.sweep(now=time.time() + 3600).timeouts == []  # an hour later, still nothing is due

    # Her own move, whenever it comes, brings the game back: computer turns on the live queue, and the server
    # moves for her again, until the third move in a row it would play for her.
    played = 0
    while played < 2 or _to_move(service, game_id)[1] == "bot":
        kind = _to_move(service, game_id)[1]
        if kind == "bot":
            assert _bot_job_queues(service, game_id) == [BOTS]
            assert work_burst(service, (BOTS,))
        elif played == 0 and version == _to_move(service, game_id)[2]:
            _move_itself(players[0])
        else:
            assert _time_out(service, game_id)
            played += 1
    assert _to_move(service, game_id)[1] == "human"
    assert not _time_out(service, game_id), "the third would leave the game unattended: held again"


def test_one_seat_self_playing_games_never_reach_the_live_queue(create_game, service):
    """The attack of the issue, small: games of one human seat that never moves (the server moves for it) and
    three slow computer players, to 100,000, from one address; meanwhile a human plays a computer player."""
    attack = [
        create_game([{"name": "x"}, SLOW, dict(SLOW), dict(SLOW)], rules={"target_score": 100000}, turn_timeout_s=0.01)[0]
        for _ in range(4)
    ]
    ids = [a["game"]["id"] for a in attack]
    data, players, _ = create_game([{"name": "Ana"}, {"bot": "greedy"}], seed="live-first")
    live = data["game"]["id"]
    replies = 0
    for _ in range(3):
        for game_id in ids:
            assert BOTS not in _bot_job_queues(service, game_id)
            if (turn := _to_move(service, game_id)) is not None and turn[1] == "human":
                assert not _time_out(service, game_id), "held at the human seat's first deadline"
        work_burst(service, (BOT_GAMES,))  # at most a round of their computer turns, then they wait
        if _to_move(service, live)[1] == "human":
            _move_itself(players[0])
        assert _bot_job_queues(service, live) == [BOTS]
        assert work_burst(service, (BOTS,))
        replies += 1
    held: dict[str, Any] = {g: _to_move(service, g) for g in ids}
    assert all(turn is not None and turn[1] == "human" for turn in held.values()), held
    assert all(_bot_job_queues(service, g) == [] for g in ids)
    assert replies == 3 and _to_move(service, live) is not None


def test_a_held_game_ends_as_expired_once_idle_for_the_game_ttl(create_game, service):
    data, _, _ = create_game([{"name": "Ana"}, SLOW], rules={"target_score": 100000}, turn_timeout_s=0.01, seed="away-3")
    game_id = data["game"]["id"]
    if _to_move(service, game_id)[1] == "bot":
        assert work_burst(service, (BOT_GAMES,))
    assert not _time_out(service, game_id)
    deadline = service.store.games.load(game_id).doc["deadline"]
    report = service.sweep(now=deadline + service.settings.game_ttl + 1)
    assert [job[0] for job in report.expired] == [game_id]
    assert _to_move(service, game_id) is None
