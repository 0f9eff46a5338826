"""The pydantic adapters that read payloads are kept for the process, not for one
converter: a worker makes a payload converter for each workflow run, and each run built
the adapter of its request, update and activity results again
(signoff/config/data_converter.py)."""

from __future__ import annotations

from typing import Annotated, Any

from signoff.config.data_converter import WirePayloadConverter, kept_adapter
from workflows.contracts import ModelRef


def test_two_converters_read_with_one_adapter_a_type_and_read_the_same() -> None:
    model = ModelRef(provider="scripted", model_id="demo")
    [payload] = WirePayloadConverter().to_payloads([model])
    kept_adapter.cache_clear()
    first_run, second_run = WirePayloadConverter(), WirePayloadConverter()
    assert first_run.from_payloads([payload], [ModelRef]) == [model]
    assert second_run.from_payloads([payload], [ModelRef]) == [model]
    kept = kept_adapter.cache_info()
    assert (kept.misses, kept.hits) == (1, 1)


def test_an_unhashable_hint_still_reads_with_an_adapter_of_its_own() -> None:
    [payload] = WirePayloadConverter().to_payloads([7])
    kept_adapter.cache_clear()
    unhashable: Any = Annotated[int, ["metadata a hash cannot take"]]
    assert WirePayloadConverter().from_payloads([payload], [unhashable]) == [7]
    assert kept_adapter.cache_info().currsize == 0
