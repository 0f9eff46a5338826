"""The approval insight's rollup of the audit: one row per tenant and UTC day, what the
day's audit rows add up to (insight_days.py); and the audit's index of a tenant's shadow
rules' rows, which the insight joins to what became of each action (approval_insight.py).

Kept beside `schema.py` (same `Base`, the same migrations): `activities/store/__init__`
imports this module so that the models and `Base.metadata` always include it.
"""

from __future__ import annotations

from datetime import date

from sqlalchemy import Date, ForeignKey, Index, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from activities.store.schema import ID_LENGTH, Base, DecisionRow


class InsightDay(Base):
    """A tenant's day of the insight: its rows' counts, sums and waits (`summary`, JSON),
    and the chain's head when the day was last added to (`head_seq`)."""

    __tablename__ = "insight_days"

    tenant_id: Mapped[str] = mapped_column(
        String(ID_LENGTH), ForeignKey("tenants.id"), primary_key=True
    )
    day: Mapped[date] = mapped_column(Date, primary_key=True)
    head_seq: Mapped[int] = mapped_column(Integer)
    summary: Mapped[str] = mapped_column(Text)


# A period's shadow rows, read from the index alone (`seq` for the kept insight's read up
# to the chain's head): partial in revision 0014, only the shadow rules' rows (the model
# names its columns alone, as schema.py says why).
SHADOW_INDEX = Index(
    "ix_decisions_tenant_shadow",
    DecisionRow.tenant_id,
    DecisionRow.outcome,
    DecisionRow.decided_at,
    DecisionRow.rule_id,
    DecisionRow.run_id,
    DecisionRow.action_hash,
    DecisionRow.seq,
)
