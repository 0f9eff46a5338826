"""`signoff triage`: one forced classification, then a path written in code."""

from __future__ import annotations

import uuid

import typer
from pydantic import ValidationError
from temporalio.client import WorkflowFailureError
from temporalio.exceptions import WorkflowAlreadyStartedError

from signoff.cli.commands_runs import check_ticket_exists
from signoff.cli.credentials import run_actor
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    AsPersonOption,
    JsonOption,
    ModelOption,
    RequestIdOption,
    RunPasswordStdin,
    TenantOption,
    TicketOption,
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
    validation_message,
)
from signoff.config.settings import ModelChoiceError, Settings
from signoff.config.telemetry import run_trace
from signoff.service.triage_start import triage_request
from workflows.triage import TriageTicket
from workflows.triage_contracts import TriageOutcome, TriageRequest


def register(app: typer.Typer) -> None:
    app.command("triage")(triage_command)


def triage_command(
    ticket: TicketOption,
    tenant: TenantOption = "demo",
    model: ModelOption = None,
    request_id: RequestIdOption = None,
    actor: AsPersonOption = None,
    password_stdin: RunPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Classify a ticket (tracking, refund, other) and take the path written for it."""
    current = settings()
    from signoff.config.profiles import ProfileError

    actor_id, actor_roles = run_actor(current, actor, password_stdin, tenant)
    try:
        request = triage_request(
            current,
            tenant,
            ticket,
            request_id or uuid.uuid4().hex,
            actor_id=actor_id,
            model=model,
            actor_roles=actor_roles,
        )
    except ProfileError as error:
        fail(f"The agent profiles cannot be used:\n{error}")
    except ModelChoiceError as error:
        fail(str(error))
    except ValidationError as error:
        fail(f"Invalid triage request: {validation_message(error)}")
    check_ticket_exists(current, request.tenant_id, request.ticket_id)
    outcome = run_async(_triage(current, request))
    if json_output:
        emit_json(outcome)
    else:
        say("\n".join(triage_lines(outcome)))
    raise typer.Exit(EXIT_RUN_FAILED if outcome.status == "failed" else 0)


async def _triage(current: Settings, request: TriageRequest) -> TriageOutcome:
    client = await client_for(current)
    triage_id = f"triage-{request.tenant_id}-{request.request_id}"
    try:
        with run_trace(request.trace_id):  # one trace per triage and its agent run
            handle = await client.start_workflow(
                TriageTicket.run, request, id=triage_id, task_queue=current.task_queue
            )
    except WorkflowAlreadyStartedError:
        handle = client.get_workflow_handle_for(TriageTicket.run, triage_id)
    try:
        return await handle.result()
    except WorkflowFailureError as error:
        fail(f"Triage {triage_id} did not finish: {error.cause}")


def triage_lines(outcome: TriageOutcome) -> list[str]:
    lines = [f"triage:   {outcome.triage_id}", f"status:   {outcome.status}"]
    if outcome.category:
        lines.append(f"class:    {outcome.category} (urgency {outcome.urgency})")
        lines.append(f"summary:  {outcome.summary}")
    if outcome.answer:
        lines.append(f"answer:   {outcome.answer}")
    if outcome.agent_run_id:
        lines.append(
            f"agent:    {outcome.agent_run_id} started; follow it with "
            f"`signoff status {outcome.agent_run_id}`"
        )
    if outcome.detail:
        lines.append(f"detail:   {outcome.detail}")
    model = outcome.model.label() + ("  (scripted)" if outcome.scripted else "")
    lines.append(f"model:    {model}")
    return lines
