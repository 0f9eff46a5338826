"""One exchange with a declared MCP server: connect, initialize, list its tools.

The transport is the declaration's: a streamable HTTP URL, or a stdio command started
for the exchange and stopped after it (with `env` on top of the SDK's minimal default
environment, so the worker's own secrets do not leak into it). Every request waits at
most `timeout` seconds; callers bound the whole exchange too.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from mcp.client.session import ClientSession
from mcp_types import PaginatedRequestParams

from activities.mcp.pin import AdvertisedTool
from workflows.mcp_tools import McpServer

# A tool list longer than this many pages is a server paging forever, not a catalog.
MAX_TOOL_PAGES = 20


class EndlessToolList(Exception):
    """The server kept paging its tool list past MAX_TOOL_PAGES."""


@asynccontextmanager
async def connected(server: McpServer, timeout: float) -> AsyncIterator[ClientSession]:
    if server.url is not None:
        from mcp.client.streamable_http import streamable_http_client

        async with streamable_http_client(server.url) as (read, write):
            async with ClientSession(read, write, read_timeout_seconds=timeout) as session:
                await session.initialize()
                yield session
        return
    from mcp.client.stdio import StdioServerParameters, stdio_client

    program, *arguments = server.command or ("",)
    parameters = StdioServerParameters(command=program, args=arguments, env=dict(server.env))
    async with stdio_client(parameters) as (read, write):
        async with ClientSession(read, write, read_timeout_seconds=timeout) as session:
            await session.initialize()
            yield session


async def advertised_tools(session: ClientSession) -> list[AdvertisedTool]:
    tools: list[AdvertisedTool] = []
    cursor: str | None = None
    for _ in range(MAX_TOOL_PAGES):
        params = PaginatedRequestParams(cursor=cursor) if cursor is not None else None
        page = await session.list_tools(params=params)
        tools += [
            AdvertisedTool(tool.name, tool.description, dict(tool.input_schema))
            for tool in page.tools
        ]
        cursor = page.next_cursor
        if cursor is None:
            return tools
    raise EndlessToolList(f"more than {MAX_TOOL_PAGES} pages of tools")
