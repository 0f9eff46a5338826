"""Who signed a helpdesk delivery: the tenant whose secret verifies it, or a refusal.

Every source (signoff/intake) signs the same way, Zendesk's documented one: its
signature header is the base64 of HMAC-SHA256 over its timestamp header's value followed
by the raw body, under the webhook's signing secret; the timestamp is ISO 8601 or Unix
seconds. Which source signed a delivery is told by the signature header it carries
(Zendesk sends `X-Zendesk-Webhook-Signature`, the generic source `X-Signoff-Signature`).

Design note. The tenant is never read from the body: every secret of the source is
tried (in constant time each), and the one that verifies names the tenant. The
signature is checked before the timestamp, so that a forger learns nothing of our
window; a genuine delivery older (or newer) than the window is `stale`, which a
captured request replayed later becomes.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from signoff.config.helpdesks import IntakeSecrets, IntakeSource
from signoff.config.settings import Settings
from signoff.intake import IntakeRefused, known_sources

__all__ = ["IntakeRefused", "Signer", "sign", "verified_signer"]

# A timestamp header longer than this is not one.
MAX_TIMESTAMP_CHARS = 64


@dataclass(frozen=True)
class Signer:
    tenant_id: str
    source: IntakeSource


def sign(secret: str, timestamp: str, body: bytes) -> str:
    """The signature header's value for this timestamp and body."""
    digest = hmac.new(secret.encode(), timestamp.encode() + body, hashlib.sha256).digest()
    return base64.b64encode(digest).decode()


def delivery_signer(
    delivery: tuple[Mapping[str, str], bytes],
    secrets: IntakeSecrets,
    settings: Settings,
    now: datetime,
    max_body_bytes: int,
) -> Signer:
    """What every intake delivery (a ticket, a customer's reply) is checked for first:
    a body within `max_body_bytes`, signed by a tenant's secret within the settings'
    clock skew; IntakeRefused otherwise, before anything is read from the body."""
    headers, body = delivery
    if len(body) > max_body_bytes:
        raise IntakeRefused("malformed", f"The body is larger than {max_body_bytes} bytes.")
    max_skew = timedelta(seconds=settings.intake_max_skew_seconds)
    return verified_signer(headers, body, secrets, now, max_skew)


def verified_signer(
    headers: Mapping[str, str],
    body: bytes,
    secrets: IntakeSecrets,
    now: datetime,
    max_skew: timedelta,
) -> Signer:
    """The tenant and source whose secret signed this delivery; IntakeRefused if none."""
    source, signature, timestamp = _signature_headers(headers)
    try:
        sent = base64.b64decode(signature, validate=True)
    except (binascii.Error, ValueError):
        raise IntakeRefused("bad_signature", "The signature is not base64.") from None
    signed = timestamp.encode() + body
    tenants = [
        entry.tenant_id
        for entry in secrets.of_source(source)
        if hmac.compare_digest(
            hmac.new(entry.secret.encode(), signed, hashlib.sha256).digest(), sent
        )
    ]
    if not tenants:
        raise IntakeRefused(
            "bad_signature",
            f"No {source} signing secret configured here verifies this delivery: check the "
            "webhook's signing secret against SIGNOFF_INTAKE_SECRETS.",
        )
    sent_at = _timestamp(timestamp)
    if abs(now - sent_at) > max_skew:
        raise IntakeRefused(
            "stale",
            f"The delivery is signed at {sent_at.isoformat()}, more than "
            f"{int(max_skew.total_seconds())} s from now: send it again with a new "
            "timestamp (and check the sender's clock).",
        )
    return Signer(tenants[0], source)


def _signature_headers(headers: Mapping[str, str]) -> tuple[IntakeSource, str, str]:
    sources = known_sources().values()
    for source in sources:
        signature = headers.get(source.signature_header)
        if signature is None:
            continue
        timestamp = headers.get(source.timestamp_header)
        if not timestamp:
            raise IntakeRefused(
                "unsigned", f"{source.signature_header} needs {source.timestamp_header}."
            )
        return source.name, signature.strip(), timestamp.strip()
    names = " or ".join(source.signature_header for source in sources)
    raise IntakeRefused("unsigned", f"The delivery is not signed: send {names}.")


def _timestamp(text: str) -> datetime:
    if len(text) > MAX_TIMESTAMP_CHARS:
        raise IntakeRefused("malformed", "The timestamp header is too long.")
    try:
        if text.isdigit():
            return datetime.fromtimestamp(int(text), UTC)
        parsed = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise IntakeRefused(
            "malformed", "The timestamp is neither ISO 8601 nor Unix seconds."
        ) from None
    if parsed.tzinfo is None:
        raise IntakeRefused("malformed", "The timestamp has no time zone; send it in UTC.")
    return parsed.astimezone(UTC)
