"""A page held still while a test reads it whole (axe-core, the accessibility tree).

The inbox replaces its list every few seconds (htmx polling) and a live run page swaps
parts in as its event stream speaks. A walk over the page that meets a node a swap has
dropped meanwhile fails (CDP: "Could not find node with given id"), and reading again
until it does not only hides the race. So the page is held instead, by the events htmx
itself honours: it fires `htmx:beforeRequest` before each request and the SSE extension
`htmx:sseBeforeMessage` before each swap, and either is called off by `preventDefault`.
A held page calls off its polls (the poll after the walk asks again, nothing is lost)
and keeps the stream's messages, handed back to the stream in order when the walk ends.
Before the walk starts, a swap already on its way lands: htmx marks a request in flight
and a swap until it settles with its own classes, and the walk waits until none is left.

The listeners run in the page through Playwright's evaluate, which the page's CSP does
not govern (it allows only the UI's own scripts).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from playwright.sync_api import Page

HOLD = """() => {
  window.signoffStill ??= (() => {
    const still = {held: false, messages: []};
    document.addEventListener("htmx:beforeRequest", event => {
      if (still.held) event.preventDefault();
    });
    document.addEventListener("htmx:sseBeforeMessage", event => {
      if (!still.held) return;
      event.preventDefault();
      // One message may be meant for several parts: it is handed back once.
      if (!still.messages.includes(event.detail)) still.messages.push(event.detail);
    });
    return still;
  })();
  window.signoffStill.held = true;
}"""

# htmx's own marks (its config's requestClass, swappingClass, settlingClass, addedClass).
SETTLED = """() => !document.querySelector(
  ".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")"""

LET_GO = """() => {
  const still = window.signoffStill;
  still.held = false;
  for (const message of still.messages.splice(0))
    message.target.dispatchEvent(new MessageEvent(message.type, {
      data: message.data, lastEventId: message.lastEventId}));
}"""


@contextmanager
def held_still(page: Page) -> Iterator[None]:
    """The page as it is once no htmx request or swap is under way, unchanged by htmx
    until the block ends."""
    page.evaluate(HOLD)
    page.wait_for_function(SETTLED)
    try:
        yield
    finally:
        page.evaluate(LET_GO)
