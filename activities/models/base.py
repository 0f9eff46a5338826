"""The one interface every model speaks: a neutral request in, a neutral reply out.

Adapters raise `temporalio.exceptions.ApplicationError` with a `Model*` or
`ScriptError` type, marked non-retryable when a retry cannot change the answer, so
that Temporal's retry policy (not the adapter, not the SDK) decides what to repeat.
"""

from __future__ import annotations

from typing import Protocol

from workflows.contracts import ModelReply, ModelRequest


class ModelAdapter(Protocol):
    async def complete(self, request: ModelRequest) -> ModelReply: ...
