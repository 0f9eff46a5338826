"""The `run_limits` activity: the worker's own settings, which every run is held to.

The same function builds the limits `signoff run` and `signoff triage` put in their
requests, so a request built from the settings is never clamped; only one that asks for
more than the worker allows is (see workflows/run_limits.py).
"""

from __future__ import annotations

from temporalio import activity

from signoff.config.settings import Settings
from workflows.contracts import ModelRef
from workflows.run_limits import RUN_LIMITS_ACTIVITY, RunLimits, RunLimitsRequest

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
    )


class RunLimitsActivity:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    @activity.defn(name=RUN_LIMITS_ACTIVITY)
    async def run_limits(self, request: RunLimitsRequest) -> RunLimits:
        return limits_from_settings(self._settings, request.model)
