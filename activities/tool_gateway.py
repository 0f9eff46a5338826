"""The tool gateway activity: the only place where a model's tool call touches the store.

Every call gets exactly one `ToolResult`. A call the catalog refuses, a missing record
and an unexpected exception all become error results the model can read; an exception
is logged with a short reference and never shown to the model (no trace, no path, no
exception text). A transient store error (busy, unreachable: `store/transient.py`)
is raised instead, for Temporal to retry the activity; only when every attempt
failed does the run tell the model the tool did not answer. Targets come from the
run (`call.tenant_id`, `call.ticket_id`), and every query filters by the tenant.

Ticket text is third-party data: it reaches the model JSON-encoded, with its provenance,
and it is the field that gets cut, so that a bounded result stays valid JSON.
"""

from __future__ import annotations

import asyncio
import functools
import json
import uuid
from collections.abc import Callable
from typing import Any

from sqlalchemy import Engine
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import observe
from activities.caller import caller_run_id
from activities.held_profiles import HeldProfiles, ProfileNotHeld
from activities.offered_tools import not_offered
from activities.payments.connector import PaymentError
from activities.payments.order_tool import order_from_platform
from activities.payments.registry import PaymentConnectors
from activities.store.activity_refusals import record_refusal
from activities.store.payment_links import NoPaymentLink
from activities.store.schema import minor_to_decimal
from activities.store.tool_reads import ticket_order, ticket_text
from activities.store.transient import is_transient
from activities.tool_functions import call_tool_function
from activities.tool_output import as_tool_output, dumps_with_bounded_field
from signoff.tools import ToolContext, known_tools
from workflows.actions import PREPARE_TOOL_CALL_ACTIVITY, PreparedArguments
from workflows.contracts import RUN_TOOL_ACTIVITY, ToolCallInput, ToolResult
from workflows.policy import bound_text
from workflows.tool_arguments import normalized
from workflows.tool_catalog import (
    GET_ORDER,
    READ_TICKET,
    ToolCallRejected,
    ToolDefinition,
    parse_arguments,
)

TICKET_PROVENANCE = "customer ticket, unverified free text"
# A name is a label, not content: anything longer is noise or an attack.
MAX_CUSTOMER_NAME_CHARS = 200


class ToolFailed(Exception):
    """An expected failure whose message is written for the model."""


class IrreversibleAsRead(ToolFailed):
    """An irreversible tool asked for as a read: what a rogue caller would try, so it is
    refused on the audit too, not only to the model."""


class NotOffered(ToolFailed):
    """A tool the run's own agent does not offer (activities/offered_tools.py): the gate
    offers the model only the agent's tools, so this is a caller's doing, on the audit."""


ToolFunction = Callable[[Engine, ToolCallInput], str]


def _missing_ticket(call: ToolCallInput) -> ToolFailed:
    return ToolFailed(
        f"The ticket of this run ({call.ticket_id}) does not exist in the shop's records. "
        "Do not retry; answer that the ticket could not be found."
    )


def read_ticket(engine: Engine, call: ToolCallInput) -> str:
    with engine.connect() as connection:
        ticket = ticket_text(connection, call.tenant_id, call.ticket_id)
    if ticket is None:
        raise _missing_ticket(call)
    payload = {
        "ticket_id": call.ticket_id,
        "provenance": TICKET_PROVENANCE,
        "customer_name": bound_text(ticket.customer_name, MAX_CUSTOMER_NAME_CHARS),
        "text": ticket.text,
    }
    return dumps_with_bounded_field(payload, "text")


def get_ticket_order(engine: Engine, call: ToolCallInput) -> str:
    with engine.connect() as connection:
        found, order = ticket_order(connection, call.tenant_id, call.ticket_id)
    if not found:
        raise _missing_ticket(call)
    if order is None:
        return json.dumps(
            {
                "found": False,
                "message": (
                    "This ticket is linked to no order in the customer's account. "
                    "An order number written in the ticket is not a lookup target; "
                    "ask the customer to write from the account that placed the order."
                ),
            }
        )
    return json.dumps(
        {
            "found": True,
            "order_id": order.id,
            "status": order.status,
            "amount_paid": str(minor_to_decimal(order.amount_paid_minor)),
            "currency": order.currency,
            "tracking": order.tracking,
        }
    )


# Looked up at call time, so tests can swap one function for a failing one.
TOOL_FUNCTIONS: dict[str, ToolFunction] = {
    READ_TICKET.name: read_ticket,
    GET_ORDER.name: get_ticket_order,
}


class ToolGateway:
    """`profiles`: the profile files the worker loaded; none held serves only runs
    without a profile (the built-in catalog)."""

    def __init__(
        self,
        engine: Engine,
        payments: PaymentConnectors | None = None,
        profiles: HeldProfiles | None = None,
    ) -> None:
        self._engine = engine
        self._payments = payments or PaymentConnectors.ledger_only()
        self._profiles = profiles or HeldProfiles({})

    @activity.defn(name=RUN_TOOL_ACTIVITY)
    async def run_tool(self, call: ToolCallInput) -> ToolResult:
        with observe.tool_call_span(call) as span:
            result = await self._run_tool(call)
            observe.tool_answered(span, call, result)
            return result

    @activity.defn(name=PREPARE_TOOL_CALL_ACTIVITY)
    async def prepare_tool_call(self, call: ToolCallInput) -> PreparedArguments:
        """An irreversible call's arguments, checked by the tool's own model and
        normalized for the reviewer and the hash (`workflows/tool_arguments.py`)."""
        try:
            self._offered(call)
        except NotOffered as error:
            await self._refused(call, PREPARE_TOOL_CALL_ACTIVITY, f"{call.name} prepared", error)
            return PreparedArguments(problem=str(error))
        tool = known_tools().get(call.name)
        if tool is None:
            return PreparedArguments(problem=_not_here(call.name))
        try:
            return PreparedArguments(arguments=normalized(tool, call.arguments))
        except ToolCallRejected as rejected:
            return PreparedArguments(problem=str(rejected))

    def _offered(self, call: ToolCallInput) -> None:
        """NotOffered for a tool the run's agent does not offer; a retryable error for a
        profile this worker does not hold (another worker may)."""
        try:
            why = not_offered(
                self._profiles, call.profile_hash, call.agent_name, call.tenant_id, call.name
            )
        except ProfileNotHeld as error:
            raise ApplicationError(str(error), type="ProfileNotHeld") from None
        if why is not None:
            raise NotOffered(f"The tool '{call.name}' is not offered to this run: {why}.")

    async def _refused(
        self, call: ToolCallInput, activity_name: str, what: str, error: Exception
    ) -> None:
        """A refused call on the audit: who called, what, why."""
        await asyncio.to_thread(
            record_refusal,
            self._engine,
            tenant_id=call.tenant_id,
            run_id=call.run_id,
            ticket_id=call.ticket_id,
            activity=activity_name,
            what=what,
            why=str(error),
            caller_run_id=caller_run_id(),
        )

    async def _run_tool(self, call: ToolCallInput) -> ToolResult:
        try:
            self._offered(call)
        except NotOffered as error:
            await self._refused(call, RUN_TOOL_ACTIVITY, f"{call.name} as a read", error)
            return self._result(call, str(error), is_error=True)
        try:
            tool = _read_tool(call.name)
            arguments = parse_arguments(tool, call.arguments)
            if tool.implementation is not None:
                content = as_tool_output(await _registered(tool, arguments, call))
            else:
                function = self._function(tool.name, call.tenant_id)
                content = await asyncio.to_thread(function, self._engine, call)
        except IrreversibleAsRead as error:
            await self._refused(call, RUN_TOOL_ACTIVITY, f"{call.name} as a read", error)
            return self._result(call, str(error), is_error=True)
        except (ToolCallRejected, ToolFailed, PaymentError, NoPaymentLink) as error:
            # A payment platform's refusal or silence is said as it is (no key, no trace).
            return self._result(call, str(error), is_error=True)
        except Exception as error:
            reference = uuid.uuid4().hex[:8]
            if is_transient(error):
                activity.logger.warning(
                    "tool %r: store unavailable, Temporal retries (reference %s, run %s)",
                    call.name,
                    reference,
                    call.run_id,
                    exc_info=True,
                )
                # Retryable: the store is busy or out of reach, not wrong. The message
                # (kept in history) names the kind only: no SQL, no address.
                raise ApplicationError(
                    f"The store was unavailable ({type(error).__name__}, reference {reference}).",
                    type="StoreUnavailable",
                ) from None
            # Anything else is our bug: log it in full, tell the model only that it
            # happened and how to find it.
            activity.logger.exception(
                "tool %r failed (reference %s, run %s)", call.name, reference, call.run_id
            )
            return self._result(
                call,
                f"The tool '{call.name}' failed because of an internal error (reference "
                f"{reference}). It is not your fault; you may try once more later or "
                "answer without it.",
                is_error=True,
            )
        return self._result(call, content, is_error=False)

    def _function(self, name: str, tenant_id: str) -> ToolFunction:
        """The tool's function; `get_order` reads a platform's tenant from the platform."""
        if name == GET_ORDER.name:
            connector = self._payments.for_tenant(tenant_id)
            if connector is not None:
                return functools.partial(order_from_platform, connector=connector)
        function = TOOL_FUNCTIONS.get(name)
        if function is None:
            raise ToolFailed(_not_here(name))
        return function

    @staticmethod
    def _result(call: ToolCallInput, content: str, *, is_error: bool) -> ToolResult:
        return ToolResult(
            tool_use_id=call.tool_use_id, content=bound_text(content), is_error=is_error
        )


def _not_here(name: str) -> str:
    return f"The tool '{name}' is not available on this worker."


def _read_tool(name: str) -> ToolDefinition:
    """A tool this activity may run: a read tool. An irreversible one runs only through
    the gate's effect, which demands its proofs: anyone may call this activity."""
    known = known_tools()
    tool = known.get(name)
    if tool is None:
        raise ToolFailed(
            f"Unknown tool '{name}'. The tools that exist are: {', '.join(sorted(known))}."
        )
    if tool.risk != "read":
        raise IrreversibleAsRead(
            f"The tool '{name}' is irreversible: it runs only after the approval gate, "
            "never as a read."
        )
    return tool


async def _registered(tool: ToolDefinition, arguments: Any, call: ToolCallInput) -> Any:
    """A registered Python read tool, called with its context."""
    context = ToolContext(
        run_id=call.run_id,
        tenant_id=call.tenant_id,
        ticket_id=call.ticket_id,
        tool_use_id=call.tool_use_id,
        idempotency_key=call.idempotency_key,
    )
    function = tool.implementation
    assert function is not None
    return await call_tool_function(function, arguments, context)
