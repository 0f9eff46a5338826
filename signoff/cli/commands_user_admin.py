"""`signoff user disable|enable|roles|language`: what an administrator changes on a reviewer.

Each change is made as an administrator (`--as ADMIN`) and is on the audit's record.
It is read by the reviewer UI on the reviewer's next request: no restart. A disabled
reviewer cannot sign in, their sessions end and their API tokens are revoked (pages,
`/api/` and proxy mode alike).
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from signoff.cli.credentials import AdminOption, credential_of
from signoff.cli.store import in_store
from signoff.cli.support import AsPasswordStdin, JsonOption, emit_json, fail, say, settings
from signoff.cli.user_group import ReviewerName, users
from signoff.service.account_records import (
    AccountRecord,
    change_account_roles,
    existing_account,
    set_account_active,
)
from signoff.service.languages import (
    UnknownLanguage,
    administer_language,
    preferred_language,
    supported,
)
from workflows.contract_base import IDENTIFIER_PATTERN

RoleList = list[str] | None
FOLLOW_BROWSER = "auto"


def account(reviewer: AccountRecord) -> dict[str, object]:
    return {
        "reviewer": reviewer.id,
        "tenant": reviewer.tenant_id,
        "active": reviewer.active,
        "roles": list(reviewer.roles),
    }


@users.command("disable")
def disable_command(
    name: ReviewerName,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Disable a reviewer: no sign-in, sessions end, API tokens are revoked."""
    reviewer = _set_active(name, admin, password_stdin, False)
    _show(
        reviewer,
        json_output,
        f"reviewer {reviewer.id} disabled; their sessions are signed out, API tokens revoked",
    )


@users.command("enable")
def enable_command(
    name: ReviewerName,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Enable a disabled reviewer again (ended sessions and revoked tokens stay ended)."""
    reviewer = _set_active(name, admin, password_stdin, True)
    _show(reviewer, json_output, f"reviewer {reviewer.id} enabled")


def _set_active(name: str, admin: str | None, password_stdin: bool, active: bool) -> AccountRecord:
    credential = credential_of(settings(), admin, password_stdin)
    return in_store(lambda engine: set_account_active(engine, credential, name, active))


def _show(reviewer: AccountRecord, json_output: bool, line: str) -> None:
    """The account as JSON with --json; else the line that says what became of it."""
    if json_output:
        emit_json(account(reviewer))
    else:
        say(line)


@users.command("roles")
def roles_command(
    name: ReviewerName,
    add: Annotated[
        RoleList, typer.Option("--add", help="A role to grant, e.g. refund_approver; repeat.")
    ] = None,
    remove: Annotated[RoleList, typer.Option("--remove", help="A role to take; repeat.")] = None,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Show a reviewer's roles, or change them with --add and --remove (as an admin)."""
    added, removed = add or [], remove or []
    for role in added + removed:
        if not re.match(IDENTIFIER_PATTERN, role):
            fail(f"Invalid role '{role}': use letters, digits, '.', '_', ':' or '-'.")
    if added or removed:
        credential = credential_of(settings(), admin, password_stdin)
        reviewer = in_store(
            lambda engine: change_account_roles(engine, credential, name, added, removed)
        )
    else:
        reviewer = in_store(lambda engine: existing_account(engine, name))
    _show(
        reviewer,
        json_output,
        f"reviewer {reviewer.id}: roles {', '.join(reviewer.roles) or 'none'}",
    )


@users.command("language")
def language_command(
    name: ReviewerName,
    language: Annotated[
        str | None,
        typer.Argument(help="en, fr, or auto (follow the browser). Without it: show it."),
    ] = None,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Show or set the language the reviewer UI speaks to a reviewer (as an admin)."""
    if language is None:
        reviewer = in_store(lambda engine: existing_account(engine, name))
        chosen = in_store(lambda engine: preferred_language(engine, reviewer.id))
    else:
        try:
            chosen = None if language.strip().lower() == FOLLOW_BROWSER else supported(language)
        except UnknownLanguage as error:
            fail(str(error))
        credential = credential_of(settings(), admin, password_stdin)
        reviewer_id = in_store(lambda engine: administer_language(engine, credential, name, chosen))
        reviewer = in_store(lambda engine: existing_account(engine, reviewer_id))
    if json_output:
        emit_json({"reviewer": reviewer.id, "language": chosen or FOLLOW_BROWSER})
    else:
        say(f"reviewer {reviewer.id}: language {chosen or 'auto (follows the browser)'}")
