"""Which tenant's Slack app signed a request: Slack's documented request signing.

`X-Slack-Signature` is `v0=` and the hex HMAC-SHA256 of `v0:{timestamp}:{raw body}`
under the app's signing secret; `X-Slack-Request-Timestamp` is Unix seconds. A request
further than five minutes from our clock is stale (Slack's own advice).

Design note. The tenant is never read from the body: every configured secret is tried,
in constant time each, and the one that verifies names the tenant; the body's workspace
must then be that tenant's (slack_actions.py). The signature is checked before the
timestamp, so that a forger learns nothing of our window. A replay inside the window
(the same signature again) is caught by the store, which keeps each signature taken.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from signoff.config.slack_apps import SlackApp

SIGNATURE_HEADER = "x-slack-signature"
TIMESTAMP_HEADER = "x-slack-request-timestamp"
VERSION = "v0"
WINDOW = timedelta(minutes=5)
MAX_TIMESTAMP_DIGITS = 12

RefusalReason = Literal[
    "unsigned", "bad_signature", "stale", "replayed", "malformed", "other_workspace"
]


class SlackRefused(Exception):
    """A request refused before anything was decided; `reason` names why."""

    def __init__(self, reason: RefusalReason, message: str, status_code: int = 401) -> None:
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.status_code = status_code


@dataclass(frozen=True)
class SignedRequest:
    app: SlackApp
    signed_at: datetime
    signature_hash: str  # SHA-256 of the signature header: what the store keeps


def slack_signature(secret: str, timestamp: str, body: bytes) -> str:
    """The `X-Slack-Signature` Slack sends for this timestamp and body."""
    base = f"{VERSION}:{timestamp}:".encode() + body
    return f"{VERSION}=" + hmac.new(secret.encode(), base, hashlib.sha256).hexdigest()


def verified_request(
    headers: Mapping[str, str], body: bytes, apps: tuple[SlackApp, ...], now: datetime
) -> SignedRequest:
    signature = headers.get(SIGNATURE_HEADER, "").strip()
    timestamp = headers.get(TIMESTAMP_HEADER, "").strip()
    if not signature or not timestamp:
        raise SlackRefused(
            "unsigned",
            "The request is not signed: Slack sends X-Slack-Signature and "
            "X-Slack-Request-Timestamp.",
        )
    verified = [
        app
        for app in apps
        for secret in app.signing_secrets
        if hmac.compare_digest(
            slack_signature(secret, timestamp, body).encode(), signature.encode()
        )
    ]
    if not verified:
        raise SlackRefused(
            "bad_signature",
            "No Slack signing secret configured here verifies this request: check the "
            "app's signing secret against SIGNOFF_SLACK_APPS.",
        )
    if not timestamp.isdigit() or len(timestamp) > MAX_TIMESTAMP_DIGITS:
        raise SlackRefused("malformed", "X-Slack-Request-Timestamp is not Unix seconds.")
    signed_at = datetime.fromtimestamp(int(timestamp), UTC)
    if abs(now - signed_at) > WINDOW:
        raise SlackRefused(
            "stale",
            f"The request is signed at {signed_at.isoformat()}, more than "
            f"{int(WINDOW.total_seconds())} s from now: nothing was decided. Press the "
            "button again (and check this server's clock).",
        )
    digest = hashlib.sha256(signature.encode()).hexdigest()
    return SignedRequest(verified[0], signed_at, digest)
