"""Passkeys in the reviewer UI: the page where a reviewer registers one, and the challenge
of a decision that needs one (the decision itself posts to approvals.py).

The JSON routes answer the page's own script (static/passkeys.js); they sit behind the
same CSRF check as every form (the token in `X-CSRF-Token` or the form). Their refusals
are in the page's language: the script shows them inside a sentence of the page.
"""

from __future__ import annotations

import asyncio
import json
from typing import Annotated, Any

from fastapi import APIRouter, Body, Request, status
from fastapi.responses import JSONResponse, Response

from approvals_ui.decision_fields import ActionHashForm, ReasonForm, VerdictForm
from approvals_ui.decision_words import no_role_refusal
from approvals_ui.deps import CurrentReviewer, EngineDep, SettingsDep
from approvals_ui.lookups import decider_of, pending_by_hash, run_to_decide
from approvals_ui.sessions import session_of
from approvals_ui.templating import render, request_language, request_words
from approvals_ui.words import N_, shown
from signoff.config.passkey_challenge import decision_challenge
from signoff.config.passkeys import RelyingParty, base64url, from_base64url
from signoff.service.decisions import InvalidDecision, draft_decision
from signoff.service.passkeys import (
    PasskeyRegistrationFailed,
    authentication_options,
    new_challenge,
    passkeys_of,
    register,
    registration_options,
)
from workflows.wording import Wording

router = APIRouter(tags=["passkeys"])

# The registration's challenge waits in the reviewer's (server-side signed) session.
REGISTRATION_CHALLENGE = "passkey_registration_challenge"
NO_PASSKEY = N_(
    "You have no passkey registered, and this decision needs one. Register one on the "
    "Passkeys page (/passkeys), then approve again."
)
NOT_STARTED = N_(
    "No passkey registration was started in this session. Reload the page and try again."
)


def _refused(request: Request, status_code: int, detail: str | Wording) -> JSONResponse:
    text, _ = shown(detail, request_words(request), request_language(request))
    return JSONResponse({"detail": text}, status_code)


@router.get("/passkeys")
async def passkeys_page(request: Request, reviewer: CurrentReviewer, engine: EngineDep) -> Response:
    registered = await asyncio.to_thread(passkeys_of, engine, reviewer.id)
    return render(request, "passkeys.html", {"reviewer": reviewer, "passkeys": registered})


@router.post("/passkeys/options")
async def registration_start(
    request: Request, reviewer: CurrentReviewer, engine: EngineDep, settings: SettingsDep
) -> Response:
    registered = await asyncio.to_thread(passkeys_of, engine, reviewer.id)
    challenge = new_challenge()
    session_of(request)[REGISTRATION_CHALLENGE] = base64url(challenge)
    options = registration_options(
        RelyingParty.of(settings), reviewer.id, reviewer.display_name, registered, challenge
    )
    return Response(options, media_type="application/json")


@router.post("/passkeys")
async def registration_finish(
    request: Request,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    credential: Annotated[dict[str, Any], Body()],
) -> Response:
    challenge = session_of(request).pop(REGISTRATION_CHALLENGE, None)
    if not isinstance(challenge, str):
        return _refused(request, status.HTTP_409_CONFLICT, NOT_STARTED)
    try:
        await asyncio.to_thread(
            register,
            engine,
            request.app.state.decision_signer,
            RelyingParty.of(settings),
            reviewer.id,
            credential,
            from_base64url(challenge),
        )
    except PasskeyRegistrationFailed as failed:
        return _refused(request, status.HTTP_400_BAD_REQUEST, failed.message)
    session_of(request)["notice"] = request_words(request).gettext(
        N_("Your passkey is registered.")
    )
    return JSONResponse({"status": "registered"}, status.HTTP_201_CREATED)


@router.post("/approvals/{run_id}/passkey-challenge")
async def passkey_challenge(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    engine: EngineDep,
    settings: SettingsDep,
    action_hash: ActionHashForm,
    verdict: VerdictForm,
    reason: ReasonForm = "",
) -> Response:
    """The decision drafted as it will be signed, and the options that make the reviewer's
    passkey sign its hash; the page posts the answer with the draft's issued-at and nonce."""
    _, state = await run_to_decide(request, run_id, reviewer)  # 404: another tenant's
    action = pending_by_hash(state, action_hash)
    if not reviewer.may_decide(action):
        words = request_words(request)
        return _refused(request, status.HTTP_403_FORBIDDEN, no_role_refusal(words, action))
    try:
        draft = draft_decision(
            request.app.state.decision_signer,
            run_id,
            decider_of(reviewer),
            action_hash,
            verdict,
            reason,
        )
    except InvalidDecision as invalid:
        return _refused(request, status.HTTP_400_BAD_REQUEST, invalid.wording or str(invalid))
    registered = await asyncio.to_thread(passkeys_of, engine, reviewer.id)
    if not registered:
        return _refused(request, status.HTTP_409_CONFLICT, NO_PASSKEY)
    options = authentication_options(
        RelyingParty.of(settings), registered, decision_challenge(draft, run_id)
    )
    issued_at = draft.issued_at.isoformat() if draft.issued_at is not None else ""
    return JSONResponse(
        {"options": json.loads(options), "issued_at": issued_at, "nonce": draft.nonce}
    )
