"""The worker's limits on a run, as they cross the boundary: what the run asks for and
what the worker answers (the module note of `run_limits.py` says why and how).

Apart from `run_limits.py`, which holds a `RunRequest` to them, so that the model
turn's contracts (`contracts.py`) can carry them without importing each other.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated

from pydantic import Field

from workflows.contract_base import Contract, TenantId
from workflows.decision_proof import KEY_ID_PATTERN
from workflows.model_contracts import ModelPrice, ModelRef

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
    """The most a run may use, from the worker's settings (see run_limits.py)."""

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
    # times each call's timeout (see run_limits.py). 0: the embedded ledger.
    payment_call_seconds: Annotated[float, Field(ge=0, le=MOST_PAYMENT_CALL_SECONDS)] = 0.0
