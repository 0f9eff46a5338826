"""The standing rules' match, made by the hold that starts an action's wait.

When an action starts to wait, its hold (the refund's exposure hold, any other tool's
inbox row) also asks the store whether an active rule of the run's tenant covers it
(activities/store/rule_grants.py `match_rules`), and answers both at once: one activity
where there were two, since each costs the worker a task, its interceptors and an
activation of the run to resume it. Only when the run asks (`ActionHold.match_rules`)
and the action is one a rule may approve (`rule_may_approve`: one reviewer, no
approvals yet, not an edit or a voided approval's successor); the run judges again on
the action as its hold judged it (a refund's exposure may then ask for two).

The answer is a proposal to the run that holds, never the proof: the effect checks the
rule again, and the calling run's provenance, before it acts (activities/rule_callers.py).
A store that does not answer the match is not the hold's failure: no rule approves, and
a reviewer decides, as without rules.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine
from sqlalchemy.exc import SQLAlchemyError

from activities.store.errors import StoreError
from activities.store.rule_grants import match_rules
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import ActionHold
from workflows.rule_contracts import RuleMatchRequest, rule_may_approve
from workflows.rule_grant import RuleMatch


def rules_for(engine: Engine, hold: ActionHold, keys: VerificationKeys, now: datetime) -> RuleMatch:
    """The rules' answer for the held action (see the module note); a blocking call,
    made in the hold's own thread after its write."""
    if not hold.match_rules or not rule_may_approve(hold.action):
        return RuleMatch()
    request = RuleMatchRequest(
        run_id=hold.run_id, tenant_id=hold.tenant_id, ticket_id=hold.ticket_id, action=hold.action
    )
    try:
        return match_rules(engine, request, keys, now)
    except (StoreError, SQLAlchemyError):
        return RuleMatch()  # no answer: a reviewer decides, as without rules
