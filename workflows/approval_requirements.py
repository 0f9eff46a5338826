"""N of M and chains: which approvals an action still needs, and who may give the next.

Design note. A tool's policy (`tool_policy.py`) may ask a `review` for N different
reviewers (four eyes is N = 2), one of them holding a given role (`one_from`), or for
an ordered chain of roles (first `support_lead`, then `finance`), one approval per
step. The action carries what its policy asked (`required_approvals`, `one_from`,
`chain`) and each approval the roles its reviewer held when the store verified it.

These rules are judged in three places with the same words: the gate's validator
(who may approve next), the gate's count (is the action approved), and the pages that
show what is still missing. The effect judges again on its own, from the worker's
profiles and the reviewers' roles as the store holds them then
(`activities/store/approval_count.py`); it never reads these fields of the action.

Pure: the workflow, the service and the faces share it.
"""

from __future__ import annotations

from collections.abc import Sequence

from workflows.actions import PendingAction
from workflows.approval_policy import same_person, second_reviewer_message
from workflows.tool_policy import ToolPolicy
from workflows.wording import N_, InOrder, Role, Value, Wording, worded


def with_policy(action: PendingAction, policy: ToolPolicy | None) -> PendingAction:
    """The action as its policy's `review` asks: N different reviewers, a role among
    them, or a chain; who holds a role the policy names may decide. An action whose
    policy is not `review` is returned as it is."""
    if policy is None or policy.approval != "review":
        return action
    return action.model_copy(
        update={
            "mode": "review",
            "required_approvals": max(policy.approvals_needed(), 2),
            "one_from": policy.one_from,
            "chain": list(policy.chain),
            # The escalation's role is added only when it escalates (escalation.py).
            "approver_roles": list(
                dict.fromkeys(
                    [*action.approver_roles, *filter(None, (policy.one_from,)), *policy.chain]
                )
            ),
        }
    )


def approvers(action: PendingAction) -> list[str]:
    """Who approved, each once, in order."""
    return list(
        dict.fromkeys(record.reviewer_id for record in action.approvals if record.reviewer_id)
    )


def role_given(action: PendingAction) -> bool:
    """Whether an approval so far came from a holder of the required role (or none is)."""
    if action.one_from is None:
        return True
    return any(action.one_from in record.roles for record in action.approvals)


def is_complete(action: PendingAction) -> bool:
    return len(approvers(action)) >= action.required_approvals and role_given(action)


def missing(action: PendingAction) -> str:
    """What the action still needs, in a reviewer's words; "" when it needs nothing:
    "1 of 3 approvals; still needs 2 more, one of them from finance"."""
    still = missing_words(action)
    return "" if still is None else still.english()


def missing_words(action: PendingAction) -> Wording | None:
    """`missing` as a template and its values, for a page in another language."""
    given = len(approvers(action))
    needed = action.required_approvals
    if given >= needed and role_given(action):
        return None
    counts: dict[str, Value] = {"given": given, "needed": needed}
    if action.chain:
        step = action.chain[min(given, len(action.chain) - 1)]
        return worded(
            N_(
                "%(given)s of %(needed)s approvals; still needs one from %(step)s "
                "(in order: %(order)s)"
            ),
            **counts,
            step=Role(step),
            order=InOrder(tuple(action.chain)),
        )
    more = max(needed - given, 1)
    role = action.one_from or ""
    if more == 1 and not role_given(action):
        return worded(
            N_("%(given)s of %(needed)s approvals; still needs one from %(role)s"),
            **counts,
            role=Role(role),
        )
    if more == 1:
        return worded(N_("%(given)s of %(needed)s approvals; still needs one more"), **counts)
    if not role_given(action):
        return worded(
            N_(
                "%(given)s of %(needed)s approvals; still needs %(more)s more, one of them "
                "from %(role)s"
            ),
            **counts,
            more=more,
            role=Role(role),
        )
    return worded(
        N_("%(given)s of %(needed)s approvals; still needs %(more)s more"), **counts, more=more
    )


def next_step_refusal(action: PendingAction, reviewer_id: str, roles: Sequence[str]) -> str | None:
    """Why `reviewer_id`, holding `roles`, cannot move the action forward; None if they
    can. The tenant, the role to approve at all and expiry are checked before."""
    refusal = next_step_words(action, reviewer_id, roles)
    return None if refusal is None else refusal.english()


def next_step_words(
    action: PendingAction, reviewer_id: str, roles: Sequence[str]
) -> Wording | None:
    """`next_step_refusal` as a template and its values, for a page in another language."""
    still = missing_words(action) or ""
    if any(same_person(name, reviewer_id) for name in approvers(action)):
        return worded(
            N_(
                "You already approved this request; it needs another, different reviewer "
                "(%(missing)s)."
            ),
            missing=still,
        )
    given = len(approvers(action))
    if action.chain:
        step = action.chain[min(given, len(action.chain) - 1)]
        if step not in roles:
            return worded(
                N_(
                    "This request is approved in order (%(order)s); step %(step)s of %(steps)s "
                    "needs a reviewer with the %(role)s role."
                ),
                order=InOrder(tuple(action.chain)),
                step=given + 1,
                steps=len(action.chain),
                role=Role(step),
            )
        return None
    last_place = action.required_approvals - given <= 1
    if last_place and not role_given(action) and action.one_from not in roles:
        return worded(
            N_(
                "The last approval this request needs must come from a reviewer with the "
                "%(role)s role (%(missing)s)."
            ),
            role=Role(action.one_from or ""),
            missing=still,
        )
    return None


def may_move_forward(action: PendingAction, reviewer_id: str, roles: Sequence[str]) -> bool:
    """For the inbox: whether the reviewer can give the action an approval it counts
    (holding one of its approver roles, and the next step's)."""
    if not set(action.approver_roles) & set(roles):
        return False
    return next_step_refusal(action, reviewer_id, roles) is None


def recorded_message(action: PendingAction) -> str:
    """What a reviewer whose approval did not complete the action is told."""
    plain_four_eyes = action.required_approvals == 2 and not (action.one_from or action.chain)
    if plain_four_eyes and action.tool == "refund":
        return second_reviewer_message(action)
    return f"Your approval is recorded: {missing(action)}."
