"""The model-turn activity: one request to the model the run chose, one reply back.

A model call can take minutes. The activity heartbeats while it waits, because in
Temporal a cancellation (the run was cancelled, or its deadline passed) reaches a
running activity only through its heartbeat; the pending call is then cancelled too,
so a cancelled run stops paying for tokens.

The activity also holds every call to the worker's `max_tokens`, and answers a run's
first turn with the worker's limits on the run (activities/run_limits.py).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Mapping
from functools import partial

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.models.base import ModelAdapter
from activities.prompt_reader import PromptCatalogs
from activities.run_limits import LimitsSource, WorkerLimits, limited_turn
from signoff.config.settings import Settings
from signoff.entry_points import load_reference
from signoff.models.registry import ENTRY_POINT_GROUP, known_providers
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    ModelPrice,
    ModelRef,
    ModelReply,
    ModelRequest,
)

# Well under the policy's heartbeat timeout; the SDK throttles what it sends anyway.
HEARTBEAT_INTERVAL_SECONDS = 5.0


def _unpriced(model: ModelRef) -> ModelPrice | None:
    return None


class ModelTurns:
    """Holds the adapters, each built on the first turn that names its provider, from the
    factory of that provider (`build_model_turns`: one per provider of the registry).

    `limits`: the worker's limits on a run (`WorkerLimits.limits_for`). None: a worker
    built without settings (a test's) holds no call to them and answers none, so that a
    run on it fails closed."""

    def __init__(
        self,
        factories: Mapping[str, Callable[[], ModelAdapter]],
        heartbeat_interval_seconds: float = HEARTBEAT_INTERVAL_SECONDS,
        price_of: Callable[[ModelRef], ModelPrice | None] = _unpriced,
        catalogs: PromptCatalogs | None = None,
        limits: LimitsSource | None = None,
    ) -> None:
        self._limits = limits
        self._price_of = price_of  # the worker's prices, for the cost metric
        self._catalogs = catalogs
        self._factories = dict(factories)
        self._adapters: dict[str, ModelAdapter] = {}
        self._heartbeat_interval_seconds = heartbeat_interval_seconds

    def read_catalogs_from(self, engine: Engine) -> None:
        """Read runs' prompt catalogs from `engine`'s store, unless given some already."""
        if self._catalogs is None:
            self._catalogs = PromptCatalogs(engine)

    def hold_to(self, limits: LimitsSource) -> None:
        """Hold every turn to `limits` (the worker's, with its keys and connectors)."""
        self._limits = limits

    @activity.defn(name=MODEL_TURN_ACTIVITY)
    async def model_turn(self, request: ModelRequest) -> ModelReply:
        if self._limits is None:
            return await self._observed_turn(request)
        return await limited_turn(request, self._limits, self._observed_turn)

    async def _observed_turn(self, request: ModelRequest) -> ModelReply:
        request = await self._with_catalog(request)
        with observe.model_turn_span(request) as span:
            try:
                reply = await self._model_turn(request)
            except Exception as error:
                observe.model_failed(span, request, error)
                raise
            observe.model_replied(span, request, reply, self._price_of(request.model))
            return reply

    async def _with_catalog(self, request: ModelRequest) -> ModelRequest:
        if request.prompt_digest is None:
            return request
        if self._catalogs is None:
            # How this worker was built: a retry on it cannot read the store either.
            raise ApplicationError(
                "this worker reads no prompt catalogs (activity_parts gives it the store); "
                "the run names one.",
                type="CatalogMissing",
                non_retryable=True,
            )
        return await self._catalogs.resolved(request)

    async def _model_turn(self, request: ModelRequest) -> ModelReply:
        adapter = self.adapter_for(request)
        call = asyncio.create_task(adapter.complete(request))
        try:
            while True:
                done, _ = await asyncio.wait({call}, timeout=self._heartbeat_interval_seconds)
                if done:
                    return call.result()
                activity.heartbeat()
        finally:
            if not call.done():
                call.cancel()
                # We are already leaving with the cancellation: what the call raises
                # while it unwinds changes nothing.
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await call

    def adapter_for(self, request: ModelRequest) -> ModelAdapter:
        provider = request.model.provider
        adapter = self._adapters.get(provider)
        if adapter is None:
            factory = self._factories.get(provider)
            if factory is None:
                # What is installed on this worker: a retry here cannot add it.
                raise ApplicationError(
                    f"this worker has no model provider '{provider}' (its package registers "
                    f"one under the '{ENTRY_POINT_GROUP}' entry points); install it on the "
                    "worker, or run with another --model.",
                    type="ModelBadRequest",
                    non_retryable=True,
                )
            adapter = self._adapters[provider] = factory()
        return adapter

    async def close(self) -> None:
        """Close the HTTP clients of the adapters made so far: an `AsyncAnthropic` left to
        the garbage collector schedules its own close from wherever it is collected,
        and without a running loop that close is never awaited."""
        made, self._adapters = list(self._adapters.values()), {}
        for adapter in made:
            close = getattr(adapter, "close", None)
            if close is not None:
                await close()


def build_model_turns(settings: Settings) -> ModelTurns:
    """The model turns of a worker: one factory per provider of the registry, each
    importing its adapter (and its SDK) only on the first turn that names it. Secrets are
    read there, in the worker; they never travel in an activity input."""
    factories = {
        name: partial(_build_adapter, provider.adapter, settings)
        for name, provider in known_providers().items()
    }
    # The settings' limits; a worker's own also hold its keys and connectors (hold_to).
    limits = WorkerLimits(settings).limits_for
    return ModelTurns(factories, price_of=settings.price_of, limits=limits)


def _build_adapter(reference: str, settings: Settings) -> ModelAdapter:
    build: Callable[[Settings], ModelAdapter] = load_reference(reference)
    return build(settings)
