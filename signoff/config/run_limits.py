"""The limits a run gets from the settings: budgets, deadline, approval TTL and price.

One function for the requests built from the settings (`signoff run`, triage) and for the
limits the worker answers a run's first model turn with (activities/run_limits.py), so
that a request built from the same settings is never clamped by the worker.
"""

from __future__ import annotations

from signoff.config.settings import Settings
from workflows.contracts import ModelRef
from workflows.run_limits import RunLimits

SECONDS_PER_MINUTE = 60
SECONDS_PER_HOUR = 3600


def limits_from_settings(settings: Settings, model: ModelRef) -> RunLimits:
    return RunLimits(
        step_budget=settings.step_budget,
        token_budget=settings.token_budget,
        max_tokens=settings.max_tokens,
        cost_budget_usd=settings.cost_budget_usd,
        deadline_seconds=max(1, int(settings.deadline_minutes * SECONDS_PER_MINUTE)),
        approval_ttl_seconds=max(1, int(settings.approval_ttl_hours * SECONDS_PER_HOUR)),
        price=settings.price_of(model),
        notify_reviewers=settings.notify_webhook_url is not None,
    )
