"""The face's way to Temporal: the connection `temporal_client.connect` makes, handed
over as the service's opaque `Runs` (handles.py), never as a client."""

from __future__ import annotations

from typing import TYPE_CHECKING

from signoff.config.settings import Settings
from signoff.service.handles import Runs

if TYPE_CHECKING:
    from temporalio.runtime import Runtime


async def connect(
    settings: Settings, runtime: Runtime | None = None, *, traced: bool = True
) -> Runs:
    """As `temporal_client.connect` (its errors too): `runtime` a worker's, `traced=False`
    for a command that makes no call the tracing interceptor traces."""
    # Here: `signoff status` imports this package's modules, never temporalio.client.
    from signoff.config.temporal_client import connect as connect_client

    return Runs(await connect_client(settings, runtime, traced=traced))
