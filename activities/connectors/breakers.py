"""The breakers as the activities use them: the store's rows, the settings' policy, a
clock (injected in tests), and each step off the event loop."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from sqlalchemy import Engine

from activities.connectors.breaker import (
    Admission,
    BreakerPolicy,
    BreakerState,
    BreakerStateName,
    state_name,
)
from activities.store import connector_breakers as store
from signoff.config.settings import Settings

Clock = Callable[[], datetime]


def policy_from_settings(settings: Settings) -> BreakerPolicy:
    return BreakerPolicy(
        failures_to_open=settings.breaker_failures,
        cooldown=timedelta(seconds=settings.breaker_cooldown_seconds),
        trial_timeout=timedelta(seconds=settings.breaker_trial_timeout_seconds),
    )


def utc_now() -> datetime:
    return datetime.now(UTC)


class Breakers:
    def __init__(self, engine: Engine, policy: BreakerPolicy, clock: Clock = utc_now) -> None:
        self._engine = engine
        self.policy = policy
        self.clock = clock

    async def state(self, name: str) -> tuple[BreakerStateName, BreakerState]:
        """A look, which changes nothing (the trial is taken by `admit`)."""
        found = await asyncio.to_thread(store.read_state, self._engine, name)
        return state_name(found, self.clock()), found

    async def admit(self, name: str) -> Admission:
        return await asyncio.to_thread(
            store.admit_call, self._engine, name, self.policy, self.clock()
        )

    async def succeeded(self, name: str) -> None:
        await asyncio.to_thread(store.record_success, self._engine, name, self.clock())

    async def failed(self, name: str, error: str) -> BreakerState:
        return await asyncio.to_thread(
            store.record_failure, self._engine, name, self.policy, self.clock(), error
        )
