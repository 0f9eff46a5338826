"""The one RunRequest factory: every run a person starts is built here, from settings.

`signoff run` and the benchmarks call it; triage carries the same limits to the agent
run it starts (`limits_from_settings`), and the worker holds every run to them whatever
a request says (workflows/run_limits.py). A run's model and budgets are its agent's
profile's, within what the settings allow.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from datetime import UTC, datetime, timedelta

from signoff.config.profiles import LoadedProfiles, load_profiles
from signoff.config.run_limits import limits_from_settings
from signoff.config.settings import Settings, parse_model
from signoff.tools import known_tools
from workflows.contracts import ModelPrice, ModelRef, RunRequest
from workflows.profile_contracts import DEFAULT_BUDGET, Budget, RunProfile, tools_for
from workflows.run_limits import RunLimits
from workflows.tool_spec import ToolSpec

DEFAULT_GOAL = "Answer the customer's support ticket."


def new_run_request(
    settings: Settings,
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
    the profiles (SIGNOFF_PROFILES, or the built-in file, when `profiles` is None).

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
    profile = (profiles or load_profiles(settings)).run_profile(agent)
    model = model or agent_model(settings, profile)
    limits = within_budget(limits_from_settings(settings, model), profile.agent.budget(kind))
    return RunRequest(
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
        thinking_budget_tokens=(
            settings.anthropic_thinking_budget if model.provider == "anthropic" else None
        ),
        profile=profile,
        tools=offered_specs(profile, tenant_id, actor_roles),
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
    profile: RunProfile, tenant_id: str, roles: Iterable[str] = ()
) -> tuple[ToolSpec, ...]:
    """The specs of the tools a run of this tenant is offered, as the tools are now: the
    run keeps them, whatever is registered when it resumes."""
    known = known_tools()
    return tuple(known[name].spec() for name in tools_for(profile.agent, tenant_id, roles))
