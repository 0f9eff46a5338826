"""The data converter of every signoff process: pydantic's JSON, with the wire context.

It is `temporalio.contrib.pydantic`'s converter, except that:

- each value is serialized with `WIRE_CONTEXT`, so that contracts leave their empty
  defaults out of the history (workflows/wire_contract.py). Reading is the same: a
  payload with or without those fields validates to the same contract, so histories
  recorded before replay unchanged;
- the pydantic adapters that read payloads are kept for the whole process. The SDK's
  converter keeps them per converter, and a worker makes a converter for each workflow
  run: every run built the adapter of its request, its update and each activity's result
  again (5 ms for a RunRequest against 0.1 ms to read one with a built adapter), 4 to
  5 % of a refund run's worker CPU in a py-spy profile of bench/runs. The types read
  are our contracts (`workflows`, passed through the sandbox, so one class a process)
  and the SDK's; the JSON converter itself is one for the process (`WIRE_JSON`).
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any

from pydantic import TypeAdapter
from pydantic_core import to_json
from temporalio.api.common.v1 import Payload
from temporalio.contrib.pydantic import PydanticJSONPlainPayloadConverter
from temporalio.converter import (
    CompositePayloadConverter,
    DataConverter,
    DefaultPayloadConverter,
    JSONPlainPayloadConverter,
)

from signoff.config.payload_codec import payload_codec
from signoff.config.settings import Settings
from workflows.wire_contract import WIRE_CONTEXT

# The adapters of a process (see above); bounded as the SDK bounds its own.
ADAPTERS_KEPT = 1024


@functools.lru_cache(maxsize=ADAPTERS_KEPT)
def kept_adapter(type_hint: Any) -> TypeAdapter[Any]:
    return TypeAdapter(type_hint)


class WireJSONPayloadConverter(PydanticJSONPlainPayloadConverter):
    """pydantic's `json/plain` converter, serializing in the wire context and reading
    with the process's adapters."""

    def to_payload(self, value: Any) -> Payload | None:
        data = to_json(value, context=WIRE_CONTEXT)
        return Payload(metadata={"encoding": self.encoding.encode()}, data=data)

    def from_payload(self, payload: Payload, type_hint: type | None = None) -> Any:
        hint = Any if type_hint is None else type_hint
        try:
            hash(hint)
        except TypeError:  # an unhashable hint cannot be kept: an adapter of its own
            return TypeAdapter(hint).validate_json(payload.data)
        return kept_adapter(hint).validate_json(payload.data)


# One for the process: it holds no state of a run. The SDK builds a payload converter
# for every workflow activation, and each new JSON converter built pydantic's `Any`
# serializer and an adapter cache of its own, which ours never uses (7 µs a converter
# against 2 µs with this one, timeit; py-spy --gil had put 1.5 % of the worker there).
WIRE_JSON = WireJSONPayloadConverter()


class WirePayloadConverter(CompositePayloadConverter):
    """The SDK's default converters, with ours in the place of plain JSON."""

    def __init__(self) -> None:
        json_converter = WIRE_JSON
        super().__init__(
            *(
                json_converter if isinstance(converter, JSONPlainPayloadConverter) else converter
                for converter in DefaultPayloadConverter.default_encoding_payload_converters
            )
        )


data_converter = DataConverter(payload_converter_class=WirePayloadConverter)


def data_converter_for(settings: Settings) -> DataConverter:
    """The converter of every process that reaches Temporal (client, worker, replayer):
    the one above, encrypting when SIGNOFF_PAYLOAD_KEYS is set (payload_codec.py).
    Raises PayloadKeyError for keys it cannot use."""
    codec = payload_codec(settings)
    if codec is None:
        return data_converter
    return dataclasses.replace(data_converter, payload_codec=codec)
