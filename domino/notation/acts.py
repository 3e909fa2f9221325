"""A record's facts and the engine: what each commit did (an :class:`Act`), and the whole record rebuilt from
the facts by playing them through the public engine (:func:`build`).

Everything else in a record (every engine event, the rounds' results, the deals, the outcome) follows from the
seed, the rules and the acts; :func:`build` derives it, so a record that replays is one :func:`build` gives
back exactly (:func:`check`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from domino.engine import end, new_game, opening_events, resign, step
from domino.errors import DominoError, ReplayError
from domino.moves import parse_move
from domino.rules import Rules
from domino.state import Event, State

# The record's own facts, given rather than derived (the seats as they ended; ``version``: the game's last).
GIVEN = (
    "id", "variant", "version", "seats", "rules", "seed_commitment", "client_seeded", "metadata", "seed", "salt",
    "created_at", "arena", "deal_version",
)  # fmt: skip
# Every key a record carries, in the history's order.
KEYS = (
    "id", "variant", "status", "version", "seat", "seats", "rules", "rounds", "events", "outcome", "seed_commitment",
    "client_seeded", "metadata", "deals", "seed", "salt", "created_at", "arena", "deal_version",
)  # fmt: skip
MOVE_KINDS = {"tile_played": "play", "tile_drawn": "draw", "passed": "pass", "resigned": "resign"}
OPEN_SEAT = "open"


@dataclass(frozen=True)
class Act:
    """One commit of the game: its creation, a seat claimed, a seat's move (``play``, ``draw``, ``pass``,
    ``resign``), or the server ending it (``end``, with its ``reason``); ``auto`` when the server moved for the
    seat; ``deadline``: the next turn's, set by the commit."""

    version: int
    kind: str  # created, claim, play, draw, pass, resign, end
    seat: int | None = None
    tile: str | None = None  # the tile played, or drawn
    end: str | None = None
    name: str | None = None  # the claimant's
    auto: bool = False
    deadline: float | None = None
    line: int | None = None  # in the text it came from
    reason: str | None = None  # an end's: expired or aborted


def canonical(record: dict[str, Any]) -> dict[str, Any]:
    """The keys of ``record`` a record carries (a history read by a seat also says which: ``seat`` is null)."""
    out = {k: record[k] for k in KEYS if k in record}
    out["seat"] = None
    return out


def acts_of(record: dict[str, Any]) -> list[Act]:
    """The acts of a JSON record, one per commit: its events grouped by version, the first saying what it was."""
    events = record.get("events")
    if not isinstance(events, list):
        raise ReplayError("the record's 'events' are a list")
    groups: dict[int, list[dict[str, Any]]] = {}
    for n, event in enumerate(events):
        if not isinstance(event, dict) or type(event.get("version")) is not int:
            raise ReplayError(f"event {n} of the record is not an event with a whole-number 'version'")
        groups.setdefault(event["version"], []).append(event)
    return [act_of(version, group[0]) for version, group in groups.items()]


def act_of(version: int, first: dict[str, Any]) -> Act:
    """The act of the commit at ``version`` whose first event (as a finished game shows it) is ``first``."""
    kind, seat = first.get("type"), first.get("seat")
    auto, deadline = bool(first.get("auto", False)), first.get("deadline")
    if kind == "game_created":
        return Act(version, "created", auto=auto, deadline=deadline)
    if kind == "seat_claimed":
        return Act(version, "claim", seat, name=first.get("name"), auto=auto, deadline=deadline)
    if kind in MOVE_KINDS:
        return Act(version, MOVE_KINDS[kind], seat, first.get("tile"), first.get("end"), auto=auto, deadline=deadline)
    if kind == "game_ended":  # with no move before it: the server ended the game
        return Act(version, "end", reason=first.get("reason"), auto=auto, deadline=deadline)
    why = f"a commit starts with a {kind!r} event, not a move, a claim, an end or the game's creation"
    raise ReplayError(why, version=version)


def build(given: dict[str, Any], acts: list[Act]) -> tuple[dict[str, Any], State]:
    """The whole record the acts make, played through the engine from ``given`` (the :data:`GIVEN` keys), and
    the final state. Raises :class:`ReplayError` naming the act the engine refuses."""
    try:
        rules = Rules.from_dict(given["rules"])
    except (DominoError, KeyError, TypeError, ValueError, AttributeError) as exc:
        raise ReplayError(f"the rules are not valid: {exc}") from exc
    seats = given.get("seats")
    numbers = [s.get("seat") if isinstance(s, dict) else None for s in seats] if isinstance(seats, list) else None
    if numbers != list(range(rules.players)):
        raise ReplayError(f"the seats are {rules.players} objects numbered from 0, in order")
    state = _first_state(rules, given)
    claims = {a.seat for a in acts if a.kind == "claim"}
    open_seats = set(claims)
    events: list[dict[str, Any]] = []
    last = -1
    for act in acts:
        if act.version <= last or (act.kind == "created") != (act.version == 0):
            why = "the game is created at version 0 and each later commit comes at a later version"
            raise ReplayError(why, version=act.version, line=act.line)
        last = act.version
        if open_seats and act.kind not in ("created", "claim", "end"):
            raise ReplayError("a move before every seat is taken", state.round, act.version, act.line)
        state, made = _perform(given, act, state, open_seats, claims)
        marks: dict[str, Any] = {} if act.deadline is None else {"deadline": act.deadline}
        if act.auto:
            marks["auto"] = True
        events += [{"id": f"{act.version}-{n}", "version": act.version, **e, **marks} for n, e in enumerate(made, 1)]
    return _record({**given, "rules": rules.to_dict()}, state, events), state


def _first_state(rules: Rules, given: dict[str, Any]) -> State:
    try:
        return new_game(rules, seed=str(given["seed"]), deal_version=given.get("deal_version", 1))
    except DominoError as exc:
        raise ReplayError(f"the game cannot be dealt: {exc}") from exc


def _perform(
    given: dict[str, Any], act: Act, state: State, open_seats: set[int | None], claims: set[int | None]
) -> tuple[State, list[dict[str, Any]]]:
    """The state after ``act`` and the events it made (as a finished game's history shows them)."""
    if act.kind == "created":
        created = {
            "type": "game_created", "seat": None, "variant": given["variant"],
            "seats": _seats_at_creation(given, claims), "seed_commitment": given["seed_commitment"],
            "client_seeded": given["client_seeded"],
            **({"metadata": given["metadata"]} if "metadata" in given else {}),
        }  # fmt: skip
        return state, [created, *_revealed(opening_events(state))]
    if act.kind == "claim":
        if act.seat not in open_seats:
            raise ReplayError(f"seat {act.seat} is not open", version=act.version, line=act.line)
        open_seats.discard(act.seat)
        made: list[dict[str, Any]] = [{"type": "seat_claimed", "seat": act.seat, "name": act.name}]
        if not open_seats:
            made.append({"type": "game_started", "seat": None, "turn": state.to_move})
        return state, made
    try:
        if act.kind == "resign":
            if not isinstance(act.seat, int):
                raise ReplayError("a resignation names its seat", state.round, act.version, act.line)
            after, events = resign(state, act.seat)
        elif act.kind == "end":
            after, events = end(state, str(act.reason))
        else:
            move = parse_move({"type": act.kind, "tile": act.tile, "end": act.end})
            after, events = step(state, move, seat=act.seat)
    except DominoError as exc:
        if isinstance(exc, ReplayError):
            raise
        raise ReplayError(f"seat {act.seat} may not {_said(act)}: {exc}", state.round, act.version, act.line) from exc
    return after, _revealed(events)


def _said(act: Act) -> str:
    said = {"play": f"play {act.tile} {act.end or ''}".rstrip(), "draw": "draw", "pass": "pass", "end": f"end {act.reason}"}
    return said.get(act.kind, act.kind)


def _revealed(events: tuple[Event, ...]) -> list[dict[str, Any]]:
    """Events in full: a finished game reveals every private detail."""
    return [e.to_dict(for_seat=e.private_to) for e in events]


def _seats_at_creation(given: dict[str, Any], claims: set[int | None]) -> list[dict[str, Any]]:
    """The seats as created: a seat claimed later was open (nameless; its ``player`` and ``metadata`` stay)."""
    seats = []
    for s in given["seats"]:
        if s["seat"] in claims:
            extras = {k: v for k, v in s.items() if k not in ("seat", "name", "kind")}
            s = {"seat": s["seat"], "name": None, "kind": OPEN_SEAT, **extras}
        seats.append(s)
    return seats


def _record(given: dict[str, Any], state: State, events: list[dict[str, Any]]) -> dict[str, Any]:
    deals = [{"round": r.round, **r.deal.to_dict()} for r in state.rounds]
    if not any(d["round"] == state.round for d in deals):
        deals.append({"round": state.round, **state.deal.to_dict()})
    outcome = state.outcome
    derived = {
        "status": "playing" if outcome is None else "aborted" if outcome.reason == "aborted" else "finished",
        "seat": None,
        "rounds": [r.to_dict() for r in state.rounds],
        "events": events,
        "outcome": outcome.to_dict() if outcome is not None else None,
        "deals": deals,
    }
    merged = {**{k: v for k, v in given.items() if k in GIVEN}, **derived}
    return {k: merged[k] for k in KEYS if k in merged}


def check(record: dict[str, Any], rebuilt: dict[str, Any]) -> None:
    """Raise :class:`ReplayError` at the first thing ``record`` says that replaying it (``rebuilt``) does not."""
    said, replayed = record.get("events") or [], rebuilt["events"]
    round_no = None
    for ours, theirs in zip(said, replayed):
        if theirs.get("type") == "round_started":
            round_no = theirs.get("round")
        if ours != theirs:
            why = f"the record has {_shown(ours)}, the engine {_shown(theirs)}"
            raise ReplayError(why, round_no, theirs["version"])
    if len(said) != len(replayed):
        raise ReplayError(f"the record has {len(said)} events, the replay {len(replayed)}")
    given = canonical(record)
    for key in ("rounds", "deals"):  # by round, field by field, to say where
        for ours, theirs in zip(given.get(key) or [], rebuilt[key]):
            for field in {**ours, **theirs}:
                if ours.get(field) != theirs.get(field):
                    said = f"{ours.get(field)!r} in the record, {theirs.get(field)!r} on replay"
                    raise ReplayError(f"the {key[:-1]}'s {field!r} is {said}", theirs.get("round"))
    for key in KEYS:
        if given.get(key) != rebuilt.get(key):
            raise ReplayError(f"{key!r} is {given.get(key)!r} in the record, {rebuilt.get(key)!r} on replay")


def _shown(event: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v}" for k, v in event.items() if k not in ("id", "version"))
