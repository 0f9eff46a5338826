"""The workflow's side of decision proofs: ask the `verify_decision` local activity.

The update validator can only judge what the payload claims (it runs before anything
is written, and it may not do I/O). Whether the claim is true needs the store, so the
update handler runs this activity first. Its answer is in the history (a local
activity's marker): an accepted decision names the reviewer and the roles the store
holds, a refused one says why, and the run records the refused attempt in its
decision trail.

Design note: a local activity. It runs in the worker that holds the workflow task, so
the update's answer and whatever the decision starts (the refund's ScheduleActivityTask)
leave in one workflow-task completion: from the decision to the ledger is one round
trip through the server, the effect. What must hold for that:

- Retries. A local activity may run again: an attempt that timed out, or a worker that
  died before the marker was written (the next worker runs the update again, its
  validator first). The nonce is claimed per run and update (`claim_nonce`): the same
  update claiming it again gets its claim back and it counts once. Every other check
  reads the store's state and the decision alone: the same state, the same answer.
- The workflow task. While it runs, the run's workflow task is held: a signal, a timer
  or another update waits for it. So an attempt is short (`VERIFY_TIMEOUT`), all attempts
  with their backoffs end within `VERIFY_SCHEDULE_TO_CLOSE`, well inside the workflow
  task's timeout (10 s by default; the SDK would extend a task past 80% of it by
  completing it and asking for another, two more events), and retry backoffs stay under
  the SDK's local retry threshold (no timer in the history). A store slower than that
  fails the update, saying nothing was decided (`STORE_DID_NOT_ANSWER`); the reviewer
  decides again, with a new nonce.
- Replay. The marker holds the answer: replay reads it back and never runs the check.
- Trust. The activity takes no call but a local one from the run's own workflow task
  (`activities/caller.py`), so its claim of the nonce says that this run's validator and
  check accepted the decision while the action waited, unexpired: the effect counts no
  proof without it (`activities/store/effect_proofs.py`).

This is workflow code: no I/O; the activity does it.
"""

from __future__ import annotations

from datetime import datetime, timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.actions import Decision
    from workflows.cancellation import reraise_cancellation
    from workflows.contract_base import Contract
    from workflows.local_calls import local_call
    from workflows.refusal_kinds import UNCHECKED

VERIFY_DECISION_ACTIVITY = "verify_decision"
# One attempt: a few short reads and one write (the nonce). See the module note.
VERIFY_TIMEOUT = timedelta(seconds=2)
# Every attempt and backoff, well inside the workflow task's 10 s.
VERIFY_SCHEDULE_TO_CLOSE = timedelta(seconds=5)
# A store that does not answer is retried briefly: the reviewer is waiting on the page.
VERIFY_RETRIES = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), backoff_coefficient=2, maximum_attempts=3
)
STORE_DID_NOT_ANSWER = (
    "The store did not answer while this decision was checked; nothing was decided. "
    "Decide again in a moment."
)


class DecisionCheck(Contract):
    """What `verify_decision` needs: the decision, and what the run knows of itself."""

    run_id: str
    run_tenant_id: str
    run_actor_id: str
    # The update's id: a retried activity finds its own nonce, never a replay.
    update_id: str
    decision: Decision
    now: datetime
    # The roles the action accepts (its policy's approver roles, a role it needs one
    # approval from, a chain's, an escalation's); empty in checks sent before N of M,
    # which accepted `refund_approver` alone.
    approver_roles: list[str] = []


class DecisionProof(Contract):
    """The verifier's answer. `accepted` False carries the reason, for the reviewer."""

    accepted: bool
    message: str = ""
    # The reviewer's roles as the store holds them now, not as the payload claimed.
    reviewer_roles: list[str] = []


async def verify(check: DecisionCheck) -> DecisionProof:
    """The store's answer; ApplicationError (STORE_DID_NOT_ANSWER) when it gave none."""
    try:
        proof: DecisionProof = await local_call(
            VERIFY_DECISION_ACTIVITY,
            check,
            result_type=DecisionProof,
            timeout=VERIFY_TIMEOUT,
            schedule_to_close=VERIFY_SCHEDULE_TO_CLOSE,
            retry_policy=VERIFY_RETRIES,
        )
    except ActivityError as error:
        reraise_cancellation(error)
        raise ApplicationError(STORE_DID_NOT_ANSWER, type=UNCHECKED) from None
    return proof
