"""The `run_limits` activity: the worker's own settings, which every run is held to.

The same function (`signoff/config/run_limits.py`) builds the limits that the one
RunRequest factory (`signoff/service/run_requests.py`) and `signoff triage` put in their
requests, so a request built from the settings is never clamped; only one that asks for
more than the worker allows is (see workflows/run_limits.py).
"""

from __future__ import annotations

from temporalio import activity

from signoff.config.run_limits import limits_from_settings
from signoff.config.settings import Settings
from workflows.run_limits import RUN_LIMITS_ACTIVITY, RunLimits, RunLimitsRequest

__all__ = ["RunLimitsActivity", "limits_from_settings"]


class RunLimitsActivity:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings

    @activity.defn(name=RUN_LIMITS_ACTIVITY)
    async def run_limits(self, request: RunLimitsRequest) -> RunLimits:
        return limits_from_settings(self._settings, request.model)
