"""A move's body is checked in a few comparisons when it is well formed (``well_formed_move``) and loaded by
MoveSchema otherwise: the quick check must never take a body MoveSchema refuses, nor read one differently."""

from __future__ import annotations

from typing import Any

import marshmallow as ma
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from api.resources.moves.schemas import MAX_VERSION, MoveSchema, well_formed_move

SCHEMA = MoveSchema()

values = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=MAX_VERSION + 2),
    st.floats(allow_nan=False),
    st.sampled_from(["play", "draw", "pass", "6-4", "12-12", "6-4\n", "٥-4", "left", "up", "train:3", "train:123",
                     "mexican", "Left", "", "6-44", "x"]),  # fmt: skip
    st.text(max_size=6),
    st.lists(st.integers(), max_size=2),
)
# Near-moves: a move as a client sends it with at most one member changed, added or taken away (most bodies
# just beside a good one), and any other body.
MOVES = [
    {"type": "play", "tile": "6-4", "end": "left", "expected_version": 17},
    {"type": "play", "tile": "12-12", "end": "train:3"},
    {"type": "play", "tile": "5-5", "end": None},
    {"type": "play", "tile": "0-0"},
    {"type": "draw", "expected_version": 0},
    {"type": "pass"},
]
NEAR = {
    "type": ["play", "draw", "pass", "Play", "", None, 1],
    "tile": ["6-4", "0-0", "6-4\n", "٥-4", "6-44", "6_4", 64, None],
    "end": ["left", "up", "train:12", "mexican", "train:123", "Left", "left\n", "", 3, None],
    "expected_version": [0, 17, MAX_VERSION, MAX_VERSION + 1, -1, 17.0, 17.5, True, "17", None],
    "seat": [0],
}


@st.composite
def near_moves(draw: st.DrawFn) -> dict[str, Any]:
    move = dict(draw(st.sampled_from(MOVES)))
    name = draw(st.sampled_from(sorted(NEAR)))
    if draw(st.booleans()):
        move.pop(name, None)
    else:
        move[name] = draw(st.sampled_from(NEAR[name]))
    return move


keys = st.sampled_from(["type", "tile", "end", "expected_version", "seat", "Type"])
bodies = st.one_of(near_moves(), st.dictionaries(keys, values, max_size=5), values)


@pytest.mark.slow
@settings(max_examples=3000, deadline=None)
@given(bodies)
def test_the_quick_check_takes_only_what_the_schema_loads_and_reads_it_alike(body: Any) -> None:
    quick = well_formed_move(body)
    if quick is None:
        return
    loaded = SCHEMA.load(body)  # raises when the quick check took a body the schema refuses
    assert quick == loaded
    assert list(quick) == list(loaded), "the same order of members"


@given(bodies)
def test_what_the_quick_check_leaves_is_refused_by_the_schema_or_unusual(body: Any) -> None:
    """What a client usually sends (a legal move posted back, strings and whole numbers) takes the quick path."""
    try:
        loaded = SCHEMA.load(body)
    except ma.ValidationError:
        return
    unusual = any(
        (isinstance(v, str) and v.endswith("\n")) or isinstance(v, float) for v in body.values()
    )
    assert well_formed_move(body) is not None or unusual


def test_moves_as_the_view_lists_them_take_the_quick_path() -> None:
    for move in (
        {"type": "play", "tile": "6-4", "end": "left", "expected_version": 17},
        {"type": "play", "tile": "12-12", "end": "train:3"},
        {"type": "play", "tile": "5-5", "end": None},
        {"type": "play", "tile": "5-5"},
        {"type": "draw", "expected_version": 0},
        {"type": "pass"},
    ):
        assert well_formed_move(move) == SCHEMA.load(move)
