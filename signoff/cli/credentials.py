"""The credential a command acts with: `--as NAME`, then that person's password from one
line of stdin (`--password-stdin`, for scripts), else their API token from SIGNOFF_TOKEN,
else their password, asked on the terminal.

Account changes (`signoff user ...`), `signoff run` and `triage` take it, each with the
same `--password-stdin` (support.AsPasswordStdin). It is only read here: the store
proves it where the change is made (activities/store/account_admin.py), so a face that
forgot to check could not skip the check. With `--as` and no way to read a secret, the
command stops with one sentence (exit 2) before anything is read or written.
(`approve`, `reject` and `rules` prove theirs to the decision service, with the same
options and stdin: service_proof.py.)
"""

from __future__ import annotations

import sys
from typing import Annotated, NamedTuple

import typer

from signoff.cli.support import fail, stdin_secret
from signoff.config.settings import Settings
from signoff.service.accounts import Credential

AdminOption = Annotated[
    str | None,
    typer.Option(
        "--as",
        help="The administrator making the change (role `admin`): their password is read "
        "from stdin with --password-stdin, else their API token from SIGNOFF_TOKEN, else "
        "their password is asked. Only the very first account (`--role admin`, no "
        "administrator yet) is added without it.",
    ),
]


def credential_of(
    current: Settings, name: str | None, password_stdin: bool = False, doing: str = "changed"
) -> Credential | None:
    """The credential `--as NAME` names, or None when no name was given (the store
    then refuses, and records the attempt, unless it is the bootstrap).

    `password_stdin`: NAME's password is the next line of stdin, ahead of SIGNOFF_TOKEN
    (asked for by name, as in `signoff run` and `signoff rules`)."""
    if name is None:
        if password_stdin:
            fail(f"--password-stdin needs --as NAME: whose password is it? Nothing was {doing}.")
        return None
    if password_stdin:
        return Credential(name, stdin_secret(name, "password", doing), "password")
    if current.token is not None:
        return Credential(name, current.token.get_secret_value(), "token")
    if not sys.stdin.isatty():
        # No terminal to ask on: a prompt would only fail (GetPassWarning, Aborted!).
        fail(
            f"No terminal to ask {name}'s password: give it on stdin with --password-stdin, "
            f"or set SIGNOFF_TOKEN to {name}'s API token. Nothing was {doing}."
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
    credential = credential_of(current, name, password_stdin, doing="started")
    if credential is None:
        return RunActor(current.service_actor)
    from signoff.cli.store import opened_store
    from signoff.service.reviewer_access import AccessRefused, tenant_member

    with opened_store(current) as store:
        try:
            reviewer = tenant_member(store, credential, tenant_id)
        except AccessRefused as refused:  # no one, or someone of another tenant
            fail(f"{refused} Nothing was started.")
    return RunActor(reviewer.id, reviewer.roles)
