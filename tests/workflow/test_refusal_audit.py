"""Every caller refusal of any activity is on the audit (activities/refusal_audit.py).

A workflow of someone else's, on a task queue of its own, calls signoff's activities by
name on a worker built as `signoff worker` builds its interceptors: it releases another
run's hold, and writes a `rule_approved` record into tenant demo's chain for a run id of
its own. Both are refused (`NotItsRun`), no `rule_approved` row is written, and each
refusal is one `refused` row of demo's chain naming the workflow that called; the chain
still verifies.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

from sqlalchemy import Engine, select
from temporalio.testing import WorkflowEnvironment
from temporalio.worker import Worker

from activities.refusal_audit import RefusalAudit, named_tenant
from activities.store.database import use_session
from activities.store.decision_chain import verify_chain
from activities.store.schema import DecisionRow
from signoff.wiring.worker_activities import worker_activities
from tests.unit.test_reviewer_notifier import NOTICE
from tests.workflow.approvals import store_parts
from tests.workflow.fakes import FakeModel
from tests.workflow.rogue_calls import RogueCalls
from workflows.actions import (
    RECORD_DECISION_ACTIVITY,
    RELEASE_PENDING_REFUND_ACTIVITY,
    DecisionEvent,
    DecisionRecord,
    PendingRefundRelease,
)
from workflows.reviewer_notices import NOTIFY_ACTIVITY

SOMEONE_ELSES_RUN = "run-demo-0123456789ab"


def test_a_call_names_its_tenant_by_field_or_by_run_id() -> None:
    release = PendingRefundRelease(run_id=SOMEONE_ELSES_RUN, action_hash="a" * 64)
    assert named_tenant(release) == "demo"
    assert named_tenant(PendingRefundRelease(run_id="rogue-1", action_hash="a" * 64)) is None
    assert named_tenant(None) is None


async def test_refusals_of_any_activity_are_on_the_audit(
    time_skipping_env: WorkflowEnvironment, seeded_engine: Engine
) -> None:
    env = time_skipping_env
    rogue_id = f"rogue-{uuid.uuid4()}"
    forged = DecisionEvent(
        run_id=rogue_id,
        tenant_id="demo",
        ticket_id="T-1042",
        sequence=1,
        record=DecisionRecord(
            action_hash="b" * 64, kind="rule_approved", reviewer_id=None, at=datetime.now(UTC)
        ),
    )
    release = PendingRefundRelease(run_id=SOMEONE_ELSES_RUN, action_hash="c" * 64)
    made_up = NOTICE.model_copy(update={"run_id": rogue_id, "approved_by": ["alice"]})
    signoff_queue, rogue_queue = f"signoff-{uuid.uuid4()}", f"rogue-{uuid.uuid4()}"
    parts = store_parts(seeded_engine, FakeModel())
    async with (
        Worker(
            env.client,
            task_queue=signoff_queue,
            activities=worker_activities(parts),
            interceptors=[RefusalAudit(seeded_engine)],
        ),
        Worker(env.client, task_queue=rogue_queue, workflows=[RogueCalls]),
    ):
        said = await env.client.execute_workflow(
            RogueCalls.run,
            args=[
                signoff_queue,
                [
                    [RELEASE_PENDING_REFUND_ACTIVITY, release.model_dump(mode="json")],
                    [RECORD_DECISION_ACTIVITY, forged.model_dump(mode="json")],
                    # A message of the rogue's making to the reviewers' channel, for its
                    # own id: the caller is the run it names, but not one of signoff's.
                    [NOTIFY_ACTIVITY, made_up.model_dump(mode="json")],
                ],
            ],
            id=rogue_id,
            task_queue=rogue_queue,
        )

    assert said == [
        "release_pending_refund: failed NotItsRun",
        "record_decision: failed NotItsRun",
        "notify_reviewers: failed NotItsRun",
    ]
    with use_session(seeded_engine) as session:
        rows = list(
            session.scalars(
                select(DecisionRow).where(DecisionRow.tenant_id == "demo").order_by(DecisionRow.seq)
            )
        )
    assert [row.kind for row in rows if row.kind == "rule_approved"] == []
    refused = [row for row in rows if row.kind == "refused" and rogue_id in row.reason]
    assert [(row.run_id, row.reason.split(" refused")[0]) for row in refused] == [
        (SOMEONE_ELSES_RUN, "release_pending_refund"),
        (rogue_id, "record_decision"),
        (rogue_id, "notify_reviewers"),
    ]
    assert all(f"called by workflow '{rogue_id}'" in row.reason for row in refused)
    assert verify_chain(seeded_engine, "demo").intact
