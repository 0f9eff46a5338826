"""One refund run, watched as an operator would: its trace, its log lines, its metrics.

A single run (T-1042: read the ticket, look the order up, propose a refund, alice
approves, the ledger refunds, the agent answers) on the production worker, with an
Anthropic key in the environment (`observed_run.py`). Then:
- the spans form one trace rooted at the run's start, with a span for every model
  turn, tool call, the approval wait (from pending to decision) and the refund, and
  the attributes an operator filters on;
- no attribute anywhere holds the ticket's words, the model's reason or its answer;
- every log line about the run names the run, the tenant and the trace, and no line
  holds the ticket's words, the model's text or a key;
- `/metrics`, scraped before, while the refund waits and after, moved as the run did.
"""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import Engine

from activities.store import get_ticket, use_session
from tests.conftest import SharedTimeSkippingServer, fresh_demo_store
from tests.workflow.observed_run import ObservedRun, observed_refund_run, observed_settings

API_KEY = "sk-ant-observability-test-5f1c0e6b9d2a4e7f"
# Words of five letters or more: shorter ones ("box", "the") could be part of an id.
WORD = re.compile(r"[A-Za-z]{5,}")


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path) -> Iterator[Engine]:
    home = tmp_path_factory.mktemp("observed")
    engine = fresh_demo_store(demo_store_template, home / "signoff.db")
    yield engine
    engine.dispose()


@pytest.fixture(scope="module")
async def run(
    shared_time_skipping: SharedTimeSkippingServer, engine: Engine
) -> AsyncIterator[ObservedRun]:
    time_skipping_env = await shared_time_skipping.current()
    home = Path(str(engine.url.database)).parent
    with pytest.MonkeyPatch.context() as environment:
        environment.setenv("ANTHROPIC_API_KEY", API_KEY)
        settings = observed_settings(home)
        assert settings.anthropic_api_key is not None  # the worker holds the key
        yield await observed_refund_run(time_skipping_env, engine, settings)


def ticket_words(engine: Engine) -> set[str]:
    with use_session(engine) as session:
        ticket = get_ticket(session, "demo", "T-1042")
        assert ticket is not None
        return {w.lower() for w in WORD.findall(f"{ticket.text} {ticket.customer_name}")}


def model_texts(run: ObservedRun) -> list[str]:
    """What the model wrote: its reason for the refund and its answer."""
    assert run.outcome.final_text
    return [run.pending.reason, run.outcome.final_text]


def run_spans(run: ObservedRun) -> list[ReadableSpan]:
    """The spans of the run's trace (the test's own state queries make traces of their own)."""
    [root] = [s for s in run.spans if s.name == "StartWorkflow:AgentRun"]
    assert root.context is not None
    return [s for s in run.spans if s.context and s.context.trace_id == root.context.trace_id]


def named(spans: list[ReadableSpan], name: str) -> list[ReadableSpan]:
    return [s for s in spans if s.name == name]


def attributes(span: ReadableSpan) -> dict[str, Any]:
    return dict(span.attributes or {})


def parent_name(spans: list[ReadableSpan], span: ReadableSpan) -> str | None:
    assert span.parent is not None
    [parent] = [s for s in spans if s.context and s.context.span_id == span.parent.span_id]
    return parent.name


def path_to_root(spans: list[ReadableSpan], span: ReadableSpan) -> list[str]:
    """Span names up to the first whose parent was not exported (the run's trace root)."""
    by_id = {s.context.span_id: s for s in spans if s.context}
    names = [span.name]
    while span.parent is not None and span.parent.span_id in by_id:
        span = by_id[span.parent.span_id]
        names.append(span.name)
    return names


def test_the_run_is_one_trace_with_a_span_per_step(run: ObservedRun) -> None:
    spans = run_spans(run)
    assert run.outcome.status == "completed" and run.outcome.effects_performed
    [start] = named(spans, "StartWorkflow:AgentRun")
    # The run's trace is rooted at the starter's `invoke_agent support` span, whose
    # parent is the trace the run's request names (`run_trace`), never exported, so that
    # a starter that exports nothing still gives the worker's spans one trace.
    [root] = named(spans, "invoke_agent support")
    assert root.context is not None and root.context.trace_id == int(run.trace_id, 16)
    assert root.parent is not None and root.parent.is_remote
    assert path_to_root(spans, start) == [start.name, root.name]
    assert parent_name(spans, named(spans, "RunWorkflow:AgentRun")[0]) == start.name

    turns = named(spans, f"chat {run.outcome.model.model_id}")
    assert len(turns) == run.outcome.turns_used == 4
    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    assert [attributes(s)["signoff.tool"] for s in tools] == ["read_ticket", "get_order"]
    [wait] = named(spans, "signoff.approval_wait")
    [refund] = named(spans, "signoff.refund")
    for span, activity in [
        *((turn, "model_turn") for turn in turns),
        *((tool, "run_tool") for tool in tools),
        (wait, "execute_refund"),  # the approval's row is written with the refund
        (refund, "execute_refund"),
    ]:
        # Each inside its activity's span, inside the run's trace, up to the start.
        assert path_to_root(spans, span) == [
            span.name,
            f"RunActivity:{activity}",
            f"StartActivity:{activity}",
            start.name,
            root.name,
        ]
        assert attributes(span)["signoff.tenant"] == "demo"
        assert attributes(span)["signoff.run_id"] == run.run_id

    assert sum(attributes(t)["gen_ai.usage.input_tokens"] for t in turns) == (
        run.outcome.usage.input_tokens
    )
    assert sum(attributes(t)["gen_ai.usage.output_tokens"] for t in turns) == (
        run.outcome.usage.output_tokens
    )
    assert {attributes(t)["signoff.cost_usd"] for t in turns} == {"0"}  # scripted: free

    # The approval wait runs from the moment the action was pending to the decision.
    assert attributes(wait)["signoff.verdict"] == "approved"
    assert attributes(wait)["signoff.mode"] == run.pending.mode == "confirm"
    assert wait.start_time == int(run.pending.requested_at.timestamp() * 1e9)
    [approved] = [d for d in run.outcome.decisions if d.kind == "approved"]
    assert wait.end_time == int(approved.at.timestamp() * 1e9)
    assert attributes(refund)["signoff.refund_status"] == "refunded"
    assert attributes(refund)["signoff.amount_minor"] == 8990


def test_spans_follow_the_genai_conventions(run: ObservedRun) -> None:
    """OpenTelemetry's GenAI semantic conventions: the run's start is `invoke_agent
    {agent}`, a model turn `chat {model}`, a tool call `execute_tool {tool}`, each with
    the conventions' attributes."""
    spans = run_spans(run)
    model = run.outcome.model
    [invoked] = named(spans, "invoke_agent support")
    assert attributes(invoked) == {
        "gen_ai.operation.name": "invoke_agent",
        "gen_ai.agent.name": "support",
        "gen_ai.provider.name": "signoff.scripted",
        "gen_ai.request.model": model.model_id,
        "signoff.tenant": "demo",
        "signoff.run_id": run.run_id,
    }
    turns = named(spans, f"chat {model.model_id}")
    assert turns
    for turn in turns:
        found = attributes(turn)
        assert found["gen_ai.operation.name"] == "chat"
        assert found["gen_ai.request.model"] == model.model_id
        assert found["gen_ai.provider.name"] == "signoff.scripted"  # the scripted model
        assert isinstance(found["gen_ai.usage.input_tokens"], int)
        assert isinstance(found["gen_ai.usage.output_tokens"], int)
        assert found["gen_ai.response.finish_reasons"] in (("tool_use",), ("end_turn",))
        assert found["signoff.model"] == model.label()  # ours, beside theirs
    assert attributes(turns[-1])["gen_ai.response.finish_reasons"] == ("end_turn",)

    tools = [s for s in spans if s.name.startswith("execute_tool ")]
    calls = {call.tool_use_id: call.name for call in run.outcome.tool_calls}
    assert len(tools) == 2
    for tool in tools:
        found = attributes(tool)
        assert tool.name == f"execute_tool {found['gen_ai.tool.name']}"
        assert found["gen_ai.operation.name"] == "execute_tool"
        assert calls[found["gen_ai.tool.call.id"]] == found["gen_ai.tool.name"]
        assert found["gen_ai.tool.type"] == "function"
        assert found["signoff.tool_result"] == "ok"
    assert not [s for s in spans if s.name.startswith("signoff.model_turn")]


def test_no_attribute_holds_ticket_or_model_text(run: ObservedRun, engine: Engine) -> None:
    values: list[str] = []
    for span in run.spans:  # every span the run made, in its trace or not
        values += [str(v) for v in attributes(span).values()]
        for event in span.events:
            values += [str(v) for v in (event.attributes or {}).values()]
        values += [span.name, str(span.status.description or "")]
    text = "\n".join(values).lower()
    words = ticket_words(engine)
    assert {"parcel", "crushed", "broken", "dupont"} <= words  # the check has teeth
    assert [w for w in words if w in text] == []
    for written in model_texts(run):
        assert written.lower() not in text


def test_log_lines_name_run_tenant_and_trace_and_never_text_or_key(
    run: ObservedRun, engine: Engine
) -> None:
    lines = [json.loads(line) for line in run.log_text.splitlines()]
    [root] = named(run_spans(run), "StartWorkflow:AgentRun")
    assert root.context is not None
    trace_id = format(root.context.trace_id, "032x")
    about_run = [line for line in lines if line["run_id"] == run.run_id]
    messages = [line["message"] for line in about_run]
    assert sum(m.startswith("model turn:") for m in messages) == run.outcome.turns_used
    assert any(m.startswith("decision approved (mode confirm)") for m in messages)
    assert "run finished: completed (answered)" in messages
    for line in about_run:
        assert (line["tenant"], line["trace_id"]) == ("demo", trace_id), line

    everything = run.log_text.lower()
    assert [w for w in ticket_words(engine) if w in everything] == []
    for written in model_texts(run):
        assert written.lower() not in everything
    assert API_KEY.lower() not in everything


def samples(scrape: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(scrape)
        for sample in family.samples
    }


def test_metrics_moved_with_the_run(run: ObservedRun) -> None:
    before, waiting, after = (
        samples(run.scrape_before),
        samples(run.scrape_waiting),
        samples(run.scrape_after),
    )

    def moved(name: str, **labels: str) -> float:
        key = (name, tuple(sorted(labels.items())))
        return after.get(key, 0.0) - before.get(key, 0.0)

    usage = run.outcome.usage
    assert (
        moved("signoff_runs_total", workflow="AgentRun", status="completed", reason="answered") == 1
    )
    assert moved("signoff_approvals_total", verdict="approved", mode="confirm") == 1
    assert moved("signoff_approval_wait_seconds_count", verdict="approved", mode="confirm") == 1
    assert moved("signoff_model_tokens_total", model="scripted:demo", kind="input") == (
        usage.input_tokens
    )
    assert moved("signoff_model_tokens_total", model="scripted:demo", kind="output") == (
        usage.output_tokens
    )
    assert moved("signoff_model_turns_total", model="scripted:demo", stop_reason="end_turn") == 1
    assert moved("signoff_tool_calls_total", tool="read_ticket", result="ok") == 1
    assert moved("signoff_refunds_total", status="refunded") == 1
    # Read from the store at each scrape: one waits while the reviewer decides.
    assert waiting[("signoff_pending_actions", ())] == 1
    assert after[("signoff_pending_actions", ())] == 0
