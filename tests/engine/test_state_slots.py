"""``State``'s slots are carried by its constructors (``State.__init__`` written out; ``_draft`` and
``successor`` generated from the slots) and named in ``FIELDS``: a new field must reach each, and these tests
say where it did not.
They also hold what ``State``'s class swap needs (domino/state.py: a ``_Draft`` filled without the frozen
guard becomes a ``State`` by assigning ``__class__``): the two classes share one layout, and nothing else
assigns a ``__class__``."""

from __future__ import annotations

import ast
import inspect
import textwrap
from collections.abc import Callable
from pathlib import Path
from typing import Any

import domino
from domino import state as state_module
from domino.state import FIELDS, State, _Draft, _draft, _Slots, evolve, successor

SLOTS = _Slots.__slots__
# What a state's value is not made of: its compact form's source, its kernel, its listed moves.
CACHES = ("_source", "kernel", "moves_memo")


def _assigned(func: Callable[..., Any]) -> set[str]:
    """The attributes ``func`` assigns on its draft (``d.x = ...``, also in tuple and chained assignments)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(func)))
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                for t in target.elts if isinstance(target, ast.Tuple) else [target]:
                    if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "d":
                        out.add(t.attr)
    return out - {"__class__"}


def test_every_slot_is_written_by_the_written_out_constructor() -> None:
    missing = sorted(set(SLOTS) - _assigned(State.__init__))
    assert missing == [], f"State.__init__ does not carry {missing}: add them there (domino/state.py)"


def test_a_successor_carries_every_slot_but_what_it_is_given() -> None:
    state = domino.new_game(domino.Rules.preset("all_fives"), seed="slots")
    given = [object() for _ in range(8)]  # source, turn, drawn, extra_play, boneyard, scores, round_points, moves
    after = successor(state, *given)  # type: ignore[arg-type]
    source, turn, drawn, extra_play, boneyard, scores, round_points, moves = given
    expected = {
        "_hands": None, "_board": None, "_log": None, "_source": source, "kernel": source, "moves_memo": moves,
        "turn": turn, "drawn": drawn, "extra_play": extra_play, "boneyard": boneyard, "scores": scores,
        "round_points": round_points,
    }  # fmt: skip
    assert type(after) is State
    for name in SLOTS:
        want = expected[name] if name in expected else object.__getattribute__(state, name)
        assert object.__getattribute__(after, name) is want, name


def test_the_fields_are_the_slots_that_make_the_value_in_order() -> None:
    assert FIELDS == tuple(s.lstrip("_") for s in SLOTS if s not in CACHES), "FIELDS and _Slots.__slots__ differ"
    params = list(inspect.signature(State.__init__).parameters)[1:]
    assert tuple(params) == FIELDS, "State.__init__ takes the fields in FIELDS' order"
    annotated = set(inspect.get_annotations(_Slots))
    assert annotated == set(SLOTS), f"annotate every slot in _Slots: {sorted(set(SLOTS) ^ annotated)}"


def test_a_draft_and_an_evolved_state_carry_every_slot() -> None:
    state = domino.new_game(domino.Rules.preset("all_fives"), seed="slots")
    state = domino.apply(state, domino.legal_moves(state)[0])  # a state in compact form, with a kernel
    d = _draft(state)
    for name in SLOTS:
        if name not in ("kernel", "moves_memo"):  # dropped on purpose: rebuilt when the state is played on
            assert getattr(d, name) is object.__getattribute__(state, name), name
    changed = evolve(state, drawn=5)
    assert changed.drawn == 5 and all(getattr(changed, f) == getattr(state, f) for f in FIELDS if f != "drawn")


def test_the_class_swap_keeps_one_layout() -> None:
    assert State.__slots__ == () and _Draft.__slots__ == (), "State and _Draft add no slots: their layouts differ"
    assert State.__bases__ == (_Slots,) and _Draft.__bases__ == (_Slots,)
    d = _draft(domino.new_game(domino.Rules.preset("block"), seed="swap"))
    d.__class__ = State  # what the constructors do; raises TypeError once the layouts differ
    assert isinstance(d, State)


def test_only_the_state_module_assigns_a_class() -> None:
    root = Path(state_module.__file__).parent
    found = [
        f"{path.relative_to(root)}:{node.lineno}"
        for path in sorted(root.rglob("*.py"))
        if path.name != "state.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if (isinstance(node, ast.Attribute) and node.attr == "__class__" and isinstance(node.ctx, ast.Store))
        or (isinstance(node, ast.Constant) and node.value == "__class__")
    ]
    assert found == []
