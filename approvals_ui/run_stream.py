"""The run page's live stream, as server-sent events for htmx's SSE extension.

Each change of the run (signoff/service/run_watch.py) becomes up to three events, each
swapped into its own part of the page (run.html):
- `state`: the summary, status, outcome, waiting requests and decisions, whole, with
  the page's title and its crumbs ("Decide" while something waits), which htmx sets
  beside the swap (a `<title>`, and an out-of-band swap: _run_live_head.html);
- `numbers`: tokens, cost per turn and tool calls, inside the disclosure, whose open
  or closed state the reader chose and the swap keeps;
- `entries`: the timeline's new entries, appended; its `id` is how many entries the
  page then shows, so a browser that reconnects (`Last-Event-ID`) gets only the rest.
Then `ended` once the run ended, on which the page closes its stream. A comment line
keeps the connection alive while nothing happens, and tells the server of a browser
that went away. Every fragment is rendered by the page's own templates, escaped, in
the language of the page that opened the stream.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime

from approvals_ui.run_summary import summarize
from approvals_ui.templating import page_context, templates
from signoff.service.run_watch import RunChange
from workflows.contracts import RunEvent, RunState

RECONNECT_MILLISECONDS = 3000
KEEP_ALIVE = ": nothing new\n\n"


def message(event: str, html: str, event_id: int | None = None) -> str:
    """One SSE message; every line of `html` goes on a `data:` line of its own."""
    lines = [f"event: {event}"]
    if event_id is not None:
        lines.append(f"id: {event_id}")
    lines += [f"data: {line}" for line in (html.splitlines() or [""])]
    return "\n".join(lines) + "\n\n"


def state_html(
    state: RunState, ticket_text: str | None, customer: str | None, language: str
) -> str:
    context = page_context(language, datetime.now(UTC))
    summary = summarize(
        state, ticket_text, customer, context["now"], context["translations"], language
    )
    values = {"state": state, "summary": summary, **context}
    # The page's title and its crumbs travel with the state, out of the swapped part.
    head = templates.env.get_template("_run_live_head.html").render(**values)
    return head + templates.env.get_template("_run_state.html").render(**values)


def numbers_html(state: RunState, language: str) -> str:
    context = page_context(language, datetime.now(UTC))
    return templates.env.get_template("_run_numbers.html").render(state=state, **context)


def entries_html(events: Sequence[RunEvent], language: str) -> str:
    context = page_context(language, datetime.now(UTC))
    template = templates.env.get_template("_run_event.html")
    return "".join(template.render(event=event, **context) for event in events)


def messages_of(
    change: RunChange, ticket_text: str | None, customer: str | None, language: str
) -> str:
    """The SSE messages of one change (a keep-alive comment when nothing changed)."""
    if change.keep_alive:
        return KEEP_ALIVE
    parts = []
    if change.state is not None:
        parts.append(message("state", state_html(change.state, ticket_text, customer, language)))
        parts.append(message("numbers", numbers_html(change.state, language)))
    if change.events:
        parts.append(message("entries", entries_html(change.events, language), change.seen))
    if change.ended:
        parts.append(message("ended", "The run has ended."))  # htmx closes on it; not shown
    return "".join(parts)


async def sse_stream(
    changes: AsyncIterator[RunChange],
    ticket_text: str | None,
    customer: str | None,
    lifetime_seconds: float,
    language: str,
) -> AsyncIterator[str]:
    """The stream's text, until the run ends or the stream's lifetime runs out (the
    browser then reconnects where it left off, and is signed in again)."""
    yield f"retry: {RECONNECT_MILLISECONDS}\n\n"
    started = time.monotonic()
    async for change in changes:
        yield messages_of(change, ticket_text, customer, language)
        if change.ended:
            return
        if time.monotonic() - started >= lifetime_seconds:
            return
