"""The breakers in the store, on SQLite and PostgreSQL: a state written by one process
is the state another reads (a worker and `signoff connectors`, or a worker after a
restart), several workers asking at once for the half-open breaker's trial get one
trial between them, and a reset closes it."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from datetime import timedelta

from sqlalchemy import Engine

from activities.connectors.breaker import BreakerPolicy, state_name
from activities.store.connector_breakers import (
    admit_call,
    breaker_rows,
    read_state,
    record_failure,
    record_success,
    reset_breaker,
)
from activities.store.database import make_engine
from tests.clock import clock_now

POLICY = BreakerPolicy(
    failures_to_open=2, cooldown=timedelta(seconds=60), trial_timeout=timedelta(seconds=30)
)
NAME = "helpdesk:demo"
WORKERS = 6


def opened(store: Engine) -> None:
    now = clock_now()
    for _ in range(POLICY.failures_to_open):
        record_failure(store, NAME, POLICY, now, "HTTP 503")


def test_a_breaker_opened_by_one_process_is_open_for_another(store: Engine) -> None:
    opened(store)
    other = make_engine(store.url.render_as_string(hide_password=False))  # as after a restart
    try:
        state = read_state(other, NAME)
        assert state_name(state, clock_now()) == "open" and state.consecutive_failures == 2
        assert not admit_call(other, NAME, POLICY, clock_now()).allowed
        (row,) = breaker_rows(other)
        assert row.name == NAME and row.last_error == "HTTP 503"
    finally:
        other.dispose()


def test_workers_asking_at_once_get_one_trial_between_them(store: Engine) -> None:
    opened(store)
    after_cooldown = clock_now() + POLICY.cooldown + timedelta(seconds=1)
    with ThreadPoolExecutor(max_workers=WORKERS) as pool:
        answers = list(
            pool.map(lambda _: admit_call(store, NAME, POLICY, after_cooldown), range(WORKERS))
        )
    assert [a.trial for a in answers].count(True) == 1
    assert [a.allowed for a in answers].count(True) == 1


def test_a_success_or_a_reset_closes_it(store: Engine) -> None:
    opened(store)
    record_success(store, NAME, clock_now())
    assert state_name(read_state(store, NAME), clock_now()) == "closed"
    opened(store)
    assert reset_breaker(store, NAME) is True
    assert state_name(read_state(store, NAME), clock_now()) == "closed"
    assert breaker_rows(store) == []
    assert reset_breaker(store, NAME) is False  # closed already: nothing to reset
