"""A local Messages API for tests: `POST /v1/messages`, scripted replies, every request kept.

The server is real HTTP on 127.0.0.1, so the `anthropic` SDK's own request building,
response parsing and exception classes are what the tests see. Replies are served in
the order they were enqueued: a JSON body in the shape of the Messages API (see
`message`, `text`, `tool_use`) or an error status with its headers (`error`, with
`retry-after` for instance). A request that finds the queue empty gets a 400 naming
the problem, which the adapter reports as a non-retryable bad request: a test that
scripts too few replies fails with a clear message instead of hanging.

Streaming is not implemented: the adapter does not stream.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, NamedTuple

import pytest

MESSAGES_PATH = "/v1/messages"
TEST_API_KEY = "test-key"


@dataclass
class Reply:
    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0


class RecordedRequest(NamedTuple):
    path: str
    headers: dict[str, str]
    body: dict[str, Any]


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (a timeout test) breaks the pipe; that is expected


class FakeMessagesApi:
    """POST /v1/messages: answers from a queue and records what it was sent."""

    def __init__(self) -> None:
        self.replies: queue.Queue[Reply] = queue.Queue()
        self.requests: list[RecordedRequest] = []
        self.server = QuietServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    @property
    def bodies(self) -> list[dict[str, Any]]:
        """The JSON body of every request, in the order they arrived."""
        return [request.body for request in self.requests]

    def enqueue(self, status: int, body: dict[str, Any], **options: Any) -> FakeMessagesApi:
        self.replies.put(Reply(status, body, **options))
        return self

    def reply(self, *bodies: dict[str, Any]) -> FakeMessagesApi:
        """Enqueue successful replies (200), one per body."""
        for body in bodies:
            self.enqueue(200, body)
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _next_reply(self, path: str) -> Reply:
        if path != MESSAGES_PATH:
            return Reply(404, error("not_found_error", f"no such endpoint: {path}"))
        try:
            return self.replies.get_nowait()
        except queue.Empty:
            return Reply(400, error("invalid_request_error", "fake server: no scripted reply left"))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        api = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                headers = {name.lower(): value for name, value in self.headers.items()}
                path = self.path.split("?", 1)[0]
                api.requests.append(RecordedRequest(path, headers, body))
                reply = api._next_reply(path)
                time.sleep(reply.delay_seconds)
                data = json.dumps(reply.body).encode()
                self.send_response(reply.status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                for name, value in reply.headers.items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass  # keep test output for failures

        return Handler


@contextmanager
def serving(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeMessagesApi]:
    """A started server; a proxy set in the environment must not catch 127.0.0.1."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1")
    api = FakeMessagesApi()
    api.thread.start()
    try:
        yield api
    finally:
        api.stop()


# --- bodies in the shape of the Messages API ----------------------------------------


def message(
    content: list[dict[str, Any]],
    stop_reason: str | None,
    *,
    model: str = "claude-test-1",
    message_id: str = "msg_01",
    **usage: Any,
) -> dict[str, Any]:
    return {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": stop_reason,
        "stop_sequence": "###" if stop_reason == "stop_sequence" else None,
        "usage": {"input_tokens": 120, "output_tokens": 30, **usage},
    }


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def tool_use(call_id: str, name: str, arguments: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"type": "tool_use", "id": call_id, "name": name, "input": arguments or {}}


def error(kind: str, detail: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": kind, "message": detail}, "request_id": "req_1"}
