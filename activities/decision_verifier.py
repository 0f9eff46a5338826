"""The `verify_decision` activity: is this decision what an authenticated reviewer signed?

A run's `decide` update runs it, as a local activity, for every decision its validator
let in (`workflows/decision_check.py`); it refuses any other caller, and a call that did
not come as a local activity of the run's own workflow task: its claim of the nonce is
what tells the effect that the run accepted the decision, while the action waited and
before it expired (`activities/store/effect_proofs.py`).

It holds the decision service's public keys (it can check a signature, never make one)
and reads the store. In order: the signature covers this run and every field of the
decision; it is fresh; the reviewer exists under exactly this id, is active, belongs to
the run's tenant, holds one of the roles the action accepts and did not ask for the run;
and the nonce was never used by another update. A refusal is an answer, not an error: retrying
cannot change it. Only a store that does not answer raises, and Temporal retries that.
"""

from __future__ import annotations

from concurrent.futures import Executor
from datetime import timedelta

from sqlalchemy import Engine
from temporalio import activity

from activities.caller import only_in_its_worker
from activities.local_lane import in_thread
from activities.store.decision_nonces import claim_nonce
from activities.store.reviewer_standing import standing_by_name
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import REFUND_APPROVER_ROLE
from workflows.approval_policy import same_person
from workflows.decision_check import VERIFY_DECISION_ACTIVITY, DecisionCheck, DecisionProof
from workflows.decision_keyring import FORGED, stale_refusal

UNSIGNED = "This decision carries no proof of who made it. Nothing was decided."


class DecisionVerifier:
    """`threads`: where its store calls run (the worker's local lane,
    activities/local_lane.py); asyncio's default executor when None."""

    def __init__(
        self,
        engine: Engine,
        keys: VerificationKeys,
        max_age: timedelta,
        threads: Executor | None = None,
    ) -> None:
        self._engine = engine
        self._keys = keys
        self._max_age = max_age
        self._threads = threads

    @activity.defn(name=VERIFY_DECISION_ACTIVITY)
    async def verify_decision(self, check: DecisionCheck) -> DecisionProof:
        # Only the run itself, from its own workflow task (after its validator): the nonce
        # is claimed for it, and the effect counts only decisions claimed here.
        only_in_its_worker(check.run_id)
        proof = await in_thread(self._threads, self.verify, check)
        if not proof.accepted:
            activity.logger.warning(
                "refused a decision for %s on %s: %s",
                check.decision.reviewer_id,
                check.run_id,
                proof.message,
            )
        return proof

    def verify(self, check: DecisionCheck) -> DecisionProof:
        decision = check.decision
        if (
            decision.signature is None
            or decision.issued_at is None
            or decision.nonce is None
            or decision.key_id is None
        ):
            return _refused(UNSIGNED)
        key_problem = self._keys.key_problem(decision.key_id)
        if key_problem is not None:
            return _refused(f"This decision cannot be checked. {key_problem} Nothing was decided.")
        document = decision.signed_document(check.run_id)
        if not self._keys.matches(document, decision.key_id, decision.signature):
            return _refused(FORGED)
        stale = stale_refusal(decision.issued_at, check.now, self._max_age)
        if stale is not None:
            return _refused(stale)
        with self._engine.connect() as connection:
            reviewer = standing_by_name(connection, decision.reviewer_id)
        if reviewer is None or reviewer.id != decision.reviewer_id:
            return _refused(f"There is no reviewer '{decision.reviewer_id}'. Nothing was decided.")
        if not reviewer.active:
            return _refused(
                f"Reviewer '{reviewer.id}' is disabled and cannot decide. Nothing was decided."
            )
        if reviewer.tenant_id != check.run_tenant_id or decision.tenant_id != reviewer.tenant_id:
            return _refused("This request belongs to another tenant; you cannot decide on it.")
        accepted = check.approver_roles or [REFUND_APPROVER_ROLE]
        if not set(accepted) & set(reviewer.role_list):
            return _refused(
                f"Reviewer '{reviewer.id}' does not have the {' or '.join(accepted)} role."
            )
        if same_person(reviewer.id, check.run_actor_id):
            return _refused("You asked for this run yourself; another reviewer must decide on it.")
        claimed = claim_nonce(
            self._engine,
            nonce=decision.nonce,
            run_id=check.run_id,
            update_id=check.update_id,
            reviewer_id=reviewer.id,
            at=check.now,
        )
        if not claimed:
            return _refused(
                "This decision was already sent once; a replayed decision counts for nothing."
            )
        return DecisionProof(accepted=True, reviewer_roles=reviewer.role_list)


def _refused(message: str) -> DecisionProof:
    return DecisionProof(accepted=False, message=message)
