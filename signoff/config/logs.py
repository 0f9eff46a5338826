"""Log lines as JSON (`SIGNOFF_LOG_FORMAT=json`), each naming its run, tenant and trace.

Design note. What a line may carry is decided where it is written: our log calls name
ids, counts, statuses and tool names, never ticket text, model text or a reviewer's
password. The formatter adds what a line is about: the run (the workflow id of the
activity or workflow that logged it, or of the activity whose task logged it through
another library), its tenant (`run_identity.py`) and the current OpenTelemetry trace
and span. As a last guard it blanks every secret the settings hold (the model keys,
the decision key, the UI secret, the database password) wherever it appears in a line.

Every secret the settings hold or name is blanked: the model providers' keys (each
provider declares its own, signoff/models),
the Temporal API key (or its file's content), the decision key and the UI secret (set,
or generated into home), the database passwords (the store's and the migration
owner's), the webhook URL (it carries its token in its path), the payload keys, the
metrics token, the caller's API token (SIGNOFF_TOKEN), the helpdesk intake's signing
secrets and the helpdesk connectors' credentials; in JSON and text lines alike.
httpx and httpcore log every request's URL at INFO: they are held to WARNING, and the
webhook URL would be blanked anyway.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

from opentelemetry import trace
from temporalio import activity

from signoff.config.helpdesks import (
    HelpdeskConfigError,
    connector_secrets,
    load_helpdesk_connectors,
    load_intake_secrets,
)
from signoff.config.run_identity import run_identity
from signoff.config.settings import Settings
from signoff.models.registry import known_providers
from signoff.payments.registry import platform_secrets

REDACTED = "[redacted]"
# Shorter strings are not secrets worth a replace on every line (and would blank words).
MIN_SECRET_CHARS = 8
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"
# Libraries that name every request's URL (a webhook's token) at INFO.
URL_LOGGERS = ("httpx", "httpcore")
# Secrets generated into home when unset (the UI's sessions; the decision keys are a key ring
# no log line holds: signoff/config/decision_keys.py).
GENERATED_SECRET_FILES = ("ui-secret",)


class Redactor:
    """Blanks each known secret, longest first (a secret that holds another goes whole)."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True
        )

    def __call__(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


class RedactingTextFormatter(logging.Formatter):
    """The text format, with secrets blanked from the message and any traceback."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__(TEXT_FORMAT)
        self._redact = Redactor(secrets)

    def format(self, record: logging.LogRecord) -> str:
        return self._redact(super().format(record))


class JsonFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._redact = Redactor(secrets)

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
            "message": self._redact(record.getMessage()),
        }
        entry.update(_run_fields(record))
        entry.update(_trace_fields(record))
        if record.exc_info:
            entry["exception"] = self._redact(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False, default=str)


def _run_fields(record: logging.LogRecord) -> dict[str, Any]:
    details: dict[str, Any] | None = getattr(record, "temporal_activity", None) or getattr(
        record, "temporal_workflow", None
    )
    workflow_id = details.get("workflow_id") if details else None
    kind = (details or {}).get("activity_type") or (details or {}).get("workflow_type")
    if workflow_id is None and activity.in_activity():
        info = activity.info()
        workflow_id, kind = info.workflow_id, info.activity_type
    if not workflow_id:
        return {"run_id": None, "tenant": None}
    identity = run_identity(workflow_id)
    fields: dict[str, Any] = {"run_id": identity.run_id, "tenant": identity.tenant}
    if kind:
        fields["step"] = kind
    return fields


def _trace_fields(record: logging.LogRecord) -> dict[str, Any]:
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        # A line written outside the run's span names its trace itself (a run's end).
        return {"trace_id": getattr(record, "signoff_trace_id", None)}
    return {
        "trace_id": trace.format_trace_id(context.trace_id),
        "span_id": trace.format_span_id(context.span_id),
    }


def settings_secrets(settings: Settings) -> list[str]:
    """Every secret value the settings hold or name, to be blanked from log lines."""
    held = (
        settings.ui_secret,
        settings.temporal_api_key,
        settings.metrics_token,
        settings.payload_keys,
        settings.token,  # the caller's own API token (SIGNOFF_TOKEN)
    )
    found = [secret.get_secret_value() for secret in held if secret is not None]
    for provider in known_providers().values():  # the model keys, as each provider declares
        found += provider.secrets(settings)
    if settings.payload_keys is not None:  # each key alone, should one be printed apart
        for entry in settings.payload_keys.get_secret_value().split(","):
            found.append(entry.partition(":")[2].strip())
    owner = settings.migration_database_url  # the schema owner's, for migrations
    for url in (settings.database_url, owner.get_secret_value() if owner else None):
        password = urlsplit(url).password if url else None
        if password:
            found += [password, unquote(password)]
    if settings.notify_webhook_url:
        webhook = urlsplit(settings.notify_webhook_url)
        found += [settings.notify_webhook_url, webhook.path, webhook.query]
    files = [settings.home / name for name in GENERATED_SECRET_FILES]
    if settings.temporal_api_key_file is not None:
        files.append(settings.temporal_api_key_file)
    found += [text for text in map(_file_secret, files) if text]
    found += _private_decision_keys(settings.signing_keys_path)
    found += platform_secrets(settings)  # each payment platform's keys
    found += _helpdesk_secrets(settings)
    return found


def _helpdesk_secrets(settings: Settings) -> list[str]:
    """The intake's signing secrets and the helpdesk connectors' credentials, where this
    process can read their files (one it cannot use is refused where it is used)."""
    found: list[str] = []
    with contextlib.suppress(HelpdeskConfigError):
        found += load_intake_secrets(settings.intake_secrets).values()
    with contextlib.suppress(HelpdeskConfigError):
        found += connector_secrets(load_helpdesk_connectors(settings.helpdesk_connectors))
    return found


def _private_decision_keys(path: Path) -> list[str]:
    """The decision service's private keys (hex), where its key ring is on this host."""
    text = _file_secret(path)
    try:
        ring = json.loads(text) if text else {}
    except ValueError:
        return []
    keys = ring.get("private_keys") if isinstance(ring, dict) else None
    return [key for key in keys.values() if isinstance(key, str)] if isinstance(keys, dict) else []


def _file_secret(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):  # not there (yet), or not ours to read
        return None


def configure_logging(settings: Settings, stream: Any = None) -> logging.Handler:
    """One handler on the root logger, in the settings' format and level."""
    handler = logging.StreamHandler(stream or sys.stderr)
    secrets = settings_secrets(settings)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter(secrets))
    else:
        handler.setFormatter(RedactingTextFormatter(secrets))
    for name in URL_LOGGERS:
        logging.getLogger(name).setLevel(logging.WARNING)
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "signoff_handler", False)]:
        root.removeHandler(old)
    handler.signoff_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(settings.log_level or ("INFO" if settings.log_format == "json" else "WARNING"))
    return handler
