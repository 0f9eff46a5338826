"""Triage on a local model: the forced tool on the wire, and a classification it cannot read."""

from __future__ import annotations

import json

from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.model_turn import ModelTurns
from signoff.wiring.worker_activities import worker_activities
from tests.anthropic.wire import RecordingGateway
from tests.openai.chat_server import FakeChatApi, assistant, completion, tool_call
from tests.openai.wire import QWEN, function_tools, sent_call, tool_message
from tests.triage_requests import triage_request
from tests.workflow.approvals import store_parts
from tests.workflow.fakes import limited, new_task_queue
from workflows.agent_run import actor_hash
from workflows.tool_catalog import READ_TICKET
from workflows.triage import READ_CALL_ID, TRIAGE_SYSTEM_PROMPT, TriageTicket, classify_tool
from workflows.triage_contracts import CLASSIFY_TOOL_NAME, TriageOutcome, TriageRequest


async def triage(
    env: WorkflowEnvironment, engine: Engine, model_turns: ModelTurns
) -> tuple[TriageRequest, TriageOutcome, RecordingGateway]:
    # The agent run is not reached by these tests: no refund class is given.
    request = triage_request("T-4512", engine, model=QWEN)
    gateway = RecordingGateway(engine)
    queue = new_task_queue()
    async with Worker(
        env.client,
        task_queue=queue,
        workflows=[TriageTicket],
        activities=worker_activities(
            store_parts(engine, model_turns, gateway=gateway), replacing=[limited(model_turns)]
        ),
    ):
        outcome = await env.client.execute_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )
    return request, outcome, gateway


def classification(arguments: str) -> dict[str, object]:
    return completion(assistant(None, tool_call("call_c", CLASSIFY_TOOL_NAME, arguments)), "stop")


async def test_the_forced_tool_is_sent_and_the_ticket_is_a_tool_message(
    time_skipping_env: WorkflowEnvironment,
    api: FakeChatApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    arguments = {"category": "tracking", "urgency": 2, "summary": "Where is my parcel?"}
    api.reply(classification(json.dumps(arguments)))

    request, outcome, gateway = await triage(time_skipping_env, seeded_engine, model_turns)

    assert (outcome.status, outcome.category, outcome.urgency) == ("answered", "tracking", 2)
    assert outcome.answer is not None and "TRK-88" in outcome.answer
    ticket = gateway.results[READ_CALL_ID].content
    (body,) = api.bodies
    assert body == {
        "model": "qwen3:4b",
        "max_tokens": request.max_tokens,
        "messages": [
            {"role": "system", "content": TRIAGE_SYSTEM_PROMPT},
            {"role": "user", "content": "Classify the customer's ticket."},
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [sent_call(READ_CALL_ID, "read_ticket")],
            },
            # The result right after the call, then the turn's text as a user message.
            tool_message(READ_CALL_ID, ticket),
            {"role": "user", "content": f"Now classify it with {CLASSIFY_TOOL_NAME}."},
        ],
        "tools": function_tools([READ_TICKET.spec(), classify_tool()]),
        "tool_choice": {"type": "function", "function": {"name": CLASSIFY_TOOL_NAME}},
        "user": actor_hash("demo", "ops-1"),
    }


async def test_a_classification_that_is_not_json_fails_triage_in_words(
    time_skipping_env: WorkflowEnvironment,
    api: FakeChatApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    api.reply(classification('{"category": "refund", "urgency": 5,'))

    _, outcome, _ = await triage(time_skipping_env, seeded_engine, model_turns)

    # Never read as a refund: no agent run starts on arguments nobody could parse.
    assert (outcome.status, outcome.category, outcome.agent_run_id) == ("failed", None, None)
    assert outcome.detail.startswith("The classification is invalid: ")
    assert "arguments_not_valid_json" in outcome.detail
