"""The one RunRequest factory: every run a person starts is built here, from settings.

`signoff run`, triage (for the agent run it may start), the evals and the benchmarks
call it; the worker holds every run to the settings' limits whatever a request says
(workflows/run_limits.py). A run's model and budgets are its agent's profile's, within
what the settings allow.

The prompt side of what the run offers (the agent's system prompt, each offered tool's
description and schema) is written to the store here, once per distinct catalog, and
the request carries its digest (workflows/prompt_catalog.py): building the request and
storing its catalog are one step, so no starter can start a run whose catalog the
worker cannot find. The run itself is recorded too, with the fingerprint of its request
(activities/store/started_runs.py): a workflow started by anyone else is not one the
store knows.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from signoff.config.profiles import LoadedProfiles, load_profiles
from signoff.config.run_limits import limits_from_settings
from signoff.config.settings import Settings, parse_model
from signoff.models.registry import provider_named
from signoff.service.handles import Store, engine_of
from signoff.tools import known_tools
from workflows.contracts import ModelPrice, ModelRef, RunRequest
from workflows.profile_contracts import (
    DEFAULT_BUDGET,
    AgentProfile,
    Budget,
    RunProfile,
    tools_for,
)
from workflows.prompt_catalog import PromptCatalog
from workflows.run_limits import RunLimits
from workflows.tool_spec import ToolSpec

DEFAULT_GOAL = "Answer the customer's support ticket."


def new_run_request(
    settings: Settings,
    store: Store,
    *,
    tenant_id: str,
    ticket_id: str,
    model: ModelRef | None = None,
    actor_id: str | None = None,
    request_id: str | None = None,
    goal: str = DEFAULT_GOAL,
    approval_ttl_seconds: int | None = None,
    now: datetime | None = None,
    profiles: LoadedProfiles | None = None,
    agent: str | None = None,
    actor_roles: Iterable[str] = (),
    kind: str = DEFAULT_BUDGET,
    trace_id: str | None = None,
) -> RunRequest:
    """A run request with the settings' budgets, deadline, TTL and price, on an agent of
    the profiles (SIGNOFF_PROFILES, or the built-in file, when `profiles` is None); its
    prompt catalog written to `store` (the store the worker reads).

    `actor_id`: the reviewer who asked, already authenticated by the face (never text a
    person typed unchecked); None for the deployment's service identity.

    Raises pydantic's ValidationError for input that is not valid (a bad tenant, say),
    ProfileError for a profile file that cannot be used, and KeyError for an agent the
    file does not declare. `approval_ttl_seconds` may only shorten the settings' TTL:
    the worker clamps it.

    `model`: None for the agent's own (its profile's `model`; SIGNOFF_MODEL, when set,
    overrides every agent's); ModelChoiceError for one that cannot be used here. The
    budgets are the agent's budget for this `kind` of task (its `default` one for a kind
    it does not name), never more than the settings allow (the worker holds every run
    to its own settings too).
    """
    offer = run_offer(
        store, profiles or load_profiles(settings), tenant_id, agent=agent, roles=actor_roles
    )
    model = model or agent_model(settings, offer.profile)
    limits = within_budget(limits_from_settings(settings, model), offer.profile.agent.budget(kind))
    request = RunRequest(
        tenant_id=tenant_id,
        actor_id=actor_id or settings.service_actor,
        request_id=request_id or uuid.uuid4().hex,
        trace_id=trace_id or uuid.uuid4().hex,
        goal=goal,
        ticket_id=ticket_id,
        policy_version=settings.policy_version,
        model=model,
        deadline=(now or datetime.now(UTC)) + timedelta(seconds=limits.deadline_seconds),
        step_budget=limits.step_budget,
        token_budget=limits.token_budget,
        max_tokens=limits.max_tokens,
        approval_ttl_seconds=min(
            approval_ttl_seconds or limits.approval_ttl_seconds, limits.approval_ttl_seconds
        ),
        price=limits.price or ModelPrice(),
        cost_budget_usd=limits.cost_budget_usd,
        # The provider's own word (its registry entry), never a branch on its name.
        thinking_budget_tokens=provider_named(model.provider).thinking_budget(settings),
        **offer.fields(),
    )
    # Here, not above: `signoff status` imports this module and never loads the store.
    from activities.store.started_runs import record_started_run

    # The store's word that signoff started this run, which an effect no reviewer
    # approved, or one a standing rule approved, asks for (activities/run_provenance.py).
    record_started_run(engine_of(store), request)
    return request


@dataclass(frozen=True)
class RunOffer:
    """What a run request records of its agent: the profile's rules, the names of the
    tools offered, and the digest of their prompt catalog, written to the store."""

    profile: RunProfile
    tools: tuple[str, ...]
    prompt_digest: str

    def fields(self) -> dict[str, Any]:
        """As RunRequest's keyword arguments."""
        return {"profile": self.profile, "tools": self.tools, "prompt_digest": self.prompt_digest}


def run_offer(
    store: Store,
    profiles: LoadedProfiles,
    tenant_id: str,
    *,
    agent: str | None = None,
    roles: Iterable[str] = (),
) -> RunOffer:
    """The offer of `agent` (the default one when None) to a run of this tenant for an
    actor with `roles`, its prompt catalog written to `store` unless already there."""
    # Here, not above: `signoff status` imports this module and never loads the store.
    from activities.store.prompt_catalogs import save_catalog

    catalog = prompt_catalog(profiles.profiles.agent(agent), tenant_id, roles)
    return RunOffer(
        profile=profiles.run_profile(agent),
        tools=catalog.names(),
        prompt_digest=save_catalog(engine_of(store), catalog),
    )


def agent_model(settings: Settings, profile: RunProfile) -> ModelRef:
    """SIGNOFF_MODEL when the environment sets it, else the agent's profile's model."""
    if "model" in settings.model_fields_set:
        return parse_model(settings.model, settings)
    return parse_model(profile.agent.model.choice(), settings)


def within_budget(limits: RunLimits, budget: Budget) -> RunLimits:
    """The settings' limits, lowered to the agent's budget where it asks less."""
    costs = [cost for cost in (limits.cost_budget_usd, budget.cost_usd) if cost is not None]
    return limits.model_copy(
        update={
            "step_budget": min(limits.step_budget, budget.steps),
            "token_budget": min(limits.token_budget, budget.tokens),
            "cost_budget_usd": min(costs) if costs else None,
            "deadline_seconds": min(
                limits.deadline_seconds, max(1, int(budget.deadline.total_seconds()))
            ),
        }
    )


def offered_specs(
    agent: AgentProfile, tenant_id: str, roles: Iterable[str] = ()
) -> tuple[ToolSpec, ...]:
    """The specs of the tools a run of this tenant is offered, as the tools are now: the
    run keeps them (in its prompt catalog), whatever is registered when it resumes."""
    known = known_tools()
    return tuple(known[name].spec() for name in tools_for(agent, tenant_id, roles))


def prompt_catalog(agent: AgentProfile, tenant_id: str, roles: Iterable[str] = ()) -> PromptCatalog:
    """What the model of a run of `agent` for this tenant and these roles reads: the
    agent's system prompt and the offered tools' specs."""
    return PromptCatalog(system=agent.system_prompt, tools=offered_specs(agent, tenant_id, roles))
