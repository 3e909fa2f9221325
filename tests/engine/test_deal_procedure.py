"""docs/rules.md#checking-a-deal: the procedure it publishes, run as a user would run it, redoes the
engine's deals and openers from the seed alone, in both deal versions."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

import domino

DOC = Path(__file__).resolve().parents[2] / "docs" / "rules.md"


def _published() -> dict[str, Any]:
    """The section's Python code, executed as printed."""
    section = DOC.read_text().split("## Checking a deal", 1)[1].split("\n## ", 1)[0]
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code is not None, "the section shows its procedure in Python"
    scope: dict[str, Any] = {}
    exec(code.group(1), scope)  # noqa: S102  (our own documentation)
    return scope


def _set(top: int) -> list[str]:
    return [f"{high}-{low}" for high in range(top + 1) for low in range(high + 1)]


def _highest_first(hand: list[str]) -> list[str]:
    return sorted(hand, key=lambda t: tuple(map(int, t.split("-"))), reverse=True)


def _redo(
    doc: dict[str, Any], rules: domino.Rules, seed: str, r: int, tiles: list[str], version: int
) -> dict[str, Any]:
    hands, boneyard = doc["deal"](seed, r, tiles, rules.players, rules.hand_size, version=version)
    return {"hands": [_highest_first(h) for h in hands], "boneyard": boneyard}


@pytest.mark.parametrize(
    "rules",
    [
        domino.Rules.preset("draw", players=2),
        domino.Rules.preset("block", players=4, teams="partners_opposite", hand_size=7, starting_rule="lot"),
        domino.Rules.preset("all_fives", players=3),
        domino.Rules.preset("mexican_train", players=4),
        domino.Rules.preset("mexican_train", players=3, engine_setup="set_aside"),
    ],
    ids=lambda r: f"{r.preset_name}-{r.players}p-{r.engine_setup or r.starting_rule}",
)
@pytest.mark.parametrize("version", [1, 2])
def test_the_published_procedure_redoes_every_deal(rules: domino.Rules, version: int) -> None:
    doc = _published()
    top = rules.set_max_pips
    for s in range(25):
        seed = f"check-{s}"
        for r in (1, 2, 7):
            tiles = _set(top)
            if rules.engine_setup == "set_aside":
                engine = top - (r - 1) % (top + 1)  # docs/rules.md#mexican_train: the round's engine
                tiles.remove(f"{engine}-{engine}")
            assert domino.deal_round(rules, seed, r, version).to_dict() == _redo(doc, rules, seed, r, tiles, version)
        if rules.starting_rule == "lot":
            game = domino.new_game(rules, seed=seed, deal_version=version)
            assert game.turn == doc["lot"](seed, 1, rules.players, version)


@pytest.mark.parametrize("version", [1, 2])
def test_a_reshuffle_is_the_next_purpose_until_a_double_is_dealt(version: int) -> None:
    doc = _published()
    rules = domino.Rules.preset("block", players=2, hand_size=2, no_double_fallback="reshuffle")
    reshuffled = 0
    for s in range(60):
        seed = f"re-{s}"
        purpose, attempt = "deal", 0
        while True:
            hands, boneyard = doc["deal"](seed, 1, _set(6), rules.players, rules.hand_size, purpose, version)
            if any(t.split("-")[0] == t.split("-")[1] for h in hands for t in h):
                break
            attempt += 1
            assert attempt < 100, "each reshuffle must be a new deal"
            purpose = f"reshuffle{attempt}"
        reshuffled += attempt > 0
        expected = {"hands": [_highest_first(h) for h in hands], "boneyard": boneyard}
        assert domino.deal_round(rules, seed, 1, version).to_dict() == expected
    assert reshuffled, "some seeds needed a reshuffle (else this test checks nothing)"
