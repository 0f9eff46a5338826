"""A local HTTP receiver standing in for a Slack or Teams incoming webhook: it records
every POST (headers and JSON body) and answers with the status the test sets (for the
tests and the chaos bench alike)."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Received:
    headers: dict[str, str]
    body: dict[str, Any]
    raw: str


@dataclass
class Receiver:
    url: str
    status: int = 200
    posts: list[Received] = field(default_factory=list)

    def kinds(self) -> list[str]:
        return [post.body["signoff"]["kind"] for post in self.posts]


@contextmanager
def webhook_receiver(status: int = 200) -> Iterator[Receiver]:
    receiver = Receiver(url="", status=status)

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 (the name http.server calls)
            raw = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            receiver.posts.append(Received(dict(self.headers.items()), json.loads(raw), raw))
            self.send_response(receiver.status)
            self.send_header("Content-Length", "2")
            self.end_headers()
            self.wfile.write(b"ok")

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads the posts, not a log

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    receiver.url = f"http://127.0.0.1:{server.server_address[1]}/hook"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield receiver
    finally:
        server.shutdown()
        server.server_close()
