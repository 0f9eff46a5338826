"""The credential a command acts with: `--as NAME`, then that person's API token from
SIGNOFF_TOKEN or their password, asked on the terminal.

Account changes (`signoff user ...`) and `signoff run` take it. It is only read here:
the store proves it where the change is made (activities/store/account_admin.py), so
a face that forgot to check could not skip the check. With `--as` and neither a
token nor a terminal, the command stops with one sentence (exit 2) before anything
is read or written. (`approve`/`reject` read theirs from stdin: commands_approvals.py.)
"""

from __future__ import annotations

import sys
from typing import Annotated, NamedTuple

import typer

from signoff.cli.support import fail
from signoff.config.settings import Settings
from signoff.service.accounts import Credential

AdminOption = Annotated[
    str | None,
    typer.Option(
        "--as",
        help="The administrator making the change (role `admin`): their API token is read "
        "from SIGNOFF_TOKEN, else their password is asked. Only the very first account "
        "(`--role admin`, no administrator yet) is added without it.",
    ),
]


def credential_of(current: Settings, name: str | None, doing: str = "changed") -> Credential | None:
    """The credential `--as NAME` names, or None when no name was given (the store
    then refuses, and records the attempt, unless it is the bootstrap)."""
    if name is None:
        return None
    if current.token is not None:
        return Credential(name, current.token.get_secret_value(), "token")
    if not sys.stdin.isatty():
        # No terminal to ask on: a prompt would only fail (GetPassWarning, Aborted!).
        fail(
            f"No terminal to ask {name}'s password: set SIGNOFF_TOKEN to {name}'s API token. "
            f"Nothing was {doing}."
        )
    # On stderr: `TOKEN=$(signoff user token alice --as admin)` keeps stdout for the token.
    entered: str = typer.prompt(f"Password of {name}", hide_input=True, err=True)
    return Credential(name, entered, "password")


class RunActor(NamedTuple):
    """Who asks for a run, and the roles that narrow the tools it is offered."""

    id: str
    roles: tuple[str, ...] = ()


def run_actor(
    current: Settings, name: str | None, password_stdin: bool, tenant_id: str
) -> RunActor:
    """Who asks for a run: the reviewer `--as` names once their credential proved it
    (of the run's tenant), else the deployment's service identity. Never free text: the
    run's actor is who cannot approve its refunds, so it must be who really asked."""
    if name is None:
        if password_stdin:
            fail("--password-stdin needs --as NAME: whose password is it? Nothing was started.")
        return RunActor(current.service_actor)
    from signoff.cli.store import opened_store
    from signoff.service.reviewer_access import AccessRefused, tenant_member

    if password_stdin:
        secret = sys.stdin.readline().rstrip("\r\n")
        if not secret:
            fail(f"Nothing on stdin: give {name}'s password on one line. Nothing was started.")
        credential: Credential | None = Credential(name, secret, "password")
    else:
        credential = credential_of(current, name, doing="started")
    assert credential is not None
    with opened_store(current) as store:
        try:
            reviewer = tenant_member(store, credential, tenant_id)
        except AccessRefused as refused:  # no one, or someone of another tenant
            fail(f"{refused} Nothing was started.")
    return RunActor(reviewer.id, reviewer.roles)
