"""A Stripe that is slow but answers: an HTTP proxy in front of localstripe that holds
each answer until `delay_seconds` after its request arrived (for the tests and the chaos
bench alike).

The request reaches localstripe at once and is carried out there; only the answer is
late, as from a Stripe under load. A client whose timeout is shorter than the delay
therefore sees a refund that was made and never answered, the case that must not be
asked twice; a longer one sees every call succeed, slowly. It notes each call's method
and path.
"""

from __future__ import annotations

import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

# Hop-by-hop, or rewritten for the body the proxy sends: never copied across.
NOT_FORWARDED = frozenset({"host", "connection", "content-length", "transfer-encoding"})
# Longer than any delay a test sets: localstripe itself answers in milliseconds.
UPSTREAM_TIMEOUT_SECONDS = 60.0


@dataclass
class SlowStripe:
    url: str
    delay_seconds: float
    calls: list[tuple[str, str]] = field(default_factory=list)

    def posts(self, path: str) -> int:
        return sum(1 for method, called in self.calls if method == "POST" and called == path)


@contextmanager
def slow_stripe(upstream: str, delay_seconds: float) -> Iterator[SlowStripe]:
    """A proxy to `upstream` (localstripe's URL) answering each call `delay_seconds`
    after it came, until the end of the block."""
    slow = SlowStripe(url="", delay_seconds=delay_seconds)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keeps the SDK's connection open, as Stripe does

        def do_GET(self) -> None:  # noqa: N802 (the names http.server calls)
            self._forward()

        def do_POST(self) -> None:  # noqa: N802
            self._forward()

        def do_DELETE(self) -> None:  # noqa: N802
            self._forward()

        def _forward(self) -> None:
            arrived = time.monotonic()
            slow.calls.append((self.command, self.path.split("?")[0]))
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length) if length else None
            headers = {k: v for k, v in self.headers.items() if k.lower() not in NOT_FORWARDED}
            request = urllib.request.Request(
                upstream + self.path, data=body, headers=headers, method=self.command
            )
            try:
                with urllib.request.urlopen(request, timeout=UPSTREAM_TIMEOUT_SECONDS) as answer:
                    status, answer_headers, content = answer.status, answer.headers, answer.read()
            except urllib.error.HTTPError as error:  # Stripe's 4xx and 5xx, answered as such
                status, answer_headers, content = error.code, error.headers, error.read()
            time.sleep(max(0.0, delay_seconds - (time.monotonic() - arrived)))
            self.send_response(status)
            for key, value in answer_headers.items():
                if key.lower() not in NOT_FORWARDED:
                    self.send_header(key, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads the calls, not a log

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    slow.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield slow
    finally:
        server.shutdown()
        server.server_close()
