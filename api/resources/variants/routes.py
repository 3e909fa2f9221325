from __future__ import annotations

import flask

from api import errors as E
from api.extensions import Blueprint, current_service
from api.resources.common import json_response
from api.resources.variants.schemas import VariantsSchema

blp = Blueprint("variants", __name__, url_prefix="/v1/variants", description="Rule presets and options.")

EXAMPLE = {
    "variants": [
        {
            "id": "draw",
            "players": {"min": 2, "max": 4, "advertised_max": 4},
            "defaults": {"set_max_pips": 6, "hand_size": {"2": 7, "3": 7, "4": 6}, "target_score": {"2": 100, "3": 61, "4": 61}},
        }
    ],
    "options": {
        "draw_policy": {
            "allowed": ["draw_until_playable", "draw_one", "no_draw"],
            "defaults": {"draw": "draw_until_playable", "block": "no_draw", "all_fives": "draw_one"},
        },
        "rounds": {"allowed": "integer", "defaults": {"mexican_train": 13}},
    },
    "limits": {"set_max_pips": {"min": 1, "max": 18}, "teams_players": 4},
}


@blp.route("")
@blp.doc(operationId="listVariants")
@blp.response(200, VariantsSchema, example=EXAMPLE)
@blp.problems(E.INTERNAL, path="/v1/variants")
def list_variants() -> flask.Response:
    """List the variants (rule presets), every option with allowed values and defaults, and limits"""
    return json_response(current_service().variants(), headers={"Cache-Control": "public, max-age=300"})
