"""The worker's limits on a run, and how a request is held to them.

Design note. A run's budgets, deadline, approval expiry and price travel in its
`RunRequest`, which whoever starts the run writes. The worker is the one party whose
settings an operator controls, so a run takes the worker's limits and keeps the
smaller of each: a client may ask for less, never more. The workflow itself cannot read
settings, and an activity of their own would cost a run its task, a marker and a
resuming activation; so the run's first model turn, an activity on a worker anyway,
asks for them (`ModelRequest.limits_for`) and brings them back with its reply
(`ModelReply.worker_limits`). The run holds its request to them before it books that
turn (the worker's price prices turn one), and a first reply without them ends the run
failed closed (`worker_limits_unavailable`). Until then the run's request is the
starter's, so the model-turn activity holds every call it makes to the worker's
`max_tokens` itself (`fitting_thinking` as here): anyone on the task queue may call it.
The deadline is still counted from the run's start.

The same answer brings the public keys the run checks decisions with
(`decision_keyring.py`). The price is the worker's when the worker knows one for the
model: a client must not make a run look free. A request without a cost budget gets
the worker's.

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

from workflows.contracts import RunRequest
from workflows.limit_contracts import DecisionKey as DecisionKey  # re-exported, as below
from workflows.limit_contracts import RunLimits as RunLimits
from workflows.limit_contracts import RunLimitsRequest as RunLimitsRequest


def clamp(request: RunRequest, limits: RunLimits, started_at: datetime) -> RunRequest:
    """The request held to the worker's limits: the smaller of each, the worker's price."""
    max_tokens = min(request.max_tokens, limits.max_tokens)
    return request.model_copy(
        update={
            "step_budget": min(request.step_budget, limits.step_budget),
            "token_budget": min(request.token_budget, limits.token_budget),
            "max_tokens": max_tokens,
            "thinking_budget_tokens": fitting_thinking(request.thinking_budget_tokens, max_tokens),
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


def fitting_thinking(thinking: int | None, max_tokens: int) -> int | None:
    """A thinking budget that no longer fits below the (held) reply size is dropped:
    think not at all rather than leave no room for the answer."""
    if thinking is not None and thinking >= max_tokens:
        return None
    return thinking


def _smaller(requested: Decimal | None, allowed: Decimal | None) -> Decimal | None:
    """None is no budget at all: the larger, so the other one wins."""
    if requested is None:
        return allowed
    if allowed is None:
        return requested
    return min(requested, allowed)
