"""The model-turn activity: one request to the model the run chose, one reply back.

A model call can take minutes. The activity heartbeats while it waits, because in
Temporal a cancellation (the run was cancelled, or its deadline passed) reaches a
running activity only through its heartbeat; the pending call is then cancelled too,
so a cancelled run stops paying for tokens.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from functools import partial
from pathlib import Path

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.models.base import ModelAdapter
from activities.models.scripted import ScriptedModel
from activities.prompt_reader import PromptCatalogs
from signoff.config.settings import Settings
from workflows.contracts import (
    MODEL_TURN_ACTIVITY,
    ModelPrice,
    ModelRef,
    ModelReply,
    ModelRequest,
)

SCRIPTS_DIR = Path(__file__).parent / "scripts"
# Well under the policy's heartbeat timeout; the SDK throttles what it sends anyway.
HEARTBEAT_INTERVAL_SECONDS = 5.0


def _unpriced(model: ModelRef) -> ModelPrice | None:
    return None


class ModelTurns:
    """Holds the adapters; the anthropic and openai ones are built on first use."""

    def __init__(
        self,
        scripted: ModelAdapter,
        anthropic_factory: Callable[[], ModelAdapter] | None,
        heartbeat_interval_seconds: float = HEARTBEAT_INTERVAL_SECONDS,
        openai_factory: Callable[[], ModelAdapter] | None = None,
        price_of: Callable[[ModelRef], ModelPrice | None] = _unpriced,
        catalogs: PromptCatalogs | None = None,
    ) -> None:
        self._price_of = price_of  # the worker's prices, for the cost metric
        self._catalogs = catalogs
        self._scripted = scripted
        self._anthropic_factory = anthropic_factory
        self._anthropic: ModelAdapter | None = None
        self._openai_factory = openai_factory
        self._openai: ModelAdapter | None = None
        self._heartbeat_interval_seconds = heartbeat_interval_seconds

    def read_catalogs_from(self, engine: Engine) -> None:
        """Read runs' prompt catalogs from `engine`'s store, unless given some already."""
        if self._catalogs is None:
            self._catalogs = PromptCatalogs(engine)

    @activity.defn(name=MODEL_TURN_ACTIVITY)
    async def model_turn(self, request: ModelRequest) -> ModelReply:
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
        if request.model.provider == "scripted":
            return self._scripted
        if request.model.provider == "openai":
            return self._openai_adapter()
        if self._anthropic is None:
            if self._anthropic_factory is None:
                # The key lives in the worker's environment; retrying here cannot add it.
                raise ApplicationError(
                    "authentication failed: no ANTHROPIC_API_KEY is set on the worker. Set it "
                    "and restart the worker, or run with --model scripted.",
                    type="ModelAuthenticationFailed",
                    non_retryable=True,
                )
            self._anthropic = self._anthropic_factory()
        return self._anthropic

    async def close(self) -> None:
        """Close the HTTP clients of the adapters made so far: an `AsyncAnthropic` left to
        the garbage collector schedules its own close from wherever it is collected,
        and without a running loop that close is never awaited."""
        made, self._anthropic, self._openai = (self._anthropic, self._openai), None, None
        for adapter in made:
            close = getattr(adapter, "close", None)
            if close is not None:
                await close()

    def _openai_adapter(self) -> ModelAdapter:
        if self._openai is None:
            if self._openai_factory is None:
                # How this worker was built, not the call: a retry cannot change it.
                raise ApplicationError(
                    "this worker was built without an OpenAI-compatible adapter "
                    "(build_model_turns adds one); run with another --model.",
                    type="ModelBadRequest",
                    non_retryable=True,
                )
            self._openai = self._openai_factory()
        return self._openai


def build_model_turns(settings: Settings, scripts_dir: Path | None = None) -> ModelTurns:
    key = settings.anthropic_api_key
    anthropic_factory: Callable[[], ModelAdapter] | None = None
    if key is not None:
        # The key is read here, in the worker; it never travels in an activity input.
        anthropic_factory = partial(
            anthropic_model, key.get_secret_value(), settings.anthropic_timeout_seconds
        )
    scripts = scripts_dir or settings.scripts_dir or SCRIPTS_DIR
    return ModelTurns(
        scripted=ScriptedModel(scripts),
        anthropic_factory=anthropic_factory,
        openai_factory=partial(openai_model, settings),
        price_of=settings.price_of,
    )


def anthropic_model(api_key: str, timeout_seconds: float) -> ModelAdapter:
    """The Anthropic adapter; the `anthropic` SDK (about 50 MiB of a worker's memory)
    loads here, on the first turn that names the provider, never in a worker whose runs
    use another model."""
    from activities.models.anthropic_adapter import AnthropicModel

    return AnthropicModel(api_key=api_key, timeout_seconds=timeout_seconds)


def openai_model(settings: Settings) -> ModelAdapter:
    """The OpenAI-compatible adapter; the `openai` SDK loads here, on the first turn."""
    from activities.models.openai_adapter import OpenAIModel

    key = settings.openai_api_key
    # Read here, in the worker, like the Anthropic key: it never travels in an input.
    return OpenAIModel(
        api_key=key.get_secret_value() if key is not None else None,
        timeout_seconds=settings.openai_timeout_seconds,
        base_url=settings.openai_base_url,
    )
