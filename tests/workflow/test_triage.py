"""Structured triage: one forced classification, then the path written in code."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine
from temporalio.client import Client
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.model_turn import build_model_turns
from activities.run_limits import limits_from_settings
from activities.store import add_ticket
from signoff.config.settings import Settings
from signoff.service import run_control
from signoff.service.handles import Runs
from signoff.service.runs import request_of_run
from signoff.wiring.worker_activities import worker_activities
from tests.triage_requests import AGENT_MODEL
from tests.triage_requests import triage_request as triage_request_for
from tests.workflow.approvals import store_parts
from tests.workflow.fakes import FakeModel, new_task_queue
from workflows.agent_run import AgentRun
from workflows.contracts import ModelRef, ModelReply, ToolUseBlock, Usage
from workflows.triage import READ_CALL_ID, TriageTicket
from workflows.triage_contracts import CLASSIFY_TOOL_NAME, TriageOutcome, TriageRequest


def triage_request(ticket_id: str, engine: Engine, tenant_id: str = "demo") -> TriageRequest:
    return triage_request_for(ticket_id, engine, tenant_id=tenant_id)


def triage_worker(client: Client, queue: str, engine: Engine, model: Any) -> Worker:
    return Worker(
        client,
        task_queue=queue,
        workflows=[TriageTicket, AgentRun],
        # The worker's own limits among them, from default settings, as `signoff worker` has.
        activities=worker_activities(store_parts(engine, model)),
    )


async def triage(
    env: WorkflowEnvironment, engine: Engine, request: TriageRequest, model: Any, tmp: Path
) -> TriageOutcome:
    queue = new_task_queue()
    async with triage_worker(env.client, queue, engine, model):
        return await env.client.execute_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )


@pytest.fixture
def scripted(tmp_path: Path) -> Any:
    return build_model_turns(Settings(home=tmp_path))


async def test_tracking_is_answered_from_the_order_without_an_agent(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any, tmp_path: Path
) -> None:
    outcome = await triage(
        time_skipping_env,
        seeded_engine,
        triage_request("T-4512", seeded_engine),
        scripted,
        tmp_path,
    )

    assert (outcome.status, outcome.category) == ("answered", "tracking")
    assert outcome.answer is not None and "TRK-88" in outcome.answer
    assert outcome.agent_run_id is None
    assert outcome.scripted


async def test_tracking_without_an_order_says_so(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any, tmp_path: Path
) -> None:
    outcome = await triage(
        time_skipping_env,
        seeded_engine,
        triage_request("T-9999", seeded_engine),
        scripted,
        tmp_path,
    )

    assert outcome.status == "answered"
    assert outcome.answer is not None and "could not find an order" in outcome.answer


async def test_refund_starts_an_agent_run_on_the_same_ticket(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any, tmp_path: Path
) -> None:
    # A child workflow outliving its parent: its own server (see tests/conftest.py).
    env = isolated_env
    request = triage_request("T-1042", seeded_engine)
    queue = new_task_queue()
    async with triage_worker(env.client, queue, seeded_engine, scripted):
        outcome = await env.client.execute_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )
        assert (outcome.status, outcome.category) == ("agent_started", "refund")
        assert outcome.agent_run_id == f"run-demo-{request.request_id}-agent"
        agent = env.client.get_workflow_handle_for(AgentRun.run, outcome.agent_run_id)
        # The agent works on the triaged ticket, with the agent's model, and its refund
        # still waits for a reviewer.
        for _ in range(200):
            state = await agent.query(AgentRun.state)
            if state.status == "waiting_for_approval":
                break
            await asyncio.sleep(0.05)
        assert state.ticket_id == "T-1042"
        assert state.model == AGENT_MODEL
        assert [a.targets["order_id"] for a in state.pending_actions] == ["C-1042"]
        await agent.cancel()
        await agent.result()


async def test_a_triage_started_run_gets_the_budgets_and_price_of_signoff_run(
    isolated_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any, tmp_path: Path
) -> None:
    # A priced agent model: the run must carry a cost budget and a price, not zero.
    env = isolated_env
    haiku = ModelRef(provider="anthropic", model_id="claude-haiku-4-5")
    settings = Settings(home=tmp_path)
    limits = limits_from_settings(settings, haiku)
    request = triage_request_for("T-1042", seeded_engine, agent_model=haiku, settings=settings)
    queue = new_task_queue()
    async with triage_worker(env.client, queue, seeded_engine, scripted):
        outcome = await env.client.execute_workflow(
            TriageTicket.run, request, id=f"triage-{request.request_id}", task_queue=queue
        )
        assert outcome.agent_run_id is not None
        agent = env.client.get_workflow_handle_for(AgentRun.run, outcome.agent_run_id)
        # No key on this worker: the agent fails on its first model turn, which is fine.
        await agent.result()
    agent_request = await request_of_run(Runs(env.client), outcome.agent_run_id)

    assert agent_request is not None
    assert agent_request.cost_budget_usd == settings.cost_budget_usd is not None
    assert agent_request.price == settings.model_prices[haiku.model_id]
    assert agent_request.price.input > 0
    assert (agent_request.step_budget, agent_request.token_budget) == (
        settings.step_budget,
        settings.token_budget,
    )
    assert agent_request.approval_ttl_seconds == limits.approval_ttl_seconds


async def test_other_requests_go_to_a_person(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any, tmp_path: Path
) -> None:
    ticket = add_ticket(seeded_engine, "demo", "4512", "Please change the invoice address.")

    outcome = await triage(
        time_skipping_env, seeded_engine, triage_request(ticket, seeded_engine), scripted, tmp_path
    )

    assert (outcome.status, outcome.category) == ("handed_off", "other")
    assert outcome.answer is None and outcome.agent_run_id is None


def classification(**arguments: Any) -> ModelReply:
    return ModelReply(
        content=[ToolUseBlock(id="toolu_c", name=CLASSIFY_TOOL_NAME, input=arguments)],
        stop_reason="tool_use",
        usage=Usage(input_tokens=50, output_tokens=20),
    )


async def test_the_forced_tool_is_used_and_the_ticket_arrives_as_a_tool_result(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    model = FakeModel().enqueue(classification(category="tracking", urgency=1, summary="Where?"))

    await triage(
        time_skipping_env, seeded_engine, triage_request("T-4512", seeded_engine), model, tmp_path
    )

    (sent,) = model.history
    assert sent.tool_choice.type == "tool" and sent.tool_choice.name == CLASSIFY_TOOL_NAME
    assert CLASSIFY_TOOL_NAME in [tool.name for tool in sent.tools]
    # The ticket text is never instruction text: only the tool result carries it.
    first_user_text = sent.messages[0].content[0]
    assert "Where is my order 4512?" not in first_user_text.model_dump_json()
    result = sent.messages[2].content[0]
    assert result.type == "tool_result" and result.tool_use_id == READ_CALL_ID
    assert "Where is my order 4512?" in result.content


async def test_a_schema_invalid_classification_fails_cleanly(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    model = FakeModel().enqueue(classification(category="urgent-refund", urgency=9, summary=""))

    outcome = await triage(
        time_skipping_env, seeded_engine, triage_request("T-4512", seeded_engine), model, tmp_path
    )

    assert outcome.status == "failed"
    assert "classification is invalid" in outcome.detail
    assert outcome.answer is None and outcome.agent_run_id is None


async def test_a_wrong_classification_still_acts_only_on_the_tickets_own_order(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    # T-2210's text names other orders; a (wrong) tracking class answers from C-2210 only.
    model = FakeModel().enqueue(classification(category="tracking", urgency=5, summary="x"))

    outcome = await triage(
        time_skipping_env, seeded_engine, triage_request("T-2210", seeded_engine), model, tmp_path
    )

    assert outcome.answer is not None and "C-2210" in outcome.answer
    assert "C-1042" not in outcome.answer and "C-3107" not in outcome.answer


async def test_the_same_triage_asked_twice_is_one_triage(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, scripted: Any
) -> None:
    # `signoff triage` starts a triage as a helpdesk's delivery does (ensure_triage): the
    # same request again answers with the first triage's outcome and starts no other.
    client = time_skipping_env.client
    request = triage_request("T-4512", seeded_engine)
    queue = new_task_queue()
    async with triage_worker(client, queue, seeded_engine, scripted):
        first = await run_control.triage(Runs(client), request, queue)
        first_run = (await client.get_workflow_handle(first.triage_id).describe()).run_id
        again = await run_control.triage(Runs(client), request, queue)
    assert first.status == "answered" and again == first
    assert (await client.get_workflow_handle(first.triage_id).describe()).run_id == first_run
