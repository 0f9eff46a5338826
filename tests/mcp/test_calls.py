"""Calling a declared MCP tool on a real server: one ToolResult for every answer.

A result is untrusted JSON with its provenance, bounded; an irreversible call carries
the run's idempotency key in `_meta` and the server applies it once; a tool error and a
malformed answer are error results (the latter with a fixed message); a server that is
down raises for Temporal to retry; a server whose tools changed since the pin is not
called at all.
"""

from __future__ import annotations

import asyncio
import json
import logging
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment, WorkflowEnvironment
from temporalio.worker import Worker

from activities.mcp.call import McpServerUnavailable, McpTarget, call_tool
from activities.mcp.pin import pin_of
from activities.mcp.resolve import fetch_advertised
from testkit.mcp_server import calls, labels
from tests.mcp.conftest import (
    DECLARED_TOOLS,
    TIMEOUT_SECONDS,
    RunningServer,
    call_of,
    declared,
    held_profile,
    mcp_server_process,
    mcp_tools,
    stdio_command,
)
from tests.mcp.probe_workflow import PROBE_ATTEMPTS, McpCallProbe
from tests.postgres import free_port
from workflows.contracts import ToolResult
from workflows.mcp_tools import McpServer
from workflows.policy import MAX_TOOL_RESULT_CHARS
from workflows.sandbox import workflow_runner

PROVENANCE = "MCP server warranty, tool {tool}, unverified third-party output"


async def pinned(server: RunningServer, **declaration: Any) -> McpServer:
    pin = pin_of(await fetch_advertised(declared(url=server.url), TIMEOUT_SECONDS))
    return declared(url=server.url, pin=pin, **declaration)


def request(
    server: McpServer, tool: str, arguments: dict[str, Any], key: str = "run-demo-1:call-1"
) -> McpTarget:
    return McpTarget(
        run_id="run-demo-1",
        tool_use_id="toolu_1",
        idempotency_key=key,
        server_name="warranty",
        server=server,
        tool=tool,
        arguments=arguments,
    )


def payload(result: ToolResult) -> dict[str, Any]:
    decoded: dict[str, Any] = json.loads(result.content)
    return decoded


async def test_a_read_result_is_untrusted_json_with_its_provenance(
    mcp_server: RunningServer,
) -> None:
    server = await pinned(mcp_server)
    result = await call_tool(
        request(server, "lookup_warranty", {"order_id": "A-1"}), TIMEOUT_SECONDS
    )
    assert (result.tool_use_id, result.is_error) == ("toolu_1", False)
    assert payload(result) == {
        "provenance": PROVENANCE.format(tool="lookup_warranty"),
        "content": json.dumps({"order_id": "A-1", "warranty_months_left": 14}),
    }


async def test_a_long_result_is_cut_and_stays_json(mcp_server: RunningServer) -> None:
    server = await pinned(mcp_server)
    long_id = "9" * (3 * MAX_TOOL_RESULT_CHARS)
    result = await call_tool(
        request(server, "lookup_warranty", {"order_id": long_id}), TIMEOUT_SECONDS
    )
    assert len(result.content) <= MAX_TOOL_RESULT_CHARS
    assert payload(result)["provenance"] == PROVENANCE.format(tool="lookup_warranty")
    assert "[cut: " in payload(result)["content"]


async def test_the_idempotency_key_reaches_the_server_which_acts_once(
    mcp_server: RunningServer,
) -> None:
    server = await pinned(mcp_server)
    first = request(server, "create_return_label", {"order_id": "A-2"}, key="run-demo-2:label")
    again = await call_tool(first, TIMEOUT_SECONDS), await call_tool(first, TIMEOUT_SECONDS)
    assert [payload(result)["content"] for result in again] == [payload(again[0])["content"]] * 2
    other = request(server, "create_return_label", {"order_id": "A-2"}, key="run-demo-3:label")
    third = await call_tool(other, TIMEOUT_SECONDS)
    assert payload(third)["content"] != payload(again[0])["content"]
    seen = [call for call in calls(mcp_server.state) if call["order_id"] == "A-2"]
    assert [call["key"] for call in seen] == ["run-demo-2:label"] * 2 + ["run-demo-3:label"]
    made = [label for label in labels(mcp_server.state) if label["order_id"] == "A-2"]
    assert [label["key"] for label in made] == ["run-demo-2:label", "run-demo-3:label"]


async def test_a_tool_that_answers_with_an_error_is_an_error_result(
    mcp_server: RunningServer,
) -> None:
    server = await pinned(mcp_server)
    result = await call_tool(request(server, "check_recall", {"order_id": "A-3"}), TIMEOUT_SECONDS)
    assert result.is_error
    assert payload(result) == {
        "provenance": PROVENANCE.format(tool="check_recall"),
        "error": "Error executing tool check_recall: the recall database is offline; order "
        "A-3 was not checked",
    }


async def test_a_malformed_answer_is_an_error_result_with_a_safe_message(
    mcp_server: RunningServer, caplog: pytest.LogCaptureFixture
) -> None:
    server = await pinned(mcp_server)
    with caplog.at_level(logging.WARNING, logger="activities.mcp"):
        result = await call_tool(
            request(server, "garbled_lookup", {"order_id": "A-4"}), TIMEOUT_SECONDS
        )
    assert result.is_error
    error = payload(result)["error"]
    reference = error.split("(reference ")[1].split(")")[0]
    assert error == (
        "The MCP server 'warranty' answered the call of 'garbled_lookup' with something "
        f"signoff cannot read (reference {reference}). Whether it acted is unknown; do not "
        "retry the call, and say that this tool failed."
    )
    [record] = [r for r in caplog.records if reference in r.getMessage()]
    assert record.exc_info is not None  # the details are in the log, not in the result


async def test_a_server_that_is_down_is_retried_by_temporal(seeded_engine: Engine) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    server = declared(url=url, pin="0" * 64)
    call = request(server, "lookup_warranty", {"order_id": "A-5"})
    with pytest.raises(McpServerUnavailable, match=r"^The MCP server warranty was unreachable"):
        await call_tool(call, 5.0)
    profile = held_profile(server)
    activities = mcp_tools(profile, engine=seeded_engine, timeout=5.0)
    with pytest.raises(ApplicationError) as raised:
        await ActivityEnvironment().run(
            activities.run, call_of(profile, "lookup_warranty", {"order_id": "A-5"})
        )
    assert (raised.value.type, raised.value.non_retryable) == ("McpServerUnavailable", False)


async def test_a_server_whose_tools_changed_since_the_pin_is_not_called(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    server = await pinned(mcp_server)
    with mcp_server_process(tmp_path, "--changed") as changed:
        moved = server.model_copy(update={"url": changed.url})
        result = await call_tool(
            request(moved, "create_return_label", {"order_id": "A-6"}), TIMEOUT_SECONDS
        )
    assert result.is_error
    assert payload(result)["error"] == (
        "The tool 'create_return_label' was not called: the MCP server 'warranty' cannot be "
        "used now (its tools changed since they were pinned). Do not retry; answer without it."
    )
    assert (calls(tmp_path), labels(tmp_path)) == ([], [])


async def test_an_undeclared_tool_is_never_called(mcp_server: RunningServer) -> None:
    only_lookup = {"lookup_warranty": DECLARED_TOOLS["lookup_warranty"]}
    server = await pinned(mcp_server, tools=only_lookup)
    result = await call_tool(
        request(server, "create_return_label", {"order_id": "A-7"}), TIMEOUT_SECONDS
    )
    assert result.is_error
    assert "is not declared and pinned in this run's profile" in payload(result)["error"]
    assert [call for call in calls(mcp_server.state) if call["order_id"] == "A-7"] == []


@pytest.mark.slow  # two server processes started over stdio
async def test_an_irreversible_call_over_stdio_carries_its_key(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    pin = (await pinned(mcp_server)).pin
    server = declared(command=stdio_command(tmp_path), pin=pin)
    call = request(server, "create_return_label", {"order_id": "A-8"}, key="run-demo-8:label")
    results = [await call_tool(call, TIMEOUT_SECONDS) for _ in range(2)]
    assert [result.is_error for result in results] == [False, False]
    assert [call["key"] for call in calls(tmp_path)] == ["run-demo-8:label"] * 2
    assert len(labels(tmp_path)) == 1


async def test_temporal_retries_a_server_that_is_down_then_the_call_fails(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    url = f"http://127.0.0.1:{free_port()}/mcp"
    profile = held_profile(declared(url=url, pin="0" * 64))
    call = call_of(profile, "lookup_warranty", {"order_id": "A-9"})
    queue = f"mcp-{uuid.uuid4()}"
    async with Worker(
        time_skipping_env.client,
        task_queue=queue,
        workflows=[McpCallProbe],
        activities=[mcp_tools(profile, engine=seeded_engine, timeout=5.0).run],
        workflow_runner=workflow_runner("tests.mcp.probe_workflow"),
    ):
        handle = await time_skipping_env.client.start_workflow(
            McpCallProbe.run, call, id=f"probe-{uuid.uuid4()}", task_queue=queue
        )
        outcome = await handle.result()
    assert outcome == "failed after retries: MAXIMUM_ATTEMPTS_REACHED McpServerUnavailable"
    started = [
        event
        async for event in handle.fetch_history_events()
        if event.HasField("activity_task_started_event_attributes")
    ]
    assert started[-1].activity_task_started_event_attributes.attempt == PROBE_ATTEMPTS


@pytest.mark.slow  # a server process, then a whole timeout
async def test_a_server_that_never_answers_times_out_into_a_retry(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    server = await pinned(mcp_server)
    with mcp_server_process(tmp_path, "--stall") as stalled:
        moved = server.model_copy(update={"url": stalled.url})
        with pytest.raises(McpServerUnavailable, match=r"unreachable \((TimeoutError|MCPError)"):
            await call_tool(request(moved, "lookup_warranty", {"order_id": "A-10"}), 3.0)


@pytest.mark.slow  # a server process, then the tool's own timeout
async def test_a_tool_s_call_timeout_bounds_its_exchange_instead_of_the_worker_s(
    mcp_server: RunningServer, tmp_path: Path
) -> None:
    server = await pinned(mcp_server)
    lookup = server.tools["lookup_warranty"]
    quick = lookup.model_copy(update={"call_timeout": timedelta(seconds=1)})
    with mcp_server_process(tmp_path, "--stall") as stalled:
        moved = server.model_copy(
            update={"url": stalled.url, "tools": {**server.tools, "lookup_warranty": quick}}
        )
        call = request(moved, "lookup_warranty", {"order_id": "A-12"})
        # The worker's own bound (an hour here) would outlast the test's wait.
        with pytest.raises(McpServerUnavailable, match=r"unreachable \((TimeoutError|MCPError)"):
            await asyncio.wait_for(call_tool(call, 3600.0), 20)


async def test_arguments_the_server_refuses_are_an_error_result(
    mcp_server: RunningServer,
) -> None:
    server = await pinned(mcp_server)
    result = await call_tool(request(server, "lookup_warranty", {"order": 1}), TIMEOUT_SECONDS)
    assert result.is_error
    decoded = payload(result)
    assert decoded["provenance"] == PROVENANCE.format(tool="lookup_warranty")
    assert "order_id" in decoded["error"]


async def test_the_call_activity_refuses_an_irreversible_tool(
    mcp_server: RunningServer, seeded_engine: Engine
) -> None:
    """Anyone may call an activity: an irreversible tool runs only through the gate's
    effect, which verifies the decisions itself."""
    profile = held_profile(await pinned(mcp_server))
    call = call_of(profile, "create_return_label", {"order_id": "A-11"}, key="run-demo-11:x")
    result = await ActivityEnvironment().run(mcp_tools(profile, engine=seeded_engine).run, call)
    assert (result.is_error, result.content) == (
        True,
        "The tool 'warranty__create_return_label' is irreversible: it runs only after a "
        "reviewer's decision, through the gate. It was not called.",
    )
    assert [call for call in calls(mcp_server.state) if call["order_id"] == "A-11"] == []
