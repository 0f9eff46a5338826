"""Slack's side of the wire, as Slack documents it: a `block_actions` payload in a form
field, signed `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret.

The HMAC is written out here from Slack's documentation, not taken from the code under
test, so that a mistake in one is not copied into the other.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import time
import uuid
from datetime import datetime
from typing import Any
from urllib.parse import urlencode

from activities.slack_blocks import (
    APPROVE_ACTION,
    OPEN_ACTION,
    REASON_ACTION,
    REASON_BLOCK,
    REJECT_ACTION,
    RESPOND_ACTION,
    reason_box,
)

DEMO_TEAM = "TDEMO0001"
GLOBEX_TEAM = "TGLOBEX01"
DEMO_SECRET = "8f742231b10e8888abcd99yyyzzz85a5-demo-signing"
GLOBEX_SECRET = "1e3c5a8b0d2f4a6c8e0b2d4f6a8c0e2b-globex-signing"


def apps_document() -> dict[str, Any]:
    return {
        "demo": {"team_id": DEMO_TEAM, "signing_secrets": [DEMO_SECRET]},
        "globex": {"team_id": GLOBEX_TEAM, "signing_secrets": [GLOBEX_SECRET]},
    }


def press_payload(
    action_id: str,
    run_id: str,
    action_hash: str = "",
    *,
    user: str = "UBOB00001",
    team: str = DEMO_TEAM,
    category: str = "other",
    reason: str | None = None,
    response_url: str = "https://slack-response.invalid/actions/T0/1/xyz",
) -> dict[str, Any]:
    """A press as Slack sends it; `reason`, what the message's reason box holds (Slack
    sends null for an empty box)."""
    action: dict[str, Any] = {
        "action_id": action_id,
        "block_id": run_id,
        "type": "button",
        # Each press is its own: Slack gives it a new action_ts and trigger_id.
        "action_ts": f"{time.time():.6f}",
    }
    if action_id in (APPROVE_ACTION, RESPOND_ACTION):
        action["value"] = action_hash
    elif action_id == REJECT_ACTION:
        action["type"] = "static_select"
        action["selected_option"] = {
            "text": {"type": "plain_text", "text": category},
            "value": f"{category}:{action_hash}",
        }
    elif action_id == OPEN_ACTION:
        action["url"] = f"https://signoff.example/approvals/{run_id}"
    return {
        "type": "block_actions",
        "user": {"id": user, "username": user.lower(), "team_id": team},
        "api_app_id": "A0SIGNOFF",
        "token": "deprecated-verification-token",
        "container": {"type": "message", "message_ts": "1700000000.000200"},
        "trigger_id": uuid.uuid4().hex,
        "team": {"id": team, "domain": "example"},
        "channel": {"id": "C0REVIEWS", "name": "refund-reviews"},
        "message": {
            "type": "message",
            "text": "Refund waits",
            "blocks": [
                {"type": "section", "text": {"type": "mrkdwn", "text": "Refund waits"}},
                reason_box(),
                {"type": "actions", "block_id": run_id, "elements": []},
            ],
        },
        # Every input of the message, as Slack sends it with each press (its `state`).
        "state": {
            "values": {REASON_BLOCK: {REASON_ACTION: {"type": "plain_text_input", "value": reason}}}
        },
        "response_url": response_url,
        "actions": [action],
    }


def form_body(payload: dict[str, Any]) -> bytes:
    return urlencode({"payload": json.dumps(payload)}).encode()


def signed_headers(secret: str, body: bytes, at: datetime) -> dict[str, str]:
    timestamp = str(int(at.timestamp()))
    base = b"v0:" + timestamp.encode() + b":" + body
    signature = "v0=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()
    return {
        "X-Slack-Signature": signature,
        "X-Slack-Request-Timestamp": timestamp,
        "Content-Type": "application/x-www-form-urlencoded",
    }
