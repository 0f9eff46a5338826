"""The grant of a standing rule, as a run carries it to its effect on the action.

Kept apart from `rule_contracts.py` so that `actions.py` can name it on a
`PendingAction`, and the match in a hold's answer, without importing the rule's terms
(which import the action).
"""

from __future__ import annotations

from workflows.contract_base import Contract

# What the run's trail and the audit call a rule's approver: never a reviewer's id.
RULE_APPROVER_PREFIX = "rule:"


def rule_approver(rule_id: str) -> str:
    return f"{RULE_APPROVER_PREFIX}{rule_id}"


class RuleGrant(Contract):
    """A rule that covers an action: its id, its creator and its signature. The effect
    reads the rule again and checks all of it (activities/store/rule_grants.py)."""

    rule_id: str
    created_by: str
    key_id: str
    signature: str
    shadow: bool = False

    @property
    def approver(self) -> str:
        return rule_approver(self.rule_id)


class RuleMatch(Contract):
    """The active rule that approves the action (None: none does), and the shadow rules
    that would have approved it: what the hold that starts an action's wait answers
    (workflows/standing_rules.py)."""

    grant: RuleGrant | None = None
    shadows: list[RuleGrant] = []
