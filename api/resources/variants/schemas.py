from __future__ import annotations

import marshmallow as ma


class VariantsSchema(ma.Schema):
    """Presets, every option with its allowed values and defaults, and limits (from the engine)."""

    class Meta:
        unknown = ma.INCLUDE

    presets = ma.fields.Raw(metadata={"description": "the presets (variants) and their defaults"})
    options = ma.fields.Raw(
        metadata={"description": "every option: allowed values and defaults (what each does: docs/rules.md#options)"}
    )
    limits = ma.fields.Raw(metadata={"description": "seats per variant, sizes, ..."})
