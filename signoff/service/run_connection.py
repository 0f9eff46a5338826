"""The face's way to Temporal: the connection `temporal_client.connect` makes, handed
over as the service's opaque `Runs` (handles.py), never as a client; and the runtime a
worker's connection is made with, so that no face imports Temporal to set it up."""

from __future__ import annotations

from typing import TYPE_CHECKING

from signoff.config.settings import Settings
from signoff.service.handles import Runs

if TYPE_CHECKING:
    from temporalio.runtime import Runtime


def worker_runtime(settings: Settings) -> Runtime | None:
    """The Temporal runtime a worker's connection is made with: one serving the SDK's
    metrics on SIGNOFF_TEMPORAL_METRICS_PORT, or None (the default one). A port it cannot
    bind is a ValueError, raised when this is called (the core binds it then)."""
    # Here too: only `signoff worker` loads the telemetry module, and temporalio.client.
    from signoff.config.telemetry import worker_runtime as runtime_for

    return runtime_for(settings)


async def connect(
    settings: Settings, runtime: Runtime | None = None, *, traced: bool = True
) -> Runs:
    """As `temporal_client.connect` (its errors too): `runtime` a worker's, `traced=False`
    for a command that makes no call the tracing interceptor traces."""
    # Here: `signoff status` imports this package's modules, never temporalio.client.
    from signoff.config.temporal_client import connect as connect_client

    return Runs(await connect_client(settings, runtime, traced=traced))
