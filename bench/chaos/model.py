"""A Messages API that is overloaded: 529 to every other call, or to every call.

Real HTTP on 127.0.0.1, so the worker's `anthropic` SDK (aimed here by
ANTHROPIC_BASE_URL) builds, sends and maps its errors as against the real API. A call
that is not refused gets a short final answer (`end_turn`): the runs it serves are
order-status answers without tools. Every call is counted, refused or not.
"""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

Mode = Literal["half", "down"]
ANSWER = "Your order is on its way."


def overloaded() -> dict[str, Any]:
    return {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def answer(model: str) -> dict[str, Any]:
    return {
        "id": "msg_chaos",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [{"type": "text", "text": ANSWER}],
        "stop_reason": "end_turn",
        "stop_sequence": None,
        "usage": {"input_tokens": 100, "output_tokens": 10},
    }


class OverloadedModel:
    """`mode` "half": calls 1, 3, 5, ... get 529; "down": every call gets 529."""

    def __init__(self) -> None:
        self.mode: Mode = "half"
        self.calls = 0
        self.refused = 0
        self.lock = threading.Lock()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.thread = threading.Thread(
            target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def __enter__(self) -> OverloadedModel:
        self.thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def serve(self, mode: Mode) -> None:
        with self.lock:
            self.mode, self.calls, self.refused = mode, 0, 0

    def _refuses(self) -> bool:
        with self.lock:
            self.calls += 1
            refuse = self.mode == "down" or self.calls % 2 == 1
            self.refused += refuse
            return refuse

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        model = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 (the stdlib's name)
                body = json.loads(self.rfile.read(int(self.headers["content-length"])))
                if model._refuses():
                    status, reply = 529, overloaded()
                else:
                    status, reply = 200, answer(body.get("model", "claude"))
                data = json.dumps(reply).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return Handler
