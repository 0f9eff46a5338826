"""The `signoff` command: assembles the sub-commands and turns errors into exit codes."""

from __future__ import annotations

import asyncio
import os
import signal
import sys
from typing import Annotated

import typer

from signoff.cli import (
    commands_approvals,
    commands_audit,
    commands_reconcile,
    commands_runs,
    commands_store,
    commands_triage,
    commands_users,
)
from signoff.cli.support import client_for, fail, run_async, say, settings
from signoff.wiring import eval_command

app = typer.Typer(
    name="signoff",
    help="Durable AI support agents on Temporal, with a human before every irreversible action.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
commands_runs.register(app)
commands_store.register(app)
commands_approvals.register(app)
commands_users.register(app)
commands_triage.register(app)
commands_audit.register(app)
commands_reconcile.register(app)
eval_command.register(app)  # `signoff eval`: it starts a stack, so the wiring registers it


@app.command("worker")
def worker_command() -> None:
    """Run a worker: executes runs' workflow tasks and activities until Ctrl-C."""
    from signoff.wiring.worker import run_worker  # the SDKs load only for this command

    current = settings()

    async def serve() -> None:
        client = await client_for(current)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        say(f"worker on task queue '{current.task_queue}' at {current.temporal_address}")
        await run_worker(client, current, stop)

    run_async(serve())


@app.command("ui")
def ui_command(
    host: Annotated[str | None, typer.Option(help="Address to listen on.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
) -> None:
    """Serve the reviewer web UI (sign in, inbox, decisions) until Ctrl-C."""
    from approvals_ui.sessions import UnsafeSecret, load_secret
    from signoff.wiring.ui_server import serve_ui

    current = settings()
    host = host or current.ui_host
    port = port or current.ui_port
    try:
        load_secret(current)  # refused here, before anything listens
    except UnsafeSecret as error:
        fail(f"The reviewer UI will not start: {error}")
    say(f"reviewer UI on http://{host}:{port}/ (Temporal at {current.temporal_address})")
    run_async(serve_ui(current, host, port))


@app.command("dev")
def dev_command(
    temporal_ui_port: Annotated[
        int | None, typer.Option(help="Port of the Temporal web UI.")
    ] = None,
) -> None:
    """Start everything locally: Temporal dev server, demo data, worker. Ctrl-C stops it all."""
    from signoff.wiring.dev import run_dev

    current = settings()
    if temporal_ui_port is not None:
        current = current.model_copy(update={"temporal_ui_port": temporal_ui_port})
    run_async(run_dev(current))


def main() -> None:
    try:
        app()
    except SystemExit as leaving:
        code = leaving.code
    else:
        code = 0
    # The Temporal client's Rust threads can outlive the event loop and abort the
    # interpreter while it finalizes (temporalio/sdk-python issue 300). Everything the
    # command had to do is done, so leave without finalizing, keeping the exit code.
    sys.stdout.flush()
    sys.stderr.flush()
    if isinstance(code, str):
        sys.stderr.write(code + "\n")
        sys.stderr.flush()
        code = 1
    os._exit(code or 0)
