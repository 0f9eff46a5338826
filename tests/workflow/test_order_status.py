"""Order-status tickets end to end in the workflow, with the real activities.

The real tool gateway reads a seeded SQLite store; the real model-turn activity runs
the scripted demo model. Only the time-skipping server stands in for Temporal.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import Engine
from temporalio import activity
from temporalio.testing import WorkflowEnvironment

from activities.model_turn import ModelTurns, build_model_turns
from activities.tool_gateway import ToolGateway
from signoff.config.settings import Settings
from tests.workflow.fakes import run_to_end
from workflows.contracts import RUN_TOOL_ACTIVITY, ModelRef, ToolCallInput, ToolResult

DEMO_MODEL = ModelRef(provider="scripted", model_id="demo")


class RecordingGateway(ToolGateway):
    """The real gateway, keeping what each call returned."""

    def __init__(self, engine: Engine) -> None:
        super().__init__(engine)
        self.results: list[tuple[str, ToolResult]] = []

    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        result = await super().run_tool(call)
        self.results.append((call.name, result))
        return result

    def result_of(self, name: str) -> ToolResult:
        (result,) = [result for called, result in self.results if called == name]
        return result


@pytest.fixture
def model_turns(tmp_path: Path) -> ModelTurns:
    return build_model_turns(Settings(home=tmp_path))


async def test_order_with_tracking(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, model_turns: ModelTurns
) -> None:
    gateway = RecordingGateway(seeded_engine)

    outcome = await run_to_end(
        time_skipping_env, model_turns, gateway, ticket_id="T-4512", model=DEMO_MODEL
    )

    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert [record.name for record in outcome.tool_calls] == ["read_ticket", "get_order"]
    assert all(record.ok for record in outcome.tool_calls)
    assert outcome.final_text is not None
    assert "TRK-88" in outcome.final_text
    assert "4512 is shipped" in outcome.final_text
    assert outcome.turns_used == 3
    assert outcome.scripted and outcome.model == DEMO_MODEL
    assert outcome.usage.total > 0  # the scripted model estimates its tokens


async def test_ticket_linked_to_no_order(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, model_turns: ModelTurns
) -> None:
    gateway = RecordingGateway(seeded_engine)

    outcome = await run_to_end(
        time_skipping_env, model_turns, gateway, ticket_id="T-9999", model=DEMO_MODEL
    )

    order = gateway.result_of("get_order")
    assert not order.is_error
    assert json.loads(order.content)["found"] is False
    assert (outcome.status, outcome.reason) == ("completed", "answered")
    assert outcome.final_text is not None
    assert "could not find an order" in outcome.final_text
    assert "9999" not in outcome.final_text  # the number in the ticket is not a lookup


async def test_ticket_of_another_tenant_is_not_found(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, model_turns: ModelTurns
) -> None:
    # T-7001 belongs to the tenant globex; this run is the demo tenant's.
    gateway = RecordingGateway(seeded_engine)

    outcome = await run_to_end(
        time_skipping_env, model_turns, gateway, ticket_id="T-7001", model=DEMO_MODEL
    )

    assert gateway.result_of("read_ticket").is_error
    assert gateway.result_of("get_order").is_error
    assert "G-7001" not in json.dumps([r.content for _, r in gateway.results])
    assert outcome.status == "completed"
    assert outcome.final_text is not None
    assert "could not look your order up" in outcome.final_text
