"""`signoff user add` and `signoff user passwd`: reviewer accounts for the web UI.

(`disable`, `enable` and `roles` are in commands_user_admin.py, the API tokens in
commands_user_tokens.py.) Each change is made as an administrator (`--as ADMIN`,
credentials.py) and is on the audit's record, refused or not.

Passwords are read from a prompt (twice, not echoed) or, for scripts, from stdin with
`--password-stdin`; never from an option, which would land in shell history. Here the
one option reads both passwords a script has to give: the administrator's (`--as`,
when SIGNOFF_TOKEN does not prove them) on the first line, the new one on the next.
"""

from __future__ import annotations

import re
import sys
from typing import Annotated

import typer

from signoff.cli.credentials import AdminOption, credential_of
from signoff.cli.store import in_store
from signoff.cli.support import emit_json, fail, say, settings
from signoff.cli.user_group import users
from signoff.service.account_records import add_account, set_account_password
from signoff.service.accounts import Credential
from workflows.contract_base import IDENTIFIER_PATTERN

PasswordStdin = Annotated[
    bool,
    typer.Option(
        "--password-stdin",
        help="Read the new password from stdin (one line); with --as and no SIGNOFF_TOKEN, "
        "the administrator's password is the line before it.",
    ),
]


def register(app: typer.Typer) -> None:
    from signoff.cli import (
        commands_user_admin,  # noqa: F401  (adds disable, enable, roles)
        commands_user_tokens,  # noqa: F401  (adds token, tokens)
    )

    app.add_typer(users, name="user")


def admin_then_password(admin: str | None, password_stdin: bool) -> tuple[Credential | None, str]:
    """The administrator's credential, then the new password: with --password-stdin both
    come from stdin, in that order, unless SIGNOFF_TOKEN proves the administrator."""
    current = settings()
    admin_on_stdin = password_stdin and admin is not None and current.token is None
    credential = credential_of(current, admin, admin_on_stdin)
    return credential, read_password(password_stdin)


def read_password(from_stdin: bool) -> str:
    if from_stdin:
        line = sys.stdin.readline()
        return line.rstrip("\r\n")
    first: str = typer.prompt("Password", hide_input=True)
    second: str = typer.prompt("Repeat the password", hide_input=True)
    if first != second:
        fail("The two passwords differ; nothing was changed.")
    return first


@users.command("add")
def add_command(
    name: Annotated[str, typer.Argument(help="The reviewer's sign-in name, e.g. erin.")],
    tenant: Annotated[str, typer.Option(help="The tenant whose requests the reviewer sees.")],
    role: Annotated[
        list[str] | None, typer.Option(help="A role, e.g. refund_approver; repeat for more.")
    ] = None,
    display_name: Annotated[
        str | None, typer.Option(help="The name shown in the UI (default: NAME).")
    ] = None,
    password_stdin: PasswordStdin = False,
    admin: AdminOption = None,
    json_output: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Create a reviewer who can sign in to the reviewer UI."""
    if not re.match(IDENTIFIER_PATTERN, name):
        fail(f"Invalid name '{name}': use letters, digits, '.', '_', ':' or '-'.")
    roles = role or []
    for item in roles:
        if not re.match(IDENTIFIER_PATTERN, item):
            fail(f"Invalid role '{item}'.")
    credential, password = admin_then_password(admin, password_stdin)
    in_store(
        lambda store: add_account(store, credential, name, tenant, roles, password, display_name)
    )
    if json_output:
        emit_json({"reviewer": name, "tenant": tenant, "roles": roles})
    else:
        say(f"reviewer {name} added (tenant {tenant}, roles: {', '.join(roles) or 'none'})")


@users.command("passwd")
def passwd_command(
    name: Annotated[str, typer.Argument(help="The reviewer whose password changes.")],
    password_stdin: PasswordStdin = False,
    admin: AdminOption = None,
) -> None:
    """Change a reviewer's password; their open sessions end, their API tokens are revoked."""
    credential, password = admin_then_password(admin, password_stdin)
    in_store(lambda store: set_account_password(store, credential, name, password))
    say(f"password of {name} changed; their open sessions are signed out, API tokens revoked")
