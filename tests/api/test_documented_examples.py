"""Every example in the OpenAPI document is valid against the schema it illustrates: Swagger UI shows them,
and a client written from them must get what the schemas promise."""

from __future__ import annotations

import json
from typing import Any, Iterator

import jsonschema_rs
import pytest

from conftest import openapi_document

DOC = openapi_document()


def _validator(schema: dict[str, Any]) -> Any:
    return jsonschema_rs.validator_for({**schema, "components": DOC["components"]})


def _examples(media: dict[str, Any]) -> Iterator[tuple[str, Any]]:
    if "example" in media:
        yield "example", media["example"]
    for name, example in media.get("examples", {}).items():
        if "value" in example:
            yield name, example["value"]


def documented_examples() -> Iterator[Any]:
    """(schema, example) of every JSON example of a request body, a response or a parameter, in the paths
    and the webhooks."""
    for path, item in {**DOC["paths"], **DOC.get("webhooks", {})}.items():
        for method, op in item.items():
            if method == "parameters":
                continue
            where = f"{method.upper()} {path}"
            for mime, media in op.get("requestBody", {}).get("content", {}).items():
                if "json" in mime and "schema" in media:
                    for name, value in _examples(media):
                        yield pytest.param(media["schema"], value, id=f"{where} body {name}")
            for status, response in op.get("responses", {}).items():
                if "$ref" in response:
                    response = DOC["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
                for mime, media in response.get("content", {}).items():
                    if "json" in mime and "schema" in media:
                        for name, value in _examples(media):
                            yield pytest.param(media["schema"], value, id=f"{where} {status} {name}")
            for param in op.get("parameters", []):
                if "schema" in param and "example" in param:
                    yield pytest.param(param["schema"], param["example"], id=f"{where} {param['name']}")


@pytest.mark.parametrize(("schema", "example"), list(documented_examples()))
def test_every_documented_example_fits_its_schema(schema: dict[str, Any], example: Any) -> None:
    errors = [f"{e.instance_path}: {e.message}" for e in _validator(schema).iter_errors(example)]
    assert not errors, json.dumps(errors, indent=1)


def test_the_examples_are_found() -> None:
    assert len(list(documented_examples())) > 50
