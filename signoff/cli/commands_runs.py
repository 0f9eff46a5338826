"""`signoff run`, `list`, `cancel`: what ops type to start and stop runs (`status` has
its module, commands_status.py)."""

from __future__ import annotations

import re
from typing import Annotated, get_args

import typer
from pydantic import ValidationError

from signoff.cli.render import event_line, outcome_lines
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    AfterOption,
    AsPasswordStdin,
    AsPersonOption,
    JsonOption,
    ModelOption,
    RequestIdOption,
    TenantOption,
    TicketOption,
    checked_run_id,
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
    validation_message,
)
from signoff.config.settings import MAX_PAGE_SIZE, Settings, parse_model
from signoff.models import ModelChoiceError
from signoff.service.paging import CLI_INVALID_CURSOR, InvalidCursor
from signoff.service.run_reading import (
    RunNotFound,
)
from signoff.service.run_requests import DEFAULT_GOAL, agent_model, new_run_request
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.contracts import (
    STATUS_ATTRIBUTE,
    TENANT_ATTRIBUTE,
    WORKFLOW_NAME,
    RunEvent,
    RunRequest,
    RunStatus,
)

# Importing `temporalio.client`, the workflow module or the tracing contrib costs more
# than a command may take to start: what only `run`, `list` and `cancel` use is
# imported in them (signoff/service/run_control.py).


def register(app: typer.Typer) -> None:
    app.command("run")(run_command)
    app.command("list")(list_command)
    app.command("cancel")(cancel_command)


def run_command(
    ticket: TicketOption,
    tenant: TenantOption = "demo",
    model: ModelOption = None,
    request_id: RequestIdOption = None,
    actor: AsPersonOption = None,
    password_stdin: AsPasswordStdin = False,
    goal: Annotated[str, typer.Option(help="What the agent must do.")] = DEFAULT_GOAL,
    wait: Annotated[bool, typer.Option("--wait", help="Show progress until the run ends.")] = False,
    json_output: JsonOption = False,
    agent: Annotated[
        str | None,
        typer.Option(help="The profile's agent to run (default: the file's default agent)."),
    ] = None,
    kind: Annotated[
        str,
        typer.Option(
            help="The kind of task: its budget is the agent's [budgets.KIND] (e.g. refund)."
        ),
    ] = "default",
) -> None:
    """Start an agent run on a ticket; with --wait, follow it to its outcome."""
    current = settings()
    # Imported here: only `run` reads the profiles (and the tool modules they name) and
    # the store's accounts.
    from signoff.cli.credentials import run_actor
    from signoff.cli.store import opened_store
    from signoff.config.profiles import ProfileError, load_profiles

    try:
        profiles = load_profiles(current)
    except ProfileError as error:
        fail(f"The agent profiles cannot be used:\n{error}")
    if agent is not None and agent not in profiles.profiles.agents:
        known = ", ".join(sorted(profiles.profiles.agents))
        fail(f"No agent '{agent}' in {profiles.source}; choose one of: {known}.")
    budgets = profiles.run_profile(agent).agent.budgets
    if kind not in budgets:
        known = ", ".join(sorted(budgets))
        fail(f"No budget for the kind '{kind}' in {profiles.source}; choose one of: {known}.")
    actor_id, actor_roles = run_actor(current, actor, password_stdin, tenant)
    try:
        # --model, else SIGNOFF_MODEL when set, else the agent's profile's model.
        model_ref = (
            parse_model(model, current)
            if model
            else agent_model(current, profiles.run_profile(agent))
        )
        price = current.price_of(model_ref)
        if price is None:
            say(
                f"warning: no price is known for {model_ref.label()}; its cost shows as 0. "
                "Add it to SIGNOFF_MODEL_PRICES.",
                err=True,
            )
        with opened_store(current) as store:  # where the run's prompt catalog is written
            request = new_run_request(
                current,
                store,
                tenant_id=tenant,
                ticket_id=ticket,
                model=model_ref,
                actor_id=actor_id,
                actor_roles=actor_roles,
                request_id=request_id,
                goal=goal,
                profiles=profiles,
                agent=agent,
                kind=kind,
            )
    except ModelChoiceError as error:
        fail(str(error))
    except ValidationError as error:
        fail(f"Invalid run request: {validation_message(error)}")
    check_ticket_exists(current, request.tenant_id, request.ticket_id)
    code = run_async(_run(current, request, wait, json_output))
    raise typer.Exit(code)


def check_ticket_exists(current: Settings, tenant_id: str, ticket_id: str) -> None:
    """Edge check before anything starts: the tenant and its ticket exist."""
    # The store's imports only for `run`: `status`, `list` and `cancel` never open it.
    from signoff.cli.store import opened_store
    from signoff.service.shop import get_ticket, tenant_exists

    with opened_store(current) as engine:
        if not tenant_exists(engine, tenant_id):
            fail(f"Tenant '{tenant_id}' does not exist. Run `signoff seed` or check --tenant.")
        if get_ticket(engine, tenant_id, ticket_id) is None:
            fail(
                f"Ticket '{ticket_id}' does not exist for tenant '{tenant_id}'. "
                "Check --ticket and --tenant, or add it with `signoff ticket add`."
            )


async def _run(current: Settings, request: RunRequest, wait: bool, json_output: bool) -> int:
    from signoff.service.run_control import follow, start
    from signoff.service.runs import RunRequestRejected

    runs = await client_for(current)
    try:
        run_id, new = await start(runs, request, current.task_queue)
    except RunRequestRejected as error:
        fail(str(error))
    if not wait:
        if json_output:
            emit_json({"run_id": run_id, "new": new, "model": request.model.label()})
        else:
            verb = "started" if new else "already exists (same request id)"
            say(f"run {run_id} {verb}. Follow it with: signoff status {run_id}")
        return 0
    if not json_output:
        say(f"run {run_id} {'started' if new else 'already exists; following it'}")
    outcome = await follow(runs, run_id, None if json_output else _print_event)
    if json_output:
        emit_json(outcome)
    else:
        say("\n".join(outcome_lines(outcome)))
    return 0 if outcome.status == "completed" else EXIT_RUN_FAILED


def _print_event(event: RunEvent) -> None:
    say(event_line(event))


def list_command(
    status: Annotated[
        str | None, typer.Option(help="Only runs with this status, e.g. completed.")
    ] = None,
    tenant: Annotated[str | None, typer.Option(help="Only runs of this tenant.")] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_PAGE_SIZE, help="Runs per page (default: SIGNOFF_PAGE_SIZE, 50)."
        ),
    ] = None,
    after: AfterOption = None,
    json_output: JsonOption = False,
) -> None:
    """List runs, newest first, through Temporal's visibility, a page at a time."""
    from signoff.service.run_pages import page_token

    statuses = get_args(RunStatus)
    if status is not None and status not in statuses:
        fail(f"Unknown status '{status}'. Use one of: {', '.join(statuses)}.")
    if tenant is not None and not re.match(IDENTIFIER_PATTERN, tenant):
        fail(f"Invalid tenant '{tenant}'.")
    query = f"WorkflowType = '{WORKFLOW_NAME}'"
    if status:
        query += f" AND {STATUS_ATTRIBUTE} = '{status}'"
    if tenant:
        query += f" AND {TENANT_ATTRIBUTE} = '{tenant}'"
    try:
        page_token(after)  # a cursor not of this listing is bad input, Temporal or not
    except InvalidCursor:
        fail(CLI_INVALID_CURSOR)
    current = settings()
    run_async(_list(current, query, limit or current.page_size, after, json_output))


async def _list(
    current: Settings, query: str, limit: int, after: str | None, json_output: bool
) -> None:
    from signoff.service.run_pages import runs_page

    client = await client_for(current, traced=False)  # lists only: nothing to trace
    try:
        page = await runs_page(client, query, limit, after)
    except InvalidCursor:  # a token Temporal could not read
        fail(CLI_INVALID_CURSOR)
    if json_output:
        emit_json({"total": page.total, "items": page.items, "next": page.next})
        return
    say(f"{page.total} run{'s' if page.total != 1 else ''} match; {len(page.items)} on this page")
    for row in page.items:
        say(f"{row['run_id']}  {row['status']:<22} {row['tenant'] or '-':<10} {row['started_at']}")
    if page.next:
        say(f"more on the next page: add --after {page.next}")


def cancel_command(
    run_id: Annotated[str, typer.Argument(help="The run to cancel.", callback=checked_run_id)],
    json_output: JsonOption = False,
) -> None:
    """Cancel a run and the step in flight; its outcome becomes `cancelled`."""
    run_async(_cancel(settings(), run_id, json_output))


async def _cancel(current: Settings, run_id: str, json_output: bool) -> None:
    from signoff.service.run_control import RunAlreadyEnded, cancel

    runs = await client_for(current, traced=False)  # describe and cancel: not traced
    try:
        await cancel(runs, run_id)
    except RunNotFound:
        fail(f"No run with id '{run_id}'. List runs with `signoff list`.")
    except RunAlreadyEnded:
        fail(f"Run {run_id} has already ended; there is nothing to cancel.")
    if json_output:
        emit_json({"run_id": run_id, "cancel_requested": True})
    else:
        say(f"cancellation requested for {run_id}; `signoff status {run_id}` shows the outcome.")
