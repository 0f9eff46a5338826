"""The breaker's rules on a clock the test sets: it opens after N failures in a row,
refuses while open, lets exactly one trial through after the cool-down, and that trial
closes it or opens it again."""

from __future__ import annotations

from datetime import timedelta

from activities.connectors.breaker import (
    CLOSED,
    BreakerPolicy,
    BreakerState,
    admit,
    after_failure,
    after_success,
    state_name,
)
from tests.clock import clock_now

POLICY = BreakerPolicy(
    failures_to_open=3, cooldown=timedelta(seconds=60), trial_timeout=timedelta(seconds=30)
)
NOW = clock_now()


def failed(times: int, state: BreakerState = CLOSED) -> BreakerState:
    for _ in range(times):
        state = after_failure(state, POLICY, NOW, "HTTP 503")
    return state


def test_failures_below_the_threshold_keep_it_closed_and_a_success_forgets_them() -> None:
    two = failed(2)
    assert state_name(two, NOW) == "closed" and two.consecutive_failures == 2
    assert admit(two, POLICY, NOW).allowed
    assert after_success(two) == CLOSED
    assert state_name(failed(2, after_success(two)), NOW) == "closed"  # counted anew


def test_the_nth_failure_in_a_row_opens_it_for_the_cooldown() -> None:
    opened = failed(3)
    assert state_name(opened, NOW) == "open"
    assert opened.open_until == NOW + POLICY.cooldown and opened.last_error == "HTTP 503"
    just_before = NOW + POLICY.cooldown - timedelta(seconds=1)
    assert not admit(opened, POLICY, just_before).allowed
    assert not admit(opened, POLICY, NOW).allowed


def test_after_the_cooldown_one_trial_goes_and_the_others_wait_for_it() -> None:
    later = NOW + POLICY.cooldown
    opened = failed(3)
    assert state_name(opened, later) == "half_open"
    trial = admit(opened, POLICY, later)
    assert trial.allowed and trial.trial and trial.state.trial_started_at == later
    second = admit(trial.state, POLICY, later + timedelta(seconds=1))
    assert not second.allowed  # one trial at a time


def test_a_trial_that_never_reports_stops_counting_after_its_timeout() -> None:
    later = NOW + POLICY.cooldown
    trial = admit(failed(3), POLICY, later)
    lost = later + POLICY.trial_timeout
    again = admit(trial.state, POLICY, lost)
    assert again.allowed and again.trial and again.state.trial_started_at == lost


def test_a_successful_trial_closes_it() -> None:
    later = NOW + POLICY.cooldown
    trial = admit(failed(3), POLICY, later)
    closed = after_success(trial.state)
    assert closed == CLOSED and state_name(closed, later) == "closed"
    assert admit(closed, POLICY, later).allowed


def test_a_failed_trial_opens_it_again_for_a_new_cooldown() -> None:
    later = NOW + POLICY.cooldown
    trial = admit(failed(3), POLICY, later)
    reopened = after_failure(trial.state, POLICY, later, "timed out")
    assert state_name(reopened, later) == "open"
    assert reopened.open_until == later + POLICY.cooldown and reopened.trial_started_at is None
    assert reopened.last_error == "timed out"
