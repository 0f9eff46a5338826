"""Running scenarios on a stack: set the store up, start the run, review, judge.

The stack (a Temporal server with workers, and the store they use) is given: the
wiring starts a private one, or connects to an existing one. Attempts run concurrently,
each on its own tenants, so that they cannot disturb one another.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import dataclass, field

from pydantic import ValidationError
from sqlalchemy import Engine
from temporalio.client import Client

from signoff.config.decision_signatures import DecisionSigner
from signoff.config.settings import Settings
from signoff.models.registry import known_providers
from signoff.service.evals.facts import Check, Facts
from signoff.service.evals.invariants import evaluate
from signoff.service.evals.reviewers import Reviewers
from signoff.service.evals.scenario import WORKER_FAULTS, LoadedScenario, ScenarioError
from signoff.service.evals.setup import Attempt, fixture_tenants, write_fixture
from signoff.service.evals.trajectory import Trajectory, read_trajectory
from signoff.service.handles import Runs, Store
from signoff.service.reconcile import settle
from signoff.service.run_requests import DEFAULT_GOAL, new_run_request
from signoff.service.runs import start_run
from workflows.contracts import ModelRef, RunRequest

# Attempts in flight at once: most of them wait for a reviewer or an expiry.
DEFAULT_CONCURRENCY = 32
# How long one attempt may take before it is cancelled and counted as failed: a run
# that waits for a decision nobody sends would otherwise hold the eval for a day.
DEFAULT_ATTEMPT_SECONDS = 600.0


@dataclass(frozen=True)
class EvalStack:
    client: Client
    settings: Settings
    engine: Engine
    # The scripted reviewers sign as the decision service does: the eval runs beside it.
    signer: DecisionSigner
    # Fault kind -> the task queue of the worker that makes that fault.
    fault_queues: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class EvalPlan:
    """What `signoff eval` was asked to run."""

    scenarios: list[LoadedScenario]
    repeat: int = 1
    attempt_seconds: float = DEFAULT_ATTEMPT_SECONDS


@dataclass(frozen=True)
class AttemptResult:
    scenario: str
    path: str
    attempt: int
    run_id: str | None
    checks: list[Check] = field(default_factory=list)
    error: str | None = None

    @property
    def passed(self) -> bool:
        return self.error is None and all(check.passed for check in self.checks)


def model_ref(text: str) -> ModelRef:
    """The scenario's `run.model`, for a provider of the registry that evals may use."""
    name, _, model_id = text.partition(":")
    provider = known_providers().get(name)
    if provider is None or not provider.evals:
        usable = ", ".join(name for name, known in known_providers().items() if known.evals)
        raise ScenarioError(
            f"model '{text}': the provider '{name}' is not one evals can use in this "
            f"installation; use one of: {usable}."
        )
    problem = provider.id_problem(model_id)
    if problem is not None:
        raise ScenarioError(f"model '{text}': {problem}")
    try:
        return ModelRef(provider=name, model_id=model_id)
    except ValidationError:
        raise ScenarioError(f"model '{text}': not a model id signoff can carry.") from None


def run_request(stack: EvalStack, loaded: LoadedScenario, attempt: Attempt) -> RunRequest:
    spec = loaded.scenario.run
    request = new_run_request(
        stack.settings,
        Store(stack.engine),
        tenant_id=attempt.tenant(spec.tenant),
        ticket_id=spec.ticket,
        model=model_ref(spec.model),
        request_id=f"eval.{loaded.name}.{attempt.token}",
        approval_ttl_seconds=spec.approval_ttl_seconds,
        goal=spec.goal or DEFAULT_GOAL,
    )
    limits = {
        name: value
        for name, value in (("step_budget", spec.step_budget), ("token_budget", spec.token_budget))
        if value is not None
    }
    return request.model_copy(update=limits)


async def run_attempt(
    stack: EvalStack, loaded: LoadedScenario, number: int, timeout: float
) -> AttemptResult:
    scenario, attempt = loaded.scenario, Attempt.new()
    tenants = fixture_tenants(scenario, attempt)
    run_id = None
    try:
        await write_fixture(stack.engine, tenants)
        request = await asyncio.to_thread(run_request, stack, loaded, attempt)
        queue = stack.settings.task_queue
        if scenario.fault is not None and scenario.fault.kind in WORKER_FAULTS:
            if scenario.fault.kind not in stack.fault_queues:
                raise ScenarioError(f"fault {scenario.fault.kind}: this stack has no such worker")
            queue = stack.fault_queues[scenario.fault.kind]
        handle, _ = await start_run(Runs(stack.client), request, queue)
        run_id = handle.id
        roles = {
            (tenant.id, reviewer.id): tuple(reviewer.roles)
            for tenant in scenario.tenants
            for reviewer in tenant.reviewers
        }
        reviewers = Reviewers(stack.client, stack.signer, scenario, attempt, roles)
        try:
            reviewing = await asyncio.wait_for(reviewers.until_final(run_id), timeout)
        except TimeoutError:
            await handle.cancel()
            raise ScenarioError(
                f"the run did not end within {timeout:.0f} s and was cancelled; give the "
                "scenario reviewers, a short run.approval_ttl_seconds, or a longer --timeout"
            ) from None
        trajectory = await read_trajectory(
            stack.client, stack.engine, run_id, [tenant.id for tenant in tenants]
        )
    except Exception as error:  # one broken attempt is a failed row, not a crashed eval
        return AttemptResult(loaded.name, str(loaded.path), number, run_id, error=describe(error))
    reconciled: tuple[str, ...] = ()
    if trajectory.outcome.effects_unknown:
        reconciled = await reconcile(stack, run_id, request.tenant_id, trajectory)
    facts = Facts(scenario, attempt, tenants, trajectory, reviewing, reconciled)
    checks = evaluate(facts)
    return AttemptResult(loaded.name, str(loaded.path), number, run_id, checks)


async def reconcile(
    stack: EvalStack, run_id: str, tenant_id: str, trajectory: Trajectory
) -> tuple[str, ...]:
    """What `signoff reconcile RUN` would say of the run's unknown actions."""
    effects = trajectory.outcome.effects_unknown
    settled = await asyncio.to_thread(settle, Store(stack.engine), run_id, tenant_id, effects)
    return tuple(settlement.line() for settlement in settled)


def describe(error: Exception) -> str:
    text = str(error) or type(error).__name__
    cause = getattr(error, "cause", None)
    return f"{text}: {cause}" if cause is not None else text


async def run_scenarios(
    stack: EvalStack,
    plan: EvalPlan,
    progress: Callable[[AttemptResult], None] | None = None,
    concurrency: int = DEFAULT_CONCURRENCY,
) -> list[AttemptResult]:
    gate = asyncio.Semaphore(concurrency)

    async def one(loaded: LoadedScenario, number: int) -> AttemptResult:
        async with gate:
            result = await run_attempt(stack, loaded, number, plan.attempt_seconds)
        if progress is not None:
            progress(result)
        return result

    jobs = [
        one(loaded, number) for number in range(1, plan.repeat + 1) for loaded in plan.scenarios
    ]
    return list(await asyncio.gather(*jobs))
