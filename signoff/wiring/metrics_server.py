"""The worker's own `/metrics` port (SIGNOFF_METRICS_PORT), asking for the scrape token.

prometheus_client's `start_http_server` serves anyone who reaches the port. This is the
same server (its WSGI app, threads, no request log) behind one check: with
SIGNOFF_METRICS_TOKEN set, a scrape without `Authorization: Bearer <token>` gets 401.
Without the token the port is open to whoever reaches it: it is the worker's own, on
127.0.0.1 unless SIGNOFF_METRICS_HOST says otherwise.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable
from socketserver import ThreadingMixIn
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import REGISTRY, make_wsgi_app

from signoff.service.metrics import scrape_allowed

REFUSED = b"Send Authorization: Bearer <SIGNOFF_METRICS_TOKEN>.\n"


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 (the base's name)
        pass


def guarded(
    app: Callable[..., Iterable[bytes]], token: str | None
) -> Callable[..., Iterable[bytes]]:
    if token is None:
        return app

    def check(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        if not scrape_allowed(environ.get("HTTP_AUTHORIZATION"), token):
            start_response(
                "401 Unauthorized",
                [("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")],
            )
            return [REFUSED]
        return app(environ, start_response)

    return check


def start_metrics_server(host: str, port: int, token: str | None) -> WSGIServer:
    """Serve the process's registry on host:port from a daemon thread."""
    app = guarded(make_wsgi_app(REGISTRY), token)
    server = make_server(host, port, app, _ThreadingServer, handler_class=_QuietHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server
