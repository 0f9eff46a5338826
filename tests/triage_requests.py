"""A triage request for the tests, from the service's own factory: the agent run it
would start is built as for `signoff triage`; only the triage's model is the test's."""

from __future__ import annotations

import uuid

from sqlalchemy import Engine

from signoff.config.settings import Settings
from signoff.service.handles import Store
from signoff.service.triage_start import triage_request as service_triage_request
from workflows.contracts import ModelRef
from workflows.triage_contracts import TriageRequest

TRIAGE_MODEL = ModelRef(provider="scripted", model_id="triage")
AGENT_MODEL = ModelRef(provider="scripted", model_id="demo")


def triage_request(
    ticket_id: str,
    engine: Engine,
    *,
    tenant_id: str = "demo",
    actor_id: str = "ops-1",
    model: ModelRef = TRIAGE_MODEL,
    agent_model: ModelRef = AGENT_MODEL,
    request_id: str | None = None,
    settings: Settings | None = None,
) -> TriageRequest:
    request = service_triage_request(
        settings or Settings(policy_version="test"),
        Store(engine),
        tenant_id,
        ticket_id,
        request_id or uuid.uuid4().hex,
        actor_id=actor_id,
        model=agent_model.label(),
    )
    return request.model_copy(update={"model": model})


def recorded_triage(ticket_id: str, request_id: str, engine: Engine) -> TriageRequest:
    """A triage of the recorded histories (tests/replay): the built-in profile's agent."""
    return triage_request(
        ticket_id,
        engine,
        actor_id="ops",
        request_id=request_id,
        settings=Settings(policy_version="recorded", profiles=None),
    )
