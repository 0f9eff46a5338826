"""Triage through the Messages API: the forced tool on the wire, each class routed as written."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.model_turn import ModelTurns
from signoff.wiring.worker_activities import worker_activities
from tests.anthropic.wire import CLAUDE, EPHEMERAL, RecordingGateway, tools_param
from tests.anthropic_server import FakeMessagesApi, message, tool_use
from tests.triage_requests import triage_request
from tests.workflow.approvals import store_parts
from tests.workflow.fakes import limited, new_task_queue
from workflows.agent_run import AgentRun, actor_hash
from workflows.contracts import ModelRef, RunOutcome
from workflows.tool_catalog import READ_TICKET
from workflows.triage import READ_CALL_ID, TRIAGE_SYSTEM_PROMPT, TriageTicket, classify_tool
from workflows.triage_contracts import CLASSIFY_TOOL_NAME, TriageOutcome, TriageRequest

# The agent a refund starts runs the scripted demo: this test is about triage's call.
AGENT_MODEL = ModelRef(provider="scripted", model_id="demo")


async def triage(
    env: WorkflowEnvironment, engine: Engine, model_turns: ModelTurns, ticket_id: str
) -> tuple[TriageRequest, TriageOutcome, RecordingGateway, RunOutcome | None]:
    request = triage_request(ticket_id, engine, model=CLAUDE, agent_model=AGENT_MODEL)
    gateway = RecordingGateway(engine)
    queue = new_task_queue()
    agent: RunOutcome | None = None
    async with Worker(
        env.client,
        task_queue=queue,
        workflows=[TriageTicket, AgentRun],
        activities=worker_activities(
            store_parts(engine, model_turns, gateway=gateway), replacing=[limited(model_turns)]
        ),
    ):
        outcome = await env.client.execute_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )
        if outcome.agent_run_id is not None:
            # Let the agent finish while its worker lives (the demo script answers).
            handle = env.client.get_workflow_handle_for(AgentRun.run, outcome.agent_run_id)
            agent = await handle.result()
    return request, outcome, gateway, agent


def classification(category: str) -> dict[str, object]:
    arguments = {"category": category, "urgency": 3, "summary": "The customer asks a question."}
    return message([tool_use("toolu_c", CLASSIFY_TOOL_NAME, arguments)], "tool_use")


async def test_the_forced_tool_is_sent_and_the_ticket_is_a_tool_result(
    time_skipping_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
) -> None:
    api.reply(classification("tracking"))

    request, outcome, gateway, _ = await triage(
        time_skipping_env, seeded_engine, model_turns, "T-4512"
    )

    assert outcome.status == "answered"
    ticket = gateway.results[READ_CALL_ID].content
    (body,) = api.bodies
    assert body == {
        "model": CLAUDE.model_id,
        "max_tokens": request.max_tokens,
        "system": [{"type": "text", "text": TRIAGE_SYSTEM_PROMPT, "cache_control": EPHEMERAL}],
        "messages": [
            {
                "role": "user",
                "content": [{"type": "text", "text": "Classify the customer's ticket."}],
            },
            {
                "role": "assistant",
                "content": [
                    {"type": "tool_use", "id": READ_CALL_ID, "name": "read_ticket", "input": {}}
                ],
            },
            {
                "role": "user",
                "content": [
                    {
                        "type": "tool_result",
                        "tool_use_id": READ_CALL_ID,
                        "content": ticket,
                        "is_error": False,
                    },
                    {"type": "text", "text": f"Now classify it with {CLASSIFY_TOOL_NAME}."},
                ],
            },
        ],
        "tools": tools_param([READ_TICKET.spec(), classify_tool()]),
        "tool_choice": {"type": "tool", "name": CLASSIFY_TOOL_NAME},
        "metadata": {"user_id": actor_hash("demo", "ops-1")},
    }


@pytest.mark.parametrize(
    ("category", "ticket_id", "status"),
    [
        ("tracking", "T-4512", "answered"),
        ("refund", "T-4512", "agent_started"),
        ("other", "T-4512", "handed_off"),
    ],
)
async def test_each_class_takes_the_path_written_for_it(
    isolated_env: WorkflowEnvironment,
    api: FakeMessagesApi,
    model_turns: ModelTurns,
    seeded_engine: Engine,
    category: str,
    ticket_id: str,
    status: str,
) -> None:
    # The same ticket each time: the path follows the class the model gave, as written.
    api.reply(classification(category))

    request, outcome, gateway, agent = await triage(
        isolated_env, seeded_engine, model_turns, ticket_id
    )

    assert (outcome.status, outcome.category, outcome.urgency) == (status, category, 3)
    assert outcome.summary == "The customer asks a question."
    assert len(api.requests) == 1  # one model call, whatever the path
    assert not outcome.scripted and outcome.usage.input_tokens == 120
    if category == "tracking":
        assert outcome.answer is not None and "TRK-88" in outcome.answer
        assert list(gateway.results) == [READ_CALL_ID, "toolu_triage_get_order"]
    else:
        assert outcome.answer is None
    if category == "refund":
        assert outcome.agent_run_id == f"run-demo-{request.request_id}-agent"
        assert agent is not None and agent.model == AGENT_MODEL
    else:
        assert outcome.agent_run_id is None and agent is None
