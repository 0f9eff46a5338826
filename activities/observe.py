"""Spans, metrics and log lines of what the activities do, in one place.

Design note. Each activity already runs inside the `RunActivity:<name>` span that
Temporal's tracing interceptor opened from the run's trace context, so a span opened
here is a child in the run's one trace. What goes on a span or a log line: the tenant,
the run id, the tool, the model, the mode and verdict of a decision, token counts,
cost, the refund's status, amount and hashes. What never does: ticket text, a prompt,
model output, a reviewer's reason or any secret (the test in
`tests/workflow/test_observability.py` looks for the ticket's words in every attribute).

Model turns and tool calls follow OpenTelemetry's GenAI semantic conventions: a turn
is `chat {model}` and a call `execute_tool {tool}`, with the conventions' `gen_ai.*`
attributes and our `signoff.*` ones beside them. The run's trace is rooted at the
starter's `invoke_agent {agent}` span (signoff/config/telemetry.py): an agent run is a
workflow that lives for minutes or days, across workers and replays, so the invocation
span ends once Temporal holds the run, and everything the run does is its descendant.

The approval wait cannot be a span the workflow opens and closes: workflow code does
no I/O and replays. It is emitted at decision time by `record_decision`, the activity
that writes each decision to the audit, with its start set to the moment the action
started to wait (`DecisionEvent.requested_at`, workflow time) and its end to the
decision's time.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from decimal import Decimal

from opentelemetry.trace import Span, SpanKind, Status, StatusCode
from opentelemetry.util.types import AttributeValue
from temporalio import activity

from activities import metrics
from activities.store.decisions import audit_kind
from signoff.config.run_identity import run_identity
from signoff.config.telemetry import GEN_AI_PROVIDER_NAMES, tracer
from workflows.actions import DecisionEvent, RefundCommand, RefundResult
from workflows.contracts import ModelPrice, ModelReply, ModelRequest, ToolCallInput, ToolResult

logger = logging.getLogger("signoff.activity")
# OpenTelemetry's GenAI semantic conventions: the operations and their attribute.
GEN_AI_OPERATION = "gen_ai.operation.name"
CHAT = "chat"
EXECUTE_TOOL = "execute_tool"
# `error.type` of a call that gave the model an error result (unknown tool, invalid
# arguments, refusal, timeout, exception: `signoff.tool_result` is `error`).
TOOL_ERROR = "tool_error"
# The decision kinds that end an action's wait; a first approval of two does not.
WAIT_ENDS = frozenset({"approved", "rejected", "responded", "expired", "cancelled"})


def run_attributes() -> dict[str, str]:
    """The run and tenant of the activity that is running (empty outside one)."""
    if not activity.in_activity():
        return {}
    identity = run_identity(activity.info().workflow_id or "")
    attributes = {"signoff.run_id": identity.run_id}
    if identity.tenant is not None:
        attributes["signoff.tenant"] = identity.tenant
    return attributes


def _epoch_ns(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)


# --- model turns ---------------------------------------------------------------------


@contextmanager
def model_turn_span(request: ModelRequest) -> Iterator[Span]:
    """`chat {model}`: one model turn, as the GenAI conventions name an inference."""
    model = request.model
    attributes: dict[str, AttributeValue] = {
        **run_attributes(),
        GEN_AI_OPERATION: CHAT,
        "gen_ai.provider.name": GEN_AI_PROVIDER_NAMES[model.provider],
        "gen_ai.request.model": model.model_id,
        "gen_ai.request.max_tokens": request.max_tokens,
        "signoff.model": model.label(),
    }
    # The conventions' kind for a call to a model in the same process is INTERNAL.
    kind = SpanKind.INTERNAL if model.scripted else SpanKind.CLIENT
    name = f"{CHAT} {model.model_id}"
    with tracer().start_as_current_span(name, kind=kind, attributes=attributes) as span:
        yield span


def model_replied(
    span: Span, request: ModelRequest, reply: ModelReply, price: ModelPrice | None
) -> None:
    usage, model = reply.usage, request.model.label()
    cost = price.cost(usage) if price is not None else None
    span.set_attribute("gen_ai.response.finish_reasons", [reply.stop_reason])
    if reply.model_id:
        span.set_attribute("gen_ai.response.model", reply.model_id)
    span.set_attribute("gen_ai.usage.input_tokens", usage.input_tokens)
    span.set_attribute("gen_ai.usage.output_tokens", usage.output_tokens)
    span.set_attribute(
        "gen_ai.usage.cache_creation.input_tokens", usage.cache_creation_input_tokens
    )
    span.set_attribute("gen_ai.usage.cache_read.input_tokens", usage.cache_read_input_tokens)
    if cost is not None:
        span.set_attribute("signoff.cost_usd", str(cost))
    metrics.MODEL_TURNS.labels(model, reply.stop_reason).inc()
    for kind, count in (
        ("input", usage.input_tokens),
        ("output", usage.output_tokens),
        ("cache_write", usage.cache_creation_input_tokens),
        ("cache_read", usage.cache_read_input_tokens),
    ):
        metrics.MODEL_TOKENS.labels(model, kind).inc(count)
    if cost is not None:
        metrics.MODEL_COST.labels(model).inc(float(cost))  # a sample is a float (metrics.py)
    logger.info(
        "model turn: %s stopped on %s, tokens in %d out %d, cost %s USD",
        model,
        reply.stop_reason,
        usage.input_tokens,
        usage.output_tokens,
        "unknown" if cost is None else _usd(cost),
    )


def model_failed(span: Span, request: ModelRequest, error: BaseException) -> None:
    kind = getattr(error, "type", None) or type(error).__name__
    span.set_status(Status(StatusCode.ERROR, kind))
    span.set_attribute("error.type", kind)
    span.set_attribute("signoff.error", kind)
    metrics.MODEL_ERRORS.labels(request.model.label(), kind).inc()
    logger.warning("model turn failed: %s (%s)", request.model.label(), kind)


def _usd(cost: Decimal) -> str:
    return f"{cost:.6f}"


# --- tool calls ----------------------------------------------------------------------


@contextmanager
def tool_call_span(call: ToolCallInput) -> Iterator[Span]:
    """`execute_tool {tool}`: one tool call the model asked for, as the conventions say."""
    attributes: dict[str, AttributeValue] = {
        **run_attributes(),
        GEN_AI_OPERATION: EXECUTE_TOOL,
        "gen_ai.tool.name": call.name,
        "gen_ai.tool.call.id": call.tool_use_id,
        "gen_ai.tool.type": "function",
        "signoff.tool": call.name,
    }
    name = f"{EXECUTE_TOOL} {call.name}"
    with tracer().start_as_current_span(
        name, kind=SpanKind.INTERNAL, attributes=attributes
    ) as span:
        yield span


def tool_answered(span: Span, call: ToolCallInput, result: ToolResult) -> None:
    outcome = "error" if result.is_error else "ok"
    span.set_attribute("signoff.tool_result", outcome)
    if result.is_error:
        span.set_status(Status(StatusCode.ERROR, "error result"))
        span.set_attribute("error.type", TOOL_ERROR)
        metrics.TOOL_ERRORS.labels(call.name).inc()
    metrics.TOOL_CALLS.labels(call.name, outcome).inc()
    logger.info("tool %s: %s", call.name, outcome)


# --- refunds -------------------------------------------------------------------------


@contextmanager
def refund_span(command: RefundCommand) -> Iterator[Span]:
    attributes: dict[str, AttributeValue] = {
        **run_attributes(),
        "signoff.tenant": command.tenant_id,
        "signoff.run_id": command.run_id,
        "signoff.tool": "refund",
        "signoff.order_id": command.order_id,
        "signoff.amount_minor": command.amount_minor,
        "signoff.currency": command.currency,
        "signoff.action_hash": command.action_hash,
        "signoff.approvals": len(command.approvers),
    }
    with tracer().start_as_current_span("signoff.refund", attributes=attributes) as span:
        try:
            yield span
        except Exception as error:
            metrics.REFUNDS.labels("error").inc()
            span.set_attribute("signoff.refund_status", "error")
            logger.warning("refund attempt failed: %s", type(error).__name__)
            raise


def refund_answered(span: Span, result: RefundResult, *, replayed: bool = False) -> None:
    """Count the ledger's answer; a refund its key had already made counts as `replayed`,
    never as a second `refunded` (a retried activity, or a worker that died after the
    commit)."""
    status = "replayed" if replayed else result.status
    span.set_attribute("signoff.refund_status", status)
    metrics.REFUNDS.labels(status).inc()  # logged by the activity itself


# --- decisions -----------------------------------------------------------------------


def decision_recorded(event: DecisionEvent) -> None:
    """Count the decision; at the end of an action's wait, its span and its duration."""
    record = event.record
    verdict = audit_kind(event)
    mode = event.mode or "none"
    metrics.APPROVALS.labels(verdict, mode).inc()
    if verdict not in WAIT_ENDS or event.requested_at is None:
        logger.info("decision %s (mode %s) on %s", verdict, mode, record.action_hash)
        return
    waited = max(0.0, (record.at - event.requested_at).total_seconds())
    metrics.APPROVAL_WAIT.labels(verdict, mode).observe(waited)
    attributes: dict[str, AttributeValue] = {
        **run_attributes(),
        "signoff.tenant": event.tenant_id,
        "signoff.run_id": event.run_id,
        "signoff.tool": "refund",
        "signoff.mode": mode,
        "signoff.verdict": verdict,
        "signoff.action_hash": record.action_hash,
        "signoff.wait_seconds": waited,
    }
    if event.approvals_required is not None:
        attributes["signoff.approvals_required"] = event.approvals_required
    span = tracer().start_span(
        "signoff.approval_wait", attributes=attributes, start_time=_epoch_ns(event.requested_at)
    )
    span.end(end_time=_epoch_ns(max(record.at, event.requested_at)))
    logger.info(
        "decision %s (mode %s) on %s after %.0f s", verdict, mode, record.action_hash, waited
    )
