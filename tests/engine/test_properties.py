"""Property tests (hypothesis) over random games of every line preset with random valid options.

Every step of every game checks: all tiles accounted for once; the seat to move has a legal move; every
legal move applies; illegal moves raise an engine error and change nothing; the codec round-trips; views
hide every tile they must; scores change only as docs/rules.md#scoring-a-round says (checked against the
independent oracles of tests/engine/oracles.py).
"""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import domino
import domino.codec
from domino import DominoError, Draw, NotYourTurnError, Pass, Play, Tile, full_set
from domino.rules import LINE_PRESETS
from engine_helpers import all_state_tiles, board_tiles

import oracles

MAX_STEPS = 260
SETTINGS = settings(max_examples=45, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)


# -- random valid rules ----------------------------------------------------------------------------


@st.composite
def line_rules(draw: st.DrawFn) -> domino.Rules:
    name = draw(st.sampled_from(LINE_PRESETS))
    players = draw(st.integers(2, 4))
    o: dict[str, Any] = {}
    if draw(st.booleans()):
        n = draw(st.integers(3, 9))
        tiles = (n + 1) * (n + 2) // 2
        o["set_max_pips"] = n
        o["hand_size"] = draw(st.integers(1, min(9, tiles // players)))
    teams = players == 4 and draw(st.booleans())
    if teams:
        o["teams"] = "partners_opposite"
        o["team_scoring"] = draw(st.sampled_from(["all_hands", "opponents_only"]))
    o["spinner"] = draw(st.sampled_from(["none", "first_double"]))
    o["starting_rule"] = draw(st.sampled_from(["highest_double", "lot"]))
    if o["starting_rule"] == "highest_double":
        o["no_double_fallback"] = draw(st.sampled_from(["highest_tile", "reshuffle"]))
    o["opener_extra_play"] = draw(st.booleans())
    o["next_round_starter"] = draw(st.sampled_from(["starting_rule", "previous_winner"]))
    policy = draw(st.sampled_from(["draw_until_playable", "draw_one", "no_draw"]))
    o["draw_policy"] = policy
    if policy != "no_draw" and name != "block":
        o["boneyard_reserve"] = draw(st.integers(0, 3))
        o["may_draw_when_playable"] = draw(st.booleans())
        o["drawn_tile_play"] = draw(st.sampled_from(["must", "may"]))
    if name == "all_fives":
        o["fives_bonus_scope"] = draw(st.sampled_from(["total", "per_opponent"]))
        o["fives_blocked_award"] = draw(st.sampled_from(["opponents_total_rounded", "none"]))
    else:
        o["scoring"] = draw(st.sampled_from(["opponents_total", "pagat_difference"]))
        if o["scoring"] == "pagat_difference":
            o["difference_mode"] = draw(st.sampled_from(["sum_minus_own", "pairwise"]))
    if not teams:
        o["blocked_tie"] = draw(st.sampled_from(["no_score", "split"]))
    if draw(st.integers(0, 3)) == 0:
        o["match_end"] = "fixed_rounds"
        o["rounds"] = draw(st.integers(1, 3))
        if name == "all_fives":
            o["target_check"] = "end_of_round"
    else:
        o["target_score"] = draw(st.integers(1, 120))
        if name == "all_fives":
            o["target_check"] = draw(st.sampled_from(["immediate", "end_of_round"]))
    return domino.Rules.preset(name, players=players, **o)


TILE_TEXT = re.compile(r"(\d+)-(\d+)")


def strings(obj: Any) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for k, v in obj.items() for s in strings(k) + strings(v)]
    if isinstance(obj, (list, tuple)):
        return [s for v in obj for s in strings(v)]
    return []


def tiles_named(obj: Any) -> set[Tile]:
    return {Tile(int(a), int(b)) for s in strings(obj) for a, b in TILE_TEXT.findall(s)}


# -- the per-step checks ---------------------------------------------------------------------------


def check_tiles(s: domino.State) -> None:
    assert Counter(all_state_tiles(s)) == Counter(full_set(s.rules.set_max_pips))


def check_codec(s: domino.State) -> None:
    data = domino.to_dict(s)
    again = json.loads(json.dumps(data))
    assert domino.from_dict(again) == s
    assert domino.to_dict(domino.from_dict(again)) == data
    assert domino.codec.is_finished(again) == s.finished


def check_views(s: domino.State) -> None:
    board = set(board_tiles(s))
    for seat in [None, *range(s.rules.players)]:
        v = domino.view(s, seat)
        d = v.to_dict()
        json.dumps(d)
        own = set(s.hands[seat]) if seat is not None else set()
        public = {k: val for k, val in d.items() if k != "last_round"}
        leaked = tiles_named(public) - own - board
        assert not leaked, f"view of {seat} shows hidden tiles {leaked}"
        if d["last_round"] is not None:
            assert d["last_round"] == s.rounds[-1].to_dict() and "deal" not in d["last_round"]
        assert list(v.hand_counts) == [len(h) for h in s.hands]
        assert s.seed not in strings(d)
        if seat is None:
            assert "hand" not in d and "legal_moves" not in d
        else:
            assert d["hand"] == [str(t) for t in s.hands[seat]]
            mine = s.outcome is None and s.turn == seat
            assert tuple(v.legal_moves) == (domino.legal_moves(s) if mine else ())
        drawable = s.rules.draw_policy != "no_draw"
        assert v.boneyard_count == (len(s.boneyard) if drawable else 0)
        assert v.boneyard_count + v.out_of_play_count == len(s.boneyard)


def check_not_blocked(s: domino.State) -> None:
    """While a round is on and the line has started, somebody can still draw or place (docs/rules.md#the-line-games)."""
    if s.outcome is not None or not s.board.line:
        return
    ends = set(oracles.ends(s.board))
    assert oracles.can_draw(s) or any(t.high in ends or t.low in ends for h in s.hands for t in h), "blocked, yet the round goes on"


def illegal_candidates(s: domino.State, legal: tuple[domino.Move, ...], rng: random.Random) -> list[Any]:
    n = s.rules.set_max_pips
    legal_tiles = {m.tile for m in legal if isinstance(m, Play)}
    out: list[Any] = [Draw(), Pass(), Play(Tile(n + 1, 0), "left"), Play(Tile(0, 0), "nowhere"), "pass", None]
    for _ in range(6):
        t = Tile(rng.randint(0, n), rng.randint(0, n))
        end = rng.choice([None, "left", "right", "up", "down", "mexican", "train:1"])
        if end is None and t in legal_tiles:
            continue  # an omitted end may legally resolve to the one place it fits
        out.append(Play(t, end))
    return [m for m in out if m not in legal]


def check_step(before: domino.State, move: domino.Move, after: domino.State, events: tuple[domino.Event, ...],
               in_play: list[int]) -> None:
    r = before.rules
    # scores: monotonic, and explained by in-play fives and round awards
    expected = list(before.scores)
    ended = [e for e in events if e.type == "round_ended"]
    for e in events:
        if e.type == "tile_played":
            pts = e.data["points"]
            if pts:
                for i in range(r.players):
                    if r.side_of(i) == r.side_of(e.seat or 0):
                        expected[i] += pts
                        in_play[i] += pts
        if e.type == "tile_drawn":
            assert "tile" not in e.to_dict(for_seat=None) and "tile" not in e.to_dict(for_seat=(e.seat or 0) + 1)
            assert e.to_dict(for_seat=e.seat)["tile"]
    if ended:
        res = after.rounds[-1]
        assert res.round == before.round
        assert res.pips_left == tuple(sum(t.pips for t in h) for h in res.hands)
        award = oracles.award(r, res)
        assert res.award == award, (res, award)
        assert tuple(p - a for p, a in zip(res.points, res.award)) == tuple(in_play)
        expected = [e + a for e, a in zip(expected, award)]
        if res.end == "domino":
            assert isinstance(move, Play) and res.winner == before.turn and not res.hands[before.turn]
        in_play[:] = [0] * r.players
    assert after.scores == tuple(expected)
    assert all(a >= b for a, b in zip(after.scores, before.scores))
    # in-play scoring (All Fives): the count of the open ends after the play
    if isinstance(move, Play) and not ended:
        c = oracles.count(after.board)
        pts = next(e.data["points"] for e in events if e.type == "tile_played")
        assert pts == (c if r.scoring == "all_fives" and c % 5 == 0 and c > 0 else 0)
        if r.spinner == "first_double":  # and the views show the same count
            assert domino.view(after).board["count"] == c
    # turn order (docs/rules.md#seats-turns-and-moves)
    if not ended and after.outcome is None:
        if isinstance(move, Draw):
            assert after.turn == before.turn and after.drawn == before.drawn + 1
        elif isinstance(move, Pass) or not after.extra_play:
            assert after.turn == (before.turn + 1) % r.players
        else:
            assert after.turn == before.turn and not before.board.line
    check_match_end(r, after, bool(ended))


def check_match_end(r: domino.Rules, after: domino.State, ended: bool) -> None:
    """docs/rules.md#the-match: who won and why, once the match is over; none too soon."""
    if after.outcome is not None:
        o = after.outcome
        best = max(after.scores)
        assert set(o.winners) == {i for i in range(r.players) if after.scores[i] == best}
        sides = {r.side_of(w) for w in o.winners}
        assert o.team == (next(iter(sides)) if r.has_teams and len(sides) == 1 else None)
        if o.reason == "fixed_rounds":
            assert len(after.rounds) == r.rounds
        else:
            assert o.reason == "target_score" and best >= (r.target_score or 0)
            assert len({r.side_of(w) for w in o.winners}) == 1
    elif ended and r.match_end == "target_score" and r.target_check == "end_of_round":
        best = max(after.scores)
        leaders = {r.side_of(i) for i in range(r.players) if after.scores[i] == best}
        assert best < (r.target_score or 0) or len(leaders) > 1


def play_random_game(r: domino.Rules, seed: int, check_all_moves: bool = True, max_steps: int = MAX_STEPS) -> domino.State:
    rng = random.Random(seed)
    s = domino.new_game(r, seed=seed)
    in_play = [0] * r.players
    for _ in range(max_steps):
        check_tiles(s)
        check_codec(s)
        check_views(s)
        check_not_blocked(s)
        legal = domino.legal_moves(s)
        if s.outcome is not None:
            assert legal == ()
            break
        assert legal, "the seat to move has no legal move"
        assert set(legal) == oracles.legal(s), (legal, oracles.legal(s))
        assert list(legal) == sorted(legal, key=domino.moves.move_key)
        snapshot = domino.to_dict(s)
        may_name = set(s.hands[s.turn]) | set(board_tiles(s))
        for bad in illegal_candidates(s, legal, rng):
            try:
                domino.step(s, bad)
            except DominoError as e:
                # Error messages name only public facts and the mover's own input (docs/rules.md#what-a-seat-may-see).
                own_input = {bad.tile} if isinstance(bad, Play) else set()
                assert tiles_named(str(e)) <= may_name | own_input, str(e)
                for m in getattr(e, "legal_moves", ()) + getattr(e, "options", ()):
                    assert m.tile in s.hands[s.turn] if isinstance(m, Play) else True
            else:
                raise AssertionError(f"illegal move {bad!r} was accepted; legal: {legal}")
        try:
            domino.step(s, legal[0], seat=(s.turn + 1) % r.players)
        except NotYourTurnError:
            pass
        else:
            raise AssertionError("a move by the wrong seat was accepted")
        assert domino.to_dict(s) == snapshot, "a rejected move changed the state"
        results = {}
        for m in legal if check_all_moves else (rng.choice(legal),):
            results[m] = domino.step(s, m)
        assert domino.to_dict(s) == snapshot, "a legal move changed its input state"
        move = rng.choice(list(results))
        after, events = results[move]
        check_step(s, move, after, events, in_play)
        s = after
    return s


@pytest.mark.slow
@SETTINGS
@given(line_rules(), st.integers(0, 10**6))
def test_random_games(r: domino.Rules, seed: int) -> None:
    play_random_game(r, seed)


@pytest.mark.slow
@settings(max_examples=24, deadline=None, derandomize=True)
@given(st.sampled_from(LINE_PRESETS), st.integers(2, 4), st.booleans(), st.integers(0, 10**6))
def test_random_games_default_presets(name: str, players: int, teams: bool, seed: int) -> None:
    extra = {"teams": "partners_opposite"} if teams and players == 4 else {}
    play_random_game(domino.Rules.preset(name, players=players, **extra), seed, check_all_moves=False, max_steps=180)


def test_whole_matches_finish() -> None:
    """Fast random matches to the end for each preset, checking the final invariants."""
    for name in LINE_PRESETS:
        for players in (2, 3, 4):
            r = domino.Rules.preset(name, players=players, target_score=30)
            rng = random.Random(players)
            s = domino.new_game(r, seed=f"{name}{players}")
            for _ in range(5000):
                if s.outcome is not None:
                    break
                s = domino.apply(s, rng.choice(domino.legal_moves(s)))
            assert s.outcome is not None and max(s.scores) >= 30
            check_tiles(s)
            check_codec(s)
            assert sum(res.points[0] for res in s.rounds) == s.scores[0]
