"""`signoff pending`: the actions waiting for a decision, from the store's read model.

Its own module, apart from `approve` and `reject`: listing needs the store alone, so
the command loads neither the Temporal client nor the workflow code (issue 13: a page
in well under a second, most of it Python's start).
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from signoff.cli.render import progress_line
from signoff.cli.store import opened_store
from signoff.cli.support import AfterOption, JsonOption, emit_json, fail, say, settings
from signoff.config.settings import MAX_PAGE_SIZE
from signoff.service.paging import CLI_INVALID_CURSOR, InvalidCursor
from signoff.service.pending_cursor import pending_summary, unread_warning
from signoff.service.waiting_listing import PendingPage, read_pending_page
from workflows.contract_base import IDENTIFIER_PATTERN


def register(app: typer.Typer) -> None:
    app.command("pending")(pending_command)


def pending_command(
    tenant: Annotated[str | None, typer.Option(help="Only this tenant's runs.")] = None,
    limit: Annotated[
        int | None,
        typer.Option(
            min=1, max=MAX_PAGE_SIZE, help="Requests per page (default: SIGNOFF_PAGE_SIZE, 50)."
        ),
    ] = None,
    after: AfterOption = None,
    json_output: JsonOption = False,
) -> None:
    """List the actions waiting for a reviewer's decision, soonest expiry first, in pages."""
    if tenant is not None and not re.match(IDENTIFIER_PATTERN, tenant):
        fail(f"Invalid tenant '{tenant}'.")
    current = settings()
    # From the store's read model (service/waiting_listing.py): no Temporal call.
    with opened_store(current) as engine:
        try:
            listed = read_pending_page(engine, tenant, limit or current.page_size, after)
        except InvalidCursor:
            fail(CLI_INVALID_CURSOR)
    _print_pending(listed, json_output)


def _print_pending(listed: PendingPage, json_output: bool) -> None:
    page = listed.page
    rows = [item.row() for item in page.items]
    if json_output:
        emit_json(
            {
                "total": page.total,
                "waiting_runs": listed.waiting_runs,
                "unread_runs": listed.unread_runs,
                "items": rows,
                "next": page.next,
            }
        )
        return
    say(pending_summary(page.total, listed.waiting_runs, page.first or 0, len(rows)))
    if listed.unread_runs:
        say(unread_warning(listed.unread_runs), err=True)
    for row in rows:
        say(
            f"{row['run_id']}  {row['tool']} {row['amount']} {row['currency']} on order "
            f"{row['order']}  mode {row['mode']} ({row['approvals']}/{row['required']})  "
            f"expires {row['expires_at']}\n  hash {row['action_hash']}\n  reason: {row['reason']}"
        )
        if row["approved_by"] or row["still_missing"]:
            say(f"  {progress_line(row['approved_by'], row['still_missing'])}")
    if page.next:
        say(f"more on the next page: add --after {page.next}")
