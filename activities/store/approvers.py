"""Whether the approvals a refund carries still count, read in the refund's transaction.

Design note. A decision's validator checked the reviewer when the approval was given,
from what the reviewer's session said then. Hours may pass before the refund executes,
under four eyes between the first approval and the second: a reviewer can be disabled
or stripped of the role meanwhile. So the ledger reads every approver again, in the
same transaction that writes the refund, and counts only those who exist, are active,
belong to the run's tenant, hold `refund_approver` and are not the run's actor. It also
counts how many the order's committed total needs (two when refunded + this amount is
above the tenant's threshold), so that no path around the workflow's judgement can
refund past the threshold on one signature. Where the worker's own profiles ask more of
a refund (N of M, one from a role, a chain: `workflows/effect_requirements.py`), the
approvers who count must meet that too, whatever the command or its action says; the
roles that count are then the ones those policies name. Too few count: nothing is refunded, and the
workflow raises a new pending action with the returned sentence as its note. Any other
tool's effect reads its approvers again by the same rule (`approvers_read_again`), and
its requirements alone judge their roles and number (activities/store/tool_effects.py).
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy.orm import Session

from activities.store.reviewer_standing import Standing, standing_by_id
from workflows.actions import REFUND_APPROVER_ROLE, ActionState, RefundCommand, ToolActionCommand
from workflows.approval_policy import money, same_person
from workflows.effect_requirements import Requirements, Signer, unmet


def why_approvals_do_not_count(
    session: Session,
    command: RefundCommand,
    state: ActionState,
    requirements: Requirements | None = None,
) -> str | None:
    """None when enough approvers count; otherwise why not, for the reviewers' note.
    `requirements`: what the worker's profiles demand of a refund (None: the ledger's
    own rule alone)."""
    needs = () if requirements is None else requirements.needed
    roles = tuple(dict.fromkeys(r for need in needs for r in need.roles)) or (REFUND_APPROVER_ROLE,)
    counted, problems = approvers_read_again(session, command.approvers, command, roles)
    total = state.refunded_minor + command.amount_minor
    needed = 2 if total > state.review_threshold_minor else 1
    policy_problem = next(filter(None, (unmet(need, counted) for need in needs)), None)
    if problems:
        lead = "An approval no longer counts: " + "; ".join(problems)
    elif policy_problem is not None:
        lead = f"Too few approvals: this refund {policy_problem}"
    elif len(counted) < needed:
        lead = (
            f"Too few approvals: order {state.order_id} would have {money(total)} "
            f"{state.currency} refunded, above the threshold of "
            f"{money(state.review_threshold_minor)}, which needs {needed} different "
            f"reviewers; {len(counted)} approved"
        )
    else:
        return None
    return f"{lead}. The approval is void; it must be given again. Nothing was refunded."


def approvers_read_again(
    session: Session,
    reviewer_ids: Iterable[str],
    command: RefundCommand | ToolActionCommand,
    roles: tuple[str, ...] = (),
) -> tuple[list[Signer], list[str]]:
    """Every approver of the command read again, each once, in order: those who still
    count (with when they signed), and why each other one does not. `roles`: one of
    them is needed (none: the caller's requirements judge the roles)."""
    issued = {proof.reviewer_id: proof.issued_at for proof in reversed(command.proofs)}
    counted: list[Signer] = []
    problems: list[str] = []
    connection = session.connection()
    for reviewer_id in dict.fromkeys(reviewer_ids):
        reviewer = standing_by_id(connection, reviewer_id)
        problem = _problem(reviewer, reviewer_id, command, roles)
        if problem is not None:
            problems.append(problem)
        elif reviewer is not None:
            counted.append(Signer(reviewer_id, tuple(reviewer.role_list), issued.get(reviewer_id)))
    return counted, problems


def _problem(
    reviewer: Standing | None,
    reviewer_id: str,
    command: RefundCommand | ToolActionCommand,
    roles: tuple[str, ...],
) -> str | None:
    if reviewer is None:
        return f"reviewer '{reviewer_id}' no longer exists"
    if not reviewer.active:
        return f"reviewer '{reviewer_id}' has been disabled"
    if reviewer.tenant_id != command.tenant_id:
        return f"reviewer '{reviewer_id}' no longer belongs to tenant '{command.tenant_id}'"
    if roles and not set(roles) & set(reviewer.role_list):
        return f"reviewer '{reviewer_id}' no longer holds the {' or '.join(roles)} role"
    # One person under any spelling (`Alice`, `alice`): the actor never approves their run.
    if command.actor_id is not None and same_person(reviewer_id, command.actor_id):
        return f"reviewer '{reviewer_id}' asked for this run and cannot approve it"
    return None
