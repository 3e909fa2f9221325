from __future__ import annotations

import inspect
from typing import Any

import marshmallow as ma
from apispec import APISpec

from api.service.events import STREAM_ID
from api.resources.moves.schemas import TILE_PATTERN as TILE
from api.resources.moves.schemas import MoveSchema
from api.resources.seats.schemas import LobbySeatSchema
from domino.moves import END_PATTERN



class EventsQuerySchema(ma.Schema):
    after = ma.fields.Integer(
        strict=False,
        validate=ma.validate.Range(min=-1, max=2**53),
        metadata={
            "description": "the events of versions greater than this. Versions start at 0 (`game_created`, "
            "`round_started` and the first `turn_started` are version 0): omit `after` (or send `-1`) on the "
            "first call to get every event from the start; then pass the page's `last_version`"
        },
    )
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "long poll: seconds to wait when there is no event yet (at most 30; default 0)"},
    )
    ticket = ma.fields.String(
        validate=ma.validate.Length(min=1, max=100),
        metadata={
            "description": "a stream ticket from `POST .../events/ticket`, for `EventSource` (which cannot send "
            "headers); single use, never a seat token"
        },
    )


class EventsHeadersSchema(ma.Schema):
    last_event_id = ma.fields.String(
        data_key="Last-Event-ID",
        validate=ma.validate.Regexp(STREAM_ID),
        metadata={
            "description": "resume after this event id (`EventSource` sends it when it reconnects): the events "
            "after it, no gap, no duplicate; overrides `after`. Long poll and Server-Sent Events alike; an empty "
            "value is no event id (422)",
            "example": "17-2",
        },
    )


# -- one schema per event type -----------------------------------------------------------------------------
# Documentation only: events are built by hand (domino.engine, the variants, api.service, api.lobby,
# api.turns) and rendered by api.events.render. Every schema lets unknown members through, so that a member
# added later breaks no client.


def _type(name: str) -> ma.fields.String:
    return ma.fields.String(required=True, validate=ma.validate.Equal(name))


def _tile(description: str, example: str = "6-4", **kwargs: Any) -> ma.fields.String:
    return ma.fields.String(
        validate=ma.validate.Regexp(TILE), metadata={"description": description, "example": example}, **kwargs
    )


def _seat(description: str) -> ma.fields.Integer:
    return ma.fields.Integer(required=True, metadata={"description": description})


class _EventSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE  # documented as additionalProperties: true

    id = ma.fields.String(
        required=True,
        validate=ma.validate.Regexp(STREAM_ID),
        metadata={"description": "stream id `<version>-<n>`; SSE `id:`", "example": "18-1"},
    )
    version = ma.fields.Integer(
        required=True, validate=ma.validate.Range(min=0), metadata={"description": "the game version it belongs to"}
    )
    type = ma.fields.String(required=True)  # each type's schema narrows it to its one value
    seat = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "the seat it concerns (null: the whole table)"}
    )
    deadline = ma.fields.Float(
        metadata={
            "description": "games with `turn_timeout_s`: Unix time by which the seat to move after this commit "
            "must move"
        }
    )
    auto = ma.fields.Boolean(metadata={"description": "`true`: the server moved for a seat whose time ran out"})


class GameCreatedEventSchema(_EventSchema):
    """The game was created (version 0)."""

    type = _type("game_created")
    variant = ma.fields.String(required=True, metadata={"description": "the preset"})
    seats = ma.fields.List(ma.fields.Nested(LobbySeatSchema), required=True)
    seed_commitment = ma.fields.String(required=True, metadata={"description": "SHA-256 hex of `<seed>:<salt>`"})
    client_seeded = ma.fields.Boolean(required=True)
    metadata = ma.fields.Dict(metadata={"description": "the game's metadata, when it was created with some"})


class SeatClaimedEventSchema(_EventSchema):
    """An open seat was claimed."""

    type = _type("seat_claimed")
    seat = _seat("the claimed seat")
    name = ma.fields.String(required=True, metadata={"description": "the claimant's name"})


class GameStartedEventSchema(_EventSchema):
    """The last open seat was claimed: play begins."""

    type = _type("game_started")
    turn = ma.fields.Integer(required=True, metadata={"description": "the seat to move"})


class RoundStartedEventSchema(_EventSchema):
    """A round was dealt."""

    type = _type("round_started")
    round = ma.fields.Integer(required=True, metadata={"description": "from 1"})
    opener = ma.fields.Integer(
        required=True, metadata={"description": "the seat that opens (Mexican Train: that places the engine double)"}
    )
    engine_double = _tile("Mexican Train: this round's engine double", "12-12")
    lead = _tile("private, in the opener's copy only: the tile it must lead (line games that say which)")


class TilePlayedEventSchema(_EventSchema):
    """A seat laid a tile."""

    type = _type("tile_played")
    seat = _seat("the seat that played")
    tile = _tile("the tile", required=True)
    end = ma.fields.String(
        required=True,
        allow_none=True,
        validate=ma.validate.Regexp(END_PATTERN),
        metadata={
            "description": "where: `left`, `right`, `up` or `down` in line games (null: the round's opening "
            "tile); `train:<seat>` or `mexican` in Mexican Train"
        },
    )
    points = ma.fields.Integer(required=True, metadata={"description": "All Fives: what the play scored (else 0)"})


class TileDrawnEventSchema(_EventSchema):
    """A seat drew a tile from the boneyard; which one, only that seat sees."""

    type = _type("tile_drawn")
    seat = _seat("the seat that drew")
    boneyard_count = ma.fields.Integer(required=True, metadata={"description": "tiles left in the boneyard"})
    search = ma.fields.Boolean(
        metadata={"description": "Mexican Train: `true` for a draw searching for the engine double"}
    )
    tile = _tile("private, in the copy of `seat` only: the tile drawn")


class PassedEventSchema(_EventSchema):
    """A seat passed."""

    type = _type("passed")
    seat = _seat("the seat that passed")


class RoundEndedEventSchema(_EventSchema):
    """A round ended: how, and what it was worth."""

    type = _type("round_ended")
    round = ma.fields.Integer(required=True)
    end = ma.fields.String(
        required=True,
        validate=ma.validate.OneOf(["domino", "blocked", "abandoned"]),
        metadata={"description": "`domino`: a seat went out; `abandoned`: the target was reached during play"},
    )
    winner = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={"description": "the seat that went out or had the fewest pips (null: a tie, or abandoned)"},
    )
    pips_left = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "per seat"})
    hands = ma.fields.List(
        ma.fields.List(ma.fields.String(validate=ma.validate.Regexp(TILE))),
        required=True,
        metadata={"description": "every seat's hand, revealed"},
    )
    points = ma.fields.List(
        ma.fields.Integer(),
        required=True,
        metadata={"description": "what each seat gained this round (Mexican Train: its penalty)"},
    )
    award = ma.fields.List(
        ma.fields.Integer(), required=True, metadata={"description": "the end-of-round part of `points`"}
    )
    why = ma.fields.String(required=True)
    team = ma.fields.Integer(
        metadata={"description": "team games: the team that won the round (0: seats 0 and 2; absent on a tie)"}
    )


class MarkerPlacedEventSchema(_EventSchema):
    """Mexican Train: a seat's train was marked: open to everyone."""

    type = _type("marker_placed")
    seat = _seat("the seat whose train it is")
    train = ma.fields.String(required=True, metadata={"example": "train:2"})


class MarkerRemovedEventSchema(MarkerPlacedEventSchema):
    """Mexican Train: a seat played on its own marked train, which is private again."""

    type = _type("marker_removed")


class EngineDoublePlacedEventSchema(_EventSchema):
    """Mexican Train: the round's engine double was placed in the hub."""

    type = _type("engine_double_placed")
    seat = _seat("the seat that held or found it")
    tile = _tile("the engine double", "12-12", required=True)


class ResignedEventSchema(_EventSchema):
    """A seat resigned; `game_ended` follows."""

    type = _type("resigned")
    seat = _seat("the seat that resigned")


class GameEndedEventSchema(_EventSchema):
    """The match is over; no event follows."""

    type = _type("game_ended")
    reason = ma.fields.String(
        required=True, validate=ma.validate.OneOf(["target_score", "fixed_rounds", "resigned", "expired", "aborted"])
    )
    winners = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "the winning seats"})
    team = ma.fields.Integer(required=True, allow_none=True, metadata={"description": "team games: the winning team"})
    scores = ma.fields.List(ma.fields.Integer(), required=True, metadata={"description": "the final scores, per seat"})


class RematchCreatedEventSchema(_EventSchema):
    """After the game ended, its table plays again: the new game (`POST .../rematch`)."""

    type = _type("rematch_created")
    next_game_id = ma.fields.String(required=True, metadata={"description": "the new game's id"})


class HintUsedEventSchema(_EventSchema):
    """A game with hints: the seat to move asked for one (`POST .../hint`). The turn goes on as it was: a
    `turn_started` with the same `deadline` follows. The values are in the answer to that seat only."""

    type = _type("hint_used")
    seat = _seat("the seat that asked")
    hints_used = ma.fields.Integer(required=True, metadata={"description": "the hints that seat has asked for, this one included"})


class TurnStartedEventSchema(_EventSchema):
    """A seat is to move: the last event of every change that leaves one to move (never in the history)."""

    type = _type("turn_started")
    seat = _seat("the seat to move")
    clock = ma.fields.Dict(
        metadata={
            "description": "games with a Fischer `clock`: each seat's bank at this commit (`remaining`) and "
            "`turn_started_at`, as in the view"
        }
    )
    legal_moves = ma.fields.List(
        ma.fields.Nested(MoveSchema),
        metadata={
            "description": "private, in the copy of `seat` only: its legal moves, to post back with "
            "`expected_version` = this event's `version`"
        },
    )


EVENT_SCHEMAS: dict[str, type[ma.Schema]] = {
    "game_created": GameCreatedEventSchema,
    "seat_claimed": SeatClaimedEventSchema,
    "game_started": GameStartedEventSchema,
    "round_started": RoundStartedEventSchema,
    "tile_played": TilePlayedEventSchema,
    "tile_drawn": TileDrawnEventSchema,
    "passed": PassedEventSchema,
    "round_ended": RoundEndedEventSchema,
    "marker_placed": MarkerPlacedEventSchema,
    "marker_removed": MarkerRemovedEventSchema,
    "engine_double_placed": EngineDoublePlacedEventSchema,
    "resigned": ResignedEventSchema,
    "game_ended": GameEndedEventSchema,
    "rematch_created": RematchCreatedEventSchema,
    "hint_used": HintUsedEventSchema,
    "turn_started": TurnStartedEventSchema,
}


class OtherEventSchema(_EventSchema):
    """An event of a type this document does not list yet.

    New event types may be added within v1: each gets a schema of its own in this document and joins `Event`,
    and no existing type changes meaning. A client built from an older document gets such events as
    `OtherEvent` (listed last in `Event`, so every known type matches its own schema first) and should skip
    them."""

    type = ma.fields.String(required=True, metadata={"description": "the new type's name"})


def document(spec: APISpec) -> None:
    """Name each type's schema and make `Event` the union of them, told apart by `type` (for typed clients)."""
    mapping = {}
    for event_type, schema in EVENT_SCHEMAS.items():
        name = schema.__name__.removesuffix("Schema")
        spec.components.schema(name, {"description": inspect.cleandoc(schema.__doc__ or "")}, schema=schema)
        mapping[event_type] = f"#/components/schemas/{name}"
    spec.components.schema(
        "OtherEvent", {"description": inspect.cleandoc(OtherEventSchema.__doc__ or "")}, schema=OtherEventSchema
    )
    spec.components.schema(
        "Event",
        {
            "description": "One event: `type` says which, and so which members it has. Private details (the "
            "tile a seat drew, its legal moves) are only in that seat's copy, and in the history once the game "
            "is over; the spectator's copy never has them. Events may gain members, and new types may be "
            "added (see `OtherEvent`): ignore what you do not know. `anyOf`, not `oneOf`: an event of a known "
            "type also matches `OtherEvent`, the catch-all.",
            "anyOf": [{"$ref": ref} for ref in mapping.values()] + [{"$ref": "#/components/schemas/OtherEvent"}],
            "discriminator": {"propertyName": "type", "mapping": mapping},
        },
    )


class EventsPageSchema(ma.Schema):
    # Built by hand: documented by reference to the `Event` union (see document()).
    events = ma.fields.Raw(
        required=True,
        metadata={"schema": {"type": "array", "items": {"$ref": "#/components/schemas/Event"}}},
    )
    last_version = ma.fields.Integer(
        required=True,
        allow_none=True,
        metadata={
            "description": "pass as `after` next time (the `after` given when no event came; null when neither)"
        },
    )
    ended = ma.fields.Boolean(required=True, metadata={"description": "the game is over: no more events will come"})
    seat = ma.fields.Integer(
        required=True, allow_none=True, metadata={"description": "whose private details are included"}
    )


class TicketSchema(ma.Schema):
    ticket = ma.fields.String(
        required=True, metadata={"description": "use once as `?ticket=`; it is not the seat token"}
    )
    seat = ma.fields.Integer(required=True)
    expires_in = ma.fields.Integer(required=True, metadata={"description": "seconds"})
    url = ma.fields.String(required=True, metadata={"description": "the stream's URL with the ticket"})
