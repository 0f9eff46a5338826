"""The TLS of `signoff status`'s HTTP reader (run_http.py): the same CA, client
certificate and server name as the gRPC connection's settings (temporal_tls.py), with the
standard library's `ssl`, so that a cluster reached over TLS or mutual TLS is read over
HTTP too.

An API key is not sent over HTTP: that path was never tried against a cluster that
checks one, so a connection with a key keeps the gRPC path. Settings the gRPC path would
refuse (a client certificate without its key) take it as well, and it says what is wrong.
"""

from __future__ import annotations

import http.client
import socket
import ssl

from signoff.config.settings import Settings
from signoff.config.temporal_tls import secured


class NoHttpTls(Exception):
    """These settings are read over gRPC only."""


def tls_context(settings: Settings) -> ssl.SSLContext | None:
    """None for a plain connection; the context for TLS; NoHttpTls where HTTP must not
    be used (see the module note)."""
    if not secured(settings):
        return None
    if settings.temporal_api_key is not None or settings.temporal_api_key_file is not None:
        raise NoHttpTls("an API key")
    cert, key = settings.temporal_tls_client_cert_file, settings.temporal_tls_client_key_file
    if (cert is None) != (key is None):
        raise NoHttpTls("a client certificate without its key, or a key without it")
    ca = settings.temporal_tls_server_ca_file
    context = ssl.create_default_context(cafile=None if ca is None else str(ca))
    if cert is not None and key is not None:
        context.load_cert_chain(cert, key)
    return context


class NamedHttps(http.client.HTTPSConnection):
    """HTTPS to `host`, checking the server's certificate against `server_name` (the
    gRPC settings' SIGNOFF_TEMPORAL_TLS_SERVER_NAME) when one is given."""

    def __init__(
        self,
        host: str,
        port: int,
        *,
        context: ssl.SSLContext,
        server_name: str | None,
        timeout: float,
    ) -> None:
        super().__init__(host, port, timeout=timeout, context=context)
        self._tls = context
        self._server_name = server_name or host

    def connect(self) -> None:
        plain = socket.create_connection((self.host, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(plain, server_hostname=self._server_name)
