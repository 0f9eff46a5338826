"""What a batch of decisions adds up to and how its outcomes count: the light half of
`batch_decisions.py`, apart so that `signoff approve` (which shows a summary and counts
outcomes, and decides through the decision service) imports neither the Temporal client
nor the store to do it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Literal

from workflows.actions import PendingAction

# How many actions one batch may decide: each is one update to one run, sent in turn,
# so a batch stays short enough to answer within a request's patience.
MAX_BATCH = 50

Outcome = Literal["decided", "recorded", "failed", "decide_alone"]
# What counts as done for an exit code or a count: the decision was taken (an approval
# of two that waits for a second reviewer was taken too).
SUCCEEDED: frozenset[Outcome] = frozenset({"decided", "recorded"})


@dataclass(frozen=True)
class BatchSummary:
    """What a selection adds up to, shown before the reviewer decides."""

    count: int
    totals: list[tuple[str, str]] = field(default_factory=list)  # (currency, total) sorted
    modes: list[tuple[str, int]] = field(default_factory=list)  # (mode, count) sorted
    tools: list[tuple[str, int]] = field(default_factory=list)  # actions without an amount


def summary_of(actions: Iterable[PendingAction]) -> BatchSummary:
    totals: dict[str, Decimal] = {}
    modes: Counter[str] = Counter()
    others: Counter[str] = Counter()
    count = 0
    for action in actions:
        count += 1
        modes[action.mode] += 1
        # Money is the exposure its tool's policy declares; any other action is counted
        # by its tool, whatever its arguments are called.
        exposure = action.exposure
        if exposure is None:
            others[action.tool] += 1
            continue
        totals[exposure.currency] = totals.get(exposure.currency, Decimal(0)) + Decimal(
            exposure.amount
        )
    return BatchSummary(
        count=count,
        totals=[(currency, f"{total:.2f}") for currency, total in sorted(totals.items())],
        modes=sorted(modes.items()),
        tools=sorted(others.items()),
    )
