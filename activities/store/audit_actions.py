"""What a reviewer's decision row shows comes from the action its signature names.

Design note. A reviewer's signature covers the run, the action's hash, the verdict, the
reviewer and the tenant (`workflows/decision_proof.py`), not the order and amount a row
shows: a row appended at a chain's head with a valid hash and a real proof copied from
another row could claim any amount. So a row of a reviewer's decision keeps the action
itself (`decisions.action`, the PendingAction's JSON) and takes its order, amount and
currency from the action's exposure (none at all for an action without one), never from
the record the run sent. The action's hash covers its tool, arguments, targets, policy,
state and exposure (`approval_policy.recomputed_hash`), so anyone can check the row: the
action hashes to the row's action hash, which is the one the signature covers, and the
row shows what the action's exposure says (`values_problem`, run by `audit verify`).

Where the action comes from: the command of the effect that writes the row (the refund's
or a tool's, `effect_trail.py`), or the inbox's row of the action while it waits (every
other reviewer's record, `decisions.append_decision`); for an edit's approval, written
before the edited action has an inbox row, the edit its proof names applied to the
original (`action_edits.edited_action`), which the run's `edited` row keeps for it. Each
is taken only when it hashes to the record's action hash, so none needs trusting.

The action is inside the chain's hash (by its digest, `decision_chain.row_fields`),
unlike the proof: the proof is sealed by its signature, but a row whose action was taken
away would read as one written before actions were kept. Inside the hash, that breaks the
chain. A row of a reviewer's decision without an action is therefore "not covered" only
while no earlier row of its tenant's chain keeps one (rows written before revision
0011_decision_actions); after one does, a row without its action fails. What that cannot
tell: a row forged without an action in a chain where no decision kept one yet.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from pydantic import ValidationError
from sqlalchemy import Engine, func, select
from sqlalchemy.orm import Session

from activities.store.action_money import action_money
from activities.store.database import use_session
from activities.store.schema import DecisionRow, WaitingAction, minor_to_decimal
from activities.store.waiting_actions import FIRST_APPROVAL
from workflows.action_edits import edited_action
from workflows.actions import DecisionEvent, PendingAction
from workflows.approval_policy import DecisionRefused, recomputed_hash

# The run's record that an action was edited: its row keeps the original (kept_action).
EDITED = "edited"
# The kinds of a reviewer's decision, which carry a proof and keep their action.
REVIEWER_KINDS = ("approved", FIRST_APPROVAL, "rejected", "responded")
# What a decision row shows of its action: order id, amount in minor units, currency.
Shown = tuple[str | None, int | None, str | None]
BEFORE_ACTIONS = (
    "not covered (written before decisions kept their action): its signature holds, the "
    "order and amount it shows are not proven"
)
NOT_KEPT = (
    "it keeps no action, though a decision before it in this chain keeps its own: the "
    "order and amount it shows are not proven"
)


def shown_values(action: PendingAction) -> Shown:
    """The order, amount and currency a row of `action` shows: its exposure's."""
    order_id = None if action.exposure is None else action.exposure.order_id
    return (order_id, *action_money(action))


def said(shown: Shown) -> str:
    """ "310.00 EUR on order C-3107", or "no amount" for a row of none."""
    order_id, amount_minor, currency = shown
    money = "no amount"
    if amount_minor is not None:
        money = " ".join(filter(None, (str(minor_to_decimal(amount_minor)), currency)))
    return money if order_id is None else f"{money} on order {order_id}"


def _names(action: PendingAction, run_id: str, action_hash: str) -> bool:
    return action.action_hash == action_hash and recomputed_hash(action, run_id) == action_hash


def kept_action(
    session: Session, event: DecisionEvent, offered: PendingAction | None = None
) -> PendingAction | None:
    """The action a reviewer's record decided, to keep on its row: `offered` (the effect's
    command's), the inbox's row of it, or for an edit's approval the edit of the original
    it names; whichever hashes to the record's action hash. None for a record of no
    reviewer's (it has no proof) or when none does. An `edited` record (the run's own)
    keeps its original too: its inbox row is gone by the time the edit's approval is
    written, and the approval is derived from it."""
    record = event.record
    if event.proof is None and record.kind != EDITED:
        return None
    # Tried in turn, each read only when the one before does not name the action: the
    # effect's own command is the usual answer, and the store is not read for it.
    for action in _candidates(session, event, offered):
        if _names(action, event.run_id, record.action_hash):
            # Its approvals are rows of their own, and no part of its hash.
            return action.model_copy(update={"approvals": []})
    return None


def _candidates(
    session: Session, event: DecisionEvent, offered: PendingAction | None
) -> Iterator[PendingAction]:
    if offered is not None:
        yield offered
    yield from _waiting(session, event.run_id, event.record.action_hash)
    proof = event.proof
    if proof is not None and proof.original_hash is not None and proof.edits:
        for original in _known(session, event, proof.original_hash):
            try:
                yield edited_action(
                    original, proof.edits, editor=proof.reviewer_id, run_id=event.run_id
                )
            except DecisionRefused:
                pass  # an edit the original does not allow names no action of it


def _waiting(session: Session, run_id: str, action_hash: str) -> list[PendingAction]:
    waiting = session.get(WaitingAction, (run_id, action_hash))
    return [] if waiting is None else _readable(waiting.action)


def _known(session: Session, event: DecisionEvent, action_hash: str) -> list[PendingAction]:
    """The action as the inbox keeps it, or else an earlier row of its run (read through
    the tenant's kind index: edits are rare, the audit is not)."""
    waiting = _waiting(session, event.run_id, action_hash)
    if waiting:
        return waiting
    kept = session.scalars(
        select(DecisionRow.action)
        .where(
            DecisionRow.tenant_id == event.tenant_id,
            DecisionRow.kind.in_((EDITED, *REVIEWER_KINDS)),
            DecisionRow.run_id == event.run_id,
            DecisionRow.action_hash == action_hash,
            DecisionRow.action.is_not(None),
        )
        .limit(1)
    ).first()
    return [] if kept is None else _readable(kept)


def _readable(text: str) -> list[PendingAction]:
    try:
        return [PendingAction.model_validate_json(text)]
    except ValidationError:
        return []  # an unreadable row proves nothing: another source may


def values_problem(row: DecisionRow) -> str | None:
    """Why the row's shown values are not those of the action it keeps, or None when
    they are. For a row that keeps one (`row.action`)."""
    assert row.action is not None
    try:
        action = PendingAction.model_validate_json(row.action)
    except ValidationError:
        return "the action it keeps cannot be read"
    if not _names(action, row.run_id, row.action_hash):
        return "the action it keeps does not hash to the action its decision names"
    shown: Shown = (row.order_id, row.amount_minor, row.currency)
    proven = shown_values(action)
    if shown != proven:
        return f"it shows {said(shown)}; its signed action is {said(proven)}"
    return None


def shown_problems(engine: Engine, rows: Sequence[DecisionRow]) -> dict[int, str]:
    """For a page of the audit: why a reviewer's decision row does not show what the
    action it keeps says, by row id (no signature is checked here: `audit verify` does).
    A row that keeps none is marked only where its chain kept one before it."""
    reviewers = [row for row in rows if row.kind in REVIEWER_KINDS]
    first_kept: dict[str, int | None] = {}
    with use_session(engine) as session:
        for tenant in {row.tenant_id for row in reviewers if row.action is None}:
            first_kept[tenant] = session.scalar(
                # Any kind: its partial index answers (schema.py), and only reviewers'
                # rows and the edits they approve keep an action.
                select(func.min(DecisionRow.seq)).where(
                    DecisionRow.tenant_id == tenant, DecisionRow.action.is_not(None)
                )
            )
    problems: dict[int, str] = {}
    for row in reviewers:
        kept_before = first_kept.get(row.tenant_id)
        if row.action is not None:
            why = values_problem(row)
        elif kept_before is not None and kept_before < row.seq:
            why = NOT_KEPT
        else:
            why = None
        if why is not None:
            problems[row.id] = why
    return problems
