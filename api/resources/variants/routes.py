from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service
from api.resources.common import json_response
from api.resources.variants.schemas import VariantsSchema

blp = Blueprint("variants", __name__, url_prefix="/v1/variants", description="Rule presets and options.")

EXAMPLE = {
    "presets": {"draw": {"description": "The Draw Game", "defaults": {"hand_size": {"2": 7, "3": 7, "4": 6}}}},
    "options": {"draw_policy": {"values": ["draw_until_playable", "draw_one", "no_draw"]}},
    "limits": {"seats": {"line": [2, 4], "mexican_train": [2, 10]}},
}


@blp.route("")
@blp.doc(operationId="listVariants")
@blp.response(200, VariantsSchema, example=EXAMPLE)
@blp.problems(E.INTERNAL, path="/v1/variants")
def list_variants() -> flask.Response:
    """List the variants (rule presets), every option with allowed values and defaults, and limits"""
    return json_response(current_service().variants(), headers={"Cache-Control": "public, max-age=300"})
