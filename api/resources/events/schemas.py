from __future__ import annotations

import marshmallow as ma

EVENT_TYPES = [
    "game_created", "seat_claimed", "game_started", "round_started", "tile_played", "tile_drawn", "passed",
    "round_ended", "marker_placed", "marker_removed", "engine_double_placed", "resigned", "game_ended", "turn_started",
]  # fmt: skip


class EventsQuerySchema(ma.Schema):
    after = ma.fields.Integer(
        strict=False,
        validate=ma.validate.Range(min=-1, max=2**53),
        metadata={"description": "the events of versions greater than this (omit for all; `-1` too)"},
    )
    wait = ma.fields.Float(
        load_default=0.0,
        validate=ma.validate.Range(min=0, max=30),
        metadata={"description": "seconds to wait when there is no event yet (at most 30)"},
    )
    ticket = ma.fields.String(
        validate=ma.validate.Length(min=1, max=100),
        metadata={"description": "a stream ticket from `POST .../events/ticket` (for `EventSource`; never a token)"},
    )


class EventSchema(ma.Schema):
    """One event. `type` names it; the other members depend on the type (a drawn tile only for its seat)."""

    class Meta:
        unknown = ma.INCLUDE

    id = ma.fields.String(metadata={"description": "stream id `<version>-<n>`; SSE `id:`"})
    version = ma.fields.Integer(metadata={"description": "the game version this event belongs to"})
    type = ma.fields.String(metadata={"enum": EVENT_TYPES})
    seat = ma.fields.Integer(allow_none=True, metadata={"description": "the seat it concerns (null: the table)"})
    deadline = ma.fields.Float(
        metadata={"description": "games with `turn_timeout_s`: Unix time by which the seat to move must move"}
    )
    auto = ma.fields.Boolean(metadata={"description": "true: the server moved for a seat whose time ran out"})
    legal_moves = ma.fields.List(
        ma.fields.Dict(),
        metadata={
            "description": "`turn_started`, in the copy of the seat to move only: its legal moves, to post back "
            "with `expected_version` = this event's `version`"
        },
    )


class EventsPageSchema(ma.Schema):
    events = ma.fields.List(ma.fields.Nested(EventSchema))
    last_version = ma.fields.Integer(
        allow_none=True, metadata={"description": "pass as `after` next time (the `after` given when no event came)"}
    )
    ended = ma.fields.Boolean(metadata={"description": "the game is over: no more events will come"})
    seat = ma.fields.Integer(allow_none=True, metadata={"description": "whose private details are included"})


class TicketSchema(ma.Schema):
    ticket = ma.fields.String(metadata={"description": "use as `?ticket=`; it is not the seat token"})
    seat = ma.fields.Integer()
    expires_in = ma.fields.Integer(metadata={"description": "seconds"})
    url = ma.fields.String(metadata={"description": "the stream's URL with the ticket"})
