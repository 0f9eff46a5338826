"""How signoff reaches a real Temporal cluster: TLS, mutual TLS and Temporal Cloud keys.

The dev server speaks plain gRPC, so nothing here applies unless a setting asks for it.
Every secret is read from the environment (`SIGNOFF_TEMPORAL_API_KEY`) or from a file
the environment names (certificates, keys, `SIGNOFF_TEMPORAL_API_KEY_FILE`: mounted
secrets), never from a command line, where `ps` would show it. Files are read when a
process connects, so a rotated certificate takes effect on the next start. A setting we
cannot use is refused with its variable's name and what to do, before any connection is
tried: a missing file is a configuration error, not an unreachable server.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from signoff.config.settings import Settings

if TYPE_CHECKING:  # imported where a connection is made: `secured` needs no temporalio
    from temporalio.service import TLSConfig

PEM_MARKER = b"-----BEGIN "


class TemporalSettingsError(ValueError):
    """A SIGNOFF_TEMPORAL_* setting that cannot be used; the message says what to do."""


@dataclass(frozen=True)
class ConnectionSecurity:
    """What `Client.connect` takes beside the address: `tls` and `api_key`."""

    tls: TLSConfig | bool
    api_key: str | None


def secured(settings: Settings) -> bool:
    """Whether the settings ask for TLS: asked for, or a CA, a client certificate, a
    server name or an API key given."""
    return (
        settings.temporal_tls
        or settings.temporal_api_key is not None
        or settings.temporal_api_key_file is not None
        or settings.temporal_tls_server_name is not None
        or any(
            path is not None
            for path in (
                settings.temporal_tls_server_ca_file,
                settings.temporal_tls_client_cert_file,
                settings.temporal_tls_client_key_file,
            )
        )
    )


def connection_security(settings: Settings) -> ConnectionSecurity:
    from temporalio.service import TLSConfig

    cert_file = settings.temporal_tls_client_cert_file
    key_file = settings.temporal_tls_client_key_file
    if (cert_file is None) != (key_file is None):
        raise TemporalSettingsError(
            "SIGNOFF_TEMPORAL_TLS_CLIENT_CERT_FILE and SIGNOFF_TEMPORAL_TLS_CLIENT_KEY_FILE "
            "go together: set both for mutual TLS, or neither."
        )
    api_key = _api_key(settings)
    if not secured(settings):
        return ConnectionSecurity(tls=False, api_key=None)
    tls = TLSConfig(
        server_root_ca_cert=_pem(
            settings.temporal_tls_server_ca_file, "SIGNOFF_TEMPORAL_TLS_SERVER_CA_FILE"
        ),
        client_cert=_pem(cert_file, "SIGNOFF_TEMPORAL_TLS_CLIENT_CERT_FILE"),
        client_private_key=_pem(key_file, "SIGNOFF_TEMPORAL_TLS_CLIENT_KEY_FILE"),
        domain=settings.temporal_tls_server_name,
    )
    return ConnectionSecurity(tls=tls, api_key=api_key)


def _api_key(settings: Settings) -> str | None:
    if settings.temporal_api_key is not None and settings.temporal_api_key_file is not None:
        raise TemporalSettingsError(
            "Both SIGNOFF_TEMPORAL_API_KEY and SIGNOFF_TEMPORAL_API_KEY_FILE are set: keep one."
        )
    if settings.temporal_api_key is not None:
        key = settings.temporal_api_key.get_secret_value().strip()
        variable = "SIGNOFF_TEMPORAL_API_KEY"
    elif settings.temporal_api_key_file is not None:
        variable = "SIGNOFF_TEMPORAL_API_KEY_FILE"
        key = _read(settings.temporal_api_key_file, variable).decode().strip()
    else:
        return None
    if not key:
        raise TemporalSettingsError(f"{variable} gives an empty API key.")
    return key


def _pem(path: Path | None, variable: str) -> bytes | None:
    if path is None:
        return None
    content = _read(path, variable)
    if PEM_MARKER not in content:
        raise TemporalSettingsError(
            f"{variable} names {path}, which holds no PEM block (-----BEGIN ...). "
            "Give the PEM file, not DER or a bundle in another format."
        )
    return content


def _read(path: Path, variable: str) -> bytes:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        raise TemporalSettingsError(
            f"{variable} names {path}, which does not exist. Fix the path, or mount the file."
        ) from None
    except OSError as error:
        raise TemporalSettingsError(
            f"{variable} names {path}, which cannot be read ({error.strerror}). Check that "
            "it is a file this user may read."
        ) from None
