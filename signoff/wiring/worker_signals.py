"""How `signoff worker` stops: the first SIGTERM or Ctrl-C drains, a second one leaves.

The first signal sets `stop`: the worker stops polling and gives the activities it is
running `SIGNOFF_WORKER_SHUTDOWN_SECONDS` to finish (Temporal's graceful shutdown), so a
rolling restart or `docker compose stop` loses no work and forces no retry; then the
command exits 0. A second signal means the operator will not wait: the process leaves at
once with 128 + the signal's number, as a shell reports a killed command, and Temporal
retries whatever was in flight once its timeout passes.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys

import typer

STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM)


def stop_on_signals(stop: asyncio.Event, grace_seconds: float) -> None:
    loop = asyncio.get_running_loop()

    def on_signal(signum: int) -> None:
        name = signal.Signals(signum).name
        if stop.is_set():
            typer.echo(f"{name} again: leaving now, without waiting for activities.", err=True)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(128 + signum)
        typer.echo(
            f"{name}: stopping. No new work is taken; activities in flight have up to "
            f"{grace_seconds:g} s to finish. Send it again to leave at once.",
            err=True,
        )
        stop.set()

    for signum in STOP_SIGNALS:
        loop.add_signal_handler(signum, on_signal, signum)
