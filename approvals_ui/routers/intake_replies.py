"""`POST /api/intake/replies`: a customer's answer to a run's question (`ask_customer`),
from the helpdesk's signed webhook (signoff/service/customer_replies.py).

No session, cookie or token: the signature is the credential, and the tenant is the one
whose secret verified it. Every refusal is JSON naming its `reason` beside the `detail`:
401 unsigned, bad_signature or stale; 422 malformed; 404 no_question (no ticket of this
tenant by that id, or no question asked on it); 409 not_waiting (the run has its answer
or stopped waiting) or run_ended; 503 when this server cannot take deliveries now,
which a helpdesk retries.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

from fastapi import APIRouter, Request, status
from fastapi.responses import JSONResponse

from approvals_ui.api_models import ApiModel
from approvals_ui.deps import EngineDep, SettingsDep, TemporalProvider, TemporalUnavailable
from approvals_ui.intake_delivery import signed_delivery
from approvals_ui.webhook_requests import refusal
from signoff.service.customer_replies import ReplyNotTaken, ReplyUndelivered, receive_reply
from signoff.service.intake import IntakeRefused, StoreError

router = APIRouter(prefix="/api/intake", tags=["intake"])


class ReplyAnswer(ApiModel):
    tenant_id: str
    ticket_id: str
    run_id: str
    status: Literal["delivered"] = "delivered"


class ReplyError(ApiModel):
    detail: str
    reason: Literal[
        "unsigned",
        "bad_signature",
        "stale",
        "malformed",
        "no_question",
        "not_waiting",
        "run_ended",
        "unavailable",
    ]


@router.post(
    "/replies",
    summary="Receive a customer's reply from a helpdesk's signed webhook and hand it to "
    "the run that asked",
    description="Signed as the source's tickets are (`X-Signoff-Signature` and "
    "`X-Signoff-Timestamp`, or Zendesk's headers): base64 HMAC-SHA256 of the timestamp "
    "followed by the body, under the tenant's signing secret. Body, whatever the source: "
    '`{"event_id": ..., "reply": {"ticket_id": ..., "text": ...}}`. 202: the run that '
    "asked has the reply.",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=ReplyAnswer,
    responses={
        401: {"model": ReplyError},
        404: {"model": ReplyError},
        409: {"model": ReplyError},
        422: {"model": ReplyError},
        503: {"model": ReplyError},
    },
)
async def receive(request: Request, engine: EngineDep, settings: SettingsDep) -> JSONResponse:
    read = await signed_delivery(request, settings)
    if isinstance(read, JSONResponse):
        return read
    body, secrets = read
    provider: TemporalProvider = request.app.state.temporal
    try:
        delivered = await receive_reply(
            engine, provider.get, settings, secrets, (request.headers, body), datetime.now(UTC)
        )
    except IntakeRefused as refused:
        return refusal(refused.status_code, refused.reason, refused.message)
    except ReplyNotTaken as not_taken:
        return refusal(not_taken.status_code, not_taken.reason, not_taken.message)
    except StoreError as error:
        return refusal(503, "unavailable", f"The reply could not be matched: {error}")
    except TemporalUnavailable:  # nothing taken: the helpdesk's retry delivers it
        return refusal(503, "unavailable", "Temporal cannot be reached; send it again later.")
    except ReplyUndelivered as undelivered:
        return refusal(503, "unavailable", f"{undelivered} Send it again later.")
    answer = ReplyAnswer(
        tenant_id=delivered.tenant_id, ticket_id=delivered.ticket_id, run_id=delivered.run_id
    )
    return JSONResponse(answer.model_dump(), status_code=status.HTTP_202_ACCEPTED)
