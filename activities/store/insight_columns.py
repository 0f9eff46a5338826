"""What an audit row adds for the approval insight (approval_insight.py): the outcome of
the request it ends, the action's tool, a rejection's category, the wait from request to
decision, and the standing rule a rule's row names.

Design note. The insight's figures are counts, sums and percentiles over a tenant's
period; read from the rows' JSON (the kept action, the reason) they would parse every
row of the period on every page. So the writer derives them once, when it appends the
row, into plain columns that one covering index holds (`ix_decisions_tenant_insight`,
revision 0013_decision_insight). They are outside the chain's hash, like the proof: the
chain proves what was decided; these only sort it.

A request is counted once: a reviewer's edit ends the proposed action as `edited`, and
the approval of the edited version that comes with it (or a second reviewer's, later)
is `edit_approved`: its money is approved money, but it is no request and no decision
of its own. A first approval of two is a reviewer's approval (the reviewer's figures
count it) that ends no request (the tool's figures skip its kind).
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

from workflows.actions import DecisionEvent, PendingAction

# The covering index's columns after (tenant_id, decided_at) (schema.py); `seq` last,
# for the cache's first read of a period, which stops at the chain's head (insight_cache.py).
INSIGHT_COLUMNS = (
    "outcome",
    "kind",
    "tool",
    "reviewer_id",
    "category",
    "currency",
    "amount_minor",
    "waited_ms",
    "seq",
)
APPROVED = "approved"
EDITED = "edited"
REJECTED = "rejected"
EDIT_APPROVED = "edit_approved"
EXPIRED = "expired"
RULE_APPROVED = "rule_approved"
RULE_SHADOW = "rule_shadow"
REFUNDED = "refunded"
# The audit's kinds that end a request (or, for a shadow rule, say what it would have
# done), as the outcome they count as. `first_approval` is an approval.
OUTCOME_OF_KIND = {
    "approved": APPROVED,
    "first_approval": APPROVED,
    "edited": EDITED,
    "rejected": REJECTED,
    "expired": EXPIRED,
    "rule_approved": RULE_APPROVED,
    "rule_shadow": RULE_SHADOW,
}
# The rule's id in its rows' reason, as workflows/standing_rules.py writes it
# ("standing rule R-1 would have approved this…", "approved by standing rule R-1 …").
RULE_IN_REASON = re.compile(r"standing rule (\S+) ")
MILLISECONDS = 1000


def insight_values(
    event: DecisionEvent, kind: str, action: PendingAction | None, tool: str | None
) -> dict[str, Any]:
    """The insight's columns of the trail event's row. `action` is the action the row
    keeps (a reviewer's decision), `tool` the waiting action's tool where none is kept."""
    record = event.record
    outcome = OUTCOME_OF_KIND.get(kind)
    if outcome == APPROVED and action is not None and action.edited_by is not None:
        outcome = EDIT_APPROVED  # counted as the edit it comes with (module note)
    rule = None
    if kind in (RULE_APPROVED, RULE_SHADOW):
        found = RULE_IN_REASON.search(record.reason)
        rule = found[1] if found else None
    return {
        "outcome": outcome,
        "tool": action.tool if action is not None else tool,
        "category": record.category,
        "waited_ms": waited_ms(event.requested_at, record.at),
        "rule_id": rule,
    }


def waited_ms(requested_at: datetime | None, decided_at: datetime) -> int | None:
    if requested_at is None:
        return None
    return max(0, round((decided_at - requested_at).total_seconds() * MILLISECONDS))
