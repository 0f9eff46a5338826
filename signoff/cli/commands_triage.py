"""`signoff triage`: one forced classification, then a path written in code."""

from __future__ import annotations

import uuid

import typer
from pydantic import ValidationError

from signoff.cli.commands_runs import check_ticket_exists
from signoff.cli.credentials import run_actor
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    AsPasswordStdin,
    AsPersonOption,
    JsonOption,
    ModelOption,
    RequestIdOption,
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
from signoff.cli.triage_status import triage_lines
from signoff.config.settings import Settings
from signoff.models import ModelChoiceError
from signoff.service.triage_start import triage_request
from workflows.triage_contracts import TriageOutcome, TriageRequest


def register(app: typer.Typer) -> None:
    app.command("triage")(triage_command)


def triage_command(
    ticket: TicketOption,
    tenant: TenantOption = "demo",
    model: ModelOption = None,
    request_id: RequestIdOption = None,
    actor: AsPersonOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Classify a ticket (tracking, refund, other) and take the path written for it."""
    current = settings()
    from signoff.cli.store import opened_store
    from signoff.config.profiles import ProfileError

    actor_id, actor_roles = run_actor(current, actor, password_stdin, tenant)
    try:
        with opened_store(current) as store:  # where its agent's prompt catalog is written
            request = triage_request(
                current,
                store,
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
    from signoff.service.run_control import TriageDidNotFinish, triage

    runs = await client_for(current)
    try:
        return await triage(runs, request, current.task_queue)
    except TriageDidNotFinish as error:
        fail(str(error))
