"""`GET /runs/{run_id}/events`: the run page's live stream (server-sent events).

The same checks as the page: a signed-in reviewer, and a run of their tenant (another
tenant's run is not found, and no stream is opened). The stream learns of changes from
the run's history (signoff/service/run_watch.py), closes when the run ends or its
lifetime runs out, and stops at once when the browser goes away (the server cancels
it; its slot is given back). Open streams are bounded (approvals_ui/live_streams.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Annotated

from fastapi import APIRouter, Header, HTTPException, Query, Request, status
from fastapi.responses import StreamingResponse
from starlette.background import BackgroundTask

from approvals_ui.deps import CurrentReviewer, EngineDep, TemporalDep
from approvals_ui.live_streams import LiveStreams, Slot, TooManyStreams
from approvals_ui.lookups import run_context, run_for_reviewer
from approvals_ui.run_stream import sse_stream
from signoff.service.run_control import changes_of

router = APIRouter(prefix="/runs", tags=["runs"])
EVENT_STREAM = "text/event-stream"


def live_streams(request: Request) -> LiveStreams:
    settings = request.app.state.settings
    streams = getattr(request.app.state, "live_streams", None)
    if streams is None:
        streams = LiveStreams(settings.ui_live_streams, settings.ui_live_streams_per_reviewer)
        request.app.state.live_streams = streams
    assert isinstance(streams, LiveStreams)
    return streams


def seen_of(after: int, last_event_id: str | None) -> int:
    """How many timeline entries the browser shows: the id of the last entries event
    it received when it reconnects, else what the page said it rendered."""
    if last_event_id is not None and last_event_id.isdigit():
        return int(last_event_id)
    return after


@router.get("/{run_id}/events")
async def run_events(
    request: Request,
    run_id: str,
    reviewer: CurrentReviewer,
    client: TemporalDep,
    engine: EngineDep,
    after: Annotated[int, Query(ge=0, description="Timeline entries the page shows.")] = 0,
    last_event_id: Annotated[str | None, Header()] = None,
) -> StreamingResponse:
    state = await run_for_reviewer(client, run_id, reviewer)
    context = await run_context(engine, state)
    try:
        slot = live_streams(request).take(reviewer.id)
    except TooManyStreams as error:
        raise HTTPException(status.HTTP_503_SERVICE_UNAVAILABLE, error.message) from None

    changes = changes_of(client, run_id, seen_of(after, last_event_id))
    settings = request.app.state.settings
    stream = sse_stream(
        changes, context.ticket_text, context.customer_name, settings.ui_live_stream_seconds
    )
    return StreamingResponse(
        _released(stream, slot),
        media_type=EVENT_STREAM,
        headers={"X-Accel-Buffering": "no"},  # a proxy in front must not hold messages back
        background=BackgroundTask(slot.release),
    )


async def _released(stream: AsyncIterator[str], slot: Slot) -> AsyncIterator[str]:
    """The stream, giving its slot back however it ends (cancelled when the browser
    went away, or closed); the response's background task does too, once."""
    try:
        async for text in stream:
            yield text
    finally:
        slot.release()
