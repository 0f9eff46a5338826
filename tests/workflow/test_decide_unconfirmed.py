"""A decision the run does not confirm in time says so, and does not claim nothing happened.

The `decide` update can reach Temporal and then wait: the run's worker is gone, or
busy. After the service's RPC timeout the SDK gives up with its own error, which is not
an RPCError; every face must still get a sentence, and that sentence must not say
"nothing was decided", since a worker that comes back may yet apply it.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine
from temporalio.testing import WorkflowEnvironment

from signoff.service.decisions import (
    UNAVAILABLE,
    UNCONFIRMED,
    Decider,
    DecisionUnavailable,
    decide,
)
from signoff.service.handles import Runs, Store
from tests.workflow.approvals import TEST_SIGNER
from tests.workflow.fakes import new_task_queue, run_request, start

ALICE = Decider(reviewer_id="alice", tenant_id="demo", roles=("refund_approver",))


# Slow: the update waits in real time for a worker that never answers.
@pytest.mark.slow
async def test_a_decision_no_worker_confirms_is_unconfirmed_not_lost(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    # Started on a task queue no worker polls: the update is sent and never answered.
    handle = await start(env.client, run_request(await env.get_current_time()), new_task_queue())
    try:
        with pytest.raises(DecisionUnavailable) as raised:
            await decide(
                Runs(env.client),
                TEST_SIGNER,
                handle.id,
                ALICE,
                "a" * 64,
                "approve",
                "",
                rpc_timeout=timedelta(seconds=2),
                store=Store(seeded_engine),
            )
    finally:
        await handle.terminate("test over")
    assert raised.value.message == UNCONFIRMED
    assert "may still be applied" in UNCONFIRMED and "Nothing was" not in UNCONFIRMED
    assert UNCONFIRMED != UNAVAILABLE
