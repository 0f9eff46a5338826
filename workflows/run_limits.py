"""The worker's limits on a run, and how a request is held to them.

Design note. A run's budgets, deadline, approval expiry and price travel in its
`RunRequest`, which whoever starts the run writes. The worker is the one party whose
settings an operator controls, so at its start a run asks the worker for its limits
(the `run_limits` activity: the workflow itself cannot read settings) and keeps the
smaller of each: a client may ask for less, never more. The same answer brings the
public keys the run checks decisions with (`decision_keyring.py`). The price is the worker's when
the worker knows one for the model: a client must not make a run look free. A request
without a cost budget gets the worker's.

The same answer says how long a refund attempt of the run's tenant may wait on its
payment platform (`payment_call_seconds`): the calls one attempt makes, each for as long
as the connector's own timeout lets it, as the platform declares them
(signoff/payments/registry.py). The workflow cannot read the connector's settings, and
its starter does not know them; the worker that makes the calls does. The refund's
time limit is derived from it (workflows/gate_store.py), so that a slow platform that
still answers is never timed out while its call runs, and so never asked twice. Not a
heartbeat instead: a worker whose event loop stalls past a heartbeat timeout while its
call still runs would be retried beside it, the very double this avoids; the price is
that a worker that dies mid-refund is noticed when the derived limit runs out.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from decimal import Decimal
from typing import Annotated

from pydantic import Field

from workflows.contract_base import Contract, TenantId
from workflows.contracts import ModelPrice, ModelRef, RunRequest
from workflows.decision_proof import KEY_ID_PATTERN

RUN_LIMITS_ACTIVITY = "run_limits"
# A local activity (run_budgets.py): it only reads what the worker loaded at its start, so
# it is short, and a few attempts are plenty.
RUN_LIMITS_TIMEOUT = timedelta(seconds=10)
RUN_LIMITS_ATTEMPTS = 5


PUBLIC_KEY_HEX_LENGTH = 64
# The longest a refund attempt may wait on a payment platform: past it a worker that died
# mid-refund would go unnoticed for as long (as a tool's longest `call_timeout`).
MOST_PAYMENT_CALL_SECONDS = 3600.0


class DecisionKey(Contract):
    """One public key the decision service signs with, as the worker holds it: the run
    checks decisions' signatures with these (`decision_keyring.py`)."""

    key_id: Annotated[str, Field(pattern=KEY_ID_PATTERN)]
    public_key: Annotated[str, Field(pattern=rf"^[0-9a-f]{{{PUBLIC_KEY_HEX_LENGTH}}}$")]


class RunLimitsRequest(Contract):
    model: ModelRef
    # The run's tenant: its payment platform's call budget (None: not asked).
    tenant_id: TenantId | None = None


class RunLimits(Contract):
    """The most a run may use, from the worker's settings (see the module note)."""

    step_budget: Annotated[int, Field(ge=1)]
    token_budget: Annotated[int, Field(ge=1)]
    max_tokens: Annotated[int, Field(ge=16)]
    cost_budget_usd: Decimal | None = None
    deadline_seconds: Annotated[int, Field(ge=1)]
    approval_ttl_seconds: Annotated[int, Field(ge=1)]
    # None: the worker knows no price for this model; the request's stands.
    price: ModelPrice | None = None
    # The worker has a webhook to tell reviewers when a refund waits.
    notify_reviewers: bool = False
    # The decision service's public keys as the worker holds them, and how old a decision
    # may be: the run checks a decision's signature itself (`decision_keyring.py`). Empty
    # from a worker that sends none: every decision is then checked by an activity.
    decision_keys: list[DecisionKey] = []
    decision_max_age_seconds: float | None = None
    # How long one refund attempt may wait on the tenant's payment platform: its calls
    # times each call's timeout (see the module note). 0: the embedded ledger.
    payment_call_seconds: Annotated[float, Field(ge=0, le=MOST_PAYMENT_CALL_SECONDS)] = 0.0


def clamp(request: RunRequest, limits: RunLimits, started_at: datetime) -> RunRequest:
    """The request held to the worker's limits: the smaller of each, the worker's price."""
    max_tokens = min(request.max_tokens, limits.max_tokens)
    thinking = request.thinking_budget_tokens
    if thinking is not None and thinking >= max_tokens:
        thinking = None  # no longer fits below the clamped reply size: think not at all
    return request.model_copy(
        update={
            "step_budget": min(request.step_budget, limits.step_budget),
            "token_budget": min(request.token_budget, limits.token_budget),
            "max_tokens": max_tokens,
            "thinking_budget_tokens": thinking,
            "cost_budget_usd": _smaller(request.cost_budget_usd, limits.cost_budget_usd),
            "deadline": min(
                request.deadline, started_at + timedelta(seconds=limits.deadline_seconds)
            ),
            "approval_ttl_seconds": min(request.approval_ttl_seconds, limits.approval_ttl_seconds),
            "price": limits.price if limits.price is not None else request.price,
            "notify_reviewers": limits.notify_reviewers,
            "payment_call_seconds": limits.payment_call_seconds,
        }
    )


def _smaller(requested: Decimal | None, allowed: Decimal | None) -> Decimal | None:
    """None is no budget at all: the larger, so the other one wins."""
    if requested is None:
        return allowed
    if allowed is None:
        return requested
    return min(requested, allowed)
