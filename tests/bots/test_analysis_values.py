"""The pure evaluator of finished games (domino/analysis, docs/analysis.md): values of every legal move from
the mover's information, the best, the loss, each seat's summary; deterministic, the same for every variant."""

from __future__ import annotations

import random
from typing import Any

import pytest

import domino
from domino.analysis import (
    MoveAnalysis,
    analyse,
    analyse_position,
    move_values,
    position_rng,
    positions,
    summarise,
)
from domino.testing import bot_record

NODES = 600

GAMES = {
    "draw": (domino.Rules.preset("draw", players=2, target_score=30), ["greedy", "random"]),
    "block_teams": (domino.Rules.preset("block", players=4, teams="partners_opposite", target_score=20),
                    ["greedy", "random", "club", "greedy"]),  # fmt: skip
    "all_fives": (domino.Rules.preset("all_fives", players=2, target_score=40), ["random", "greedy"]),
    "mexican_train": (domino.Rules.preset("mexican_train", players=3, set_max_pips=9, hand_size=7, rounds=1),
                      ["greedy", "random", "greedy"]),  # fmt: skip
}


@pytest.fixture(scope="module", params=sorted(GAMES))
def record(request: pytest.FixtureRequest) -> dict[str, Any]:
    rules, players = GAMES[request.param]
    return bot_record(rules, f"seed-{request.param}", players, nodes=200, game_id=f"g{request.param}")


def test_every_move_with_a_choice_is_analysed_with_every_legal_move_valued(record: dict[str, Any]) -> None:
    done = analyse(record, NODES)
    found = list(positions(record))
    assert found and len(done.moves) == len(found)
    for moved, position in zip(done.moves, found):
        legal = domino.legal_moves(position.state)
        assert len(legal) > 1 and position.view.legal_moves == legal
        assert [v.move for v in moved.values] == list(legal), "every legal move, as legal_moves lists them"
        assert moved.version == position.version and moved.seat == position.seat == position.state.turn
        assert moved.played in legal
        top = max(v.value for v in moved.values)
        assert next(v.value for v in moved.values if v.move == moved.best) == top, "best has the highest value"
        played = next(v.value for v in moved.values if v.move == moved.played)
        assert moved.loss == pytest.approx(top - played, abs=0.011) and moved.loss >= 0


def test_the_moves_are_those_the_record_played_in_its_order(record: dict[str, Any]) -> None:
    moves = {e["version"]: e for e in record["events"] if e["type"] in ("tile_played", "tile_drawn", "passed")}
    last = -1
    for position in positions(record):
        assert position.version > last
        last = position.version
        event = moves[position.version]
        assert event["seat"] == position.seat
        assert position.played.to_dict()["type"] == {"tile_played": "play", "tile_drawn": "draw", "passed": "pass"}[
            event["type"]
        ]


def test_the_same_game_gives_the_same_analysis_and_any_move_alone_gives_its_part(record: dict[str, Any]) -> None:
    first = analyse(record, NODES)
    assert analyse(record, NODES) == first
    found = list(positions(record))
    k = len(found) // 2
    assert analyse_position(record["id"], found[k], NODES) == first.moves[k], "no dependence on earlier moves"
    other = analyse({**record, "id": "another-game-id"}, NODES)
    assert [m.values for m in other.moves] != [m.values for m in first.moves], "the seed is the game id's"


def test_the_summary_counts_mean_loss_and_accuracy_per_seat(record: dict[str, Any]) -> None:
    done = analyse(record, NODES)
    players = len(record["seats"])
    assert [s.seat for s in done.seats] == list(range(players))
    for s in done.seats:
        mine = [m.loss for m in done.moves if m.seat == s.seat]
        assert s.count == len(mine)
        if mine:
            assert s.mean_loss == pytest.approx(sum(mine) / len(mine), abs=0.001)
            assert s.accuracy == pytest.approx(100 * sum(x <= 0.5 for x in mine) / len(mine), abs=0.05)


def test_an_analysis_reads_back_from_its_json() -> None:
    rules, players = GAMES["draw"]
    record = bot_record(rules, "json", players, nodes=100, game_id="gjson")
    done = analyse(record, 200)
    assert [MoveAnalysis.from_dict(m.to_dict()) for m in done.moves] == list(done.moves)


def test_summaries_of_hand_made_losses() -> None:
    rules, players = GAMES["draw"]
    values = move_values(next(positions(bot_record(rules, "sums", players))).view, random.Random(1), 100)
    moves = [MoveAnalysis(v, seat, values[0].move, values[0].move, values, loss)
             for v, (seat, loss) in enumerate([(0, 0.0), (0, 0.5), (0, 2.5), (1, 1.0)])]  # fmt: skip
    s0, s1, s2 = summarise(moves, 3)
    assert (s0.count, s0.mean_loss, s0.accuracy) == (3, 1.0, 66.7)
    assert (s1.count, s1.mean_loss, s1.accuracy) == (1, 1.0, 0.0)
    assert (s2.count, s2.mean_loss, s2.accuracy) == (0, None, None)


def test_values_are_points_of_the_round_going_out_is_worth_the_other_hand_on_average() -> None:
    """Two-player draw: the mover's last tile goes out (scoring the other hand's pips), or it may draw. It has
    seen nothing of the other hand, so going out is worth 7 tiles of the 24 it cannot see: 7 * 136 / 24 pips."""
    rules = domino.Rules.preset("draw", players=2)
    state = domino.testing.position(rules, "[3-5][5-4][4-2]", hands=["6-3", "0-0 0-1 0-2 0-3 0-4 0-5 0-6"],
                                    rest="boneyard")  # fmt: skip
    values = move_values(domino.view(state, 0), position_rng("g", 1), 20000)
    out, draw = values
    assert out.move == domino.Play(domino.Tile(6, 3), "left") and draw.move == domino.Draw()
    assert out.value == pytest.approx(7 * 136 / 24, abs=3.0)
    assert draw.value < out.value


@pytest.mark.slow
def test_stronger_players_lose_less_per_move() -> None:
    rules = domino.Rules.preset("draw", players=2, target_score=50)
    losses: dict[str, list[float]] = {"random": [], "greedy": []}
    for k in range(4):
        players = ["random", "greedy"] if k % 2 == 0 else ["greedy", "random"]
        done = analyse(bot_record(rules, f"rank-{k}", players, game_id=f"grank{k}"), 2000)
        for m in done.moves:
            losses[players[m.seat]].append(m.loss)
    mean = {name: sum(x) / len(x) for name, x in losses.items()}
    assert mean["random"] > mean["greedy"]
