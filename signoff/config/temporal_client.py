"""One way to reach Temporal: the same address, namespace and data converter everywhere."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.runtime import Runtime

from signoff.config.settings import Settings
from signoff.config.telemetry import client_interceptors


async def connect(settings: Settings, runtime: Runtime | None = None) -> Client:
    """A client; `runtime` is a worker's (Temporal's SDK metrics), None elsewhere."""
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=pydantic_data_converter,
        # Tracing context travels in Temporal's headers (signoff/config/telemetry.py).
        interceptors=client_interceptors(),
        runtime=runtime,
    )
