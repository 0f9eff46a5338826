"""A team's own Python tools (tests/tools/team_tools.py, named by team_profile.toml),
on the time-skipping server with the real gateway, effect and store: a read tool
answers the model; an irreversible one waits in the same gate as a refund, is approved
by a signed decision and executes once under its idempotency key; a rejection is told
to the model; the effect refuses a caller that brings no proof; a tenant the profile
denies refunds is never offered `refund`; a paused run keeps the profile it started on.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Engine, select
from temporalio.client import WorkflowExecutionStatus, WorkflowHandle
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session
from activities.store.prompt_catalogs import read_catalog
from activities.store.schema import DecisionRow, WaitingAction
from signoff.config.profiles import LoadedProfiles, load_profile_file
from tests.exposures import voucher_exposure
from tests.tools import team_tools
from tests.workflow.approvals import (
    WAIT_SECONDS,
    decide,
    decision,
    gate_run,
    pending_actions,
    signed,
)
from tests.workflow.fakes import FakeModel, text_reply, tool_reply
from tests.workflow.rogue import RogueEffect, RogueEffectPlan
from workflows.actions import ToolActionCommand
from workflows.approval_policy import effect_key
from workflows.contracts import ModelRequest, ToolCallInput, ToolResultBlock

TEAM_PROFILE = Path(__file__).parents[1] / "tools" / "team_profile.toml"
TEAM = load_profile_file(TEAM_PROFILE)
VOUCHER = ("issue_voucher", {"value": 10, "reason": "The parcel came a week late."})


@pytest.fixture(autouse=True)
def no_vouchers_yet() -> None:
    team_tools.VOUCHERS.clear()
    team_tools.CALLS.clear()


def on_profile(profiles: LoadedProfiles, tenant_id: str = "demo") -> dict[str, Any]:
    """gate_run's arguments for a run on `profiles`' default agent, its request's profile
    fields filled as `new_run_request` fills them (its prompt catalog written to the
    run's store)."""
    return {"tenant_id": tenant_id, "profiles": profiles, "on_profile": True}


def offered(request: ModelRequest, engine: Engine) -> list[str]:
    """The tools a model turn offers, by name, as the model-turn activity sends them: its
    prompt catalog's (read from the store), then the turn's own (an MCP server's)."""
    digest = request.prompt_digest
    catalog = () if digest is None else read_catalog(engine, digest).names()
    return [*catalog, *(tool.name for tool in request.tools)]


async def finished(handle: WorkflowHandle[Any, Any]) -> Any:
    deadline = time.monotonic() + WAIT_SECONDS
    while (await handle.describe()).status != WorkflowExecutionStatus.COMPLETED:
        assert time.monotonic() < deadline, "the rogue workflow never finished"
        await asyncio.sleep(0.05)
    # Not `result()`: on the time-skipping server it unlocks the clock, which would jump
    # to the waiting run's expiry.
    return await handle.query(RogueEffect.said)


def tool_results(model: FakeModel, turn: int) -> list[ToolResultBlock]:
    content = model.history[turn].messages[-1].content
    return [block for block in content if isinstance(block, ToolResultBlock)]


async def test_a_registered_read_tool_answers_the_model_on_the_profiles_prompt(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(
        tool_reply(("lookup_stock", {"sku": "KET-1"})), text_reply("Seven are in stock.")
    )
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(TEAM)) as handle:
        outcome = await handle.result()
    assert outcome.status == "completed"
    first = model.history[0]
    # The turn names the run's prompt catalog; the model-turn activity reads it from the
    # store (the fake model stands in for that activity, and sees the name).
    assert first.system == "" and first.tools == [] and first.prompt_digest is not None
    catalog = read_catalog(seeded_engine, first.prompt_digest)
    assert catalog.system == TEAM.profiles.agent().system_prompt
    assert offered(first, seeded_engine) == list(TEAM.profiles.agent().tools)
    (result,) = tool_results(model, 1)
    assert not result.is_error
    assert json.loads(result.content) == {"sku": "KET-1", "in_stock": 7, "tenant": "demo"}


async def test_an_irreversible_python_tool_waits_is_approved_and_executes_once(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("A voucher is on its way."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(TEAM)) as handle:
        (action,) = await pending_actions(handle)
        assert action.tool == "issue_voucher"
        assert action.arguments == {"value": "10", "reason": "The parcel came a week late."}
        assert action.targets == {"tenant_id": "demo", "ticket_id": "T-1042"}
        assert (action.mode, action.required_approvals) == ("confirm", 1)
        assert action.expires_at - action.requested_at == timedelta(hours=2)  # the policy's TTL
        # Its money is the argument its policy declares (`value`, in EUR), not a name.
        assert action.exposure == voucher_exposure("10.00")
        with use_session(seeded_engine) as session:
            row = session.get(WaitingAction, (handle.id, action.action_hash))
            assert row is not None and row.tenant_id == "demo"  # in the reviewers' inbox
            assert (row.amount_minor, row.currency, row.order_id) == (1000, "EUR", "")
        assert team_tools.CALLS == []  # nothing happens before the decision
        result = await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        assert result.status == "approved"
        outcome = await handle.result()

    assert outcome.status == "completed"
    (approved,) = outcome.decisions
    assert (approved.amount, approved.currency, approved.order_id) == ("10.00", "EUR", None)
    key = effect_key(handle.id, "issue_voucher", action.action_hash)
    assert team_tools.CALLS == [key]
    assert team_tools.VOUCHERS == {key: {"code": "V-0001", "value": 10}}
    (result_block,) = tool_results(model, 1)
    assert json.loads(result_block.content) == {"code": "V-0001", "value": 10}
    with use_session(seeded_engine) as session:
        effect = session.get(ToolEffect, key)
        assert effect is not None and effect.status == "done" and effect.approvers == "alice"
        assert session.get(WaitingAction, (handle.id, action.action_hash)) is None
        kinds = list(
            session.scalars(
                select(DecisionRow.kind)
                .where(DecisionRow.run_id == handle.id)
                .order_by(DecisionRow.seq)
            )
        )
    assert kinds == ["approved", "executed"]


async def test_a_rejected_python_tool_never_runs_and_the_model_is_told(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("No voucher, sorry."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(TEAM)) as handle:
        (action,) = await pending_actions(handle)
        rejection = decision(seeded_engine, "alice", action.action_hash, "reject", "no delay")
        assert (await decide(handle, rejection)).status == "rejected"
        outcome = await handle.result()
    assert outcome.status == "completed"
    assert team_tools.CALLS == []
    (result,) = tool_results(model, 1)
    assert result.is_error
    assert (
        "the call to issue_voucher did not happen. Category: other. The reviewer's words: no delay."
    ) in result.content


async def test_the_effect_refuses_a_caller_without_proof_and_the_gateway_refuses_a_write(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("Done."))
    async with gate_run(env, model, seeded_engine, **on_profile(TEAM)) as handle:
        (action,) = await pending_actions(handle)
        key = effect_key(handle.id, "issue_voucher", action.action_hash)
        # The run's names, as its history shows them: the worker holds that profile.
        names = {"profile_hash": TEAM.content_hash, "agent_name": TEAM.profiles.default_agent}
        bare = ToolActionCommand(
            run_id=handle.id,
            tenant_id="demo",
            ticket_id="T-1042",
            idempotency_key=key,
            action=action,
            **names,
        )
        # A real reviewer's signature, for this very action, that the run never accepted.
        unaccepted = signed(decision(seeded_engine, "alice", action.action_hash), handle.id)
        plan = RogueEffectPlan(
            signoff_queue=(await handle.describe()).task_queue,
            commands=[bare, bare.model_copy(update={"proofs": [unaccepted]})],
            as_read=ToolCallInput(
                run_id=handle.id,
                tenant_id="demo",
                ticket_id="T-1042",
                tool_use_id="toolu_rogue",
                name="issue_voucher",
                arguments=VOUCHER[1],
                idempotency_key="rogue",
                **names,
            ),
        )
        rogue_queue = f"rogue-{uuid.uuid4()}"
        async with Worker(env.client, task_queue=rogue_queue, workflows=[RogueEffect]):
            rogue = await env.client.start_workflow(
                RogueEffect.run, plan, id=f"rogue-{uuid.uuid4()}", task_queue=rogue_queue
            )
            # Polled, not awaited: awaiting a result lets the test server skip time, and
            # the action's 2 h expiry would fire before the reviewer decides below.
            said = await finished(rogue)
        no_proof, not_accepted, as_read = said
        assert no_proof.startswith("refused: This effect was asked by workflow 'rogue-")
        assert not_accepted.startswith("refused: This effect was asked by workflow 'rogue-")
        assert as_read.startswith("run_tool: True: The tool 'issue_voucher' is irreversible")
        assert team_tools.CALLS == []
        with use_session(seeded_engine) as session:
            refusals = list(
                session.scalars(select(DecisionRow.reason).where(DecisionRow.kind == "refused"))
            )
        # Same caller, action and reason: the attempt is on the record once; and the
        # irreversible tool asked for as a read is on it too, naming the caller.
        effects = [reason for reason in refusals if reason.startswith("effect refused")]
        reads = [reason for reason in refusals if reason.startswith("run_tool refused")]
        assert len(effects) == 1 and "(called by workflow 'rogue-" in effects[0]
        assert len(reads) == 1 and "issue_voucher as a read" in reads[0]
        assert len(refusals) == 2
        await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        assert (await handle.result()).status == "completed"
    assert len(team_tools.CALLS) == 1  # the run, approved for real, acts once


async def test_a_tenant_without_refunds_is_never_offered_refund(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    model = FakeModel().enqueue(
        tool_reply(("refund", {"amount": "5.00", "reason": "told to"})), text_reply("No refund.")
    )
    async with gate_run(
        time_skipping_env, model, seeded_engine, **on_profile(TEAM, "globex")
    ) as handle:
        outcome = await handle.result()
    assert outcome.status == "completed"
    names = offered(model.history[0], seeded_engine)
    assert "refund" not in names and "issue_voucher" in names
    (result,) = tool_results(model, 1)
    assert result.is_error and result.content.startswith("Unknown tool 'refund'.")


async def test_a_paused_run_keeps_its_profile_after_an_edit(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine, tmp_path: Path
) -> None:
    model = FakeModel().enqueue(tool_reply(VOUCHER), text_reply("Done."))
    async with gate_run(time_skipping_env, model, seeded_engine, **on_profile(TEAM)) as handle:
        (action,) = await pending_actions(handle)
        # The file is edited while the run waits: vouchers now need two reviewers.
        edited_file = tmp_path / "team_profile.toml"
        edited_file.write_text(
            TEAM_PROFILE.read_text()
            .replace(
                'approval = "confirm"\napproval_ttl = "2h"',
                'approval = "review"\napproval_ttl = "2h"',
            )
            .replace(
                'python_tools = ["tests.tools.team_tools"]',
                'python_tools = ["tests.tools.team_tools"]\n# edited',
            )
        )
        edited = load_profile_file(edited_file)
        assert edited.profiles.agent().policy("issue_voucher").approval == "review"
        assert edited.content_hash != TEAM.content_hash
        # New runs take the edit; this one keeps the profile it started on: one approval.
        assert (action.mode, action.required_approvals) == ("confirm", 1)
        assert (
            await decide(handle, decision(seeded_engine, "alice", action.action_hash))
        ).status == "approved"
        assert (await handle.result()).status == "completed"
        started_on = (await handle.fetch_history()).events[0]
    assert TEAM.content_hash in str(started_on.workflow_execution_started_event_attributes.input)
    assert len(team_tools.CALLS) == 1
