"""No response shows a spectator or an opponent a hidden tile: views, history before the end, errors.

A one-round game, so no tile can be legitimately public from an earlier deal: at any moment, a tile in
another seat's hand or in the boneyard must not appear anywhere in what a client receives.
"""

from __future__ import annotations

import re
from typing import Any

import domino

TILE = re.compile(r"^(\d+)-(\d+)$")


def tiles_in(obj: Any, key: str | None = None) -> set[frozenset[int]]:
    """Every tile-looking string in a JSON document (either orientation), event ids excluded."""
    found: set[frozenset[int]] = set()
    if isinstance(obj, dict):
        for k, v in obj.items():
            found |= tiles_in(v, k)
    elif isinstance(obj, list):
        for v in obj:
            found |= tiles_in(v, key)
    elif isinstance(obj, str) and key != "id":
        m = TILE.match(obj)
        if m:
            found.add(frozenset((int(m.group(1)), int(m.group(2)))))
    return found


def as_keys(tiles) -> set[frozenset[int]]:  # type: ignore[no-untyped-def]
    return {frozenset((t.high, t.low)) for t in tiles}


def hidden_from(state, seat: int | None) -> set[frozenset[int]]:  # type: ignore[no-untyped-def]
    hidden = as_keys(state.boneyard)
    for s, hand in enumerate(state.hands):
        if s != seat:
            hidden |= as_keys(hand)
    return hidden


def test_spectator_and_opponent_never_see_a_hidden_tile(client, create_game, service):
    data, players, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1}, seed="secrecy"
    )
    game_id = data["game"]["id"]
    clients = {0: players[0], 1: players[1], None: spectator}
    checked = 0
    illegal_tried = False
    for _ in range(200):
        state = domino.from_live(service.store.games.load(game_id).doc["state"])
        if state.finished:
            break
        responses = []
        for seat, player in clients.items():
            responses.append((seat, player.view().get_json()))
            responses.append((seat, player.history().get_json()))
        mover = state.to_move
        if not illegal_tried:
            # An illegal move's problem details name only the mover's own legal moves.
            own = as_keys(state.hands[mover])
            wrong = next(t for t in domino.full_set(6) if frozenset((t.high, t.low)) not in own)
            resp = clients[mover].move({"type": "play", "tile": str(wrong)})
            assert resp.status_code == 409
            body = resp.get_json()
            body_tiles = tiles_in(body) - {frozenset((wrong.high, wrong.low))}
            assert not body_tiles & hidden_from(state, mover)
            # The other seat trying to move learns nothing either.
            resp = clients[1 - mover].move({"type": "draw"})
            assert resp.status_code == 409
            assert not tiles_in(resp.get_json()) & hidden_from(state, 1 - mover)
            illegal_tried = True
        for seat, body in responses:
            leaked = tiles_in(body) & hidden_from(state, seat)
            assert not leaked, (seat, leaked, body)
            checked += 1
        view = clients[mover].view().get_json()
        resp = clients[mover].move(view["legal_moves"][-1])  # draws when it can: exercises private draws
        assert resp.status_code == 200
        # The mover's own answer shows its own hand, never the other's.
        after = domino.from_live(service.store.games.load(game_id).doc["state"])
        if not after.finished:
            assert not tiles_in(resp.get_json()) & hidden_from(after, mover)
    assert state.finished or domino.from_live(service.store.games.load(game_id).doc["state"]).finished
    assert checked > 20


def test_history_before_the_end_hides_others_draws_and_after_reveals_everything(create_game, service):
    data, players, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1}, seed="history"
    )
    game_id = data["game"]["id"]
    drawn_seen = False
    for _ in range(300):
        state = domino.from_live(service.store.games.load(game_id).doc["state"])
        if state.finished:
            break
        mover = state.to_move
        view = players[mover].view().get_json()
        move = view["legal_moves"][-1]
        players[mover].move(move)
        if move["type"] == "draw":
            mine = [e for e in players[mover].history().get_json()["events"] if e["type"] == "tile_drawn"]
            theirs = [e for e in players[1 - mover].history().get_json()["events"] if e["type"] == "tile_drawn"]
            spec = [e for e in spectator.history().get_json()["events"] if e["type"] == "tile_drawn"]
            assert any("tile" in e for e in mine if e["seat"] == mover)
            assert not any("tile" in e for e in theirs if e["seat"] == mover)
            assert not any("tile" in e for e in spec)
            drawn_seen = True
    history = spectator.history().get_json()
    assert history["status"] == "finished"
    assert drawn_seen, "the seeded game should include a draw"
    # Revealed: seed, salt, deals with boneyard order, every draw's tile; the commitment checks out.
    import hashlib

    assert hashlib.sha256(f"{history['seed']}:{history['salt']}".encode()).hexdigest() == history["seed_commitment"]
    deal = history["deals"][0]
    assert len(deal["hands"]) == 2 and deal["boneyard"]
    assert all("tile" in e for e in history["events"] if e["type"] == "tile_drawn")
    # Anyone can replay: the seed, dealt by the game's deal version, gives the same first deal.
    assert history["deal_version"] == domino.DEAL_VERSION == 2
    rules = domino.Rules.from_dict(history["rules"])
    replay = domino.new_game(rules, seed=history["seed"], deal_version=history["deal_version"])
    assert [[str(t) for t in h] for h in replay.deal.hands] == deal["hands"]
    assert [str(t) for t in replay.deal.boneyard] == deal["boneyard"]


# -- issue 8: events, stale and out-of-turn errors, the seed, stored tokens, tokens across games -------------


def _everything_in_redis(service) -> bytes:  # type: ignore[no-untyped-def]
    """Every value of every key of this test (both connections, RQ's job hashes included), as bytes."""
    out = []
    for conn in {id(c): c for c in (service.store.redis, service.store.queue_redis)}.values():
        for key in conn.scan_iter(count=500):
            kind = conn.type(key).decode()
            out.append(key)
            if kind == "string":
                out.append(conn.get(key) or b"")
            elif kind == "hash":
                for k, v in conn.hgetall(key).items():
                    out.extend((k, v))
            elif kind == "stream":
                for _id, fields in conn.xrange(key):
                    for k, v in fields.items():
                        out.extend((k, v))
            elif kind == "zset":
                out.extend(m for m, _ in conn.zrange(key, 0, -1, withscores=True))
            elif kind in ("list",):
                out.extend(conn.lrange(key, 0, -1))
            elif kind == "set":
                out.extend(conn.smembers(key))
    return b"\n".join(out)


def test_events_stale_moves_and_out_of_turn_errors_never_show_a_hidden_tile_or_the_seed(create_game, service):
    data, players, spectator = create_game(
        [{"name": "Ana"}, {"name": "Bo"}], rules={"match_end": "fixed_rounds", "rounds": 1}, seed="events-secrecy"
    )
    game_id = data["game"]["id"]
    doc = service.store.games.load(game_id).doc
    secrets_ = (domino.from_live(doc["state"]).seed, doc["salt"])
    clients = {0: players[0], 1: players[1], None: spectator}
    seen = 0
    for _ in range(200):
        rec = service.store.games.load(game_id)
        state = domino.from_live(rec.doc["state"])
        if state.finished:
            break
        mover = state.to_move
        answers = []
        for seat, player in clients.items():
            answers.append((seat, player.client.get(f"/v1/games/{game_id}/events?after=-1", headers=player.headers)))
            # a stale expected_version: 412 names the version and the seat's own last move only
            answers.append((seat, player.move({"type": "draw", "expected_version": rec.version + 5})))
        answers.append((1 - mover, players[1 - mover].move({"type": "pass"})))  # not your turn
        for seat, resp in answers:
            assert resp.status_code in (200, 401, 409, 412), resp.get_data(as_text=True)
            body = resp.get_json()
            leaked = tiles_in(body) & hidden_from(state, seat)
            assert not leaked, (seat, leaked, body)
            text = resp.get_data(as_text=True)
            assert secrets_[0] not in text and secrets_[1] not in text
            seen += 1
        move = players[mover].view().get_json()["legal_moves"][-1]
        assert players[mover].move(move).status_code == 200
    assert seen > 50


def test_tokens_are_stored_hashed_and_one_games_token_is_useless_in_another(client, create_game, service):
    a, a_players, _ = create_game([{"name": "Ana"}, {"name": "Bo"}], seed="tokens-a")
    b, b_players, _ = create_game([{"name": "Cy"}, {"open": True}], seed="tokens-b")
    claimed = client.post(f"/v1/games/{b['game']['id']}/seats/1", json={"name": "Di"})
    assert claimed.status_code in (200, 201), claimed.get_json()
    replayed = client.post(
        "/v1/games",
        json={"variant": "draw", "seats": [{"name": "Ed"}, {"bot": "greedy"}]},
        headers={"Idempotency-Key": "secrecy-key-1"},
    )
    tokens = [p.token for p in a_players.values()] + [p.token for p in b_players.values()]
    tokens += [claimed.get_json()["token"], replayed.get_json()["tokens"][0]["token"]]
    ticket = client.post(f"/v1/games/{a['game']['id']}/events/ticket", headers=a_players[0].headers).get_json()["ticket"]
    stored = _everything_in_redis(service)
    assert stored
    for secret in [*tokens, ticket]:
        assert secret.encode() not in stored, "a raw token or ticket is stored in Redis"

    a_id, b_id = a["game"]["id"], b["game"]["id"]
    version_b = service.store.games.version(b_id)
    for token in (a_players[0].token, a_players[1].token):
        auth = {"Authorization": f"Bearer {token}"}
        for resp in (
            client.get(f"/v1/games/{b_id}", headers=auth),
            client.get(f"/v1/games/{b_id}/history", headers=auth),
            client.get(f"/v1/games/{b_id}/events", headers=auth),
            client.post(f"/v1/games/{b_id}/events/ticket", headers=auth),
            client.post(f"/v1/games/{b_id}/moves", json={"type": "draw"}, headers=auth),
            client.post(f"/v1/games/{b_id}/resign", headers=auth),
        ):
            assert resp.status_code == 401, (resp.request.path, resp.status_code)
            assert resp.get_json()["type"] == "/problems/unauthorized"
    # A stream ticket of game A is no ticket in game B either.
    assert client.get(f"/v1/games/{b_id}/events?ticket={ticket}").status_code == 401
    assert service.store.games.version(b_id) == version_b
