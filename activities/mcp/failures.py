"""Which failures of an MCP exchange mean "the server is down, try again later".

A server that refuses the connection, times out, drops the stream or whose process
exits is out of reach, not wrong: the activity raises for Temporal to retry. Anything
else (a reply the SDK cannot parse, a result that breaks its own output schema) is the
server answering nonsense, which retrying will not fix.

The SDK runs its transports in anyio task groups, so a failure may arrive wrapped in an
`ExceptionGroup`; its leaves are what count.
"""

from __future__ import annotations

import anyio
import httpx2
from mcp.shared.exceptions import MCPError
from mcp_types import CONNECTION_CLOSED, REQUEST_TIMEOUT

UNREACHABLE: tuple[type[BaseException], ...] = (
    httpx2.TransportError,  # refused, reset, timed out, DNS
    httpx2.HTTPStatusError,  # a proxy or the server's front answering 5xx, 404
    OSError,  # a stdio command that cannot start; a socket error
    TimeoutError,  # signoff's own deadline (anyio.fail_after)
    anyio.ClosedResourceError,
    anyio.BrokenResourceError,
    anyio.EndOfStream,  # a stdio server that exited
)
UNREACHABLE_CODES = (REQUEST_TIMEOUT, CONNECTION_CLOSED)


def leaves(error: BaseException) -> list[BaseException]:
    if isinstance(error, BaseExceptionGroup):
        return [leaf for inner in error.exceptions for leaf in leaves(inner)]
    return [error]


def is_unreachable(error: BaseException) -> bool:
    for leaf in leaves(error):
        if isinstance(leaf, UNREACHABLE):
            return True
        if isinstance(leaf, MCPError) and leaf.code in UNREACHABLE_CODES:
            return True
    return False


def protocol_error(error: BaseException) -> MCPError | None:
    """The server's JSON-RPC error (unknown tool, invalid arguments), if that is what
    `error` is: the server's own answer, passed on to the model as its error text."""
    found = [leaf for leaf in leaves(error) if isinstance(leaf, MCPError)]
    return found[0] if len(found) == 1 and len(leaves(error)) == 1 else None
