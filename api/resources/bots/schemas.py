from __future__ import annotations

import marshmallow as ma


class BotSchema(ma.Schema):
    class Meta:
        unknown = ma.INCLUDE

    id = ma.fields.String(required=True, metadata={"description": "use as `{\"bot\": id}` in a seat"})
    description = ma.fields.String(required=True)
    strength = ma.fields.String(required=True, metadata={"description": "measured strength, in words"})
