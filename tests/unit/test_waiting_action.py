"""A waiting action's record: each change returns a new record, and expiry says what
became of it (ended, or escalated with its approvals kept or dropped)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import timedelta
from typing import Any, cast

import pytest

from tests.unit.test_approval_policy import decision, pending
from tests.unit.test_approval_requirements import ESCALATING, approval
from workflows.escalation import at_expiry
from workflows.gate_hooks import GateHooks
from workflows.tool_policy import ToolPolicy
from workflows.waiting_action import WaitingAction


@dataclass
class PolicyOnly:
    """The one part of a tool's hooks a record's pure changes read: its policy."""

    policy: ToolPolicy | None
    noun: str = "refund"


def record(policy: dict[str, Any] | None = None, **changes: Any) -> WaitingAction:
    rule = None if policy is None else ToolPolicy.model_validate(policy)
    action = pending().model_copy(update=changes)
    return WaitingAction(action, cast(GateHooks, PolicyOnly(rule)))


def test_an_approval_counts_and_keeps_its_proof_until_the_action_has_all_it_needs() -> None:
    two = record(mode="review", required_approvals=2).started(
        pending().model_copy(update={"mode": "review", "required_approvals": 2})
    )
    first = two.approved_by(approval("alice"), decision("alice"))
    assert (first.resolution, len(first.action.approvals), first.proofs) == (
        None,
        1,
        (decision("alice"),),
    )
    assert two.action.approvals == []  # the record it came from is unchanged
    second = first.approved_by(approval("bob"), decision("bob"))
    assert second.resolution == "approved"
    assert [proof.reviewer_id for proof in second.proofs] == ["alice", "bob"]


def test_it_needs_approvals_in_the_audit_only_once_it_waited() -> None:
    fresh = record()
    assert (fresh.required, fresh.waited, fresh.open, fresh.known) == (None, None, False, False)
    waiting = fresh.started(fresh.action)
    assert waiting.required == 1
    assert waiting.waited == (fresh.action.mode, fresh.action.requested_at)
    assert (waiting.open, waiting.known) == (True, True)


def test_an_edit_whose_own_approval_is_enough_is_approved_as_it_starts_to_wait() -> None:
    edit = pending([approval("alice")])
    assert record().started(edit).resolution == "approved"
    assert record().started(pending()).resolution is None


def test_without_an_escalation_expiry_ends_it_and_remembers_when() -> None:
    waiting = record().started(pending())
    expiry = at_expiry(waiting, waiting.action.expires_at, waiting.action.expires_at, 3)
    assert not expiry.escalated
    assert expiry.record.resolution == "expired"
    assert expiry.record.expired_at == waiting.action.expires_at


@pytest.mark.parametrize(("keep", "proofs", "counted_from"), [(False, 0, 7), (True, 1, 0)])
def test_an_escalation_drops_the_proofs_and_counts_approvals_afresh_unless_kept(
    keep: bool, proofs: int, counted_from: int
) -> None:
    two = pending().model_copy(update={"required_approvals": 2})
    waiting = record({**ESCALATING, "keep_approvals": keep}).started(two)
    half = waiting.approved_by(approval("alice"), decision("alice"))
    now = half.action.expires_at
    expiry = at_expiry(half, now, now + timedelta(days=1), 7)
    assert expiry.escalated
    assert "escalated to support_lead" in expiry.reason
    assert expiry.record.resolution is None and expiry.record.waiting
    assert expiry.record.action.expires_at == now + timedelta(hours=4)
    assert (len(expiry.record.proofs), expiry.record.approvals_from) == (proofs, counted_from)


def test_holding_it_again_keeps_the_approvals_that_arrived_meanwhile() -> None:
    waiting = record().started(pending()).approved_by(approval("alice"), decision("alice"))
    held = pending().model_copy(update={"note": "held again"})
    again = waiting.held_again(held)
    assert again.action.note == "held again"
    assert [a.reviewer_id for a in again.action.approvals] == ["alice"]
