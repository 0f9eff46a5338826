"""The `signoff` command: assembles the sub-commands and turns errors into exit codes."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Annotated, Literal

import typer

from signoff.cli.lazy_commands import MARKUP, Lazy, lazy_group

if TYPE_CHECKING:  # loaded by the commands that run a worker, not by `signoff --help`
    from signoff.config.profiles import LoadedProfiles
    from signoff.config.settings import Settings

RUNS = "signoff.cli.commands_runs"
APPROVALS = "signoff.cli.commands_approvals"
STORE = "signoff.cli.commands_store"
HISTORY = "signoff.cli.commands_history"
# Every command a module's `register` adds, in the order `signoff --help` lists them,
# with its help line (held to the command's docstring by tests/cli/test_lazy_commands.py).
COMMANDS = {
    "run": Lazy(RUNS, "Start an agent run on a ticket; with --wait, follow it to its outcome."),
    "status": Lazy(
        "signoff.cli.commands_status",
        "Show a run: its status, progress and, once it ended, its outcome.",
    ),
    "list": Lazy(RUNS, "List runs, newest first, through Temporal's visibility, a page at a time."),
    "cancel": Lazy(RUNS, "Cancel a run and the step in flight; its outcome becomes `cancelled`."),
    "pending": Lazy(
        "signoff.cli.commands_pending",
        "List the actions waiting for a reviewer's decision, soonest expiry first, in pages.",
    ),
    "approve": Lazy(
        APPROVALS, "Approve the exact action with this hash, as REVIEWER (their password is asked)."
    ),
    "reject": Lazy(
        APPROVALS,
        "Reject the exact action with this hash; the agent is told the category and why.",
    ),
    "respond": Lazy(
        APPROVALS,
        "Answer the agent instead of deciding: the request ends without happening, and the "
        "agent reads TEXT as your instruction (no category; not a rejection). Signed and on "
        "the audit like a decision. One request at a time.",
    ),
    "triage": Lazy(
        "signoff.cli.commands_triage",
        "Classify a ticket (tracking, refund, other) and take the path written for it.",
    ),
    "reconcile": Lazy(
        "signoff.cli.commands_reconcile",
        "Settle each action with an unknown outcome from the ledger: did the refund happen?",
    ),
    "connectors": Lazy(
        "signoff.cli.commands_connectors",
        "Write connectors and their breakers: closed, open (calls refused) or half_open.",
    ),
    "seed": Lazy(
        STORE,
        "Load the demo data (tenants demo and globex, their orders and tickets). Safe to repeat.",
    ),
    "ticket": Lazy(STORE, "Tickets: how a ticket from a helpdesk export enters the store."),
    "order": Lazy(
        "signoff.cli.commands_orders",
        "Orders paid on a payment platform: link each to its payment.",
    ),
    "store": Lazy(
        STORE, "The store's schema: migrated by the owner role, which grants the runtime role."
    ),
    "user": Lazy(
        "signoff.cli.commands_users", "Reviewer accounts: who signs in to the reviewer UI."
    ),
    "rules": Lazy(
        "signoff.cli.commands_rules",
        "Standing rules: approve a tool's actions ahead, bounded in time and uses.",
    ),
    "keys": Lazy(
        "signoff.cli.commands_keys",
        "Decision keys: the decision service's signing keys, and their rotation.",
    ),
    "audit": Lazy(
        "signoff.cli.commands_audit",
        "The decision audit: every decision, from the store, tamper-evident.",
    ),
    "history": Lazy(
        HISTORY,
        "Run histories: export them for `signoff replay`; list the gates open runs need.",
    ),
    "replay": Lazy(
        HISTORY, "Replay histories against the installed workflow code; exit 1 if any fails."
    ),
    "profiles": Lazy(
        "signoff.cli.commands_profiles",
        "Agent profiles: check a profile file offline, or show what a worker would load.",
    ),
    "mcp": Lazy(
        "signoff.cli.commands_mcp",
        "MCP servers: review a server's tools and pin; see what it offers.",
    ),
    # It deletes what `signoff dev` keeps, so the wiring registers it (demo_reset.py).
    "demo": Lazy(
        "signoff.wiring.demo_reset", "The local demo that `make demo` (`signoff dev`) runs."
    ),
    # It starts a private stack, so the wiring registers it (signoff/wiring/eval_command.py).
    "eval": Lazy(
        "signoff.wiring.eval_command",
        "Run scenario files on a dev server and check the invariants of every trajectory.",
    ),
}

app = typer.Typer(
    name="signoff",
    help="Durable AI support agents on Temporal, with a human before every irreversible action.",
    cls=lazy_group(COMMANDS),
    rich_markup_mode=MARKUP,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)


def loaded_profiles_or_stop(current: Settings) -> LoadedProfiles:
    """The profiles a worker runs on; a bad file stops it with exit 2 and the loader's
    message, before it connects to anything."""
    from signoff.cli.support import fail
    from signoff.config.profiles import ProfileError, load_profiles

    try:
        return load_profiles(current)
    except ProfileError as error:
        fail(str(error))


def observability_or_stop(current: Settings, process: Literal["worker", "dev"]) -> None:
    """Logging, tracing and the worker's /metrics, or a clean exit when its port is taken."""
    from signoff.cli.support import fail
    from signoff.config.metrics_port import MetricsPortUnavailable
    from signoff.wiring.observability import start_observability

    try:
        start_observability(current, process)
    except MetricsPortUnavailable as error:
        fail(f"The {process} will not start: {error}")


@app.command("worker")
def worker_command() -> None:
    """Run a worker until SIGTERM or Ctrl-C, which let activities in flight finish first."""
    import asyncio

    from signoff.cli.support import client_for, fail, run_async, say, settings
    from signoff.config.decision_keys import (
        DecisionKeyError,
        load_verification_keys,
        require_pinned,
    )
    from signoff.config.helpdesks import HelpdeskConfigError, load_helpdesk_connectors
    from signoff.config.temporal_tls import TemporalSettingsError, connection_security
    from signoff.service.handles import client_of
    from signoff.service.mcp_servers import startup_report
    from signoff.wiring.worker import run_worker  # the SDKs load only for this command
    from signoff.wiring.worker_heap import settle_heap
    from signoff.wiring.worker_signals import stop_on_signals

    current = settings()
    profiles = loaded_profiles_or_stop(current)
    from signoff.config.payload_keys import payload_cipher
    from signoff.payments.registry import PaymentSetupProblem, platform_tenants

    try:
        connection_security(current)  # a TLS setting it could not use, named first
        payload_cipher(current)  # then a payload key it could not use
        load_verification_keys(current)  # refused here, before it polls, with what to do
        require_pinned(current)  # it trusts only the decision keys it was given
        load_helpdesk_connectors(current.helpdesk_connectors)  # and the helpdesks' file
        platform_tenants(current)  # a payment platform's file it cannot read (a key: at use)
    except (
        TemporalSettingsError,
        DecisionKeyError,
        HelpdeskConfigError,
        PaymentSetupProblem,
    ) as error:
        fail(f"The worker will not start: {error}")
    observability_or_stop(current, "worker")

    async def serve() -> None:
        # The worker polls with the client itself: the wiring unwraps the face's handle.
        client = client_of(await client_for(current, worker=True))
        stop = asyncio.Event()
        stop_on_signals(stop, current.worker_shutdown_seconds)
        say(f"worker on task queue '{current.task_queue}' at {current.temporal_address}")
        say(f"profile {profiles.name} ({profiles.source}), sha256 {profiles.content_hash}")
        for line in await startup_report(profiles.profiles, current.mcp_timeout_seconds):
            say(line)
        settle_heap()  # its imports frozen, evicted runs collected soon (worker_heap.py)
        await run_worker(client, current, stop)
        say("worker stopped: every activity it was running has finished or was cancelled")

    run_async(serve())


@app.command("ui")
def ui_command(
    host: Annotated[str | None, typer.Option(help="Address to listen on.")] = None,
    port: Annotated[int | None, typer.Option(help="Port to listen on.")] = None,
) -> None:
    """Serve the reviewer web UI (sign in, inbox, decisions) until Ctrl-C."""
    from approvals_ui.sessions import UnsafeSecret, load_secret
    from signoff.cli.support import fail, run_async, say, settings
    from signoff.config.decision_keys import ensure_key_ring
    from signoff.config.helpdesks import HelpdeskConfigError, load_intake_secrets
    from signoff.config.payload_keys import payload_cipher
    from signoff.config.temporal_tls import TemporalSettingsError, connection_security
    from signoff.wiring.observability import start_observability
    from signoff.wiring.ui_server import serve_ui

    current = settings()
    start_observability(current, "ui")
    host = host or current.ui_host
    port = port or current.ui_port
    try:
        load_secret(current)  # refused here, before anything listens
        ensure_key_ring(current)  # this server is the decision service: it signs
        connection_security(current)  # and a TLS setting it could not use
        payload_cipher(current)  # and payload keys
        load_intake_secrets(current.intake_secrets)  # and the helpdesk intake's secrets
    except (UnsafeSecret, TemporalSettingsError, HelpdeskConfigError) as error:
        fail(f"The reviewer UI will not start: {error}")
    say(f"reviewer UI on http://{host}:{port}/ (Temporal at {current.temporal_address})")
    run_async(serve_ui(current, host, port))


@app.command("dev")
def dev_command(
    temporal_ui_port: Annotated[
        int | None, typer.Option(help="Port of the Temporal web UI.")
    ] = None,
    postgres: Annotated[
        bool,
        typer.Option(
            "--postgres",
            help="The store on a PostgreSQL cluster of its own (Debian's postgresql), "
            "data in $SIGNOFF_HOME/postgres; or set SIGNOFF_DEV_POSTGRES=true.",
        ),
    ] = False,
) -> None:
    """Start everything locally: Temporal dev server, demo data, worker. Ctrl-C stops it all."""
    from signoff.cli.support import fail, run_async, say, settings
    from signoff.config.helpdesks import (
        HelpdeskConfigError,
        load_helpdesk_connectors,
        load_intake_secrets,
    )
    from signoff.config.payload_keys import payload_cipher
    from signoff.config.temporal_tls import TemporalSettingsError
    from signoff.wiring.dev import run_dev

    current = settings()
    loaded_profiles_or_stop(current)
    try:
        payload_cipher(current)  # not after the server starts: its connect would retry
        load_intake_secrets(current.intake_secrets)  # nor the helpdesks' files
        load_helpdesk_connectors(current.helpdesk_connectors)
    except (TemporalSettingsError, HelpdeskConfigError) as error:
        fail(str(error))
    observability_or_stop(current, "dev")
    if temporal_ui_port is not None:
        current = current.model_copy(update={"temporal_ui_port": temporal_ui_port})
    if not (postgres or current.dev_postgres):
        run_async(run_dev(current))
        return
    from pydantic import SecretStr

    from signoff.service.store import migrate_store
    from signoff.wiring.dev_postgres import OWNER_ROLE, RUNTIME_ROLE, database_url, dev_postgres

    with dev_postgres(current) as url:
        # Migrated as the owner, which leaves the runtime role exactly its grants; every
        # process of the stack then connects as the runtime role.
        owner = SecretStr(database_url(current, OWNER_ROLE))
        stack = current.model_copy(update={"database_url": url, "migration_database_url": owner})
        migrate_store(stack)  # a StoreError is told by main()
        say(
            f"Store on PostgreSQL as {RUNTIME_ROLE} (migrated as {OWNER_ROLE}); in other "
            f"terminals: export SIGNOFF_DATABASE_URL={url}"
        )
        run_async(run_dev(stack))


def main() -> None:
    try:
        app()
    except SystemExit as leaving:
        code = leaving.code
    except Exception as error:
        # A store that cannot be used as it is (a schema from a newer signoff, say):
        # its message says what to do. Loaded already if the store was opened.
        store_errors = sys.modules.get("activities.store.errors")
        if store_errors is None or not isinstance(error, store_errors.StoreError):
            raise
        from signoff.cli.terminal_text import shown

        sys.stderr.write(f"error: {shown(str(error))}\n")
        code = 2
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
