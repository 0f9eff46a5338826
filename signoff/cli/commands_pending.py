"""`signoff pending`: the actions waiting for a decision, from the store's read model.

Its own module, apart from `approve` and `reject`: listing needs the store alone, so
the command loads neither the Temporal client nor the workflow code (a page
in 0.3 s, most of it Python's start). A store already at this code's revision is read
with its database driver alone (`service/pending_quick.py`); only a store that must be
created, migrated or refused is opened through SQLAlchemy, as every face opens it.
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from signoff.cli.card_titles import card_titles
from signoff.cli.render import progress_line, what_it_does
from signoff.cli.support import AfterOption, JsonOption, emit_json, fail, say, settings
from signoff.cli.terminal_text import one_line
from signoff.config.settings import MAX_PAGE_SIZE, Settings
from signoff.service.paging import CLI_INVALID_CURSOR, InvalidCursor
from signoff.service.pending_cursor import pending_summary, unread_warning
from signoff.service.pending_page import PendingPage
from signoff.service.pending_quick import quick_pending_page
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
    size = limit or current.page_size
    # From the store's read model: no Temporal call, and no SQLAlchemy when the store is
    # at this code's revision (service/pending_quick.py).
    try:
        listed = quick_pending_page(current, tenant, size, after) or _through_store(
            current, tenant, size, after
        )
    except InvalidCursor:
        fail(CLI_INVALID_CURSOR)
    _print_pending(listed, json_output)


def _through_store(
    current: Settings, tenant: str | None, size: int, after: str | None
) -> PendingPage:
    """The page through the store (SQLAlchemy), which creates, migrates or refuses it."""
    from signoff.cli.store import opened_store
    from signoff.service.waiting_listing import read_pending_page

    with opened_store(current) as store:
        return read_pending_page(store, tenant, size, after)


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
    titles = card_titles(settings(), (item.action.tool for item in page.items))
    for item, row in zip(page.items, rows, strict=True):
        say(
            f"{row['run_id']}  {what_it_does(item.action, titles.get(item.action.tool))}  "
            f"mode {row['mode']} ({row['approvals']}/{row['required']})"
            f"  expires {row['expires_at']}\n  hash {row['action_hash']}\n"
            f"  reason: {one_line(row['reason'])}"
        )
        if row["approved_by"] or row["still_missing"]:
            say(f"  {progress_line(row['approved_by'], row['still_missing'])}")
    if page.next:
        say(f"more on the next page: add --after {page.next}")
