"""A local Chat Completions API for tests: `POST /v1/chat/completions`, every request kept.

The server is real HTTP on 127.0.0.1, so the `openai` SDK's own request building,
response parsing and exception classes are what the tests see, as they would be in
front of Ollama, vLLM or llama.cpp. Replies are served in the order they were enqueued:
a JSON body in the shape of the API (see `completion`, `assistant`, `tool_call`) or an
error status with its headers (`error`, with `retry-after` for instance). A request that
finds the queue empty gets a 400 naming the problem, which the adapter reports as a
non-retryable bad request: a test that scripts too few replies fails with a clear
message instead of hanging.

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

COMPLETIONS_PATH = "/v1/chat/completions"
LOCAL_MODEL = "qwen3:4b"
Json = dict[str, Any]


@dataclass
class Reply:
    status: int
    body: Json
    headers: dict[str, str] = field(default_factory=dict)
    delay_seconds: float = 0.0


class RecordedRequest(NamedTuple):
    path: str
    headers: dict[str, str]
    body: Json


class QuietServer(ThreadingHTTPServer):
    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that gave up (a timeout test) breaks the pipe; that is expected


class FakeChatApi:
    """POST /v1/chat/completions: answers from a queue and records what it was sent."""

    def __init__(self) -> None:
        self.replies: queue.Queue[Reply] = queue.Queue()
        self.requests: list[RecordedRequest] = []
        self.server = QuietServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        """What SIGNOFF_OPENAI_BASE_URL would hold: the API root, ending in /v1."""
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    @property
    def bodies(self) -> list[Json]:
        """The JSON body of every request, in the order they arrived."""
        return [request.body for request in self.requests]

    def enqueue(self, status: int, body: Json, **options: Any) -> FakeChatApi:
        self.replies.put(Reply(status, body, **options))
        return self

    def reply(self, *bodies: Json) -> FakeChatApi:
        """Enqueue successful replies (200), one per body."""
        for body in bodies:
            self.enqueue(200, body)
        return self

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _next_reply(self, path: str) -> Reply:
        if path != COMPLETIONS_PATH:
            return Reply(404, error(f"no such endpoint: {path}", "not_found_error"))
        try:
            return self.replies.get_nowait()
        except queue.Empty:
            return Reply(400, error("fake server: no scripted reply left"))

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
def serving(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeChatApi]:
    """A started server; a proxy or an OpenAI setting in the environment must not interfere."""
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.setenv(name, "127.0.0.1")
    for name in ("OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_ORG_ID", "OPENAI_PROJECT_ID"):
        monkeypatch.delenv(name, raising=False)
    api = FakeChatApi()
    api.thread.start()
    try:
        yield api
    finally:
        api.stop()


# --- bodies in the shape of the Chat Completions API --------------------------------


def completion(
    message: Json,
    finish_reason: str | None,
    *,
    model: str = LOCAL_MODEL,
    prompt_tokens: int = 120,
    completion_tokens: int = 30,
    cached_tokens: int | None = None,
) -> Json:
    usage: Json = {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
    }
    if cached_tokens is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached_tokens}
    return {
        "id": "chatcmpl-1",
        "object": "chat.completion",
        "created": 1764547200,
        "model": model,
        "choices": [
            {"index": 0, "message": message, "finish_reason": finish_reason, "logprobs": None}
        ],
        "usage": usage,
    }


def assistant(content: str | list[Json] | None = None, *calls: Json, **extra: Any) -> Json:
    """An assistant message as a server sends it: text, tool calls, extra fields."""
    message: Json = {"role": "assistant", "content": content, **extra}
    if calls:
        message["tool_calls"] = list(calls)
    return message


def tool_call(call_id: str, name: str, arguments: Json | str | None = None) -> Json:
    """A function call; `arguments` as an object is sent as JSON text, a str as it is."""
    text = arguments if isinstance(arguments, str) else json.dumps(arguments or {})
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": text}}


def error(message: str, kind: str = "invalid_request_error", code: str | None = None) -> Json:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}
