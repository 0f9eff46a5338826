"""The worker's own limits on a run, which every run is held to, and the model turn
that brings them back with its reply.

The same function (`signoff/config/run_limits.py`) builds the limits that the one
RunRequest factory (`signoff/service/run_requests.py`) and `signoff triage` put in their
requests, so a request built from the settings is never clamped; only one that asks for
more than the worker allows is (see workflows/run_limits.py). No activity of their own:
the run's first model turn asks for them (`limited_turn`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from activities.payments.registry import PaymentConnectors
from signoff.config.decision_signatures import VerificationKeys, raw_public_key
from signoff.config.run_limits import limits_from_settings
from signoff.config.settings import Settings
from workflows.contracts import ModelReply, ModelRequest
from workflows.run_limits import DecisionKey, RunLimits, RunLimitsRequest, fitting_thinking

__all__ = ["LimitsSource", "WorkerLimits", "limited_turn", "limits_from_settings"]

# What answers a run's request for limits: the worker's `WorkerLimits.limits_for`, or a
# test's limits of its own.
LimitsSource = Callable[[RunLimitsRequest], RunLimits]
ModelCall = Callable[[ModelRequest], Awaitable[ModelReply]]


class WorkerLimits:
    """`keys`: the worker's public decision keys, which the run checks signatures with
    (None: the run gets none, and asks `verify_decision` for every decision); `payments`:
    the connectors this worker refunds through, whose call budget a tenant's refund is
    given (None: the ledger's, no time for a platform's calls)."""

    def __init__(
        self,
        settings: Settings,
        keys: VerificationKeys | None = None,
        payments: PaymentConnectors | None = None,
    ) -> None:
        self._settings = settings
        self._keys = keys
        self._payments = payments

    def limits_for(self, request: RunLimitsRequest) -> RunLimits:
        """Only what this process holds, no I/O: cheap enough for every model turn."""
        limits = limits_from_settings(self._settings, request.model)
        if self._payments is not None and request.tenant_id is not None:
            seconds = self._payments.refund_call_seconds(request.tenant_id)
            limits = limits.model_copy(update={"payment_call_seconds": seconds})
        if self._keys is None:
            return limits
        return limits.model_copy(
            update={
                "decision_keys": decision_keys(self._keys),
                "decision_max_age_seconds": self._settings.decision_max_age_seconds,
            }
        )


async def limited_turn(request: ModelRequest, limits: LimitsSource, call: ModelCall) -> ModelReply:
    """`call`'s reply to `request` held to the worker's `max_tokens`, with the worker's
    limits on the run when the request asks for them (`limits_for`).

    Every turn is held, not only those after the run's clamp: the first runs before it,
    and anyone on the task queue may call the activity with whatever it asks. What the
    request says never becomes the limits: only what it asks them for.
    """
    asked = request.limits_for
    worker = limits(asked if asked is not None else RunLimitsRequest(model=request.model))
    if request.max_tokens > worker.max_tokens:
        max_tokens = worker.max_tokens
        thinking = fitting_thinking(request.thinking_budget_tokens, max_tokens)
        request = request.model_copy(
            update={"max_tokens": max_tokens, "thinking_budget_tokens": thinking}
        )
    reply = await call(request)
    answer = worker if asked is not None else None
    if reply.worker_limits == answer:
        return reply
    # Only this worker's word, whatever the model's adapter put there.
    return reply.model_copy(update={"worker_limits": answer})


def decision_keys(keys: VerificationKeys) -> list[DecisionKey]:
    """The unretired public keys, as the run receives them (sorted: the same list on
    every worker that holds the same keys)."""
    return [
        DecisionKey(key_id=key_id, public_key=raw_public_key(keys.keys[key_id]).hex())
        for key_id in sorted(keys.keys)
        if key_id not in keys.retired
    ]
