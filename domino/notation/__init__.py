"""Game records (docs/notation.md): a finished game's JSON record (its history document) and its text form.

    text = domino.notation.write_text(record)
    record = domino.notation.parse(text)       # or a JSON text, or the record itself
    state = domino.replay(record)              # the final state; ReplayError names the move that fails

Both forms are read by replaying them through the engine: a record is only what its seed, rules and moves make.
"""

from __future__ import annotations

import json
from typing import Any

from domino.errors import NotationError, ReplayError
from domino.notation.acts import GIVEN, Act, act_of, acts_of, build, canonical, check
from domino.notation.text import NOTATION, read_text, split_texts, write_text
from domino.state import State

MEDIA_TYPE = "text/x-domino-record"
REQUIRED = ("id", "variant", "version", "seats", "rules", "seed_commitment", "client_seeded", "seed", "salt")

__all__ = [
    "MEDIA_TYPE", "NOTATION", "Act", "act_of", "build", "canonical", "parse", "parse_text", "replay", "split_texts",
    "write_text",
]  # fmt: skip


def parse_text(text: str) -> dict[str, Any]:
    """The JSON record a text record renders (checked by replaying it)."""
    return read_text(text)[0]


def parse(source: str | dict[str, Any]) -> dict[str, Any]:
    """A record from its text, its JSON text, or its JSON value: the JSON record, checked by replaying it."""
    return _replayed(source)[0]


def replay(record: str | dict[str, Any]) -> State:
    """Replay a record (either form) through the engine, checking every move, every round's result and the
    outcome against it: the final state. :class:`domino.ReplayError` names the move that does not replay."""
    return _replayed(record)[1]


def _replayed(source: str | dict[str, Any]) -> tuple[dict[str, Any], State]:
    if isinstance(source, str):
        if not source.lstrip().startswith("{"):
            return read_text(source)
        try:
            source = json.loads(source)
        except ValueError as exc:
            raise NotationError(getattr(exc, "lineno", 1), f"a JSON record ({exc})") from None
    if not isinstance(source, dict):
        raise NotationError(1, "a JSON object (a game's record)")
    missing = [k for k in REQUIRED if k not in source]
    if missing:
        raise ReplayError(f"the record has no {missing[0]!r}")
    given = {k: source[k] for k in GIVEN if k in source}
    rebuilt, state = build(given, acts_of(source))
    check(source, rebuilt)
    return rebuilt, state
