"""`signoff pending`, `approve`, `reject`: deciding on irreversible actions from a terminal.

A decision names the exact action hash that `pending` showed. The reviewer's tenant
and roles come from the store, never from the command line; the workflow's update
validator has the last word, and its refusal is printed as it was written.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated

import typer
from pydantic import ValidationError
from temporalio.service import RPCError

from activities.store import get_reviewer, make_engine
from signoff.cli_support import (
    AfterOption,
    JsonOption,
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
    validation_message,
)
from signoff.commands_runs import describe_or_fail
from signoff.paging import CLI_INVALID_CURSOR, InvalidCursor
from signoff.pending import DecisionNotAccepted, send_decision
from signoff.pending_pages import (
    cursor_position,
    pending_page,
    pending_summary,
    position_of,
    read_pending,
    unread_warning,
)
from signoff.settings import MAX_PAGE_SIZE, Settings
from workflows.actions import Decision, Verdict
from workflows.agent_run import AgentRun
from workflows.contract_base import IDENTIFIER_PATTERN

HashOption = Annotated[str, typer.Option("--hash", help="The full action hash `pending` showed.")]
ReviewerOption = Annotated[str, typer.Option("--as", help="The reviewer deciding, e.g. alice.")]


def register(app: typer.Typer) -> None:
    app.command("pending")(pending_command)
    app.command("approve")(approve_command)
    app.command("reject")(reject_command)


def pending_command(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's runs.")] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_PAGE_SIZE, help="Requests per page (default: SIGNOFF_PAGE_SIZE, 50)."
        ),
    ] = None,
    after: AfterOption = None,
    json_output: JsonOption = False,
) -> None:
    """List the actions waiting for a reviewer's decision, soonest expiry first, in pages."""
    if tenant is not None and not re.match(IDENTIFIER_PATTERN, tenant):
        fail(f"Invalid tenant '{tenant}'.")
    try:
        if after:
            cursor_position(after)  # a cursor not of this listing is bad input, Temporal or not
    except InvalidCursor:
        fail(CLI_INVALID_CURSOR)
    current = settings()
    run_async(_pending(current, tenant, limit or current.page_size, after, json_output))


async def _pending(
    current: Settings, tenant: str | None, limit: int, after: str | None, json_output: bool
) -> None:
    client = await client_for(current)
    listing = await read_pending(client, tenant)
    try:
        page = pending_page(listing.items, position_of, limit, after)
    except InvalidCursor:
        fail(CLI_INVALID_CURSOR)
    rows = [item.row() for item in page.items]
    if json_output:
        emit_json(
            {
                "total": page.total,
                "waiting_runs": listing.waiting_runs,
                "unread_runs": listing.unread_runs,
                "items": rows,
                "next": page.next,
            }
        )
        return
    say(pending_summary(page.total, listing.waiting_runs, page.first or 0, len(rows)))
    if listing.unread_runs:
        say(unread_warning(listing.unread_runs), err=True)
    for row in rows:
        say(
            f"{row['run_id']}  {row['tool']} {row['amount']} {row['currency']} on order "
            f"{row['order']}  mode {row['mode']} ({row['approvals']}/{row['required']})  "
            f"expires {row['expires_at']}\n  hash {row['action_hash']}\n  reason: {row['reason']}"
        )
    if page.next:
        say(f"more on the next page: add --after {page.next}")


def approve_command(
    run_id: Annotated[str, typer.Argument(help="The run waiting for a decision.")],
    action_hash: HashOption,
    reviewer: ReviewerOption,
    reason: Annotated[str, typer.Option(help="Why you approve (optional).")] = "",
    json_output: JsonOption = False,
) -> None:
    """Approve the exact action with this hash."""
    _decide(run_id, action_hash, reviewer, "approve", reason, json_output)


def reject_command(
    run_id: Annotated[str, typer.Argument(help="The run waiting for a decision.")],
    action_hash: HashOption,
    reviewer: ReviewerOption,
    reason: Annotated[str, typer.Option(help="Why you reject it (required).")],
    json_output: JsonOption = False,
) -> None:
    """Reject the exact action with this hash; the agent is told why and must not retry."""
    _decide(run_id, action_hash, reviewer, "reject", reason, json_output)


def _decide(
    run_id: str, action_hash: str, reviewer_id: str, verdict: Verdict, reason: str, as_json: bool
) -> None:
    current = settings()
    engine = make_engine(current.resolved_database_url)
    try:
        reviewer = get_reviewer(engine, reviewer_id)
        if reviewer is None:
            fail(f"Unknown reviewer '{reviewer_id}'. Reviewers live in the store (`signoff seed`).")
        try:
            decision = Decision(
                action_hash=action_hash.strip().lower(),
                verdict=verdict,
                reviewer_id=reviewer.id,
                reviewer_roles=reviewer.role_list,
                tenant_id=reviewer.tenant_id,
                reason=reason,
            )
        except ValidationError as error:
            fail(
                f"Invalid decision: {validation_message(error)}. Copy the full hash from "
                "`signoff pending`."
            )
    finally:
        engine.dispose()
    run_async(_send(current, run_id, decision, as_json))


async def _send(current: Settings, run_id: str, decision: Decision, as_json: bool) -> None:
    client = await client_for(current)
    handle = client.get_workflow_handle_for(AgentRun.run, run_id)
    await describe_or_fail(handle)
    try:
        result = await send_decision(client, run_id, decision)
    except DecisionNotAccepted as refused:
        fail(refused.message if refused.run_ended else f"refused: {refused.message}")
    except RPCError as error:
        fail(f"The run did not accept a decision ({error.message}). Has it ended?")
    if as_json:
        emit_json(result)
    else:
        say(f"{result.status}: {result.message}")
        say(f"decided at {datetime.now(UTC):%H:%M:%S} UTC; `signoff status {run_id}` follows it.")
