"""One way to reach Temporal: the same address, namespace, security and data converter
everywhere (the worker, the UI, every command; `signoff status` takes the same settings
to the bare service, temporal_service.py)."""

from __future__ import annotations

from temporalio.client import Client
from temporalio.runtime import Runtime

from signoff.config.data_converter import data_converter_for
from signoff.config.settings import Settings
from signoff.config.telemetry import client_interceptors
from signoff.config.temporal_tls import connection_security


async def connect(
    settings: Settings, runtime: Runtime | None = None, *, traced: bool = True
) -> Client:
    """A client; `runtime` is a worker's (Temporal's SDK metrics), None elsewhere.

    `traced=False` leaves the tracing interceptor out, and the 0.1 s of imports it costs
    (the OpenTelemetry contrib loads temporalio.worker): for a command that makes none
    of the calls it traces (starts, queries, signals, updates), such as listing runs or
    cancelling one. Raises TemporalSettingsError for a TLS, API key or payload key setting
    it cannot use."""
    security = connection_security(settings)
    return await Client.connect(
        settings.temporal_address,
        namespace=settings.temporal_namespace,
        data_converter=data_converter_for(settings),
        tls=security.tls,
        api_key=security.api_key,
        # Tracing context travels in Temporal's headers (signoff/config/telemetry.py).
        interceptors=client_interceptors() if traced else [],
        runtime=runtime,
    )
