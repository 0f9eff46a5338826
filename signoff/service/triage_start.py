"""A triage started by the deployment itself (a helpdesk's webhook), not by a person.

The request carries what `signoff triage` gives one: the settings' model (the triage
script when the model is scripted), and the whole request of the agent run it may
start, built by the one run factory (its profile, tools, and the `refund` budget).
The workflow id is derived from the request id, and a workflow id is never reused: a
delivery sent again, even after its triage ended, finds the first triage and starts
nothing.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from temporalio.common import WorkflowIDReusePolicy
from temporalio.exceptions import WorkflowAlreadyStartedError

from signoff.config.profiles import LoadedProfiles
from signoff.config.settings import Settings, parse_model
from signoff.config.telemetry import invoke_agent_span, run_trace
from signoff.models.registry import provider_named
from signoff.service.handles import Runs, Store, client_of
from signoff.service.run_requests import new_run_request
from workflows.contracts import ModelRef
from workflows.triage import TriageTicket
from workflows.triage_contracts import REFUND_AGENT_GOAL, REFUND_TASK_KIND, TriageRequest

# The agent name of a triage's span (it is a forced classification, not a profile's agent).
TRIAGE_AGENT = "triage"


def triage_id(tenant_id: str, request_id: str) -> str:
    return f"triage-{tenant_id}-{request_id}"


def triage_request(
    settings: Settings,
    store: Store,
    tenant_id: str,
    ticket_id: str,
    request_id: str,
    *,
    actor_id: str | None = None,
    model: str | None = None,
    actor_roles: Iterable[str] = (),
    profiles: LoadedProfiles | None = None,
) -> TriageRequest:
    """The request of a triage: by `actor_id` (already authenticated by the face, with
    its `actor_roles`; None for the deployment's service identity), on `model` (None:
    SIGNOFF_MODEL). A provider with a triage model of its own (the scripted one's triage
    script) classifies with it, unless a model id was named. The agent run a refund
    ticket starts is the profiles' default agent (`profiles`: SIGNOFF_PROFILES when
    None), with its `refund` budget; its prompt catalog is written to `store`.

    Raises ModelChoiceError for a model it cannot understand, ProfileError for profiles
    that cannot be used, and pydantic's ValidationError for input that is not valid."""
    agent_model = parse_model(model or settings.model, settings)
    triage_model = agent_model
    own_id = provider_named(agent_model.provider).triage_model_id
    if own_id is not None and (model is None or model.strip() == agent_model.provider):
        triage_model = ModelRef(provider=agent_model.provider, model_id=own_id)
    actor = actor_id or settings.service_actor
    trace_id = uuid.uuid4().hex
    agent = new_run_request(
        settings,
        store,
        tenant_id=tenant_id,
        ticket_id=ticket_id,
        model=agent_model,
        actor_id=actor,
        request_id=f"{request_id}-agent",
        goal=REFUND_AGENT_GOAL,
        profiles=profiles,
        actor_roles=actor_roles,
        kind=REFUND_TASK_KIND,
        trace_id=trace_id,
    )
    return TriageRequest(
        tenant_id=tenant_id,
        actor_id=actor,
        request_id=request_id,
        trace_id=trace_id,
        ticket_id=ticket_id,
        policy_version=settings.policy_version,
        model=triage_model,
        max_tokens=settings.max_tokens,
        agent=agent,
    )


@contextmanager
def triage_trace(request: TriageRequest) -> Iterator[None]:
    """Start a triage inside this: its trace (which its agent run shares), rooted at its
    `invoke_agent triage` span (config/telemetry.py)."""
    workflow_id = triage_id(request.tenant_id, request.request_id)
    with (
        run_trace(request.trace_id),
        invoke_agent_span(
            TRIAGE_AGENT,
            provider=request.model.provider,
            model_id=request.model.model_id,
            tenant_id=request.tenant_id,
            run_id=workflow_id,
        ),
    ):
        yield


async def ensure_triage(runs: Runs, request: TriageRequest, task_queue: str) -> str:
    """Start the triage unless its workflow id was ever used; its workflow id. The one
    start of a triage: a helpdesk's delivery (intake.py) and `signoff triage` alike."""
    workflow_id = triage_id(request.tenant_id, request.request_id)
    try:
        with triage_trace(request):  # one trace per triage and its agent run
            await client_of(runs).start_workflow(
                TriageTicket.run,
                request,
                id=workflow_id,
                task_queue=task_queue,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
    except WorkflowAlreadyStartedError:
        pass  # started before, by this delivery: nothing new
    return workflow_id
