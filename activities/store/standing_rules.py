"""Standing rules in the store: made, listed and revoked by an administrator of the tenant.

Design note. Only the decision service makes a rule: it authenticated the administrator
and holds the private key that signs the rule's terms (signoff/service/standing_rules.py
passes its `sign`). The store checks the administrator itself, in the change's own write
transaction: an active reviewer holding `admin`, of the rule's tenant. A refused
attempt writes nothing but its `rule_refused` audit row (who tried, what, why), which
commits before the refusal is raised. A rule made and a rule revoked are audit rows too
(`rule_created`, `rule_revoked`), committed with the change. Revocation takes effect at
once: the effect reads the rule in its own transaction (rule_grants.py).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import Engine, select
from sqlalchemy.orm import Session

from activities.store.account_admin import ADMIN_ROLE
from activities.store.account_audit import append_admin_event
from activities.store.database import use_session, write_transaction
from activities.store.errors import StoreError
from activities.store.rule_schema import StandingRule
from activities.store.schema import Reviewer, Tenant
from workflows.approval_policy import money
from workflows.currencies import currency_problem
from workflows.outside_text import nul_problem
from workflows.rule_contracts import RuleTerms, rule_document
from workflows.rule_ids import RULE_ID_HEX, RULE_ID_PREFIX

RULE_CREATED = "rule_created"
RULE_REVOKED = "rule_revoked"
RULE_REFUSED = "rule_refused"


class RuleRefused(StoreError):
    """The acting reviewer may not make or revoke this rule; the attempt is audited."""

    def __init__(self, why: str) -> None:
        super().__init__(
            f"{why} Standing rules are made and revoked by an administrator (role "
            f"`{ADMIN_ROLE}`) of the rule's tenant. Nothing was changed; the attempt is "
            "in the audit."
        )


class UnknownRule(StoreError):
    def __init__(self, rule_id: str) -> None:
        super().__init__(
            f"There is no standing rule '{rule_id}' in your tenant. `signoff rules list "
            "--all` shows them."
        )


class RuleAlreadyRevoked(StoreError):
    def __init__(self, rule: StandingRule) -> None:
        super().__init__(
            f"Standing rule {rule.id} was already revoked by {rule.revoked_by} at "
            f"{rule.revoked_at:%Y-%m-%d %H:%M} UTC. Nothing was changed."
        )


@dataclass(frozen=True)
class NewRule:
    """What an administrator asks for; the id, key and signature are the store's and
    the service's to add."""

    tenant_id: str
    tool: str
    max_amount_minor: int | None
    currency: str | None
    customer: str | None
    category: str | None
    expires_at: datetime
    max_uses: int
    shadow: bool


def terms_problem(asked: NewRule) -> str | None:
    """What the store cannot keep in a rule, whichever face asked: a currency that is not
    money (workflows/currencies.py), a NUL byte in its text. None when it can."""
    if asked.currency is not None:
        problem = currency_problem(asked.currency)
        if problem is not None:
            return problem
    for what, value in (
        ("tool", asked.tool),
        ("customer", asked.customer),
        ("category", asked.category),
    ):
        problem = nul_problem(what, value or "")
        if problem is not None:
            return problem
    return None


def new_rule_id() -> str:
    return RULE_ID_PREFIX + uuid.uuid4().hex[:RULE_ID_HEX].upper()


def create_rule(
    engine: Engine,
    admin_id: str,
    asked: NewRule,
    key_id: str,
    sign: Callable[[dict[str, Any]], str],
    now: datetime,
) -> StandingRule:
    """Make the rule, signed by `sign` (the decision service's key `key_id`), as the
    administrator `admin_id`; raises RuleRefused (audited) or UnknownTenant-like
    StoreErrors."""
    problem = terms_problem(asked)
    if problem is not None:
        raise StoreError(f"{problem} No rule was made.")
    created_at = now.replace(microsecond=0)  # the same instant through every database
    terms = RuleTerms(
        rule_id=new_rule_id(),
        tenant_id=asked.tenant_id,
        tool=asked.tool,
        max_amount_minor=asked.max_amount_minor,
        currency=asked.currency,
        customer=asked.customer,
        category=asked.category,
        created_by=admin_id,
        created_at=created_at,
        expires_at=asked.expires_at.replace(microsecond=0),
        max_uses=asked.max_uses,
        shadow=asked.shadow,
        key_id=key_id,
    )
    refusal: RuleRefused | None = None
    with write_transaction(engine) as session:
        why = admin_problem(session, admin_id, asked.tenant_id)
        if why is not None:
            refusal = RuleRefused(why)
            _append(session, asked.tenant_id, RULE_REFUSED, admin_id, f"refused: {why}", now)
        else:
            rule = StandingRule(
                id=terms.rule_id,
                tenant_id=terms.tenant_id,
                tool=terms.tool,
                max_amount_minor=terms.max_amount_minor,
                currency=terms.currency,
                customer=terms.customer,
                category=terms.category,
                created_by=terms.created_by,
                created_at=terms.created_at,
                expires_at=terms.expires_at,
                max_uses=terms.max_uses,
                uses=0,
                shadow=terms.shadow,
                key_id=key_id,
                signature=sign(rule_document(terms)),
            )
            session.add(rule)
            session.flush()
            _append(session, rule.tenant_id, RULE_CREATED, admin_id, describe(rule), now)
    if refusal is not None:
        raise refusal
    return rule


def revoke_rule(
    engine: Engine, admin_id: str, tenant_id: str, rule_id: str, now: datetime
) -> StandingRule:
    """Revoke at once, as the administrator `admin_id` of `tenant_id`; raises
    RuleRefused (audited), UnknownRule (also for another tenant's rule) or
    RuleAlreadyRevoked."""
    refusal: StoreError | None = None
    with write_transaction(engine) as session:
        why = admin_problem(session, admin_id, tenant_id)
        rule = session.get(StandingRule, rule_id)
        if why is not None:
            refusal = RuleRefused(why)
            what = f"refused revoking {rule_id}: {why}"
            _append(session, tenant_id, RULE_REFUSED, admin_id, what, now)
        elif rule is None or rule.tenant_id != tenant_id:
            refusal = UnknownRule(rule_id)  # the same answer for another tenant's rule
        elif rule.revoked_at is not None:
            refusal = RuleAlreadyRevoked(rule)
        else:
            rule.revoked_at = now
            rule.revoked_by = admin_id
            session.flush()
            what = f"revoked {rule.id} after {rule.uses} of {rule.max_uses} use(s)"
            _append(session, tenant_id, RULE_REVOKED, admin_id, what, now)
    if refusal is not None:
        raise refusal
    assert rule is not None
    return rule


def list_rules(
    source: Session | Engine, tenant_id: str, now: datetime, everything: bool = False
) -> list[StandingRule]:
    """The tenant's rules, newest first: the active ones (unrevoked, unexpired, with uses
    left), or with `everything` all of them."""
    with use_session(source) as session:
        rules = session.scalars(
            select(StandingRule)
            .where(StandingRule.tenant_id == tenant_id)
            .order_by(StandingRule.created_at.desc(), StandingRule.id)
        ).all()
    return [rule for rule in rules if everything or rule_state(rule, now) == "active"]


def rule_state(rule: StandingRule, now: datetime) -> str:
    """`active`, `revoked`, `expired` or `used up`, in that order of precedence."""
    if rule.revoked_at is not None:
        return "revoked"
    if now >= rule.expires_at:
        return "expired"
    if rule.uses >= rule.max_uses:
        return "used up"
    return "active"


def describe(rule: StandingRule) -> str:
    """The rule in one line, for the audit and the faces."""
    amount = (
        f" up to {money(rule.max_amount_minor)} {rule.currency}"
        if rule.max_amount_minor is not None
        else ""
    )
    scope = "".join(
        f" for {name} {value}"
        for name, value in (("customer", rule.customer), ("category", rule.category))
        if value is not None
    )
    mode = " (shadow: records only)" if rule.shadow else ""
    return (
        f"standing rule {rule.id}: {rule.tool}{amount}{scope}, at most {rule.max_uses} "
        f"use(s), until {rule.expires_at:%Y-%m-%d %H:%M} UTC{mode}"
    )


def admin_problem(session: Session, admin_id: str, tenant_id: str) -> str | None:
    """None when `admin_id` is an active administrator of `tenant_id`; else why not."""
    if session.get(Tenant, tenant_id) is None:
        return f"Tenant '{tenant_id}' does not exist."
    reviewer = session.get(Reviewer, admin_id)
    if reviewer is None or not reviewer.active:
        return f"'{admin_id}' is not an active reviewer."
    if ADMIN_ROLE not in reviewer.role_list:
        return f"'{admin_id}' is not an administrator (no `{ADMIN_ROLE}` role)."
    if reviewer.tenant_id != tenant_id:
        return f"'{admin_id}' is an administrator of another tenant."
    return None


def _append(
    session: Session, tenant_id: str, kind: str, who: str, what: str, now: datetime
) -> None:
    if session.get(Tenant, tenant_id) is None:
        return  # no such tenant: no audit to write to (the refusal says so)
    append_admin_event(session, tenant_id, kind, who, what, now)
