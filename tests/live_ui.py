"""A real reviewer UI server (uvicorn, in a thread) for tests that talk to it over HTTP:
the decision service that `signoff approve` sends its decisions to."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import uvicorn
from fastapi import FastAPI

from signoff.wiring.local_stack import free_port

SERVER_START_SECONDS = 10


@contextmanager
def served(app: FastAPI) -> Iterator[str]:
    """`app` listening on a free local port; yields its base URL, stops it after."""
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        deadline = time.monotonic() + SERVER_START_SECONDS
        while not server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            assert thread.is_alive(), "uvicorn stopped at start"
            time.sleep(0.05)
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)
