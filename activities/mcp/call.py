"""One call of a declared MCP tool, and its one `ToolResult`.

Before it calls, the connector lists the server's tools again and checks the pin: a
server that changed its tools between the offer and the call is not called. An
irreversible tool's call carries the run's key in `_meta` (`IDEMPOTENCY_META_KEY`), so
a retry after an unknown outcome reaches a server that applies it once.

What comes back is third-party data. A result becomes JSON with its provenance,
`{"provenance": ..., "content": TEXT}`, or `{"provenance": ..., "error": TEXT}` when the
tool answered with an error; TEXT is the field that is cut to the tool-result limit.
A server out of reach raises `McpServerUnavailable` for Temporal to retry; an answer the
SDK cannot read becomes a fixed message with a reference (the details go to the log).
"""

from __future__ import annotations

import json
import logging
import uuid
from dataclasses import dataclass
from typing import Any, cast

import anyio
from mcp_types import CallToolResult, RequestParamsMeta, TextContent

from activities.mcp.failures import is_unreachable, leaves, protocol_error
from activities.mcp.pin import pin_of
from activities.mcp.session import advertised_tools, connected
from activities.tool_output import dumps_with_bounded_field
from workflows.contracts import ToolResult
from workflows.mcp_tools import IDEMPOTENCY_META_KEY, McpServer

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class McpTarget:
    """One call as the worker makes it: the model's call, and the server as the worker's
    own profile declares it (activities/held_profiles.py), never as an input said."""

    run_id: str
    tool_use_id: str
    idempotency_key: str
    server_name: str
    server: McpServer
    tool: str  # the server's own name for it
    arguments: dict[str, Any]


class McpServerUnavailable(Exception):
    """The server did not answer: worth another attempt later."""


@dataclass(frozen=True)
class _NotCalled:
    why: str


def provenance(server: str, tool: str) -> str:
    return f"MCP server {server}, tool {tool}, unverified third-party output"


def _text_of(result: CallToolResult) -> str:
    parts = [
        block.text if isinstance(block, TextContent) else f"[{block.type} content omitted]"
        for block in result.content
    ]
    if not parts and result.structured_content is not None:
        return json.dumps(result.structured_content, ensure_ascii=False)
    return "\n".join(parts)


async def _exchange(request: McpTarget, timeout: float) -> CallToolResult | _NotCalled:
    server, tool = request.server, request.tool
    policy = server.tools[tool]
    # A tool given a `call_timeout` of its own may take that long: its activity's
    # attempts were scheduled with it (workflows/tool_policy.py).
    if policy.call_timeout is not None:
        timeout = policy.call_timeout.total_seconds()
    # RequestParamsMeta is a TypedDict that names only the SDK's own keys.
    meta = (
        cast(RequestParamsMeta, {IDEMPOTENCY_META_KEY: request.idempotency_key})
        if policy.risk == "irreversible"
        else None
    )
    with anyio.fail_after(timeout):
        async with connected(server, timeout) as session:
            advertised = await advertised_tools(session)
            now = pin_of(advertised)
            if now != server.pin:
                logger.warning(
                    "MCP server %s: advertised tools changed (pin %s, now %s); %s not called",
                    request.server_name,
                    server.pin,
                    now,
                    tool,
                )
                return _NotCalled("its tools changed since they were pinned")
            if tool not in {advertised_tool.name for advertised_tool in advertised}:
                return _NotCalled("it does not advertise this tool")
            return await session.call_tool(tool, request.arguments, meta=meta)


async def call_tool(request: McpTarget, timeout: float) -> ToolResult:
    name, tool = request.server_name, request.tool
    source = provenance(name, tool)

    def result(field: str, text: str, *, is_error: bool) -> ToolResult:
        content = dumps_with_bounded_field({"provenance": source, field: text}, field)
        return ToolResult(tool_use_id=request.tool_use_id, content=content, is_error=is_error)

    if tool not in request.server.tools or request.server.pin is None:
        return result(
            "error",
            f"The tool '{tool}' of the MCP server '{name}' is not declared and pinned in this "
            "run's profile, so it was not called. Do not retry; answer without it.",
            is_error=True,
        )
    try:
        answer = await _exchange(request, timeout)
    except Exception as error:
        reference = uuid.uuid4().hex[:8]
        if is_unreachable(error):
            kind = type(leaves(error)[0]).__name__
            logger.warning(
                "MCP server %s unreachable calling %s (reference %s, run %s): %s",
                name,
                tool,
                reference,
                request.run_id,
                kind,
            )
            raise McpServerUnavailable(
                f"The MCP server {name} was unreachable ({kind}, reference {reference})."
            ) from None
        refused = protocol_error(error)
        if refused is not None:
            return result("error", refused.message, is_error=True)
        logger.warning(
            "MCP server %s answered %s with something malformed (reference %s, run %s)",
            name,
            tool,
            reference,
            request.run_id,
            exc_info=True,
        )
        return result(
            "error",
            f"The MCP server '{name}' answered the call of '{tool}' with something signoff "
            f"cannot read (reference {reference}). Whether it acted is unknown; do not retry "
            "the call, and say that this tool failed.",
            is_error=True,
        )
    if isinstance(answer, _NotCalled):
        return result(
            "error",
            f"The tool '{tool}' was not called: the MCP server '{name}' cannot be used now "
            f"({answer.why}). Do not retry; answer without it.",
            is_error=True,
        )
    if answer.is_error:
        return result("error", _text_of(answer), is_error=True)
    return result("content", _text_of(answer), is_error=False)
