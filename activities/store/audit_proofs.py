"""Each reviewer's decision in the audit, proven by the signature it was made with.

Design note. The hash chain (decision_chain.py) shows that no row was altered, and
signed heads that no chain was rewritten; neither shows that the named reviewer made
the decision a row records, since whoever writes the table can write a row. Every
approval, first approval and rejection therefore keeps its signed decision
(`decisions.proof`, written by `append_decision`). `unproven_decisions` checks each one
with nothing but the store and the decision service's public keys: the proof is there,
it says what the row says (run, action, verdict, reviewer, tenant), and its Ed25519
signature holds under the key it names (a key retired since still proves what it
signed before its retirement). Only the decision service holds a private key, so a DBA
or an operator can delete or copy a proof but never make one.

A signature covers the action's hash, not the order and amount a row shows; so each
row also keeps the action its proof names, and the row's shown values must be that
action's (`audit_actions.values_problem`). Rows from before actions were kept are
counted as not covered (`ProofReport.not_covered`), not failed (audit_actions.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

from pydantic import ValidationError
from sqlalchemy import Engine, select

from activities.store.audit_actions import BEFORE_ACTIONS, NOT_KEPT, values_problem
from activities.store.database import use_session
from activities.store.decision_chain import VERIFY_BATCH_ROWS
from activities.store.schema import DecisionRow
from activities.store.waiting_actions import FIRST_APPROVAL
from signoff.config.decision_signatures import AuditKeys
from workflows.actions import Decision

# The kinds that record a reviewer's will, and the verdict their signature must carry.
VERDICT_OF_KIND = {
    "approved": "approve",
    FIRST_APPROVAL: "approve",
    "rejected": "reject",
    "responded": "respond",
}


@dataclass(frozen=True)
class UnprovenDecision:
    """A reviewer's decision in the audit whose proof is missing or does not hold."""

    row_id: int
    tenant_id: str
    seq: int
    kind: str
    reviewer_id: str | None
    decided_at: datetime
    why: str


class NoKeysToCheck(Exception):
    """There are reviewer decisions to check, and no public keys were given."""


@dataclass(frozen=True)
class ProofReport:
    checked: int
    unproven: list[UnprovenDecision]
    # Decisions signed, but from before their rows kept the action: the order and amount
    # they show are not proven (audit_actions.py).
    not_covered: list[UnprovenDecision] = field(default_factory=list)


def proof_problem(row: DecisionRow, keys: AuditKeys) -> str | None:
    """Why this row's decision is not proven by its signature, or None when it is."""
    if row.proof is None:
        return "it carries no signed decision"
    try:
        proof = Decision.model_validate_json(row.proof)
    except ValidationError:
        return "its signed decision cannot be read"
    if None in (proof.signature, proof.key_id, proof.nonce, proof.issued_at):
        return "its decision is not signed"
    said = (proof.action_hash, proof.verdict, proof.reviewer_id, proof.tenant_id)
    if said != (row.action_hash, VERDICT_OF_KIND[row.kind], row.reviewer_id, row.tenant_id):
        return "its signed decision is for another action, verdict, reviewer or tenant"
    assert proof.key_id is not None and proof.signature is not None  # checked above
    return keys.problem(proof.signed_document(row.run_id), proof.key_id, proof.signature)


def unproven_decisions(
    engine: Engine, keys: AuditKeys | None, tenant_id: str | None = None
) -> ProofReport:
    """Check every reviewer's decision (of one tenant, or all), oldest first. Without
    keys, an audit that holds no reviewer decision passes and any other raises
    NoKeysToCheck."""
    query = (
        select(DecisionRow)
        .where(DecisionRow.kind.in_(tuple(VERDICT_OF_KIND)))
        .order_by(DecisionRow.tenant_id, DecisionRow.seq, DecisionRow.id)
    )
    if tenant_id is not None:
        query = query.where(DecisionRow.tenant_id == tenant_id)
    checked, unproven, not_covered = 0, [], []
    keeping: set[str] = set()  # tenants whose chain has kept an action so far
    with use_session(engine) as session:
        if keys is None:
            if session.scalars(query.limit(1)).first() is not None:
                raise NoKeysToCheck
            return ProofReport(0, [])
        for row in session.scalars(query.execution_options(yield_per=VERIFY_BATCH_ROWS)):
            checked += 1
            why = proof_problem(row, keys)
            if why is None and row.action is not None:
                keeping.add(row.tenant_id)
                why = values_problem(row)
            elif why is None and row.tenant_id in keeping:
                why = NOT_KEPT
            elif why is None:
                not_covered.append(_unproven(row, BEFORE_ACTIONS))
            if why is not None:
                unproven.append(_unproven(row, why))
    return ProofReport(checked, unproven, not_covered)


def _unproven(row: DecisionRow, why: str) -> UnprovenDecision:
    return UnprovenDecision(
        row.id, row.tenant_id, row.seq, row.kind, row.reviewer_id, row.decided_at, why
    )
