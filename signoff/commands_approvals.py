"""`signoff pending`, `approve`, `reject`: deciding on irreversible actions from a terminal.

A decision names the exact action hash that `pending` showed. The reviewer's tenant
and roles come from the store, never from the command line; the workflow's update
validator has the last word, and its refusal is printed as it was written.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Annotated, Any

import typer
from pydantic import ValidationError
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from activities.store import get_reviewer, make_engine
from signoff.cli_support import (
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
    validation_message,
)
from signoff.commands_runs import describe_or_fail, try_state
from signoff.runs import STATUS_KEY, TENANT_KEY
from signoff.settings import Settings
from workflows.actions import Decision, PendingAction, Verdict
from workflows.agent_run import AgentRun
from workflows.approval_policy import money
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.contracts import STATUS_ATTRIBUTE, TENANT_ATTRIBUTE, WORKFLOW_NAME

JsonOption = Annotated[bool, typer.Option("--json", help="Print one JSON document on stdout.")]
HashOption = Annotated[str, typer.Option("--hash", help="The full action hash `pending` showed.")]
ReviewerOption = Annotated[str, typer.Option("--as", help="The reviewer deciding, e.g. alice.")]


def register(app: typer.Typer) -> None:
    app.command("pending")(pending_command)
    app.command("approve")(approve_command)
    app.command("reject")(reject_command)


def pending_command(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's runs.")] = None,
    json_output: JsonOption = False,
) -> None:
    """List the actions waiting for a reviewer's decision, oldest first."""
    if tenant is not None and not re.match(IDENTIFIER_PATTERN, tenant):
        fail(f"Invalid tenant '{tenant}'.")
    run_async(_pending(settings(), tenant, json_output))


async def _pending(current: Settings, tenant: str | None, json_output: bool) -> None:
    client = await client_for(current)
    query = f"WorkflowType = '{WORKFLOW_NAME}' AND {STATUS_ATTRIBUTE} = 'waiting_for_approval'"
    if tenant:
        query += f" AND {TENANT_ATTRIBUTE} = '{tenant}'"
    rows: list[dict[str, Any]] = []
    async for execution in client.list_workflows(query=query):
        state = await try_state(client.get_workflow_handle_for(AgentRun.run, execution.id))
        if state is None:
            continue
        for action in state.pending_actions:
            rows.append(pending_row(execution.id, execution.typed_search_attributes, action))
    rows.sort(key=lambda row: str(row["requested_at"]))
    if json_output:
        emit_json(rows)
        return
    if not rows:
        say("nothing is waiting for a decision")
        return
    for row in rows:
        say(
            f"{row['run_id']}  {row['tool']} {row['amount']} {row['currency']} on order "
            f"{row['order']}  mode {row['mode']} ({row['approvals']}/{row['required']})  "
            f"expires {row['expires_at']}\n  hash {row['action_hash']}\n  reason: {row['reason']}"
        )


def pending_row(run_id: str, attributes: Any, action: PendingAction) -> dict[str, Any]:
    return {
        "run_id": run_id,
        "tenant": attributes.get(TENANT_KEY),
        "status": attributes.get(STATUS_KEY),
        "action_hash": action.action_hash,
        "tool": action.tool,
        "amount": action.arguments.get("amount"),
        "currency": action.arguments.get("currency"),
        "order": action.targets.get("order_id"),
        "reason": action.reason,
        "mode": action.mode,
        "required": action.required_approvals,
        "approvals": len(action.approvals),
        "paid": money(action.state.paid_minor),
        "refunded_before": money(action.state.refunded_minor),
        "requested_at": action.requested_at.isoformat(),
        "expires_at": action.expires_at.isoformat(),
        "note": action.note,
    }


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
        result = await handle.execute_update(AgentRun.decide, decision)
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        message = cause.message if isinstance(cause, ApplicationError) else str(cause)
        fail(f"refused: {message}")
    except RPCError as error:
        fail(f"The run did not accept a decision ({error.message}). Has it ended?")
    if as_json:
        emit_json(result)
    else:
        say(f"{result.status}: {result.message}")
        say(f"decided at {datetime.now(UTC):%H:%M:%S} UTC; `signoff status {run_id}` follows it.")
