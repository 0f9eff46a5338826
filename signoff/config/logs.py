"""Log lines as JSON (`SIGNOFF_LOG_FORMAT=json`), each naming its run, tenant and trace.

Design note. What a line may carry is decided where it is written: our log calls name
ids, counts, statuses and tool names, never ticket text, model text or a reviewer's
password. The formatter adds what a line is about: the run (the workflow id of the
activity or workflow that logged it, or of the activity whose task logged it through
another library), its tenant (`run_identity.py`) and the current OpenTelemetry trace
and span. As a last guard it blanks every secret the settings hold (the Anthropic key,
the decision key, the UI secret, the database password) wherever it appears in a line.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from opentelemetry import trace
from temporalio import activity

from signoff.config.run_identity import run_identity
from signoff.config.settings import Settings

REDACTED = "[redacted]"
# Shorter strings are not secrets worth a replace on every line (and would blank words).
MIN_SECRET_CHARS = 8
TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class JsonFormatter(logging.Formatter):
    def __init__(self, secrets: Iterable[str] = ()) -> None:
        super().__init__()
        self._secrets = sorted(
            {s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True
        )

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

    def _redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text


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
    """Every secret value the settings hold, to be blanked from log lines."""
    found = [
        secret.get_secret_value()
        for secret in (settings.anthropic_api_key, settings.reviewer_token, settings.ui_secret)
        if secret is not None
    ]
    if settings.database_url:
        password = urlsplit(settings.database_url).password
        if password:
            found.append(password)
    return found


def configure_logging(settings: Settings, stream: Any = None) -> logging.Handler:
    """One handler on the root logger, in the settings' format and level."""
    handler = logging.StreamHandler(stream or sys.stderr)
    if settings.log_format == "json":
        handler.setFormatter(JsonFormatter(settings_secrets(settings)))
    else:
        handler.setFormatter(logging.Formatter(TEXT_FORMAT))
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "signoff_handler", False)]:
        root.removeHandler(old)
    handler.signoff_handler = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(settings.log_level or ("INFO" if settings.log_format == "json" else "WARNING"))
    return handler
