"""What the Chat Completions tests expect on the wire, written out by hand, and a runner.

The expected bodies are built here from the API's documented shape, not with the
adapter's own functions, so that a change in the adapter shows up as a diff against
this file.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from temporalio.client import WorkflowHandle
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns
from tests.openai.chat_server import LOCAL_MODEL
from tests.workflow.fakes import ToolActivities, new_task_queue, replay, run_request, start, worker
from workflows import policy
from workflows.agent_run import actor_hash, opening_message
from workflows.contracts import ModelRef, RunOutcome, RunRequest, ToolSpec
from workflows.tool_catalog import offered_tools

QWEN = ModelRef(provider="openai", model_id=LOCAL_MODEL)
Json = dict[str, Any]


@dataclass
class Run:
    request: RunRequest
    outcome: RunOutcome
    handle: WorkflowHandle[Any, Any]


async def run_local(
    env: WorkflowEnvironment,
    model_turns: ModelTurns,
    tools: ToolActivities | None = None,
    /,
    **overrides: Any,
) -> Run:
    """One AgentRun on the local model (the fake server) to its end; its history must replay."""
    overrides.setdefault("model", QWEN)
    task_queue = new_task_queue()
    request = run_request(await env.get_current_time(), **overrides)
    async with worker(env.client, task_queue, model_turns, tools):
        handle = await start(env.client, request, task_queue)
        outcome = await handle.result()
    assert isinstance(outcome, RunOutcome)
    await replay(handle)
    return Run(request, outcome, handle)


# --- the body of a request, as the Chat Completions API documents it ---------------


def function_tools(specs: list[ToolSpec]) -> list[Json]:
    return [
        {
            "type": "function",
            "function": {
                "name": spec.name,
                "description": spec.description,
                "parameters": spec.input_schema,
            },
        }
        for spec in specs
    ]


def agent_body(request: RunRequest, messages: list[Json]) -> Json:
    """The exact body of an AgentRun model turn with these messages after the system one."""
    return {
        "model": request.model.model_id,
        "max_tokens": request.max_tokens,
        "messages": [{"role": "system", "content": policy.SYSTEM_PROMPT}, *messages],
        "tools": function_tools([tool.spec() for tool in offered_tools()]),
        "tool_choice": "auto",
        "user": actor_hash(request.tenant_id, request.actor_id),
    }


def opening(request: RunRequest) -> Json:
    return {"role": "user", "content": opening_message(request)}


def calling(text: str, *calls: Json) -> Json:
    """The assistant's turn as it goes back: its text ("" for none) and its calls."""
    return {"role": "assistant", "content": text, "tool_calls": list(calls)}


def sent_call(call_id: str, name: str, arguments: str = "{}") -> Json:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


def tool_message(call_id: str, content: str) -> Json:
    return {"role": "tool", "tool_call_id": call_id, "content": content}
