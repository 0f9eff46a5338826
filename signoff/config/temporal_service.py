"""Temporal's gRPC service alone, for a command that only reads one run (`signoff status`).

Design note. `temporalio.client` costs about 0.2 s of imports on a 2-core machine (its
dataclasses, and the activity, workflow, nexus and schedule modules it loads), and the
tracing interceptor every `Client` carries loads the OpenTelemetry contrib and, with
it, `temporalio.worker`: another 0.1 s. `signoff status` needs none of that: it makes
single calls (describe, a query, the close event) on the service that `import
temporalio` loads anyway. The connection is the one `temporal_client.connect` makes:
the same address, namespace, TLS and API key (`connection_security`), the same
payload codec (payloads are decrypted here, as the client's converter would), the same
defaults. Nothing is traced: a read that starts nothing has no trace to carry, and the
CLI exports no spans (`temporal_client.connect`'s interceptor only propagates context).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from temporalio.service import ConnectConfig, ServiceClient

from signoff.config.payload_keys import PayloadCipher, payload_cipher
from signoff.config.settings import Settings
from signoff.config.temporal_tls import connection_security

if TYPE_CHECKING:
    from temporalio.client import Client


@dataclass(frozen=True)
class TemporalService:
    """The workflow service of the server, the namespace every request names, and the
    payload codec the worker encrypts with (None: payloads in clear)."""

    service: ServiceClient
    namespace: str
    codec: PayloadCipher | None = None


async def connect_service(settings: Settings) -> TemporalService:
    """Raises TemporalSettingsError for a TLS, API key or payload key setting it cannot
    use, and RuntimeError when the server cannot be reached (as `Client.connect` does)."""
    security = connection_security(settings)
    codec = payload_cipher(settings)
    service = await ServiceClient.connect(
        ConnectConfig(
            target_host=settings.temporal_address, tls=security.tls, api_key=security.api_key
        )
    )
    return TemporalService(service, settings.temporal_namespace, codec)


def service_of_client(client: Client) -> TemporalService:
    """The service of a client already connected (the UI's, the worker's), with the
    cipher of its payload codec: for the service's readers of a run (run_reading.py)."""
    # Here: `signoff status` imports this module, never the SDK's converter.
    from signoff.config.payload_codec import EncryptionCodec

    codec = client.data_converter.payload_codec
    cipher = codec.cipher if isinstance(codec, EncryptionCodec) else None
    return TemporalService(client.service_client, client.namespace, cipher)
