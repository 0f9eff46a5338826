"""`POST /api/slack/actions`: Approve and Reject pressed in Slack (Slack's interactivity URL).

No session, cookie or token: Slack's signature is the credential, and the tenant is the
one whose Slack app's secret verified it (signoff/service/slack_actions.py holds the
checks, in order). A refused request is JSON naming its `reason` beside the `detail`:
401 unsigned, bad_signature or stale; 400 malformed; 403 other_workspace; 409 replayed;
503 when the Slack apps file cannot be used.

A press that passes gets 200 and a Slack message in the body: a replacement of the
message pressed (what happened, by whom), or an ephemeral message to the presser alone
(link your account first, or why nothing was decided). Slack reads the update of a
button press from the message posted to the payload's `response_url`, not from this
body: the same message is posted there after the answer, when that URL starts with
SIGNOFF_SLACK_RESPONSE_URL_PREFIX (Slack's own host by default; never anywhere else).
"""

from __future__ import annotations

import asyncio
import logging
from datetime import UTC, datetime, timedelta
from typing import Any

import httpx
from fastapi import APIRouter, BackgroundTasks, Request, status
from fastapi.responses import JSONResponse, Response

from approvals_ui.deps import EngineDep, SettingsDep
from approvals_ui.remote_decisions import decide_away
from approvals_ui.webhook_requests import limited_body, refusal
from signoff.config.settings import Settings
from signoff.config.slack_apps import SlackConfigError, load_slack_apps
from signoff.service.reviewer_access import named_account
from signoff.service.slack_actions import (
    TakenPress,
    ephemeral,
    link_code,
    replacement,
    take_press,
)
from signoff.service.slack_payloads import SlackPress
from signoff.service.slack_signatures import SlackRefused
from workflows.actions import Verdict
from workflows.reject_reasons import LABELS

router = APIRouter(prefix="/api/slack", tags=["slack"])
log = logging.getLogger("approvals_ui")
# A block_actions payload carries the message pressed: a few kilobytes.
MAX_BODY_BYTES = 256 * 1024
RESPONSE_URL_TIMEOUT_SECONDS = 5.0


@router.post(
    "/actions",
    summary="Take a button press from Slack (block_actions), signed by a tenant's Slack app",
    description="Slack's request signing (`X-Slack-Signature`, `X-Slack-Request-Timestamp`); "
    "the body is Slack's form with a `payload` JSON field. 200: a Slack message "
    "(replacement or ephemeral), also posted to the payload's `response_url`.",
    responses={400: {}, 401: {}, 403: {}, 409: {}, 503: {}},
)
async def slack_actions(
    request: Request, engine: EngineDep, settings: SettingsDep, background: BackgroundTasks
) -> Response:
    body = await limited_body(request, MAX_BODY_BYTES)
    if body is None:
        return refusal(400, "malformed", f"The body is larger than {MAX_BODY_BYTES} bytes.")
    try:
        apps = await asyncio.to_thread(load_slack_apps, settings.slack_apps)
    except SlackConfigError:
        log.warning("slack: SIGNOFF_SLACK_APPS names a file that cannot be used")
        return refusal(503, "unavailable", "Slack is not configured here; try later.")
    now = datetime.now(UTC)
    try:
        taken = await take_press(engine, apps, request.headers, body, now)
    except SlackRefused as refused:
        return refusal(refused.status_code, refused.reason, refused.message)
    if taken.press.kind == "open":  # a link button: Slack opened it; nothing to do
        return Response(status_code=status.HTTP_200_OK)
    answer = await _answer(request, engine, settings, taken, now)
    _post_to_slack(background, settings, taken.press, answer)
    return JSONResponse(answer)


async def _answer(
    request: Request, engine: EngineDep, settings: Settings, taken: TakenPress, now: datetime
) -> dict[str, Any]:
    press = taken.press
    if taken.reviewer_id is None:
        code = await link_code(
            engine, taken.user, timedelta(minutes=settings.slack_link_minutes), now
        )
        url = f"{settings.ui_base_url.rstrip('/')}/slack/link?code={code}"
        return ephemeral(
            f"Link your account first: open <{url}|this link> and sign in to signoff as "
            f"yourself (it works once, within {settings.slack_link_minutes:g} minutes). "
            "Nothing was decided."
        )
    found = await asyncio.to_thread(named_account, engine, taken.reviewer_id)
    if found is None or not found.active:
        return ephemeral("Your reviewer account is disabled: nothing was decided.")
    reviewer = found.reviewer
    if press.kind == "respond" and not press.reason:
        return ephemeral(
            "Write your words for the agent in the box above, then press Send to the agent. "
            "Nothing was sent."
        )
    verdict: Verdict = press.kind if press.kind in ("approve", "respond") else "reject"
    reason = _reason(press, verdict)
    outcome = await decide_away(
        request, reviewer, press.run_id, press.action_hash, verdict, reason, press.category
    )
    if not outcome.decided:
        return ephemeral(outcome.message)
    return replacement(
        press, f"{outcome.message} ({reviewer.display_name}, from Slack)", outcome.still_waiting
    )


def _reason(press: SlackPress, verdict: Verdict) -> str:
    """The reason typed in the message's box, else the press's own words; either way the
    channel is on the record: the signed decision's reason says it came from Slack."""
    if press.reason:
        return f"{press.reason} (from Slack)"
    if verdict == "approve":
        return "Approved from Slack."
    label = next((text for key, text in LABELS.items() if key == press.category), "")
    return f"Rejected from Slack: {label}."


def _post_to_slack(
    background: BackgroundTasks, settings: Settings, press: SlackPress, answer: dict[str, Any]
) -> None:
    url = press.response_url
    if url is None or not url.startswith(settings.slack_response_url_prefix):
        return
    background.add_task(_post, url, answer)


async def _post(url: str, answer: dict[str, Any]) -> None:
    try:
        async with httpx.AsyncClient(timeout=RESPONSE_URL_TIMEOUT_SECONDS) as client:
            sent = await client.post(url, json=answer)
        if sent.status_code >= 300:
            log.warning("slack: response_url answered HTTP %s", sent.status_code)
    except httpx.HTTPError as error:
        # The decision stands; only Slack's copy of the message is not updated.
        log.warning("slack: response_url unreachable: %s", type(error).__name__)
