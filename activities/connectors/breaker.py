"""A write connector's circuit breaker: its rules, on a state and a clock given to them.

Design note. `closed`: calls go through, and failures in a row are counted; the
`failures_to_open`-th opens the breaker until `now + cooldown`. `open`: every call is
refused at once, without touching the outside system, so that a run gets a clear
answer instead of waiting out timeouts and retries. Once the cool-down is over the
breaker is `half_open`: exactly one call, the trial, goes through; its success closes
the breaker, its failure opens it again for another cool-down. Calls while the trial is
in flight are refused; a trial that never reported (its worker died) stops counting
after `trial_timeout`, and the next call becomes the trial.

The state lives in the store (activities/store/connector_breakers.py) so that every
worker and `signoff connectors` see one breaker per connector; these functions only
compute the next state, which keeps them testable with any clock.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from math import ceil
from typing import Literal

BreakerStateName = Literal["closed", "open", "half_open"]
# Kept short in the store: an error's first words say enough to a person.
MAX_ERROR_CHARS = 500


@dataclass(frozen=True)
class BreakerPolicy:
    failures_to_open: int
    cooldown: timedelta
    trial_timeout: timedelta


@dataclass(frozen=True)
class BreakerState:
    consecutive_failures: int = 0
    open_until: datetime | None = None
    trial_started_at: datetime | None = None
    last_error: str = ""

    def seconds_left(self, now: datetime) -> int:
        """Whole seconds until the cool-down ends (0: over, or never opened): how long an
        approved effect waits before it asks again (workflows/effect_waits.py)."""
        until = self.open_until or now
        return max(0, ceil((until - now).total_seconds()))


CLOSED = BreakerState()


@dataclass(frozen=True)
class Admission:
    """Whether a call may go now; `state` is the breaker's state to store after it."""

    allowed: bool
    state: BreakerState
    trial: bool = False


def state_name(state: BreakerState, now: datetime) -> BreakerStateName:
    if state.open_until is None:
        return "closed"
    return "open" if now < state.open_until else "half_open"


def admit(state: BreakerState, policy: BreakerPolicy, now: datetime) -> Admission:
    name = state_name(state, now)
    if name == "closed":
        return Admission(True, state)
    if name == "open":
        return Admission(False, state)
    trial = state.trial_started_at
    if trial is not None and now - trial < policy.trial_timeout:
        return Admission(False, state)  # another call is the trial; its answer decides
    return Admission(True, replace(state, trial_started_at=now), trial=True)


def after_success(state: BreakerState) -> BreakerState:
    return CLOSED


def after_failure(
    state: BreakerState, policy: BreakerPolicy, now: datetime, error: str
) -> BreakerState:
    failures = state.consecutive_failures + 1
    error = error[:MAX_ERROR_CHARS]
    was_trial = state.open_until is not None
    if was_trial or failures >= policy.failures_to_open:
        return BreakerState(failures, now + policy.cooldown, None, error)
    return BreakerState(failures, None, None, error)
