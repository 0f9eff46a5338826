"""What both intake routes (tickets, customers' replies) read before the service does:
the body, no further than the intake's limit, and the tenants' signing secrets, read on
each delivery so that a rotation needs no restart."""

from __future__ import annotations

import asyncio
import logging

from fastapi import Request
from fastapi.responses import JSONResponse

from approvals_ui.webhook_requests import limited_body, refusal
from signoff.config.helpdesks import HelpdeskConfigError, IntakeSecrets, load_intake_secrets
from signoff.config.settings import Settings
from signoff.service.intake import MAX_BODY_BYTES

log = logging.getLogger("approvals_ui")


async def signed_delivery(
    request: Request, settings: Settings
) -> tuple[bytes, IntakeSecrets] | JSONResponse:
    """The delivery's body and the secrets to check it with; or the refusal to answer:
    422 for a body over the limit, 503 when the secrets file cannot be used."""
    body = await limited_body(request, MAX_BODY_BYTES)
    if body is None:
        return refusal(422, "malformed", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        secrets = await asyncio.to_thread(load_intake_secrets, settings.intake_secrets)
    except HelpdeskConfigError:
        log.warning("intake: SIGNOFF_INTAKE_SECRETS names a file that cannot be used")
        return refusal(503, "unavailable", "The intake is not configured here; try later.")
    return body, secrets
