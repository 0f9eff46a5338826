"""Standing rules: the types that cross the workflow boundary, the signed document, and
whether a rule's terms cover an action.

Design note. A standing rule approves, in advance, actions of one tool of one tenant up
to an amount (and, if its creator narrowed it, for one customer or one category), for
a bounded time and number of uses. The decision service signs the rule's canonical
content (`rule_document`) with its decision key when an administrator creates it, so
the rule's signature plays the part a reviewer's signed decision plays: the effect
checks it itself, and a rule row edited in the database no longer verifies. A grant
(`RuleGrant`) is what a run carries to its effect: the rule's id and signature; the
effect reads the rule again in its own transaction (activities/store/rule_grants.py).

The customer is the ticket's customer as the store holds it (never the model's text).
The category is the value of the argument the tool's policy names as its category
(`category_argument`, which the action carries and its hash covers); no argument is a
category by its name, so a rule with a category never covers a tool whose policy names
none. It narrows a rule to actions proposed under that label, but the model writes it,
so it is not a trust boundary; the tool, the tenant, the amount and the customer are.

Pure and stdlib-only (with rfc8785 through decision_proof): workflow code imports it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from workflows.actions import PendingAction
from workflows.approval_policy import money
from workflows.contract_base import Contract
from workflows.exposure import scalar_text

RULE_DOCUMENT_PURPOSE = "signoff-standing-rule-v1"


class RuleTerms(Contract):
    """What a rule approves and until when: every field its signature covers."""

    rule_id: str
    tenant_id: str
    tool: str
    max_amount_minor: int | None = None
    currency: str | None = None
    customer: str | None = None
    category: str | None = None
    created_by: str
    created_at: datetime
    expires_at: datetime
    max_uses: int
    shadow: bool = False
    key_id: str


class RuleMatchRequest(Contract):
    run_id: str
    tenant_id: str
    ticket_id: str
    action: PendingAction


def rule_document(terms: RuleTerms) -> dict[str, Any]:
    """Everything the rule's signature covers: change one field and it fails."""
    return {
        "purpose": RULE_DOCUMENT_PURPOSE,
        "rule_id": terms.rule_id,
        "tenant_id": terms.tenant_id,
        "tool": terms.tool,
        "max_amount_minor": terms.max_amount_minor,
        "currency": terms.currency,
        "customer": terms.customer,
        "category": terms.category,
        "created_by": terms.created_by,
        "created_at": terms.created_at.isoformat(),
        "expires_at": terms.expires_at.isoformat(),
        "max_uses": terms.max_uses,
        "shadow": terms.shadow,
        "key_id": terms.key_id,
    }


def amount_of(action: PendingAction) -> tuple[int, str] | None:
    """The action's amount in minor units and its currency: its exposure, as its tool's
    policy declares it (`workflows/exposure.py`); None for an action without one,
    whatever its arguments are called."""
    exposure = action.exposure
    return None if exposure is None else (exposure.amount_minor, exposure.currency)


def coverage_problem(
    terms: RuleTerms, action: PendingAction, tenant_id: str, customer: str | None
) -> str | None:
    """None when the rule's terms cover this exact action of this tenant's ticket (whose
    customer the store names); else why not, in a sentence."""
    rule = terms.rule_id
    if terms.tenant_id != tenant_id or action.targets.get("tenant_id") != tenant_id:
        return f"standing rule {rule} is another tenant's"
    if terms.tool != action.tool:
        return f"standing rule {rule} covers {terms.tool}, not {action.tool}"
    amount = amount_of(action)
    if terms.max_amount_minor is None and amount is not None:
        return f"standing rule {rule} has no maximum amount, and this action has an amount"
    if terms.max_amount_minor is not None:
        if amount is None:
            return f"standing rule {rule} covers amounts, and this action has none"
        minor, currency = amount
        if currency != terms.currency:
            return f"standing rule {rule} covers {terms.currency}, not {currency or 'no currency'}"
        if minor > terms.max_amount_minor:
            return (
                f"standing rule {rule} covers up to {money(terms.max_amount_minor)} "
                f"{terms.currency}, not {money(minor)}"
            )
    if terms.customer is not None and (customer or "").casefold() != terms.customer.casefold():
        return f"standing rule {rule} covers customer {terms.customer} only"
    if terms.category is not None:
        named = action.category_argument
        if named is None:
            return (
                f"standing rule {rule} covers category {terms.category} only, and the "
                f"policy of {action.tool} names no category argument"
            )
        if category_of(action) != terms.category:
            return f"standing rule {rule} covers category {terms.category} only"
    return None


def category_of(action: PendingAction) -> str | None:
    """The action's category: the text of the argument its tool's policy names as one
    (a JSON string's content for an MCP tool); None where it names none or the call
    does not give it."""
    named = action.category_argument
    if named is None or named not in action.arguments:
        return None
    return scalar_text(action.arguments[named]).strip()


def needs_more_than_one(action: PendingAction) -> bool:
    """Four eyes (by exposure or policy), N of M above one, a role's approval or a chain:
    a standing rule never stands in for those."""
    return action.required_approvals > 1 or action.one_from is not None or bool(action.chain)


def rule_may_approve(action: PendingAction) -> bool:
    """A rule approves an action only as first proposed, for one reviewer: never one with
    approvals already, nor one that supersedes another (a voided approval's successor,
    a reviewer's edit)."""
    return not (needs_more_than_one(action) or action.approvals or action.supersedes is not None)
