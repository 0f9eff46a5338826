"""A standing rule at work: which rule covers a waiting action, and the effect's own
check of a rule's grant, with the use it spends.

Design note. The hold that starts an action's wait asks `match_rules`
(activities/hold_rules.py); that answer is only a proposal. The effect that
carries the action out trusts no grant: inside its own transaction, `grant_refusal`
locks the rule's row (so two effects cannot both spend its last use) and checks that

1. the rule exists, the grant is its signature, and the signature verifies over the
   rule's terms as the row holds them now (a row edited in the database does not);
2. it is not a shadow rule, and its terms cover this exact action: tool, tenant,
   amount and currency, and the ticket's customer (`workflows/rule_contracts.py`);
3. it is not revoked, not expired, and has a use left (a retried effect finds its own
   use and passes);
4. its creator is still an active administrator of the tenant;
5. what the caller says about four eyes (the refund's committed exposure, the worker's
   own profiles' N of M, role or chain): a rule never stands in for more than one
   reviewer.

Then `spend_approvals` writes the use (keyed by the effect), counts it on the rule and
appends a `rule_used` audit row naming the rule and its creator, in the effect's
transaction: the effect and its use commit together or not at all. A refusal is the
caller's `refused` audit row; the run then waits for a reviewer as usual.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, bindparam, select
from sqlalchemy.orm import Session

from activities.store.database import table_of, use_session
from activities.store.decisions import NewEvent, append_event, event_key
from activities.store.effect_proofs import ProofCheck, spend_proofs
from activities.store.rule_schema import StandingRule, StandingRuleUse
from activities.store.schema import Ticket
from activities.store.standing_rules import admin_problem
from activities.store.waiting_actions import remove_waiting
from signoff.config.decision_signatures import VerificationKeys
from workflows.actions import ActionState, PendingAction, RefundCommand, ToolActionCommand
from workflows.approval_policy import money
from workflows.effect_requirements import Requirements
from workflows.rule_contracts import (
    RuleMatchRequest,
    amount_of,
    coverage_problem,
    rule_document,
)
from workflows.rule_grant import RuleGrant, RuleMatch

RULE_USED = "rule_used"
RULES = table_of(StandingRule)
# Built once: every gated action asks, and most tenants have no rule for the tool.
ANY_RULE = (
    select(RULES.c.id)
    .where(
        RULES.c.tenant_id == bindparam("tenant_id"),
        RULES.c.tool == bindparam("tool"),
        RULES.c.revoked_at.is_(None),
    )
    .limit(1)
)
WAITS_FOR_A_REVIEWER = "The standing rule does not apply; the action waits for a reviewer."


def match_rules(
    engine: Engine, request: RuleMatchRequest, keys: VerificationKeys, now: datetime
) -> RuleMatch:
    """The active rule (the one that expires first) that would approve the action, or
    else every shadow rule that would have; rules that fail any check of the effect's
    are left out."""
    action = request.action
    with use_session(engine) as session:
        probe = {"tenant_id": request.tenant_id, "tool": action.tool}
        if session.connection().execute(ANY_RULE, probe).first() is None:
            return RuleMatch(grant=None, shadows=[])
        rules = session.scalars(
            select(StandingRule)
            .where(
                StandingRule.tenant_id == request.tenant_id,
                StandingRule.tool == action.tool,
                StandingRule.revoked_at.is_(None),
            )
            .order_by(StandingRule.expires_at, StandingRule.id)
        ).all()
        grant: RuleGrant | None = None
        shadows: list[RuleGrant] = []
        # Most tenants have no rule for the tool: the ticket is read only for one.
        customer = ticket_customer(session, request.tenant_id, request.ticket_id) if rules else None
        for rule in rules:
            if rule.expires_at <= now or rule.uses >= rule.max_uses:
                continue
            if _terms_problem(session, rule, action, request.tenant_id, customer, keys):
                continue
            if rule.shadow:
                shadows.append(grant_of(rule))
            elif grant is None:
                grant = grant_of(rule)
    # A shadow rule says what it would have approved where a reviewer decides; where a
    # live rule approves, no reviewer does, and the run's record must not say one will.
    return RuleMatch(grant=grant, shadows=[] if grant is not None else shadows)


def grant_of(rule: StandingRule) -> RuleGrant:
    return RuleGrant(
        rule_id=rule.id,
        created_by=rule.created_by,
        key_id=rule.key_id,
        signature=rule.signature,
        shadow=rule.shadow,
    )


def grant_refusal(
    session: Session,
    action: PendingAction,
    *,
    tenant_id: str,
    ticket_id: str,
    effect_key: str,
    keys: VerificationKeys,
    now: datetime,
    four_eyes: str | None,
) -> str | None:
    """None when the action's grant proves itself (see the module note); else why not.
    `four_eyes` is the caller's reason why this action needs more than one reviewer."""
    grant = action.rule_grant
    if grant is None:
        return "The action carries no standing rule."
    rule = locked_rule(session, grant.rule_id)
    if rule is None:
        return f"Standing rule {grant.rule_id} does not exist."
    if (rule.key_id, rule.signature) != (grant.key_id, grant.signature):
        return f"The grant of standing rule {rule.id} is not the rule's signature."
    if rule.shadow:
        return f"Standing rule {rule.id} is a shadow rule: it only records, it approves nothing."
    customer = ticket_customer(session, tenant_id, ticket_id)
    problem = _terms_problem(session, rule, action, tenant_id, customer, keys)
    if problem is not None:
        return problem
    used = session.get(StandingRuleUse, effect_key)
    if used is not None and used.rule_id == rule.id:
        return None  # a retried effect: its use is already spent on it
    if rule.revoked_at is not None:
        return f"Standing rule {rule.id} was revoked by {rule.revoked_by}."
    if now >= rule.expires_at:
        return f"Standing rule {rule.id} expired at {rule.expires_at:%Y-%m-%d %H:%M} UTC."
    if rule.uses >= rule.max_uses:
        return f"Standing rule {rule.id} has used all its {rule.max_uses} use(s)."
    if four_eyes is not None:
        return f"Standing rule {rule.id} cannot approve it: {four_eyes}."
    return None


def spend_approvals(
    session: Session, command: RefundCommand | ToolActionCommand, now: datetime
) -> None:
    """What authorized the command's effect, spent on it in the effect's transaction,
    once its checks passed: each signed approval (`spend_proofs`), and the use of the
    standing rule that stood in for them, if one did (`_spend_use`)."""
    spend_proofs(session, command.proofs, command.idempotency_key)
    if command.action.rule_grant is not None:
        _spend_use(session, command, now)


def _spend_use(session: Session, command: RefundCommand | ToolActionCommand, now: datetime) -> None:
    """The use of the action's rule by this effect, counted and audited, in the
    effect's transaction (after `grant_refusal` passed); a retry spends nothing."""
    action, effect_key = command.action, command.idempotency_key
    grant = action.rule_grant
    assert grant is not None
    if session.get(StandingRuleUse, effect_key) is not None:
        return
    rule = locked_rule(session, grant.rule_id)
    assert rule is not None
    session.add(
        StandingRuleUse(
            effect_key=effect_key,
            rule_id=rule.id,
            run_id=command.run_id,
            action_hash=action.action_hash,
            used_at=now,
        )
    )
    rule.uses += 1
    session.flush()
    # Approved: out of the inbox with the use, whether or not the run's own record of
    # the rule's approval reached the store (waiting_actions.py).
    remove_waiting(session, command.run_id, action.action_hash)
    amount = amount_of(action)
    append_event(
        session,
        NewEvent(
            event_key=event_key(RULE_USED, effect_key),
            tenant_id=rule.tenant_id,
            kind=RULE_USED,
            run_id=command.run_id,
            ticket_id=command.ticket_id,
            action_hash=action.action_hash,
            decided_at=now,
            reviewer_id=rule.created_by,
            reason=(
                f"approved by standing rule {rule.id} (created by {rule.created_by}); "
                f"use {rule.uses} of {rule.max_uses}"
            ),
            order_id=None if action.exposure is None else action.exposure.order_id,
            amount_minor=None if amount is None else amount[0],
            currency=None if amount is None else amount[1] or None,
        ),
    )


def policy_four_eyes(requirements: Requirements | None) -> str | None:
    """Why the worker's own profiles ask more than one reviewer of this tool; or None."""
    for needed in () if requirements is None else requirements.needed:
        if needed.approvals > 1:
            return f"its policy needs {needed.approvals} reviewers"
        if needed.one_from is not None or needed.chain:
            return "its policy needs an approval from a named role"
    return None


def locked_rule(session: Session, rule_id: str) -> StandingRule | None:
    # FOR UPDATE: uses of one rule serialize on PostgreSQL; SQLite's BEGIN IMMEDIATE
    # already serializes every writer.
    return session.scalars(
        select(StandingRule).where(StandingRule.id == rule_id).with_for_update()
    ).one_or_none()


def ticket_customer(session: Session, tenant_id: str, ticket_id: str) -> str | None:
    ticket = session.get(Ticket, (tenant_id, ticket_id))
    return None if ticket is None else ticket.customer_name


def _terms_problem(
    session: Session,
    rule: StandingRule,
    action: PendingAction,
    tenant_id: str,
    customer: str | None,
    keys: VerificationKeys,
) -> str | None:
    """Steps 1, 2 and 4 of the module note (the signature, the terms, the creator), but
    shadow or not: the run's match lists shadow rules too."""
    key_problem = keys.key_problem(rule.key_id)
    if key_problem is not None:
        return f"Standing rule {rule.id} cannot be checked. {key_problem}"
    if not keys.matches(rule_document(rule.terms()), rule.key_id, rule.signature):
        return (
            f"Standing rule {rule.id} does not verify: its row was changed after the "
            "decision service signed it."
        )
    problem = coverage_problem(rule.terms(), action, tenant_id, customer)
    if problem is not None:
        return problem[0].upper() + problem[1:] + "."
    creator = admin_problem(session, rule.created_by, tenant_id)
    if creator is not None:
        return f"Standing rule {rule.id} no longer counts: {creator}"
    return None


def refund_grant_refusal(
    session: Session,
    command: RefundCommand,
    check: ProofCheck,
    state: ActionState,
    now: datetime,
) -> str | None:
    """`grant_refusal` for a refund: four eyes is the ledger's own rule on the order's
    committed total (approvers.py), or the worker's profiles; a passkey step-up asks a
    reviewer's own passkey, which no rule has."""
    total = state.refunded_minor + command.amount_minor
    four_eyes = (
        f"order {state.order_id} would have {money(total)} {state.currency} refunded, above "
        f"the threshold of {money(state.review_threshold_minor)}, which needs two reviewers"
        if total > state.review_threshold_minor
        else policy_four_eyes(check.approvals) or step_up(check, command.action)
    )
    keys = check.keys
    problem = check.rule_caller or grant_refusal(
        session,
        command.action,
        tenant_id=command.tenant_id,
        ticket_id=command.ticket_id,
        effect_key=command.idempotency_key,
        keys=keys,
        now=now,
        four_eyes=four_eyes,
    )
    return None if problem is None else f"{problem} {WAITS_FOR_A_REVIEWER} Nothing was refunded."


def tool_grant_refusal(
    session: Session,
    command: ToolActionCommand,
    check: ProofCheck,
    requirements: Requirements,
    now: datetime,
) -> str | None:
    """`grant_refusal` for any other tool: four eyes is the worker's profiles'."""
    problem = check.rule_caller or grant_refusal(
        session,
        command.action,
        tenant_id=command.tenant_id,
        ticket_id=command.ticket_id,
        effect_key=command.idempotency_key,
        keys=check.keys,
        now=now,
        four_eyes=policy_four_eyes(requirements) or step_up(check, command.action),
    )
    return None if problem is None else f"{problem} {WAITS_FOR_A_REVIEWER} Nothing was done."


def step_up(check: ProofCheck, action: PendingAction) -> str | None:
    if check.passkeys.policy.needs_passkey(action):
        return "its policy asks for a reviewer's passkey"
    return None


def rule_approvers(action: PendingAction) -> list[str]:
    """The approver an effect approved by a standing rule names: the rule."""
    return [] if action.rule_grant is None else [action.rule_grant.approver]
