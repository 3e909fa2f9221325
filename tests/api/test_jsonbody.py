"""The repeated-key check's shortcut for flat bodies says what the full second parse says."""

from __future__ import annotations

import json

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from api.jsonbody import repeated_key

# Few distinct keys, so that repeats are common; some need escapes, some are spelled with one.
KEYS = st.sampled_from(["type", "tile", "end", "é", 'q"', "a\\b", "t"])
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-5, 5), KEYS, st.text(max_size=4))


def spelled(key: str, escaped: bool) -> str:
    """``key`` as a JSON string, its first letter as a \\u escape when ``escaped``."""
    return '"' + f"\\u{ord(key[0]):04x}" + json.dumps(key, ensure_ascii=False)[2:] if escaped else json.dumps(key, ensure_ascii=False)


@st.composite
def objects(draw: st.DrawFn, depth: int = 0) -> str:
    members = []
    for _ in range(draw(st.integers(0, 4))):
        value = draw(st.one_of(SCALARS.map(lambda v: json.dumps(v, ensure_ascii=False)),
                               *([objects(depth + 1)] if depth < 2 else [])))
        members.append(f"{spelled(draw(KEYS), draw(st.booleans()))}: {value}")
    return "{" + ", ".join(members) + "}"


def full_check(raw: bytes) -> str | None:
    """The reference: the standard library's parse, refusing any repeat."""
    def no_repeats(pairs: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in pairs]
        repeats = [k for i, k in enumerate(keys) if k in keys[:i]]
        if repeats:
            raise KeyError(repeats[0])
        return dict(pairs)

    try:
        json.loads(raw, object_pairs_hook=no_repeats)
    except KeyError as exc:
        return str(exc.args[0])
    return None


@settings(max_examples=400, deadline=None)
@given(objects())
def test_the_shortcut_agrees_with_the_full_parse(text: str) -> None:
    raw = text.encode()
    assert repeated_key(raw, orjson.loads(raw)) == full_check(raw)


def test_a_repeat_hidden_in_an_overwritten_object_is_found() -> None:
    raw = b'{"a": {"b": 1, "b": 2}, "a": 1}'
    assert repeated_key(raw, orjson.loads(raw)) == "b"


def test_a_repeat_spelled_two_ways_is_found() -> None:
    raw = b'{"type": "play", "\\u0074ype": "draw"}'
    assert repeated_key(raw, orjson.loads(raw)) == "type"


def test_a_repeat_inside_a_nested_object_is_found() -> None:
    raw = b'{"tile": {"end": 1, "end": 2}}'
    assert repeated_key(raw, orjson.loads(raw)) == "end"
