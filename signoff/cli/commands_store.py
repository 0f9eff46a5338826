"""`signoff seed`, `signoff ticket add` and `signoff store migrate`: how data enters the
store, and how its schema is brought up to date by the role that owns it."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.store import in_store, opened_store
from signoff.cli.support import emit_json, fail, say, settings
from signoff.service.shop import add_ticket, seed_demo, seed_store
from signoff.service.store import StoreError, migrate_store
from workflows.contract_base import tenant_id_problem

# What the store records when the export names nobody; pages then name no one.
UNKNOWN_CUSTOMER = "unknown"
tickets = typer.Typer(help="Tickets: how a ticket from a helpdesk export enters the store.")
store = typer.Typer(
    help="The store's schema: migrated by the owner role, which grants the runtime role."
)


def register(app: typer.Typer) -> None:
    app.command("seed")(seed_command)
    app.add_typer(tickets, name="ticket")
    app.add_typer(store, name="store")


@store.command("migrate")
def migrate_command(
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Bring the store to this signoff's schema as SIGNOFF_MIGRATION_DATABASE_URL's role,
    then grant SIGNOFF_DATABASE_URL's role what it needs (on decisions: INSERT, SELECT)."""
    current = settings()
    try:
        report = migrate_store(current)
    except StoreError as error:  # StoreUnreachable too: what the owner role could not do
        fail(str(error))
    if json_output:
        emit_json(
            {
                "revision": report.revision,
                "runtime_role": report.runtime_role,
                "grants": {table: list(grants) for table, grants in report.grants.items()},
            }
        )
        return
    say(f"store at schema revision {report.revision}")
    if report.runtime_role is None:
        say("no runtime role granted: SIGNOFF_MIGRATION_DATABASE_URL unset, or SQLite")
        return
    say(f"runtime role {report.runtime_role} may now, per table:")
    for table, grants in sorted(report.grants.items()):
        say(f"  {table}: {', '.join(grants) or 'nothing'}")


def seed_command(
    demo: Annotated[
        bool,
        typer.Option(
            "--demo",
            help="Give the reviewers it creates the demo passwords (demo-NAME) of the "
            "docs, as `make demo` does: for a laptop, never a deployment.",
        ),
    ] = False,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Load the demo data (tenants demo and globex, their orders and tickets). Safe to repeat."""
    current = settings()
    with opened_store(current) as engine:
        report = seed_demo(engine) if demo else seed_store(engine)
    if json_output:
        emit_json(
            {
                "created": report.created,
                "already_present": report.already_present,
                "one_time_passwords": report.one_time_passwords,
            }
        )
        return
    say(f"demo data: {report.summary()} ({current.shown_database_url})")
    if report.one_time_passwords:
        say(
            "One-time passwords of the reviewers created, shown this once: hand each to "
            "its reviewer, and have it replaced (`signoff user passwd NAME --as admin`)."
        )
        for reviewer_id, password in report.one_time_passwords.items():
            say(f"  {reviewer_id}: {password}")


@tickets.command("add")
def add_ticket_command(
    tenant: Annotated[str, typer.Option(help="The tenant the ticket belongs to.")],
    text_file: Annotated[
        str, typer.Option("--text-file", help="File holding the customer's text; - for stdin.")
    ],
    order: Annotated[
        str | None, typer.Option(help="The customer's order this ticket is about, if known.")
    ] = None,
    customer: Annotated[
        str,
        typer.Option(
            help="Who wrote the ticket (the customer's name in the helpdesk export); "
            "reviewers see it beside the ticket and in the decision's title."
        ),
    ] = UNKNOWN_CUSTOMER,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Add a customer ticket to the store and print its new id."""
    problem = tenant_id_problem(tenant)
    if problem is not None:
        fail(problem)
    text = _read_text(text_file)
    ticket_id = in_store(
        lambda engine: add_ticket(engine, tenant, order, text, customer_name=customer)
    )
    if json_output:
        emit_json({"ticket_id": ticket_id, "tenant": tenant, "order": order, "customer": customer})
    else:
        say(ticket_id)


def _read_text(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    path = Path(source)
    if not path.is_file():
        fail(f"Cannot read '{source}': no such file. Give a text file, or - for stdin.")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        fail(f"'{source}' is not UTF-8 text. Convert it, e.g. with iconv, and try again.")
