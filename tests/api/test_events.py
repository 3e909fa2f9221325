"""Events: the long poll wakes on a move and runs out empty; SSE resumes without gaps or duplicates; private
details reach only their seat; stream tickets for EventSource."""

from __future__ import annotations

import threading
import time

import domino
import pytest
from support import blocked_clients, eventually, returns_within

pytestmark = pytest.mark.cluster  # on the single Redis and on a Redis Cluster


def events_url(game_id: str, **params: object) -> str:
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return f"/v1/games/{game_id}/events" + (f"?{query}" if query else "")


def sse_frames(resp, limit: int | None = None) -> list[dict]:  # type: ignore[no-untyped-def]
    """Parse a streamed SSE response into frames ({'id', 'event', 'data'} or {'comment'}), up to ``limit``
    event frames; closes the response."""
    frames: list[dict] = []
    try:
        for frame in sse_frames_iter(resp):
            frames.append(frame)
            if limit is not None and sum(1 for f in frames if "id" in f) >= limit:
                break
    finally:
        resp.close()
    return frames


def test_long_poll_wakes_when_a_move_lands(app, service, create_game):
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="long-poll")
    game_id = data["game"]["id"]
    view = players[0].view().get_json()
    mover = players[view["turn"]]
    mover_view = mover.view().get_json()
    version = view["version"]
    result: dict = {}
    conn = service.store.redis
    readers = blocked_clients(conn, "xread")

    def poll() -> None:
        client = app.test_client()  # one client per thread
        resp = client.get(events_url(game_id, after=version, wait=30))
        result["at"] = time.perf_counter()
        result["body"] = resp.get_json()

    thread = threading.Thread(target=poll)
    thread.start()
    eventually(lambda: blocked_clients(conn, "xread") > readers, "the long poll waits in its XREAD")
    assert "body" not in result
    moved_at = time.perf_counter()
    assert mover.move(mover_view["legal_moves"][0]).status_code == 200
    thread.join(20)  # a ceiling well inside the 30 s wait: the move woke the poll, its wait did not run out
    assert not thread.is_alive(), "the long poll did not wake on the move"
    print(f"\nlong poll wake-up after the move: {(result['at'] - moved_at) * 1000:.1f} ms")
    body = result["body"]
    assert [e["version"] for e in body["events"]] == [version + 1] * len(body["events"])
    assert body["events"][0]["type"] == "tile_played"
    assert body["last_version"] == version + 1 and body["ended"] is False


def test_long_poll_is_empty_when_nothing_happens(client, create_game):
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}])
    game_id = data["game"]["id"]
    # Without `after`: every event so far, at once.
    first = client.get(events_url(game_id)).get_json()
    assert [e["type"] for e in first["events"]] == ["game_created", "round_started", "turn_started"]
    assert first["last_version"] == 0 and first["seat"] is None
    resp = returns_within(30, lambda: client.get(events_url(game_id, after=0, wait=0.3)))  # the wait runs out
    assert resp.status_code == 200
    assert resp.get_json() == {"events": [], "last_version": 0, "ended": False, "seat": None}
    assert resp.headers["Cache-Control"] == "no-store"
    # Bad input and unknown games are problem details.
    assert client.get(events_url(game_id, wait=31)).status_code == 422
    assert client.get(events_url("nosuchgame000000", wait=0)).status_code == 404
    bad = client.get(events_url(game_id), headers={"Authorization": "Bearer nope"})
    assert bad.status_code == 401


def test_turn_started_gives_the_seat_to_move_its_legal_moves(client, create_game):
    """A client following the events moves without reading its view: the commit that hands a seat the turn
    ends with `turn_started`, and that seat's copy (only) lists its legal moves at that version."""
    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="turns", rules={"target_score": 50})
    game_id = data["game"]["id"]
    after = -1  # from the start
    for _ in range(12):
        pages = {
            seat: client.get(events_url(game_id, after=after), headers=p.headers).get_json()
            for seat, p in [(0, players[0]), (1, players[1]), (None, spectator)]
        }
        turns = {seat: [e for e in page["events"] if e["type"] == "turn_started"] for seat, page in pages.items()}
        assert all(len(t) == 1 for t in turns.values()), turns  # one per commit: the last event of it
        assert all(page["events"][-1]["type"] == "turn_started" for page in pages.values())
        to_move = turns[None][0]["seat"]
        views = {seat: players[seat].view().get_json() for seat in (0, 1)}
        assert views[to_move]["legal_moves"] and views[to_move]["turn"] == to_move
        event = turns[to_move][0]
        assert event["version"] == views[to_move]["version"]
        assert event["legal_moves"] == views[to_move]["legal_moves"]
        for seat in (1 - to_move, None):
            assert "legal_moves" not in turns[seat][0] and turns[seat][0]["seat"] == to_move
        move = {**event["legal_moves"][0], "expected_version": event["version"]}
        resp = players[to_move].move(move)
        assert resp.status_code == 200, resp.get_json()
        after = event["version"]
    # The history tells what happened; whose turn it was is not part of that.
    types = {e["type"] for e in spectator.history().get_json()["events"]}
    assert "turn_started" not in types and "tile_played" in types


def test_only_the_latest_turn_notice_is_kept_and_reads_stay_in_order(client, create_game, service):
    """A turn notice is of no use once the next commit lands: the store keeps the latest one only, beside the
    state (memory), and a read cut at ``count`` never jumps over events to reach it."""
    data, players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="kept", rules={"target_score": 50})
    game_id = data["game"]["id"]
    store = service.store
    for _ in range(10):
        view = next(v for v in (p.view().get_json() for p in players.values()) if v["legal_moves"])
        assert players[view["seat"]].move({**view["legal_moves"][0], "expected_version": view["version"]}).status_code == 200
    import orjson

    game_events = [i.decode() for i, _ in store.redis.xrange(store.games.events_key(game_id))]
    latest_turn, notice = orjson.loads(store.redis.hget(store.games.state_key(game_id), "t"))
    assert notice["public"]["type"] == "turn_started" and "turn_started" not in str(store.redis.xrange(store.games.events_key(game_id)))
    last_version, last_n = map(int, game_events[-1].split("-"))
    assert latest_turn == f"{last_version}-{last_n + 1}", "the notice ends the latest commit"
    expected = game_events + [latest_turn]
    for count in (1, 2, 3, 500):  # page through everything, as SSE does with its cursor
        seen, cursor = [], "0-0"
        while entries := store.games.read_events(game_id, cursor, count=count):
            seen += [sid for sid, _ in entries]
            cursor = entries[-1][0]
        assert seen == expected, count
    # An event stream's follower (its own connection) reads exactly the same, and gives the connection back.
    # (On a cluster it reads through the cluster client, which finds the game's node for each read.)
    pool = None if store.connections.cluster else store.connections.blocking().connection_pool
    for count in (1, 2, 500):
        follower = store.games.follow(game_id)
        seen, cursor = [], "0-0"
        while entries := follower.read(cursor, count=count):
            assert entries == store.games.read_events(game_id, cursor, count=count)
            seen += [sid for sid, _ in entries]
            cursor = entries[-1][0]
        assert seen == expected and follower.read(cursor, block_ms=50) == []
        assert pool is None or (follower.held is not None and follower.held.conn in pool._in_use_connections)
        follower.close()
        assert pool is None or not pool._in_use_connections
    # A reader that stopped between the last event and its notice gets the notice at once.
    assert [sid for sid, _ in store.games.read_events(game_id, game_events[-1])] == [latest_turn]
    assert store.games.read_events(game_id, latest_turn) == []
    # A client far behind gets every event, but of the turn notices only the current one.
    page = client.get(events_url(game_id, after=0)).get_json()
    assert [e["type"] for e in page["events"]].count("turn_started") == 1
    assert page["events"][-1]["type"] == "turn_started"


def play_to_the_end(service, players, game_id: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(500):
        state = domino.from_live(service.store.games.load(game_id).doc["state"])
        if state.finished:
            return
        player = players[state.to_move]
        view = player.view().get_json()
        assert player.move(view["legal_moves"][-1]).status_code == 200  # draws when it can: many private events
    raise AssertionError("the game did not end")


def test_private_events_reach_only_their_seat(client, create_game, service):
    data, players, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 3}, seed="private-draws"
    )
    game_id = data["game"]["id"]
    play_to_the_end(service, players, game_id)
    pages = {
        seat: client.get(events_url(game_id), headers=p.headers).get_json()
        for seat, p in [(0, players[0]), (1, players[1]), (None, spectator)]
    }
    draws = [e for e in pages[None]["events"] if e["type"] == "tile_drawn"]
    assert {e["seat"] for e in draws} == {0, 1}, "both seats drew: the test covers both directions"
    for viewer, page in pages.items():
        assert page["ended"] is True and page["seat"] == viewer
        assert page["events"][-1]["type"] == "game_ended"
        for event in page["events"]:
            if event["type"] == "tile_drawn":
                assert ("tile" in event) == (event["seat"] == viewer), (viewer, event)
    # The same through SSE, for each viewer.
    for viewer, player in [(0, players[0]), (None, spectator)]:
        resp = client.get(events_url(game_id), headers={**player.headers, "Accept": "text/event-stream"}, buffered=False)
        frames = [f for f in sse_frames(resp) if "id" in f]
        assert len(frames) == len(pages[viewer]["events"])
        for frame in frames:
            import json

            event = json.loads(frame["data"])
            if event["type"] == "tile_drawn":
                assert ("tile" in event) == (event["seat"] == viewer)


def test_sse_resumes_after_last_event_id_without_gaps_or_duplicates(client, create_game, run_bots, service):
    import json

    data, _, spectator = create_game([{"bot": "greedy"}, {"bot": "random"}], rules={"match_end": "fixed_rounds", "rounds": 2})
    game_id = data["game"]["id"]
    assert run_bots()
    all_ids = [e["id"] for e in client.get(events_url(game_id)).get_json()["events"]]
    assert len(all_ids) > 20
    headers = {"Accept": "text/event-stream"}
    resp = client.get(events_url(game_id), headers=headers, buffered=False)
    assert resp.status_code == 200 and resp.mimetype == "text/event-stream"
    first = [f for f in sse_frames(resp, limit=7) if "id" in f]
    assert len(first) == 7
    seen = [f["id"] for f in first]
    for _ in range(5):  # reconnect a few times, each after the last id received
        resp = client.get(events_url(game_id), headers={**headers, "Last-Event-ID": seen[-1]}, buffered=False)
        frames = [f for f in sse_frames(resp, limit=5) if "id" in f]
        seen += [f["id"] for f in frames]
        for f in frames:
            assert json.loads(f["data"])["id"] == f["id"] and f["event"] == json.loads(f["data"])["type"]
    resp = client.get(events_url(game_id), headers={**headers, "Last-Event-ID": seen[-1]}, buffered=False)
    rest = sse_frames(resp)  # to the end: the stream closes after game_ended
    seen += [f["id"] for f in rest if "id" in f]
    assert seen == all_ids
    assert rest[-1]["event"] == "game_ended"
    # Resuming after the last event of a finished game: the stream ends at once, empty.
    resp = client.get(events_url(game_id), headers={**headers, "Last-Event-ID": seen[-1]}, buffered=False)
    assert [f for f in sse_frames(resp) if "id" in f] == []
    bad = client.get(events_url(game_id), headers={**headers, "Last-Event-ID": "x"})
    assert bad.status_code == 422


def test_sse_keep_alive_while_waiting_and_stream_tickets(app, client, create_game):
    import json

    data, players, spectator = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="tickets")
    game_id = data["game"]["id"]
    # A ticket needs a seat token; it is not the token and reads that seat's events.
    assert client.post(f"/v1/games/{game_id}/events/ticket").status_code == 401
    resp = client.post(f"/v1/games/{game_id}/events/ticket", headers=players[1].headers)
    assert resp.status_code == 201, resp.get_json()
    ticket = resp.get_json()
    assert ticket["seat"] == 1 and ticket["ticket"] != players[1].token and ticket["expires_in"] > 0
    assert client.get(events_url(game_id, ticket="wrong"), headers={"Accept": "text/event-stream"}).status_code == 401
    resp = client.get(events_url(game_id, ticket=ticket["ticket"]), headers={"Accept": "text/event-stream"}, buffered=False)

    def until_a_keep_alive() -> list[dict]:
        frames = []
        for frame in sse_frames_iter(resp):
            frames.append(frame)
            if frame.get("comment") == "keep-alive":
                break
        return frames

    frames = returns_within(30, until_a_keep_alive)  # a ceiling: the interval is 0.2 s in tests
    resp.close()
    assert [json.loads(f["data"])["type"] for f in frames if "id" in f] == ["game_created", "round_started", "turn_started"]
    # A ticket opens one stream: used, it is spent (a leaked URL opens nothing).
    assert client.get(events_url(game_id, ticket=ticket["ticket"])).status_code == 401
    again = client.post(f"/v1/games/{game_id}/events/ticket", headers=players[1].headers).get_json()["ticket"]
    assert client.get(events_url(game_id, ticket=again)).get_json()["seat"] == 1


def sse_frames_iter(resp):  # type: ignore[no-untyped-def]
    """The frames of a streamed SSE response as they arrive."""
    buffer = b""
    for chunk in resp.response:
        buffer += chunk
        while b"\n\n" in buffer:
            raw, buffer = buffer.split(b"\n\n", 1)
            frame: dict = {}
            for line in raw.decode().split("\n"):
                if line.startswith(":"):
                    frame["comment"] = line[1:].strip()
                else:
                    key, _, value = line.partition(": ")
                    frame[key] = value
            yield frame
