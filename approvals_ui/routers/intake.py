"""`POST /api/intake/tickets`: tickets from a helpdesk's signed webhook.

No session, cookie or token: the signature is the credential, and the tenant is the
one whose secret verified it (signoff/service/intake.py). The secrets file is read on
each delivery, so that a rotation needs no restart. Every refusal is JSON naming its
`reason` beside the `detail`: 401 unsigned, bad_signature or stale; 422 malformed;
503 when this server cannot take deliveries now (its secrets file, its store or
Temporal), which a helpdesk retries.
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
from signoff.service.intake import IntakeRefused, StoreError, receive_ticket

router = APIRouter(prefix="/api/intake", tags=["intake"])


class IntakeAnswer(ApiModel):
    tenant_id: str
    ticket_id: str
    run_id: str
    replayed: bool


class IntakeError(ApiModel):
    detail: str
    reason: Literal["unsigned", "bad_signature", "stale", "malformed", "unavailable"]


@router.post(
    "/tickets",
    summary="Receive a ticket from a helpdesk's signed webhook and start its triage",
    description="Signed as Zendesk signs (`X-Zendesk-Webhook-Signature`, "
    "`X-Zendesk-Webhook-Signature-Timestamp`) or in the generic format "
    "(`X-Signoff-Signature`, `X-Signoff-Timestamp`): base64 HMAC-SHA256 of the timestamp "
    "followed by the body, under the tenant's signing secret. 202: a new ticket and its "
    "triage; 200: this delivery came before, and nothing new was started.",
    status_code=status.HTTP_202_ACCEPTED,
    response_model=IntakeAnswer,
    responses={
        200: {"model": IntakeAnswer},
        401: {"model": IntakeError},
        422: {"model": IntakeError},
        503: {"model": IntakeError},
    },
)
async def receive(request: Request, engine: EngineDep, settings: SettingsDep) -> JSONResponse:
    read = await signed_delivery(request, settings)
    if isinstance(read, JSONResponse):
        return read
    body, secrets = read
    provider: TemporalProvider = request.app.state.temporal
    try:
        accepted = await receive_ticket(
            engine, provider.get, settings, secrets, (request.headers, body), datetime.now(UTC)
        )
    except IntakeRefused as refused:
        return refusal(refused.status_code, refused.reason, refused.message)
    except StoreError as error:  # a tenant in the secrets file but not in the store
        return refusal(503, "unavailable", f"The ticket could not be stored: {error}")
    except TemporalUnavailable:  # the ticket is stored: the helpdesk's retry starts it
        return refusal(503, "unavailable", "Temporal cannot be reached; send it again later.")
    answer = IntakeAnswer(
        tenant_id=accepted.tenant_id,
        ticket_id=accepted.ticket_id,
        run_id=accepted.run_id,
        replayed=accepted.replayed,
    )
    code = status.HTTP_200_OK if accepted.replayed else status.HTTP_202_ACCEPTED
    return JSONResponse(answer.model_dump(), status_code=code)
