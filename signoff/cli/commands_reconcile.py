"""`signoff reconcile RUN`: for each action whose outcome is unknown, did it happen?"""

from __future__ import annotations

from typing import Annotated

import typer

from signoff.cli.store import opened_store
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    JsonOption,
    checked_run_id,
    client_for,
    emit_json,
    fail,
    run_async,
    say,
    settings,
)
from signoff.config.settings import Settings
from signoff.service.reconcile import (
    ReconcileRefused,
    ReconcileUnavailable,
    Settlement,
    payment_connectors,
    settle,
    unknown_effects_of,
)


def register(app: typer.Typer) -> None:
    app.command("reconcile")(reconcile_command)


def reconcile_command(
    run_id: Annotated[
        str,
        typer.Argument(help="The run whose unknown outcomes to check.", callback=checked_run_id),
    ],
    json_output: JsonOption = False,
) -> None:
    """Settle each action with an unknown outcome from the ledger: did the refund happen?

    A tenant that refunds through Stripe is settled from Stripe, by the action's key.

    The answer is recorded: a refund settled as not made can no longer happen.
    """
    current = settings()
    try:
        settlements = run_async(_reconcile(current, run_id))
    except ReconcileUnavailable as error:  # the platform did not answer: try again later
        fail(str(error), EXIT_RUN_FAILED)
    except ReconcileRefused as error:
        fail(str(error))
    if json_output:
        emit_json({"run_id": run_id, "actions": [s.as_json() for s in settlements]})
    elif not settlements:
        say(f"run {run_id}: no action has an unknown outcome; nothing to reconcile.")
    else:
        say(f"run {run_id}:")
        for settlement in settlements:
            say(f"  {settlement.line()}")


async def _reconcile(current: Settings, run_id: str) -> list[Settlement]:
    client = await client_for(current)
    tenant_id, effects = await unknown_effects_of(client, run_id)
    with opened_store(current) as engine:
        return settle(engine, run_id, tenant_id, effects, payment_connectors(current))
