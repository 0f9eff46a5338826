"""Slack's Web API, as far as signoff asks it: `users.info`, answered as Slack documents
it (`ok`, `user` with `name`, `real_name` and a `profile`), only for a request that
carries the bot token it was given, on a local port."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

BOT_TOKEN = "xoxb-1111-2222-demoBotToken"


@dataclass
class SlackApi:
    url: str  # SIGNOFF_SLACK_API_URL: ends with /api/
    directory: dict[str, dict[str, Any]]
    asked: list[tuple[str, str]] = field(default_factory=list)  # (token, user) per request


def member(user_id: str, real_name: str, handle: str) -> dict[str, Any]:
    return {
        "id": user_id,
        "name": handle,
        "real_name": real_name,
        "profile": {"real_name": real_name, "display_name": handle},
    }


@contextmanager
def slack_api(directory: dict[str, dict[str, Any]]) -> Iterator[SlackApi]:
    api = SlackApi(url="", directory=directory)

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (the name http.server calls)
            parts = urlsplit(self.path)
            token = self.headers.get("Authorization", "").removeprefix("Bearer ")
            user = parse_qs(parts.query).get("user", [""])[0]
            api.asked.append((token, user))
            if parts.path != "/api/users.info":
                answer: dict[str, Any] = {"ok": False, "error": "unknown_method"}
            elif token != BOT_TOKEN:
                answer = {"ok": False, "error": "invalid_auth"}
            elif user not in api.directory:
                answer = {"ok": False, "error": "user_not_found"}
            else:
                answer = {"ok": True, "user": api.directory[user]}
            body = json.dumps(answer).encode()
            self.send_response(200)  # Slack answers errors with 200 and ok: false
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # the test reads `asked`, not a log

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    api.url = f"http://127.0.0.1:{server.server_address[1]}/api/"
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield api
    finally:
        server.shutdown()
        server.server_close()
