"""Standing rules, for every face: make one, list them, revoke one.

The caller has authenticated the administrator (the reviewer UI's session, an API token,
or the password `signoff rules` sends to this service). This module reads the request
the way every face must (`rule_request`: the lifetime, the amount and currency, the
uses, the tool), signs the rule's terms with the decision service's key (only this
process holds one), and lets the store check the administrator in the change's own
transaction (activities/store/standing_rules.py). Errors are typed: `InvalidRule` (bad
input, nothing written), `RuleRefused` (not an administrator of the tenant, audited),
`UnknownRule`, `RuleAlreadyRevoked`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal, InvalidOperation

from activities.store.rule_schema import StandingRule
from activities.store.standing_rules import (
    NewRule,
    RuleAlreadyRevoked,
    RuleRefused,
    UnknownRule,
    create_rule,
    describe,
    list_rules,
    revoke_rule,
    rule_state,
)
from signoff.config.decision_signatures import DecisionSigner
from signoff.service.handles import Store, engine_of
from signoff.tools import known_tools
from workflows.action_edits import not_an_amount
from workflows.approval_policy import CENTS, money, to_minor
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.currencies import currency_problem
from workflows.mcp_tools import split_offered_name
from workflows.outside_text import nul_problem
from workflows.tool_catalog import REFUND
from workflows.wording import N_, WordedError, worded

__all__ = [
    "InvalidRule",
    "RuleAlreadyRevoked",
    "RuleRefused",
    "RuleView",
    "UnknownRule",
    "add_rule",
    "revoke",
    "rule_request",
    "rules_of",
]

LIFETIME_PATTERN = re.compile(r"^\s*(\d{1,6})\s*([mhd])\s*$")
LIFETIME_UNITS = {"m": timedelta(minutes=1), "h": timedelta(hours=1), "d": timedelta(days=1)}
LONGEST_SCOPE = 64


class InvalidRule(WordedError, ValueError):
    """The request cannot make a rule; the message says what to change. Nothing was
    written. Its `wording`, where it has one, lets the reviewer UI say it in the page's
    language (workflows/wording.py); the CLI and the API read the English message."""


@dataclass(frozen=True)
class RuleView:
    """A rule as the faces show it."""

    id: str
    tenant_id: str
    tool: str
    max_amount: str | None
    currency: str | None
    customer: str | None
    category: str | None
    created_by: str
    created_at: datetime
    expires_at: datetime
    uses: int
    max_uses: int
    shadow: bool
    state: str
    revoked_by: str | None
    summary: str

    @classmethod
    def of(cls, rule: StandingRule, now: datetime) -> RuleView:
        return cls(
            id=rule.id,
            tenant_id=rule.tenant_id,
            tool=rule.tool,
            max_amount=None if rule.max_amount_minor is None else money(rule.max_amount_minor),
            currency=rule.currency,
            customer=rule.customer,
            category=rule.category,
            created_by=rule.created_by,
            created_at=rule.created_at,
            expires_at=rule.expires_at,
            uses=rule.uses,
            max_uses=rule.max_uses,
            shadow=rule.shadow,
            state=rule_state(rule, now),
            revoked_by=rule.revoked_by,
            summary=describe(rule),
        )

    def as_json(self) -> dict[str, object]:
        return {
            **{name: value for name, value in self.__dict__.items() if name != "summary"},
            "created_at": self.created_at.isoformat(),
            "expires_at": self.expires_at.isoformat(),
        }


def rule_request(
    *,
    tenant_id: str,
    tool: str,
    max_amount: str | None,
    currency: str | None,
    customer: str | None,
    category: str | None,
    lifetime: str,
    max_uses: int,
    shadow: bool,
    now: datetime,
    longest_lifetime: timedelta,
) -> NewRule:
    """The rule asked for, read as every face reads it; InvalidRule says what is wrong."""
    tool = tool.strip()
    if not _known_tool(tool):
        raise InvalidRule(
            worded(
                N_(
                    "'%(tool)s' is not an irreversible tool of this deployment: name the "
                    "refund (`refund`), a registered tool, or an MCP tool by its offered "
                    "name (server__tool)."
                ),
                tool=tool,
            )
        )
    amount_minor = _amount(max_amount)
    currency = (currency or "").strip().upper() or None
    if amount_minor is not None and currency is None:
        raise InvalidRule(N_("A maximum amount needs its currency (--currency EUR)."))
    currency_refused = None if currency is None else currency_problem(currency)
    if currency_refused is not None:
        raise InvalidRule(currency_refused)
    if currency is not None and amount_minor is None:
        raise InvalidRule(N_("A currency goes with a maximum amount (--max-amount 50.00)."))
    if tool == REFUND.name and amount_minor is None:
        raise InvalidRule(N_("A rule for refunds needs a maximum amount (--max-amount 50.00)."))
    if max_uses < 1:
        raise InvalidRule(worded(N_("--max-uses must be at least 1, not %(uses)s."), uses=max_uses))
    duration = _lifetime(lifetime)
    if duration > longest_lifetime:
        raise InvalidRule(
            worded(
                N_(
                    "A rule lives at most %(days)s day(s) here "
                    "(SIGNOFF_RULE_MAX_LIFETIME_DAYS); make a new one when it ends."
                ),
                days=longest_lifetime.days,
            )
        )
    return NewRule(
        tenant_id=tenant_id,
        tool=tool,
        max_amount_minor=amount_minor,
        currency=currency,
        customer=_scope("customer", customer),
        category=_scope("category", category),
        expires_at=now + duration,
        max_uses=max_uses,
        shadow=shadow,
    )


def add_rule(
    store: Store, signer: DecisionSigner, admin_id: str, asked: NewRule, now: datetime
) -> RuleView:
    """Make the rule as the administrator `admin_id`, signed with the decision key;
    raises RuleRefused (audited)."""
    engine = engine_of(store)
    rule = create_rule(engine, admin_id, asked, signer.key_id, signer.sign, now)
    return RuleView.of(rule, now)


def rules_of(
    store: Store, tenant_id: str, everything: bool = False, now: datetime | None = None
) -> list[RuleView]:
    engine = engine_of(store)
    moment = now or datetime.now(UTC)
    return [RuleView.of(rule, moment) for rule in list_rules(engine, tenant_id, moment, everything)]


def revoke(store: Store, admin_id: str, tenant_id: str, rule_id: str) -> RuleView:
    """Revoke at once; raises RuleRefused (audited), UnknownRule, RuleAlreadyRevoked."""
    engine = engine_of(store)
    now = datetime.now(UTC)
    return RuleView.of(revoke_rule(engine, admin_id, tenant_id, rule_id.strip(), now), now)


def _known_tool(tool: str) -> bool:
    if not re.match(IDENTIFIER_PATTERN, tool):
        return False
    if tool == REFUND.name or split_offered_name(tool) is not None:
        return True
    known = known_tools().get(tool)
    return known is not None and known.risk == "irreversible_write"


def _amount(text: str | None) -> int | None:
    if text is None or not text.strip():
        return None
    try:
        amount = Decimal(text.strip())
    except InvalidOperation:
        raise InvalidRule(not_an_amount(text)) from None
    if not amount.is_finite() or amount <= 0 or amount != amount.quantize(CENTS):
        raise InvalidRule(
            worded(
                N_(
                    "'%(typed)s' is not an amount a rule can cap: more than zero, at most 2 "
                    "decimals."
                ),
                typed=text,
            )
        )
    return to_minor(amount)


def _lifetime(text: str) -> timedelta:
    found = LIFETIME_PATTERN.match(text)
    if found is None or int(found.group(1)) == 0:
        raise InvalidRule(
            worded(
                N_(
                    "'%(typed)s' is not a lifetime: write a number and a unit, e.g. 30m, 12h or 7d."
                ),
                typed=text,
            )
        )
    return int(found.group(1)) * LIFETIME_UNITS[found.group(2)]


# A scope's name is a word of the sentence, so each scope has its own (for the catalog).
TOO_LONG = {
    "customer": N_("The customer is longer than %(most)s characters."),
    "category": N_("The category is longer than %(most)s characters."),
}


def _scope(name: str, value: str | None) -> str | None:
    value = (value or "").strip()
    if not value:
        return None
    problem = nul_problem(name, value)
    if problem is not None:
        raise InvalidRule(problem)
    if len(value) > LONGEST_SCOPE:
        raise InvalidRule(worded(TOO_LONG[name], most=LONGEST_SCOPE))
    return value
