"""The CLI's client of the decision service for several decisions at once: what waits
(named runs, or every pending request of the reviewer's tenant), and the batch itself.

The CLI reads what it will decide through the service's API as the reviewer (so it sees
their tenant only), shows it, and sends each action's hash as it showed it: a request
that changed meanwhile fails on its own line, it is never decided unseen.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from signoff.cli.decision_service import ServiceRefused, answer_of
from signoff.cli.service_http import NOT_FOUND, ServiceHttp
from signoff.config.settings import MAX_PAGE_SIZE
from signoff.service.batch_summary import MAX_BATCH
from signoff.service.pending_item import PendingItem
from workflows.actions import PendingAction, Verdict


@dataclass(frozen=True)
class Filter:
    """`--all-pending`, narrowed by tool and by a largest amount."""

    tool: str | None = None
    max_amount: Decimal | None = None

    def keeps(self, action: PendingAction) -> bool:
        if self.tool is not None and action.tool != self.tool:
            return False
        if self.max_amount is None:
            return True
        # The exposure its tool's policy declares, never an argument by its name: an
        # action without one has no amount to compare, so a bounded filter never takes it.
        exposure = action.exposure
        return exposure is not None and Decimal(exposure.amount) <= self.max_amount


def _item(document: dict[str, Any], run_id: str, tenant_id: str, ticket_id: str) -> PendingItem:
    return PendingItem(run_id, tenant_id, ticket_id, PendingAction.model_validate(document))


NOT_SHOWN = "not found: no such run waits for a decision in your tenant. Nothing was decided."
NOTHING_WAITS = "nothing waits for a decision in this run (decided, expired or ended)."


def pending_of_runs(
    http: ServiceHttp, run_ids: list[str]
) -> tuple[list[PendingItem], list[tuple[str, str]]]:
    """The actions waiting in each named run, and a line for each run that holds none for
    this reviewer (unknown, or another tenant's: the same answer; or nothing waiting)."""
    found: list[PendingItem] = []
    problems: list[tuple[str, str]] = []
    for run_id in run_ids:
        try:
            detail = answer_of(http.get(f"/api/approvals/{run_id}"))
        except ServiceRefused as refused:
            if refused.status_code != NOT_FOUND:
                raise
            problems.append((run_id, NOT_SHOWN))
            continue
        ticket = detail.get("ticket") or {}
        actions = detail.get("pending_actions", [])
        if not actions:
            problems.append((run_id, NOTHING_WAITS))
        for action in actions:
            tenant = str(action.get("targets", {}).get("tenant_id", ""))
            found.append(_item(action, run_id, tenant, str(ticket.get("id", ""))))
    return found, problems


def pending_matching(http: ServiceHttp, chosen: Filter) -> list[PendingItem]:
    """Every pending action of the reviewer's tenant that the filter keeps."""
    found: list[PendingItem] = []
    after: str | None = None
    while True:
        params: dict[str, str | int] = {"limit": MAX_PAGE_SIZE}
        if after:
            params["after"] = after
        page = answer_of(http.get("/api/approvals", params=params))
        for row in page.get("items", []):
            item = _item(row["action"], row["run_id"], row["tenant_id"], row["ticket_id"])
            if chosen.keeps(item.action):
                found.append(item)
        after = page.get("next")
        if not after:
            return found


def send_batch(
    http: ServiceHttp,
    items: list[PendingItem],
    verdict: Verdict,
    reason: str,
    category: str | None,
) -> list[dict[str, Any]]:
    """One result per item, in order; sent MAX_BATCH at a time (the API's bound)."""
    results: list[dict[str, Any]] = []
    for start in range(0, len(items), MAX_BATCH):
        chunk = items[start : start + MAX_BATCH]
        body: dict[str, Any] = {
            "items": [{"run_id": i.run_id, "action_hash": i.action.action_hash} for i in chunk],
            "verdict": verdict,
            "reason": reason,
        }
        if category is not None:
            body["category"] = category
        answered = answer_of(http.post("/api/approvals/batch", json=body))
        results += answered.get("results", [])
    return results
