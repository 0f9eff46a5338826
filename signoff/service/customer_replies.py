"""`POST /api/intake/replies`: a customer's answer, from the helpdesk's signed webhook,
to the run that asked (`ask_customer`).

The steps, each of which may refuse: the signature names the tenant (never the body:
intake_signatures.py) and the source, the verified body (the one reply format, whatever
the source) gives the ticket, as that source or signoff names it, and the text, the outbox
names the run that last asked that ticket's customer (store/customer_questions.py),
and the run takes the reply through its `customer_reply` update, whose validator is the
last word on whether it still waits. The update's id is the delivery's, so a helpdesk
that sends the same reply again gets the same answer and the model reads it once.

A reply no run can take is answered with why, and written on the tenant's audit: a
ticket the tenant does not have (another tenant's, say) or whose customer was never
asked (404), a run that no longer waits (it has its answer, or gave up: 409), a run
that has ended (409).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError
from temporalio.client import WorkflowUpdateFailedError, WorkflowUpdateRPCTimeoutOrCancelledError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError, RPCStatusCode

from activities.store.customer_questions import (
    RefusedReply,
    asking_run,
    record_refused_reply,
)
from signoff.config.helpdesks import IntakeSecrets
from signoff.config.settings import Settings
from signoff.service.handles import Runs, Store, client_of, engine_of
from signoff.service.intake_formats import MAX_BODY_BYTES
from signoff.service.intake_signatures import IntakeRefused, delivery_signer
from workflows.contract_base import Identifier
from workflows.customer_questions import (
    CUSTOMER_REPLY_UPDATE,
    MAX_REPLY_CHARS,
    REPLY_REFUSED,
    CustomerReply,
    CustomerReplyTaken,
)
from workflows.outside_text import refuse_nul

NotTaken = Literal["no_question", "not_waiting", "run_ended"]
STATUS_OF: Mapping[NotTaken, int] = {"no_question": 404, "not_waiting": 409, "run_ended": 409}


class ReplyNotTaken(Exception):
    """A signed reply that no run takes; on the tenant's audit already."""

    def __init__(self, reason: NotTaken, message: str) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message

    @property
    def status_code(self) -> int:
        return STATUS_OF[self.reason]


class ReplyUndelivered(Exception):
    """Temporal did not say whether the run took the reply (unreachable, a timeout):
    nothing is on the audit, and the helpdesk's retry, under the same update id, is
    answered as this delivery would have been."""


@dataclass(frozen=True)
class ReplyDelivered:
    tenant_id: str
    ticket_id: str
    run_id: str


class _GenericReply(BaseModel):
    model_config = ConfigDict(extra="ignore")

    ticket_id: Identifier
    # No NUL byte, which no store keeps (workflows/outside_text.py).
    text: Annotated[
        str, Field(min_length=1, max_length=MAX_REPLY_CHARS), AfterValidator(refuse_nul)
    ]


class _Generic(BaseModel):
    model_config = ConfigDict(extra="ignore")

    event_id: Identifier
    reply: _GenericReply


async def receive_reply(
    store: Store,
    runs: Callable[[], Awaitable[Runs]],
    settings: Settings,
    secrets: IntakeSecrets,
    delivery: tuple[Mapping[str, str], bytes],
    now: datetime,
) -> ReplyDelivered:
    """The reply handed to the run that asked; IntakeRefused (nothing read), ReplyNotTaken
    (audited), StoreError, ReplyUndelivered, or the connect's own error when Temporal
    cannot be reached."""
    engine = engine_of(store)
    signer = delivery_signer(delivery, secrets, settings, now, MAX_BODY_BYTES)
    body = delivery[1]
    # One body for every source: a helpdesk sends it from a trigger on the customer's
    # comment (docs/ask-the-customer.md), signed as that source signs its tickets.
    parsed = _generic(body)
    ticket, text = parsed.reply.ticket_id, parsed.reply.text.strip()
    if not text:
        raise IntakeRefused("malformed", "reply.text is empty.")
    found = await asyncio.to_thread(asking_run, engine, signer.tenant_id, signer.source, ticket)

    async def refuse(reason: NotTaken, why: str, run_id: str | None) -> ReplyNotTaken:
        refused = RefusedReply(
            signer.tenant_id, ticket, run_id, signer.source, parsed.event_id, why
        )
        await asyncio.to_thread(record_refused_reply, engine, refused, now)
        return ReplyNotTaken(reason, why)

    if found is None:
        raise await refuse("no_question", f"This tenant has no ticket {ticket}.", None)
    if found.run_id is None:
        why = f"No run asked the customer of ticket {ticket} a question."
        raise await refuse("no_question", why, None)
    reply = CustomerReply(
        tenant_id=signer.tenant_id,
        ticket_id=found.ticket_id,
        text=text,
        source=signer.source,
        event_id=parsed.event_id,
        received_at=now,
    )
    handle = client_of(await runs()).get_workflow_handle(found.run_id)
    try:
        await handle.execute_update(
            CUSTOMER_REPLY_UPDATE,
            reply,
            id=f"reply-{signer.source}-{parsed.event_id}",
            result_type=CustomerReplyTaken,
        )
    except WorkflowUpdateFailedError as error:
        cause = error.cause
        if not (isinstance(cause, ApplicationError) and cause.type == REPLY_REFUSED):
            raise ReplyUndelivered(f"The run refused the reply: {error}") from None
        raise await refuse("not_waiting", str(cause.message), found.run_id) from None
    except WorkflowUpdateRPCTimeoutOrCancelledError:
        raise ReplyUndelivered("The run did not answer in time.") from None
    except RPCError as error:
        if error.status != RPCStatusCode.NOT_FOUND:
            raise ReplyUndelivered("Temporal cannot be reached.") from None
        why = "The run that asked has ended; the reply reached no one."
        raise await refuse("run_ended", why, found.run_id) from None
    return ReplyDelivered(signer.tenant_id, found.ticket_id, found.run_id)


def _generic(body: bytes) -> _Generic:
    try:
        return _Generic.model_validate(json.loads(body))
    except ValueError as error:
        detail = "The body is not JSON."
        if isinstance(error, ValidationError):
            item = error.errors(include_url=False)[0]
            where = ".".join(str(part) for part in item["loc"]) or "the body"
            detail = f"The generic body is not valid: {where}: {item['msg']}."
        raise IntakeRefused("malformed", detail) from None
