"""The refund's effect demands N of M, a role and a chain itself, from the worker's own
profiles and the reviewers' roles in the store: anyone can call `execute_refund` on the
task queue, so a command with too few, repeated or wrong-role proofs is refused
(`approver_invalid`) and nothing is refunded, whatever its action says it needs.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from sqlalchemy import Engine

from activities.refunds import RefundActivities
from activities.store.refunds import list_refunds
from tests.store.proofs import (
    PROOF_KEYS,
    as_run,
    proven_action,
    proven_command,
    signed_approval,
)
from tests.workflow.team_policies import CHAIN, THREE_WITH_FINANCE, add_team, refund_policy
from workflows.actions import PendingAction, RefundResult

AMOUNT_MINOR = 2000  # under the tenant's threshold: the exposure alone would ask one


async def refund_by(
    store: Engine, tmp_path: Path, policy: str, action: PendingAction, reviewers: list[str]
) -> RefundResult:
    """The command the run would send with these reviewers' proofs, in this order (each
    signed a minute after the one before)."""
    profiles = refund_policy(tmp_path, policy).profiles
    start = datetime.now(UTC) - timedelta(minutes=10)
    proofs = [
        signed_approval(store, action, name, issued_at=start + timedelta(minutes=index))
        for index, name in enumerate(reviewers)
    ]
    activities = RefundActivities(store, PROOF_KEYS, profiles=profiles)
    return await as_run().run(activities.execute_refund, proven_command(action, proofs))


def nothing_refunded(store: Engine) -> bool:
    return list_refunds(store, "demo", "C-2210") == []


async def test_three_different_approvers_one_from_finance_refund(
    seeded_engine: Engine, tmp_path: Path
) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(
        seeded_engine, tmp_path, THREE_WITH_FINANCE, action, ["alice", "bob", "erin"]
    )
    assert result.status == "refunded"


async def test_two_approvers_where_the_policy_asks_three_refund_nothing(
    seeded_engine: Engine, tmp_path: Path
) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(seeded_engine, tmp_path, THREE_WITH_FINANCE, action, ["alice", "erin"])
    assert result.status == "approver_invalid"
    assert result.message.startswith(
        "Too few approvals: this refund needs 3 approval(s) from different reviewers with the "
        "refund_approver or finance role; 2 given."
    )
    assert nothing_refunded(seeded_engine)


async def test_one_reviewer_twice_counts_once(seeded_engine: Engine, tmp_path: Path) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(
        seeded_engine, tmp_path, THREE_WITH_FINANCE, action, ["erin", "alice", "erin"]
    )
    assert result.status == "approver_invalid"
    assert "2 given" in result.message
    assert nothing_refunded(seeded_engine)


async def test_three_approvers_none_from_finance_refund_nothing(
    seeded_engine: Engine, tmp_path: Path
) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(
        seeded_engine, tmp_path, THREE_WITH_FINANCE, action, ["alice", "bob", "hank"]
    )
    assert result.status == "approver_invalid"
    assert result.message.startswith(
        "Too few approvals: this refund needs one of its approvals from a reviewer with the "
        "finance role."
    )
    assert nothing_refunded(seeded_engine)


async def test_a_chain_in_order_refunds(seeded_engine: Engine, tmp_path: Path) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(seeded_engine, tmp_path, CHAIN, action, ["frank", "gina"])
    assert result.status == "refunded"


async def test_a_chain_out_of_order_refunds_nothing(seeded_engine: Engine, tmp_path: Path) -> None:
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    result = await refund_by(seeded_engine, tmp_path, CHAIN, action, ["gina", "frank"])
    assert result.status == "approver_invalid"
    assert result.message.startswith(
        "Too few approvals: this refund needs its approvals in order (support_lead, then "
        "finance); approval 1 is not from a reviewer with the support_lead role."
    )
    assert nothing_refunded(seeded_engine)


async def test_a_chain_whose_proofs_are_reordered_refunds_nothing(
    seeded_engine: Engine, tmp_path: Path
) -> None:
    """Finance signed first, the lead after: a command that lists them in the chain's
    order is caught by the signing times."""
    add_team(seeded_engine)
    action = proven_action(seeded_engine, AMOUNT_MINOR)
    profiles = refund_policy(tmp_path, CHAIN).profiles
    now = datetime.now(UTC)
    finance = signed_approval(seeded_engine, action, "gina", issued_at=now - timedelta(minutes=5))
    lead = signed_approval(seeded_engine, action, "frank", issued_at=now - timedelta(minutes=1))
    activities = RefundActivities(seeded_engine, PROOF_KEYS, profiles=profiles)
    result = await as_run().run(activities.execute_refund, proven_command(action, [lead, finance]))
    assert result.status == "approver_invalid"
    assert "approval 2 was signed before approval 1" in result.message
    assert nothing_refunded(seeded_engine)
