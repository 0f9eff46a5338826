"""The versioning policy from the first release on, shown on a real run: a refund run
that waits for its reviewer across a deploy of changed workflow code completes
correctly when the change sits behind `workflow.patched`, and would be stuck without.

The deploy is what an operator does: the worker running today's code stops while the
run waits, and a worker with the changed code (tests/workflow/deployed_changes.py)
takes the task queue. The waiting run is replayed from its history by the new worker,
takes the old path where its history has no marker, and goes on; a run started after
the deploy takes the new path and records the gate's marker.

On the dev server: Temporal's time-skipping test server (1.40) resumed the waiting run
on the gated branch, a divergence the real server does not make.
"""

from __future__ import annotations

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Replayer

from activities.store import list_refunds
from signoff.config.data_converter import data_converter
from signoff.service.history_gates import patch_ids
from tests.conftest import dev_server
from tests.workflow.approvals import (
    APPROVAL_RUN_DEADLINE,
    decide,
    decision,
    gate_worker,
    pending_actions,
)
from tests.workflow.deployed_changes import (
    DEPLOY_GATE,
    AgentRunWithGatedChange,
    AgentRunWithUngatedChange,
)
from tests.workflow.fakes import (
    FakeModel,
    new_task_queue,
    run_request,
    start,
    text_reply,
    tool_reply,
)
from workflows.agent_run import AgentRun
from workflows.contracts import RunOutcome

pytestmark = pytest.mark.devserver

REFUND = ("refund", {"amount": "89.90", "reason": "The kettle arrived broken."})
SECOND_REFUND = ("refund", {"amount": "45.00", "reason": "The parcel never came."})


async def test_a_waiting_run_completes_across_a_deploy_of_gated_code(
    seeded_engine: Engine,
) -> None:
    async with dev_server() as env:
        await deploy_across_wait(env, seeded_engine)


async def deploy_across_wait(env: WorkflowEnvironment, seeded_engine: Engine) -> None:
    model = FakeModel().enqueue(
        tool_reply(REFUND),
        text_reply("Refunded."),
        tool_reply(SECOND_REFUND),
        text_reply("Refunded."),
    )
    queue = new_task_queue()
    now = await env.get_current_time()
    before = run_request(now, ticket_id="T-1042", deadline=APPROVAL_RUN_DEADLINE)
    async with gate_worker(env, model, seeded_engine, queue):
        waiting = await start(env.client, before, queue)
        (action,) = await pending_actions(waiting)
    # Today's code is gone; the run waits with nobody running it.
    recorded = await waiting.fetch_history()
    ungated = Replayer(workflows=[AgentRunWithUngatedChange], data_converter=data_converter)
    refused = await ungated.replay_workflow(recorded, raise_on_replay_failure=False)
    assert refused.replay_failure is not None  # the same deploy without a gate: stuck

    async with gate_worker(env, model, seeded_engine, queue, workflows=[AgentRunWithGatedChange]):
        await decide(waiting, decision(seeded_engine, "alice", action.action_hash))
        outcome = await waiting.result()
        after = run_request(now, ticket_id="T-2210", deadline=APPROVAL_RUN_DEADLINE)
        fresh = await start(env.client, after, queue)
        (second,) = await pending_actions(fresh)
        await decide(fresh, decision(seeded_engine, "alice", second.action_hash))
        await fresh.result()

    assert isinstance(outcome, RunOutcome)
    assert (outcome.status, len(outcome.effects_performed)) == ("completed", 1)
    assert len(list_refunds(seeded_engine, "demo", "C-1042")) == 1  # once, after the approval
    # The run from before the deploy took the old path (no marker); the new one the new.
    finished, started_after = await waiting.fetch_history(), await fresh.fetch_history()
    assert patch_ids(finished.events) == [] and patch_ids(started_after.events) == [DEPLOY_GATE]
    gated = Replayer(workflows=[AgentRunWithGatedChange], data_converter=data_converter)
    for history in (finished, started_after):
        await gated.replay_workflow(history)
    # Today's code still replays the run from before the deploy, as it should.
    await Replayer(workflows=[AgentRun], data_converter=data_converter).replay_workflow(finished)
