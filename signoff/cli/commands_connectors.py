"""`signoff connectors`: each write connector's breaker; `reset NAME` closes one."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from signoff.cli.store import opened_store
from signoff.cli.support import JsonOption, emit_json, fail, say, settings
from signoff.service.connectors import (
    ConnectorStatus,
    UnknownConnector,
    connector_statuses,
    reset_connector,
)

connectors = typer.Typer(
    help="Write connectors and their breakers: closed, open (calls refused) or half_open.",
    invoke_without_command=True,
)


def register(app: typer.Typer) -> None:
    app.add_typer(connectors, name="connectors")


@connectors.callback()
def connectors_command(ctx: typer.Context, json_output: JsonOption = False) -> None:
    """Show each write connector's breaker: closed, open (calls refused) or half_open."""
    if ctx.invoked_subcommand is not None:
        return
    current = settings()
    with opened_store(current) as engine:
        statuses = connector_statuses(engine, current, datetime.now(UTC))
    if json_output:
        emit_json([status.as_json() for status in statuses])
        return
    if not statuses:
        say("No write connector is configured, and no breaker has ever opened.")
        return
    say(f"{'CONNECTOR':<28} {'STATE':<10} {'FAILURES':>8}  {'OPEN UNTIL':<20}  LAST ERROR")
    for status in statuses:
        say(_line(status))


@connectors.command("reset")
def reset_command(
    name: Annotated[str, typer.Argument(help="The connector, e.g. helpdesk:acme.")],
) -> None:
    """Close a connector's breaker now: its next call goes through."""
    current = settings()
    with opened_store(current) as engine:
        try:
            was_open = reset_connector(engine, current, name)
        except UnknownConnector as error:
            fail(str(error))
    say(f"{name}: closed" if was_open else f"{name}: closed already; nothing to reset")


def _line(status: ConnectorStatus) -> str:
    until = status.open_until.strftime("%Y-%m-%d %H:%M:%SZ") if status.open_until else "-"
    return (
        f"{status.name:<28} {status.state:<10} {status.consecutive_failures:>8}  {until:<20}  "
        f"{status.last_error or '-'}"
    )
