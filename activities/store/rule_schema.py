"""Tables of standing rules: each rule, signed by the decision service, and each use.

Kept beside `schema.py` (same `Base`, the same migrations): `activities/store/__init__`
imports this module so that the models and `Base.metadata` always include them.

A rule's `signature` covers its terms (workflows/rule_contracts.rule_document), never
its `uses` or its revocation: those change in place, and each change is an audit row.
A use's row is keyed by the effect it approved, so a retried effect finds its own use
instead of spending a second one.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Boolean, ForeignKey, Index, Integer, String
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.schema import HASH_LENGTH, ID_LENGTH, KEY_LENGTH, Base, UtcDateTime
from workflows.decision_proof import KEY_ID_HEX_LENGTH, SIGNATURE_HEX_LENGTH
from workflows.rule_contracts import RuleTerms

CURRENCY_LENGTH = 3
CATEGORY_LENGTH = 64
CUSTOMER_LENGTH = 200


class StandingRule(Base):
    __tablename__ = "standing_rules"
    __table_args__ = (Index("ix_standing_rules_tenant_tool", "tenant_id", "tool"),)

    id: Mapped[str] = mapped_column(String(ID_LENGTH), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(String(ID_LENGTH), ForeignKey("tenants.id"))
    tool: Mapped[str] = mapped_column(String(ID_LENGTH))
    max_amount_minor: Mapped[int | None] = mapped_column(Integer, nullable=True)
    currency: Mapped[str | None] = mapped_column(String(CURRENCY_LENGTH), nullable=True)
    customer: Mapped[str | None] = mapped_column(String(CUSTOMER_LENGTH), nullable=True)
    category: Mapped[str | None] = mapped_column(String(CATEGORY_LENGTH), nullable=True)
    created_by: Mapped[str] = mapped_column(String(ID_LENGTH))
    created_at: Mapped[datetime] = mapped_column(UtcDateTime)
    expires_at: Mapped[datetime] = mapped_column(UtcDateTime)
    max_uses: Mapped[int] = mapped_column(Integer)
    uses: Mapped[int] = mapped_column(Integer, default=0)
    shadow: Mapped[bool] = mapped_column(Boolean, default=False)
    revoked_at: Mapped[datetime | None] = mapped_column(UtcDateTime, nullable=True)
    revoked_by: Mapped[str | None] = mapped_column(String(ID_LENGTH), nullable=True)
    key_id: Mapped[str] = mapped_column(String(KEY_ID_HEX_LENGTH))
    signature: Mapped[str] = mapped_column(String(SIGNATURE_HEX_LENGTH))

    def terms(self) -> RuleTerms:
        """What the signature covers, as the row holds it now."""
        return RuleTerms(
            rule_id=self.id,
            tenant_id=self.tenant_id,
            tool=self.tool,
            max_amount_minor=self.max_amount_minor,
            currency=self.currency,
            customer=self.customer,
            category=self.category,
            created_by=self.created_by,
            created_at=self.created_at,
            expires_at=self.expires_at,
            max_uses=self.max_uses,
            shadow=self.shadow,
            key_id=self.key_id,
        )


class StandingRuleUse(Base):
    """One effect a rule approved, written in the effect's own transaction."""

    __tablename__ = "standing_rule_uses"

    effect_key: Mapped[str] = mapped_column(String(KEY_LENGTH), primary_key=True)
    rule_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("standing_rules.id"), index=True
    )
    run_id: Mapped[str] = mapped_column(String(KEY_LENGTH))
    action_hash: Mapped[str] = mapped_column(String(HASH_LENGTH))
    used_at: Mapped[datetime] = mapped_column(UtcDateTime)
