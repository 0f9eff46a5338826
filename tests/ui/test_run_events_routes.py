"""The run page's live stream, `GET /runs/{run_id}/events`, over real HTTP (uvicorn) on
the dev stack: what it sends as the run goes on, that it closes when the run ends, that
it asks the same proof as the page (signed in, the run's tenant), that a reconnecting
browser gets only what it missed, and that its connections are bounded and given back
when a browser goes away."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import pytest
from sqlalchemy import Engine

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.live_ui import served
from tests.ui.conftest import DevStack, RefundCase, add_case, sign_in, wait_until_pending
from tests.ui.default_ids import decide_as, start_default_run

pytestmark = pytest.mark.devserver

STREAM = {"Accept": "text/event-stream"}
# Longer than Temporal's long poll, after which the stream sends at least a keep-alive.
READ_SECONDS = 90
RELEASE_SECONDS = 30


@dataclass(frozen=True)
class Message:
    event: str
    data: str
    id: str | None


def messages(response: httpx.Response) -> Iterator[Message]:
    """The stream's messages as an EventSource reads them (comments and `retry` left out)."""
    event, data, event_id = "message", [], None
    for line in response.iter_lines():
        if line == "":
            if data:
                yield Message(event, "\n".join(data), event_id)
            event, data, event_id = "message", [], None
        elif line.startswith("event: "):
            event = line.removeprefix("event: ")
        elif line.startswith("data: "):
            data.append(line.removeprefix("data: "))
        elif line.startswith("id: "):
            event_id = line.removeprefix("id: ")


@contextmanager
def signed_in(url: str, name: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=url, timeout=READ_SECONDS, follow_redirects=False) as client:
        sign_in(client, name)  # type: ignore[arg-type]  # the same calls on plain httpx
        yield client


def crumbs_of(html: str) -> str:
    """The crumbs a state message swaps out of band (the page's element of that id)."""
    found = re.search(
        r'<nav class="crumbs" id="run-crumbs"[^>]* hx-swap-oob="true">.*?</nav>', html
    )
    assert found is not None, html
    return found.group(0)


def entries_of(html: str) -> list[str]:
    return re.findall(r"<li>(.*?)</li>", html, re.DOTALL)


def test_the_stream_sends_each_change_and_closes_when_the_run_ends(
    live_url: str, dev_stack: DevStack, store: Engine
) -> None:
    case = start_default_run(dev_stack, add_case(store))
    action_hash = wait_until_pending(dev_stack, case)
    with (
        signed_in(live_url, "alice") as alice,
        alice.stream("GET", f"/runs/{case.run_id}/events", headers=STREAM) as response,
    ):
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        stream = messages(response)
        first = [next(stream), next(stream), next(stream)]
        assert [message.event for message in first] == ["state", "numbers", "entries"]
        assert 'id="run-status">waiting for approval' in first[0].data
        assert "run-follows" in first[0].data
        # The page's title and its "Decide" link travel with the state (htmx sets a
        # <title> it swaps in, and swaps the crumbs out of band).
        title = f"<title>Ticket {case.ticket_id} · waiting for approval · signoff reviewer</title>"
        assert title in first[0].data
        assert f'<a href="/approvals/{case.run_id}">Decide</a>' in crumbs_of(first[0].data)
        waiting = entries_of(first[2].data)
        assert first[2].id == str(len(waiting))  # the entries the page now shows
        assert any("[approval]" in entry for entry in waiting), waiting

        decide_as(dev_stack, case, action_hash, "approve", "bob", "")
        rest = list(stream)  # to the end: the stream closes by itself

    assert rest[-1].event == "ended"
    states = [message.data for message in rest if message.event == "state"]
    assert 'id="run-status">completed' in states[-1] and "run-follows" not in states[-1]
    assert f"<title>Ticket {case.ticket_id} · completed · signoff reviewer</title>" in states[-1]
    assert "Decide" not in crumbs_of(states[-1])  # nothing waits any more
    assert f"refund 60.00 EUR on order {case.order_id}" in states[-1]
    new = [
        entry
        for message in rest
        if message.event == "entries"
        for entry in entries_of(message.data)
    ]
    assert any("[approval]" in entry and "bob" in entry for entry in new), new
    assert any("[outcome]" in entry for entry in new), new
    assert not set(new) & set(waiting)  # each entry once
    ids = [int(message.id or 0) for message in rest if message.event == "entries"]
    assert ids == sorted(ids) and ids[-1] == len(waiting) + len(new)


def test_a_reconnecting_browser_gets_only_the_entries_it_missed(
    live_url: str, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    url = f"/runs/{pending_case.run_id}/events"
    with signed_in(live_url, "alice") as alice:
        with alice.stream("GET", url, headers=STREAM) as response:
            entries = next(m for m in messages(response) if m.event == "entries")
        shown = len(entries_of(entries.data))
        assert entries.id == str(shown)
        kept = 1
        with alice.stream("GET", url, headers={**STREAM, "Last-Event-ID": str(kept)}) as again:
            resent = next(m for m in messages(again) if m.event == "entries")
        assert entries_of(resent.data) == entries_of(entries.data)[kept:]
        # What the page rendered, when the stream is new: nothing to resend.
        with alice.stream("GET", f"{url}?after={shown}", headers=STREAM) as fresh:
            stream = messages(fresh)
            assert [next(stream).event, next(stream).event] == ["state", "numbers"]


def test_the_stream_asks_the_pages_proof(live_url: str, pending_case: RefundCase) -> None:
    url = f"/runs/{pending_case.run_id}/events"
    with httpx.Client(base_url=live_url, follow_redirects=False) as nobody:
        refused = nobody.get(url, headers=STREAM)
        assert refused.status_code == 401 and refused.json() == {"detail": "Sign in first."}
    with signed_in(live_url, "carol") as carol:  # tenant globex
        other = carol.get(url, headers=STREAM)
        assert other.status_code == 404, other.text
        assert "text/event-stream" not in other.headers["content-type"]
        assert other.json()["detail"]
        bad = carol.get(f"{url}?after=-1", headers=STREAM)
        assert bad.status_code == 400 and "not valid" in bad.json()["detail"]


def test_open_streams_are_bounded_and_given_back_when_a_browser_goes_away(
    app_settings: Settings, pending_case: RefundCase
) -> None:
    bounded = app_settings.model_copy(update={"ui_live_streams_per_reviewer": 1})
    app = create_app(bounded)
    url = f"/runs/{pending_case.run_id}/events"
    with (
        served(app) as live,
        signed_in(live, "alice") as alice,
        signed_in(live, "alice") as other_browser,  # a second browser of hers
        signed_in(live, "bob") as bob,
    ):
        with alice.stream("GET", url, headers=STREAM) as first:
            reading = messages(first)
            assert next(reading).event == "state"
            with other_browser.stream("GET", url, headers=STREAM) as refused:
                assert refused.status_code == 503, refused.headers
                refused.read()
            assert "as many runs live as one reviewer may (1)" in refused.json()["detail"]
            with bob.stream("GET", url, headers=STREAM) as other:  # bob has his own place
                assert other.status_code == 200
                assert next(messages(other)).event == "state"
            assert app.state.live_streams.of("alice") == 1  # hers still streams
        # alice's browser went away: the server cancels her stream and frees her place.
        deadline = time.monotonic() + RELEASE_SECONDS
        while app.state.live_streams.open:
            assert time.monotonic() < deadline, "the stream of a gone browser was kept"
            time.sleep(0.1)
        with other_browser.stream("GET", url, headers=STREAM) as again:
            assert again.status_code == 200
