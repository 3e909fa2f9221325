"""The server's own random choices (a computer player's move, a timed-out seat's) come from the game's secret
salt: the same for a job run twice, unpredictable to players while the game is on."""

from __future__ import annotations

from typing import Any

import domino

from api.service.computer import bot_move
from api.service.records import BOT

RULES = domino.Rules.preset("draw", players=2, starting_rule="lot")  # the opener may lead any of 7 tiles


def _choices(salt: str) -> list[Any]:
    state = domino.new_game(RULES, seed="same-deal")
    doc: Any = {"salt": salt, "seats": [{"kind": BOT, "bot": "random"}, {"kind": BOT, "bot": "random"}]}
    return [bot_move("g1", version)(doc, state) for version in range(30)]


def test_a_computer_players_random_choices_follow_the_games_secret_salt() -> None:
    assert len(domino.legal_moves(domino.new_game(RULES, seed="same-deal"))) == 7
    assert _choices("salt-a") == _choices("salt-a"), "a job run twice chooses the same"
    assert _choices("salt-a") != _choices("salt-b"), "the public game id and version alone do not decide it"
