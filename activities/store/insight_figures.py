"""The approval insight's figures, as plain data, and how grouped audit counts add up to
them (the queries are in approval_insight.py).

A request is an action that ended in the period: approved (by one reviewer, or by the
last of several), edited, rejected, expired, or approved by a standing rule. A
reviewer's figures count their own decisions, a first approval of two included. Money
is in minor units per currency: a tenant may take several, and amounts in two
currencies never add up. Percentiles are nearest-rank: p95 of 20 waits is the 19th
shortest, a wait that happened.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from activities.store.insight_columns import (
    APPROVED,
    EDIT_APPROVED,
    EDITED,
    EXPIRED,
    REJECTED,
    RULE_APPROVED,
)

FIRST_APPROVAL = "first_approval"
# The outcomes a reviewer decides, and those that approve money.
REVIEWER_OUTCOMES = (APPROVED, EDITED, REJECTED)
MONEY_OUTCOMES = (APPROVED, EDIT_APPROVED, RULE_APPROVED)
REQUEST_OUTCOMES = (APPROVED, EDITED, REJECTED, EXPIRED, RULE_APPROVED)
# A rejection without a category (written before categories, or by a client that sent
# none) is counted under this name.
NO_CATEGORY = "none"


@dataclass
class Counts:
    """One tool's, one reviewer's or the whole tenant's counts, while they are counted;
    `Tally.of` makes the frozen figures a page is handed."""

    name: str
    requests: int = 0
    approved: int = 0
    edited: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    expired: int = 0
    by_rule: int = 0
    money_approved: Counter[str] = field(default_factory=Counter)  # currency: minor units

    def count(self, outcome: str, category: str | None, rows: int) -> None:
        self.requests += rows
        if outcome == APPROVED:
            self.approved += rows
        elif outcome == EDITED:
            self.edited += rows
        elif outcome == REJECTED:
            self.rejected[category or NO_CATEGORY] += rows
        elif outcome == EXPIRED:
            self.expired += rows
        elif outcome == RULE_APPROVED:
            self.by_rule += rows


@dataclass(frozen=True)
class Tally:
    """One tool's, one reviewer's or the whole tenant's figures in the period."""

    name: str
    requests: int = 0
    approved: int = 0
    edited: int = 0
    rejected: Mapping[str, int] = field(default_factory=dict)
    expired: int = 0
    by_rule: int = 0
    money_approved: Mapping[str, int] = field(default_factory=dict)  # currency: minor
    p50_ms: int | None = None
    p95_ms: int | None = None

    @classmethod
    def of(cls, counts: Counts, waits: tuple[int | None, int | None] = (None, None)) -> Tally:
        """The figures of what was counted, with the period's wait percentiles."""
        return cls(
            name=counts.name,
            requests=counts.requests,
            approved=counts.approved,
            edited=counts.edited,
            rejected=dict(counts.rejected),
            expired=counts.expired,
            by_rule=counts.by_rule,
            money_approved={
                currency: minor for currency, minor in counts.money_approved.items() if minor
            },
            p50_ms=waits[0],
            p95_ms=waits[1],
        )

    @property
    def rejected_total(self) -> int:
        return sum(self.rejected.values())

    @property
    def rule_share(self) -> float | None:
        """The share of requests a standing rule decided (None: no request)."""
        return None if self.requests == 0 else self.by_rule / self.requests


@dataclass(frozen=True)
class Group:
    """One group of the counted rows, by tool or by reviewer (insight_scan.Scanned)."""

    tool: str | None
    reviewer_id: str | None
    kind: str
    outcome: str
    category: str | None
    currency: str | None
    rows: int
    amount_minor: int


@dataclass(frozen=True)
class Disagreement:
    """An action a shadow rule would have approved, and what its reviewer did instead."""

    rule_id: str
    run_id: str
    action_hash: str
    decided_at: datetime
    outcome: str  # edited or rejected
    reviewer_id: str | None
    category: str | None


@dataclass
class ShadowCheck:
    """A shadow rule against the reviewers: of the actions it would have approved, how
    many a reviewer decided, approved as it was, or otherwise; expired or still waiting
    ones are compared with nothing."""

    rule_id: str
    matched: int = 0
    compared: int = 0
    agreed: int = 0
    disagreements: list[Disagreement] = field(default_factory=list)
    disagreed: int = 0

    @property
    def agreement(self) -> float | None:
        return None if self.compared == 0 else self.agreed / self.compared


@dataclass(frozen=True)
class Insight:
    tenant_id: str
    since: datetime
    until: datetime  # excluded
    total: Tally
    tools: list[Tally]
    reviewers: list[Tally]
    refunded: dict[str, int]  # currency: minor units
    shadows: list[ShadowCheck]


NO_TOOL = ""  # a row whose tool was not recorded


def tallies(
    groups: list[Group], reviewer_groups: list[Group]
) -> tuple[Counts, dict[str, Counts], dict[str, Counts]]:
    """The tenant's and each tool's counts of the rows grouped by tool, and each
    reviewer's of those grouped by reviewer (insight_scan.Scanned)."""
    total = Counts("")
    tools: dict[str, Counts] = {}
    reviewers: dict[str, Counts] = {}
    for group in groups:
        if group.outcome in MONEY_OUTCOMES and group.kind != FIRST_APPROVAL:
            tool = tools.setdefault(group.tool or NO_TOOL, Counts(group.tool or NO_TOOL))
            for tally in (total, tool):
                tally.money_approved[group.currency or ""] += group.amount_minor
        if group.outcome in REQUEST_OUTCOMES and group.kind != FIRST_APPROVAL:
            tool = tools.setdefault(group.tool or NO_TOOL, Counts(group.tool or NO_TOOL))
            for tally in (total, tool):
                tally.count(group.outcome, group.category, group.rows)
    for group in reviewer_groups:
        if group.outcome in REVIEWER_OUTCOMES and group.reviewer_id is not None:
            name = group.reviewer_id
            reviewer = reviewers.setdefault(name, Counts(name))
            reviewer.count(group.outcome, group.category, group.rows)
            if group.outcome == APPROVED:
                reviewer.money_approved[group.currency or ""] += group.amount_minor
    return total, tools, reviewers
