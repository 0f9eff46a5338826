"""`signoff user disable|enable|roles|token`: what an administrator changes on a reviewer.

Each change is read by the reviewer UI on the reviewer's next request: no restart. A
disabled reviewer cannot sign in, their sessions end and their API token stops working
(pages, `/api/` and proxy mode alike). The token command prints a new token once; only
its SHA-256 is stored, so a lost token is replaced, never shown again.
"""

from __future__ import annotations

import re
from typing import Annotated

import typer

from signoff.cli.commands_users import users
from signoff.cli.store import in_store
from signoff.cli.support import JsonOption, emit_json, fail, say
from signoff.service.accounts import (
    Reviewer,
    change_roles,
    issue_token,
    revoke_token,
    set_active,
)
from workflows.contract_base import IDENTIFIER_PATTERN

NameArgument = Annotated[str, typer.Argument(help="The reviewer's name (any case).")]
RoleList = list[str] | None


def account(reviewer: Reviewer) -> dict[str, object]:
    return {
        "reviewer": reviewer.id,
        "tenant": reviewer.tenant_id,
        "active": reviewer.active,
        "roles": reviewer.role_list,
    }


@users.command("disable")
def disable_command(name: NameArgument, json_output: JsonOption = False) -> None:
    """Disable a reviewer: no sign-in, sessions end, the API token stops working."""
    reviewer = in_store(lambda engine: set_active(engine, name, False))
    if json_output:
        emit_json(account(reviewer))
    else:
        say(f"reviewer {reviewer.id} disabled; their sessions are signed out")


@users.command("enable")
def enable_command(name: NameArgument, json_output: JsonOption = False) -> None:
    """Enable a disabled reviewer again (ended sessions stay ended)."""
    reviewer = in_store(lambda engine: set_active(engine, name, True))
    if json_output:
        emit_json(account(reviewer))
    else:
        say(f"reviewer {reviewer.id} enabled")


@users.command("roles")
def roles_command(
    name: NameArgument,
    add: Annotated[
        RoleList, typer.Option("--add", help="A role to grant, e.g. refund_approver; repeat.")
    ] = None,
    remove: Annotated[RoleList, typer.Option("--remove", help="A role to take; repeat.")] = None,
    json_output: JsonOption = False,
) -> None:
    """Show a reviewer's roles, or change them with --add and --remove."""
    added, removed = add or [], remove or []
    for role in added + removed:
        if not re.match(IDENTIFIER_PATTERN, role):
            fail(f"Invalid role '{role}': use letters, digits, '.', '_', ':' or '-'.")
    reviewer = in_store(lambda engine: change_roles(engine, name, added, removed))
    if json_output:
        emit_json(account(reviewer))
    else:
        say(f"reviewer {reviewer.id}: roles {', '.join(reviewer.role_list) or 'none'}")


@users.command("token")
def token_command(
    name: NameArgument,
    revoke: Annotated[
        bool, typer.Option("--revoke", help="End the reviewer's token; issue none.")
    ] = False,
    json_output: JsonOption = False,
) -> None:
    """Issue a personal API token for `/api/` (replacing the old one), or revoke it."""
    if revoke:
        had_one = in_store(lambda engine: revoke_token(engine, name))
        if json_output:
            emit_json({"reviewer": name, "revoked": had_one})
        else:
            say(f"API token of {name} revoked" if had_one else f"{name} had no API token")
        return
    reviewer, token = in_store(lambda engine: issue_token(engine, name))
    if json_output:
        emit_json({"reviewer": reviewer.id, "token": token})
        return
    say(
        f"API token of {reviewer.id} (any older one stops working now). It is shown this "
        "once; send it as `Authorization: Bearer <token>` to /api/:",
        err=True,
    )
    say(token)
