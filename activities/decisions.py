"""The `record_decision` activity: a decision of the run's trail, into the audit table.

Retries are safe: the event is named by the run and its place in the trail, and a
retried attempt finds the row its earlier attempt wrote (`store/decisions.py`). An
unknown tenant or an event key already taken by other contents will answer the same
on every attempt, so they are non-retryable; a locked or unreachable database is
retried by Temporal.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.caller import only_its_own
from activities.rule_callers import foreign_caller, only_signoffs_run
from activities.store import decisions as audit
from activities.store.errors import StoreError
from activities.store.record_proofs import record_refusal
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import RECORD_DECISION_ACTIVITY, DecisionEvent


class DecisionActivities:
    """`keys` (public only) verify the signed decision an approval or a rejection record
    carries."""

    def __init__(
        self,
        engine: Engine,
        keys: VerificationKeys,
        callers: Callable[[], Awaitable[str | None]] = foreign_caller,
    ) -> None:
        self._engine = engine
        self._keys = keys
        # Who may write a record without a proof: signoff's own run (`foreign_caller`
        # asks Temporal). The store's tests, which run no Temporal, name their own.
        self._foreign_caller = callers

    @activity.defn(name=RECORD_DECISION_ACTIVITY)
    async def record_decision(self, event: DecisionEvent) -> int:
        """Append the event; return its row id (the same id on a retry). Only the run
        itself writes its trail (activities/caller.py)."""
        only_its_own(event.run_id)
        if event.proof is None:
            # A reviewer's record is proven by its signed decision (below); any other is
            # the run's own word, so the run must be signoff's.
            # A workflow of someone else's is its own caller too, and could otherwise
            # append rows of a run's kinds (`rule_approved`, `expired`) to any tenant's
            # chain for a run id of its own.
            await only_signoffs_run(
                "to write this record",
                "only a run's own workflow writes its decision trail",
                self._foreign_caller,
            )
        refusal = await asyncio.to_thread(record_refusal, self._engine, event, self._keys)
        if refusal is not None:
            activity.logger.warning("refused an audit record of %s: %s", event.run_id, refusal)
            # The proof will not change on a retry.
            raise ApplicationError(refusal, type="UnprovenDecision", non_retryable=True)
        started = datetime.now(UTC)
        try:
            row = await asyncio.to_thread(audit.append_decision, self._engine, event)
        except StoreError as error:
            # The store answered; it will answer the same on every attempt.
            raise ApplicationError(
                str(error), type=type(error).__name__, non_retryable=True
            ) from None
        if row.recorded_at >= started:  # written now, not found by a retry: count it once
            observe.decision_recorded(event)
        return row.id
