"""A server's pin: stable for the same tools in any order, changed by any change to what
the model is told or may send (a name, a description, an input schema, a tool more or
less)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from activities.mcp.pin import AdvertisedTool, pin_of

LOOKUP = AdvertisedTool(
    "lookup_warranty",
    "Looks up a warranty.",
    {"type": "object", "properties": {"order_id": {"type": "string"}}, "required": ["order_id"]},
)
LABEL = AdvertisedTool(
    "create_return_label",
    "Creates a label.",
    {"type": "object", "properties": {"order_id": {"type": "string"}}},
)
TOOLS = [LOOKUP, LABEL]


def test_the_pin_is_the_same_in_any_order_and_any_key_order() -> None:
    reordered_schema = replace(
        LOOKUP,
        input_schema={
            "required": ["order_id"],
            "properties": {"order_id": {"type": "string"}},
            "type": "object",
        },
    )
    assert pin_of([LABEL, reordered_schema]) == pin_of(TOOLS)
    assert len(pin_of(TOOLS)) == 64


@pytest.mark.parametrize(
    "changed",
    [
        [replace(LOOKUP, name="lookup_warranty2"), LABEL],
        [replace(LOOKUP, description="Looks up a warranty!"), LABEL],
        [replace(LOOKUP, description=None), LABEL],
        [replace(LOOKUP, input_schema={**LOOKUP.input_schema, "required": []}), LABEL],
        [
            LOOKUP,
            replace(
                LABEL,
                input_schema={"type": "object", "properties": {"order_id": {"type": "integer"}}},
            ),
        ],
        [LOOKUP],
        [*TOOLS, AdvertisedTool("delete_account", "Deletes.", {"type": "object"})],
    ],
    ids=[
        "name",
        "description",
        "no-description",
        "schema",
        "argument-type",
        "tool-removed",
        "tool-added",
    ],
)
def test_any_change_changes_the_pin(changed: list[AdvertisedTool]) -> None:
    assert pin_of(changed) != pin_of(TOOLS)
