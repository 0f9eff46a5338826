"""The connectors' breakers in the store: one row per connector that ever failed.

Each step reads the row under a write lock (`BEGIN IMMEDIATE` on SQLite, `FOR UPDATE`
on PostgreSQL), computes the next state with the rules of
activities/connectors/breaker.py, and writes it, in one transaction: two workers never
both take the half-open breaker's one trial. No row is a closed breaker; a reset
deletes the row.
"""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import Engine, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Session

from activities.connectors.breaker import (
    CLOSED,
    Admission,
    BreakerPolicy,
    BreakerState,
    admit,
    after_failure,
    after_success,
)
from activities.store.connector_schema import ConnectorBreaker
from activities.store.database import use_session, write_transaction

# A first failure of one connector in two workers at once: both insert, one loses and
# tries again, then finds the row.
INSERT_ATTEMPTS = 2


def admit_call(engine: Engine, name: str, policy: BreakerPolicy, now: datetime) -> Admission:
    with write_transaction(engine) as session:
        row = _locked(session, name)
        if row is None:
            return admit(CLOSED, policy, now)
        admission = admit(_state(row), policy, now)
        if admission.state != _state(row):
            _write(row, admission.state, now)
        return admission


def record_success(engine: Engine, name: str, now: datetime) -> None:
    with write_transaction(engine) as session:
        row = _locked(session, name)
        if row is not None:
            _write(row, after_success(_state(row)), now)


def record_failure(
    engine: Engine, name: str, policy: BreakerPolicy, now: datetime, error: str
) -> BreakerState:
    for attempt in range(INSERT_ATTEMPTS):
        try:
            with write_transaction(engine) as session:
                row = _locked(session, name)
                state = after_failure(CLOSED if row is None else _state(row), policy, now, error)
                if row is None:
                    row = ConnectorBreaker(name=name)
                    session.add(row)
                _write(row, state, now)
                return state
        except IntegrityError:
            if attempt + 1 == INSERT_ATTEMPTS:
                raise
    raise AssertionError("unreachable")


def breaker_rows(engine: Engine) -> list[ConnectorBreaker]:
    """Every breaker that has a row (the others are closed), by name."""
    with use_session(engine) as session:
        return list(session.scalars(select(ConnectorBreaker).order_by(ConnectorBreaker.name)))


def reset_breaker(engine: Engine, name: str) -> bool:
    """Close the breaker now (its row deleted); False when it had no row (closed)."""
    with write_transaction(engine) as session:
        row = _locked(session, name)
        if row is None:
            return False
        session.delete(row)
        return True


def state_of(row: ConnectorBreaker) -> BreakerState:
    return _state(row)


def read_state(engine: Engine, name: str) -> BreakerState:
    """The breaker's state, read without a lock (a look; `admit_call` decides)."""
    with use_session(engine) as session:
        row = session.get(ConnectorBreaker, name)
        return CLOSED if row is None else _state(row)


def _locked(session: Session, name: str) -> ConnectorBreaker | None:
    return session.scalars(
        select(ConnectorBreaker).where(ConnectorBreaker.name == name).with_for_update()
    ).one_or_none()


def _state(row: ConnectorBreaker) -> BreakerState:
    return BreakerState(
        consecutive_failures=row.consecutive_failures,
        open_until=row.open_until,
        trial_started_at=row.trial_started_at,
        last_error=row.last_error,
    )


def _write(row: ConnectorBreaker, state: BreakerState, now: datetime) -> None:
    row.consecutive_failures = state.consecutive_failures
    row.open_until = state.open_until
    row.trial_started_at = state.trial_started_at
    row.last_error = state.last_error
    row.updated_at = now
