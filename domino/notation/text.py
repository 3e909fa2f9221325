"""The text form of a game record (docs/notation.md): written from the JSON record, read back by replaying it.

A text record holds tags (the facts given: seats, rules, seed...) and one line per commit (the acts); every
other line (rounds, deals, results) is derived, so reading a text is: collect the tags and the acts, rebuild
the record through the engine, write it again, and find the first line that differs, if any.
"""

from __future__ import annotations

import json
import re
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from domino.errors import NotationError, ReplayError
from domino.notation.acts import GIVEN, Act, build
from domino.state import State

NOTATION = "domino-record 1"
# The tags in their order: (tag, whether every record has it). ``seat`` repeats, one a seat.
TAGS = (
    ("notation", True), ("id", True), ("variant", True), ("date", False), ("created_at", False), ("rules", True),
    ("seat", True), ("seed", True), ("salt", True), ("seed_commitment", True), ("client_seeded", True),
    ("deal_version", False), ("arena", False), ("metadata", False), ("version", True), ("status", True),
    ("outcome", True), ("scores", False),
)  # fmt: skip
DERIVED_TAGS = ("notation", "date", "status", "outcome", "scores")
TAG_NAMES = tuple(t for t, _ in TAGS)

_TAG = re.compile(r"\[([a-z_]+) (.+)\]")
_TILE = r"\d{1,2}-\d{1,2}"
_END = r"left|right|up|down|mexican|train:\d{1,2}"
_COMMIT = re.compile(r"(0|[1-9]\d*)\. (.+?)((?: \{[^{}]*\})*)")
_SEAT_ACT = re.compile(
    rf"#(\d{{1,2}}) (?:(?P<tile>{_TILE})(?: (?P<end>{_END}))?(?: \+\d+)?|draws (?P<drawn>{_TILE})"
    r"|(?P<word>passes|resigns)|claims (?P<name>\".*\"))"
)
_MARK = re.compile(r" \{(auto|deadline (-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?))\}")
_DERIVED = re.compile(rf"round \d+(?:: .*| ends: .*)|  #\d{{1,2}}:(?: {_TILE})*|  boneyard:(?: {_TILE})*")
_ENDS = re.compile(r"ends (expired|aborted)")
MOVE_LINE = (
    "a move line: `<version>. #<seat> <tile> [<end>] | draws <tile> | passes | resigns | claims \"<name>\"` "
    "or `<version>. ends expired|aborted`"
)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# -- writing -----------------------------------------------------------------------------------------------


def write_text(record: dict[str, Any]) -> str:
    """The text of a JSON record (a finished game's history): its tags, a blank line, its commits."""
    return "\n".join([*_tag_lines(record), "", *_body_lines(record)]) + "\n"


def _tag_lines(record: dict[str, Any]) -> list[str]:
    values: dict[str, Any] = {k: record[k] for k in GIVEN if k in record}
    values["notation"] = NOTATION
    if "created_at" in record:
        values["date"] = datetime.fromtimestamp(record["created_at"], UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    values["status"], values["outcome"] = record.get("status"), record.get("outcome")
    ended = [e for e in record.get("events") or [] if e.get("type") == "game_ended"]
    if ended:
        values["scores"] = ended[-1].get("scores")
    lines = []
    for tag in TAG_NAMES:
        if tag == "seat":
            lines += [f"[seat {_json(s)}]" for s in record.get("seats") or []]
        elif tag in values:
            lines.append(f"[{tag} {_json(values[tag])}]")
    return lines


def _body_lines(record: dict[str, Any]) -> list[str]:
    deals = {d["round"]: d for d in record.get("deals") or []}
    scores: list[int] | None = None
    lines: list[str] = []
    events = record.get("events") or []
    for i, event in enumerate(events):
        kind = event.get("type")
        if i == 0 or event["version"] != events[i - 1]["version"]:
            lines.append(_commit_line(event))
        elif kind == "round_started":
            lines += _round_lines(event, deals.get(event.get("round")))
        elif kind == "round_ended":
            points = event.get("points") or []
            scores = [a + b for a, b in zip(scores, points)] if scores is not None else list(points)
            lines.append(_result_line(event, scores))
    return lines


def _commit_line(event: dict[str, Any]) -> str:
    kind, seat = event.get("type"), event.get("seat")
    if kind == "game_created":
        said = "created"
    elif kind == "seat_claimed":
        said = f"#{seat} claims {_json(event.get('name'))}"
    elif kind == "tile_played":
        points = event.get("points") or 0
        end = f" {event['end']}" if event.get("end") else ""
        said = f"#{seat} {event.get('tile')}{end}" + (f" +{points}" if points else "")
    elif kind == "tile_drawn":
        said = f"#{seat} draws {event.get('tile')}"
    elif kind == "game_ended":
        said = f"ends {event.get('reason')}"
    else:
        said = f"#{seat} " + {"passed": "passes", "resigned": "resigns"}.get(str(kind), str(kind))
    marks = " {auto}" if event.get("auto") else ""
    if event.get("deadline") is not None:
        marks += f" {{deadline {_json(event['deadline'])}}}"
    return f"{event['version']}. {said}{marks}"


def _round_lines(event: dict[str, Any], deal: dict[str, Any] | None) -> list[str]:
    engine = f", engine {event['engine_double']}" if "engine_double" in event else ""
    lines = [f"round {event.get('round')}: #{event.get('opener')} opens{engine}"]
    if deal is not None:
        lines += [f"  #{seat}:" + "".join(f" {t}" for t in hand) for seat, hand in enumerate(deal["hands"])]
        lines.append("  boneyard:" + "".join(f" {t}" for t in deal["boneyard"]))
    return lines


def _result_line(event: dict[str, Any], scores: list[int]) -> str:
    winner = "none" if event.get("winner") is None else f"#{event['winner']}"
    team = f"; team {event['team']}" if "team" in event else ""
    points = " ".join(str(p) for p in event.get("points") or [])
    total = " ".join(str(s) for s in scores)
    said = f"round {event.get('round')} ends: {event.get('end')}; winner {winner}{team}"
    return f"{said}; points {points}; scores {total}"


# -- reading -----------------------------------------------------------------------------------------------


def split_texts(text: str) -> list[str]:
    """The text records of a file or an export (``GET /v1/games/export``), where each is followed by a blank
    line: each record as :func:`read_text` reads it. A record begins with its ``notation`` tag, which no line of
    a record's body can be, so the split is exact."""
    body = text.rstrip("\n")
    if not body:
        return []
    first, *rest = body.split(f"\n\n[notation ")
    return [first + "\n", *(f"[notation {piece}\n" for piece in rest)]



def read_text(text: str) -> tuple[dict[str, Any], State]:
    """The JSON record a text renders, and the final state, from replaying it; :class:`NotationError` names
    the first line that is not what the notation (or the replay) puts there."""
    lines = text.split("\n")
    if lines[-1] != "":
        raise NotationError(len(lines), "a line break at the end of the record", lines[-1][:40])
    lines.pop()
    given, body_start = _read_tags(lines)
    body = enumerate(lines[body_start - 1 :], body_start)
    acts = [_read_commit(n, line) for n, line in body if not _DERIVED.fullmatch(line)]
    try:
        record, state = build(given, acts)
    except ReplayError as exc:
        if exc.line is not None:
            raise
        raise ReplayError(exc.reason, exc.round, exc.version, body_start) from exc
    rewritten = write_text(record).split("\n")[:-1]
    for n, (found, expected) in enumerate(zip(lines, rewritten), 1):
        if found != expected:
            raise NotationError(n, f"{expected!r} (what replaying the record gives)", found)
    if len(lines) != len(rewritten):
        n = min(len(lines), len(rewritten)) + 1
        replayed = f"{rewritten[n - 1]!r} (what replaying the record gives)"
        more = replayed if len(rewritten) >= n else "the end of the record"
        raise NotationError(n, more, lines[n - 1] if len(lines) >= n else "")
    return record, state


def _read_tags(lines: list[str]) -> tuple[dict[str, Any], int]:
    """The given facts of the tags, and the number of the first body line (after the blank one)."""
    given: dict[str, Any] = {"seats": []}
    n = 0
    for n, line in enumerate(lines, 1):
        if line == "":
            break
        match = _TAG.fullmatch(line)
        if match is None:
            raise NotationError(n, "a tag `[<name> <JSON value>]`, or a blank line before the moves", line[:40])
        tag, raw = match.groups()
        if tag not in TAG_NAMES:
            raise NotationError(n, "a tag named one of " + ", ".join(TAG_NAMES), tag)
        try:
            value = json.loads(raw)
        except ValueError:
            raise NotationError(n, f"a JSON value for the {tag!r} tag", raw[:40]) from None
        if tag == "seat":
            given["seats"].append(value)
        elif tag not in DERIVED_TAGS:
            given[tag] = value
    else:
        raise NotationError(n + 1, "a blank line after the tags, then the moves")
    for tag, required in TAGS:
        if required and tag not in (*DERIVED_TAGS, "seat") and tag not in given:
            raise NotationError(n, f"a [{tag} ...] tag before the blank line")
    if not given["seats"]:
        raise NotationError(n, "a [seat ...] tag for each seat before the blank line")
    return given, n + 1


def _read_commit(n: int, line: str) -> Act:
    match = _COMMIT.fullmatch(line)
    if match is None:
        raise NotationError(n, MOVE_LINE + ", or a round, deal or result line", line[:40])
    version, said, marks = int(match.group(1)), match.group(2), match.group(3)
    auto, deadline = False, None
    for mark in _MARK.finditer(marks):
        if mark.group(1) == "auto":
            auto = True
        else:
            deadline = json.loads(mark.group(2))
    if _MARK.sub("", marks):
        raise NotationError(n, "annotations `{auto}` or `{deadline <number>}`", marks.strip()[:40])
    return replace(_said(n, said), version=version, auto=auto, deadline=deadline, line=n)


def _said(n: int, said: str) -> Act:
    """What a commit line says was done (its version and annotations are the caller's)."""
    if said == "created":
        return Act(0, "created")
    ended = _ENDS.fullmatch(said)
    if ended is not None:
        return Act(0, "end", reason=ended.group(1))
    act = _SEAT_ACT.fullmatch(said)
    if act is None:
        raise NotationError(n, MOVE_LINE, said[:40])
    seat = int(act.group(1))
    if act.group("tile"):
        return Act(0, "play", seat, act.group("tile"), act.group("end"))
    if act.group("drawn"):
        return Act(0, "draw", seat, act.group("drawn"))
    if act.group("name"):
        try:
            name = json.loads(act.group("name"))
        except ValueError:
            raise NotationError(n, "the claimant's name as a JSON string", act.group("name")[:40]) from None
        return Act(0, "claim", seat, name=name)
    return Act(0, "pass" if act.group("word") == "passes" else "resign", seat)
