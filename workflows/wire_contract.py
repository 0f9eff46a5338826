"""Contracts that leave their empty defaults out of Temporal's payloads.

A history keeps every payload a run ever sent, and many of our fields are usually empty:
a reply's cache tokens (0 for a model or a turn without prompt caching), a tool call's
error (None when it worked), an outcome's lists of what was not done. A `WireContract`
names such fields in `WIRE_OMITS`; when serialized for Temporal (the data converter
passes `WIRE_CONTEXT`, signoff/config/data_converter.py) a named field whose value is
its default is left out, and reading the payload back gives the default again. Nowhere
else does anything change: `model_dump`, the API's JSON and its OpenAPI schema, the
CLI's `--json`.

Only empty defaults (None, "", 0, False, []) may be named, and they must never change:
a payload that left one out means that value for as long as its history is kept.
tests/unit/test_wire_contract.py holds both.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar

from pydantic import SerializationInfo, SerializerFunctionWrapHandler, model_serializer

from workflows.contract_base import Contract

WIRE_KEY = "signoff.wire"
# The context the data converter serializes Temporal payloads in (read-only: one for all).
WIRE_CONTEXT: Mapping[str, bool] = MappingProxyType({WIRE_KEY: True})


def on_the_wire(info: SerializationInfo) -> bool:
    """Whether this serialization is a Temporal payload (the data converter's context)."""
    context = info.context
    return isinstance(context, Mapping) and bool(context.get(WIRE_KEY))


class WireContract(Contract):
    """A contract some of whose fields stay off the wire at their (empty) default."""

    WIRE_OMITS: ClassVar[tuple[str, ...]] = ()

    # No return annotation on purpose: with one, pydantic would take the serialization
    # JSON schema (the API's OpenAPI document) from it instead of from the fields.
    @model_serializer(mode="wrap")
    def _leave_empty_defaults_off_the_wire(  # type: ignore[no-untyped-def]
        self, handler: SerializerFunctionWrapHandler, info: SerializationInfo
    ):
        data = handler(self)
        if not on_the_wire(info) or not isinstance(data, dict):
            return data
        fields = type(self).model_fields
        for name in self.WIRE_OMITS:
            if name in data and data[name] == fields[name].default:
                del data[name]
        return data
