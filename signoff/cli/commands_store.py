"""`signoff seed` and `signoff ticket add`: how data enters the store."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from signoff.cli.store import in_store, opened_store
from signoff.cli.support import emit_json, fail, say, settings
from signoff.service.shop import add_ticket, seed_demo
from workflows.contract_base import tenant_id_problem

# What the store records when the export names nobody; pages then name no one.
UNKNOWN_CUSTOMER = "unknown"
tickets = typer.Typer(help="Tickets: how a ticket from a helpdesk export enters the store.")


def register(app: typer.Typer) -> None:
    app.command("seed")(seed_command)
    app.add_typer(tickets, name="ticket")


def seed_command(
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Load the demo data (tenants demo and globex, their orders and tickets). Safe to repeat."""
    current = settings()
    with opened_store(current) as engine:
        report = seed_demo(engine)
    if json_output:
        emit_json({"created": report.created, "already_present": report.already_present})
    else:
        say(f"demo data: {report.summary()} ({current.shown_database_url})")


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
