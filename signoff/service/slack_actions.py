"""A Slack press, from its signed request to the reviewer it acts as, and Slack's answers.

The order of the checks: the signature (which tenant's app; 401), the timestamp window
(401), the payload (400), the pressing user's workspace against the tenant's (403), the
store's record of signatures taken (409: a replay decides nothing twice), then the link
from the Slack user to a reviewer. Only then does the face decide, through the same
decision service as the web page (approvals_ui/routers/slack.py).

Slack's answers are messages: `ephemeral` (only the presser sees it, the message stays)
and `replacement` (the message pressed, its controls kept only while the request still
waits, with a line saying what happened).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from activities.store.slack_links import (
    SlackUser,
    first_use_of_signature,
    issue_link_code,
    linked_reviewer,
)
from signoff.config.slack_apps import SlackApp
from signoff.service.handles import Store, engine_of
from signoff.service.slack_payloads import SlackPress, parse_press
from signoff.service.slack_signatures import WINDOW, SlackRefused, verified_request

# The blocks a replacement drops once nothing waits: the buttons and the reason box.
DECISION_BLOCKS = ("actions", "input")
# Signatures are kept past the window by this much: a replay inside it is caught, and
# one after it is stale anyway.
KEEP_SIGNATURES = WINDOW * 2


@dataclass(frozen=True)
class TakenPress:
    press: SlackPress
    user: SlackUser
    reviewer_id: str | None  # None: the Slack user has not linked an account


async def take_press(
    store: Store,
    apps: tuple[SlackApp, ...],
    headers: Mapping[str, str],
    body: bytes,
    now: datetime,
) -> TakenPress:
    """The checked press and who it acts as; SlackRefused, with its status, otherwise."""
    engine = engine_of(store)
    signed = verified_request(headers, body, apps, now)
    press = parse_press(body)
    if press.team_id != signed.app.team_id:
        raise SlackRefused(
            "other_workspace",
            "This Slack user belongs to another workspace than this tenant's: nothing was "
            "decided. Decide from your own workspace, or in the reviewer UI.",
            403,
        )
    first = await asyncio.to_thread(
        first_use_of_signature,
        engine,
        signed.app.tenant_id,
        signed.signature_hash,
        signed.signed_at,
        now,
        KEEP_SIGNATURES,
    )
    if not first:
        raise SlackRefused(
            "replayed", "This request was taken already: nothing was decided again.", 409
        )
    user = SlackUser(signed.app.tenant_id, press.team_id, press.user_id)
    reviewer_id = await asyncio.to_thread(linked_reviewer, engine, user)
    return TakenPress(press, user, reviewer_id)


async def link_code(store: Store, user: SlackUser, lifetime: timedelta, now: datetime) -> str:
    engine = engine_of(store)
    return await asyncio.to_thread(issue_link_code, engine, user, lifetime, now)


def ephemeral(text: str) -> dict[str, Any]:
    """Shown to the presser alone; the message pressed stays as it was."""
    return {"response_type": "ephemeral", "replace_original": False, "text": text}


def replacement(press: SlackPress, outcome: str, still_waiting: bool) -> dict[str, Any]:
    """The message pressed with a line saying what happened; its Approve, Reject and
    reason box stay only while the request still waits (a second reviewer's turn under
    four eyes)."""
    kept = [
        block
        for block in press.message_blocks
        if still_waiting or block.get("type") not in DECISION_BLOCKS
    ]
    line = {"type": "context", "elements": [{"type": "mrkdwn", "text": outcome}]}
    return {"replace_original": True, "text": outcome, "blocks": [*kept, line]}
