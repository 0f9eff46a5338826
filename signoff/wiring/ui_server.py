"""Serving the reviewer UI with uvicorn, alone (`signoff ui`) or inside `signoff dev`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import uvicorn
from uvicorn.config import LOGGING_CONFIG

from approvals_ui.main import create_app
from signoff.config.settings import Settings


class EmbeddedServer(uvicorn.Server):
    """A uvicorn server that leaves signals to its host (`signoff dev` owns Ctrl-C)."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield


def ui_config(settings: Settings, host: str, port: int) -> uvicorn.Config:
    return uvicorn.Config(
        create_app(settings),
        host=host,
        port=port,
        log_level="warning",
        # JSON logs: uvicorn's loggers go through the root's JSON handler, not their own.
        log_config=None if settings.log_format == "json" else LOGGING_CONFIG,
        # X-Forwarded-Proto from a proxy on this host makes the cookie Secure.
        proxy_headers=True,
        server_header=False,
    )


async def serve_ui(settings: Settings, host: str, port: int) -> None:
    await uvicorn.Server(ui_config(settings, host, port)).serve()
