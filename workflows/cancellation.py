"""How a cancelled activity is told apart from a failed one, in workflow code."""

from __future__ import annotations

import asyncio

from temporalio.exceptions import ActivityError
from temporalio.exceptions import CancelledError as TemporalCancelledError


def reraise_cancellation(error: ActivityError) -> None:
    """An activity ends cancelled only when its run ends (deadline or cancel request):
    let that through as a cancellation, never as a failed call to recover from."""
    if isinstance(error.cause, TemporalCancelledError):
        raise asyncio.CancelledError() from error
