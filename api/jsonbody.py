"""What a JSON body may not be though it parses: nested too deep, or with a key repeated within an object
(the body guard in :mod:`api.hooks` refuses both)."""

from __future__ import annotations

import json
from typing import Any


class _Repeated(Exception):
    pass


def _no_repeats(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for key, value in pairs:
        if key in seen:
            raise _Repeated(key)
        seen[key] = value
    return seen


def repeated_key(raw: bytes, body: Any) -> str | None:
    """The first key repeated within one object of a valid JSON body, or None (orjson cannot tell); ``body``
    is ``raw`` as parsed."""
    if _flat_with_unique_keys(raw, body):
        return None
    try:
        json.loads(raw, object_pairs_hook=_no_repeats)
    except _Repeated as exc:
        return str(exc.args[0])
    except ValueError:  # what orjson accepted and the standard library does not (an integer of 4300+ digits)
        return None
    return None


def _flat_with_unique_keys(raw: bytes, body: Any) -> bool:
    """Whether ``body`` is one object of scalars whose every key occurs once, quoted, in ``raw``: then no key
    is repeated, without the second parse (most bodies, a move's among them). Without a backslash in ``raw``
    a key has one spelling; a repeat of it, or of a key whose nested object was overwritten, would occur
    twice."""
    if not isinstance(body, dict) or b"\\" in raw:
        return False
    for key, value in body.items():
        if isinstance(value, (dict, list)) or raw.count(b'"' + key.encode() + b'"') != 1:
            return False
    return True


def nesting_depth(value: Any) -> int:
    """How deep arrays and objects nest in a parsed JSON value (a scalar is 0), without recursion."""
    if type(value) is dict:  # one object of scalars, as most bodies are: no stack needed (nor a generator)
        for child in value.values():
            if isinstance(child, (dict, list)):
                break
        else:
            return 1
    deepest = 0
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in children)
    return deepest
