"""A local HTTP server playing a tenant's helpdesk, on 127.0.0.1 only: it records every
request, posts a reply once per `Idempotency-Key` (as the docs ask of a connector), and
answers with the statuses a test queues (503 for an outage, 401 for a refusal)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass(frozen=True)
class Received:
    method: str
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


@dataclass
class Helpdesk:
    url: str = ""
    requests: list[Received] = field(default_factory=list)
    # Replies posted, by idempotency key: one each, however often a key comes.
    posted: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Statuses to answer next, first first; then 200.
    answers: list[int] = field(default_factory=list)
    # Deliveries to post whose answer is then lost (a 504 after the post): the sender
    # cannot know that the reply went out.
    lost_answers: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def fail_next(self, *statuses: int) -> None:
        with self.lock:
            self.answers.extend(statuses)

    def lose_next_answer(self) -> None:
        with self.lock:
            self.lost_answers += 1


@contextmanager
def helpdesk_server() -> Iterator[Helpdesk]:
    helpdesk = Helpdesk()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            self._answer()

        def do_PUT(self) -> None:  # noqa: N802
            self._answer()

        def _answer(self) -> None:
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            body = json.loads(raw) if raw else {}
            with helpdesk.lock:
                helpdesk.requests.append(
                    Received(self.command, self.path, dict(self.headers.items()), body)
                )
                status = helpdesk.answers.pop(0) if helpdesk.answers else 200
                key = self.headers.get("Idempotency-Key")
                if status == 200 and key:
                    helpdesk.posted.setdefault(key, body)
                    if helpdesk.lost_answers:
                        helpdesk.lost_answers -= 1
                        status = 504
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"{}")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads the requests, not a log

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    helpdesk.url = f"http://127.0.0.1:{server.server_address[1]}"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield helpdesk
    finally:
        server.shutdown()
        server.server_close()
