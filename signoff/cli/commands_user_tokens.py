"""`signoff user token NAME`, `signoff user token revoke ID`, `signoff user tokens NAME`:
personal API tokens, issued and revoked by an administrator (`--as ADMIN`).

A token is printed once; only its SHA-256 is stored, so a lost token is replaced, never
shown again. It expires SIGNOFF_TOKEN_TTL_DAYS (default 90) after it is issued. A
reviewer may hold several; `tokens` lists them to an administrator (id, created,
expires, revoked, never the secret), and `token revoke ID` ends one.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Annotated

import typer

from signoff.cli.credentials import AdminOption, credential_of
from signoff.cli.store import in_store
from signoff.cli.support import AsPasswordStdin, JsonOption, emit_json, fail, say, settings
from signoff.cli.user_group import ReviewerName, users
from signoff.service.account_records import (
    account_tokens,
    issue_account_token,
    revoke_account_token,
)
from signoff.service.accounts import Credential, revoke_tokens, token_lifetime

REVOKE = "revoke"  # `user token revoke ID`: the first argument names the action


@users.command("token")
def token_command(
    name: Annotated[
        str, typer.Argument(help="The reviewer to issue a token for; or `revoke`, then an id.")
    ],
    token_id: Annotated[
        str | None, typer.Argument(help="With `revoke`: the id `signoff user tokens` shows.")
    ] = None,
    revoke: Annotated[
        bool, typer.Option("--revoke", help="Revoke every token of the reviewer; issue none.")
    ] = False,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Issue a personal API token for `/api/` and the CLI, or revoke tokens (as an admin)."""
    current = settings()
    if name == REVOKE:
        if token_id is None or not token_id.isdigit():
            fail("Give the id of the token to revoke: `signoff user token revoke ID --as ADMIN`.")
        _revoke_one(credential_of(current, admin, password_stdin), int(token_id), json_output)
        return
    if token_id is not None:
        fail(f"Unexpected '{token_id}': `signoff user token NAME` takes one name.")
    credential = credential_of(current, admin, password_stdin)
    if revoke:
        ended = in_store(lambda engine: revoke_tokens(engine, credential, name))
        if json_output:
            emit_json({"reviewer": name, "revoked": ended})
        else:
            say(f"{ended} API token(s) of {name} revoked")
        return
    lifetime = token_lifetime(current)
    issued = in_store(lambda engine: issue_account_token(engine, credential, name, lifetime))
    reviewer_id, row, token = issued.reviewer_id, issued.record, issued.token
    if json_output:
        emit_json(
            {
                "reviewer": reviewer_id,
                "token_id": row.id,
                "expires_at": row.expires_at.isoformat(),
                "token": token,
            }
        )
        return
    say(
        f"API token {row.id} of {reviewer_id}, valid until {row.expires_at:%Y-%m-%d %H:%M} "
        "UTC. It is shown this once; send it as `Authorization: Bearer <token>` to /api/, "
        "or set SIGNOFF_TOKEN to it for the CLI:",
        err=True,
    )
    say(token)


def _revoke_one(credential: Credential | None, token_id: int, json_output: bool) -> None:
    row = in_store(lambda engine: revoke_account_token(engine, credential, token_id))
    if json_output:
        emit_json({"token_id": row.id, "reviewer": row.reviewer_id, "revoked_at": row.revoked_at})
    else:
        say(f"API token {row.id} of {row.reviewer_id} revoked")


@users.command("tokens")
def tokens_command(
    name: ReviewerName,
    admin: AdminOption = None,
    password_stdin: AsPasswordStdin = False,
    json_output: JsonOption = False,
) -> None:
    """List a reviewer's API tokens (as an admin): id, created, expires, revoked."""
    credential = credential_of(settings(), admin, password_stdin, doing="listed")
    now = datetime.now(UTC)
    rows = in_store(lambda engine: account_tokens(engine, credential, name))
    listed = [
        {
            "id": row.id,
            "created_at": row.created_at.isoformat(),
            "expires_at": row.expires_at.isoformat(),
            "revoked_at": row.revoked_at.isoformat() if row.revoked_at else None,
            "status": _status(row.revoked_at, row.expires_at, now),
        }
        for row in rows
    ]
    if json_output:
        emit_json(listed)
        return
    if not listed:
        say(f"{name} has no API token.")
        return
    say(f"{'id':>5}  {'created':<16}  {'expires':<16}  {'revoked':<16}  status")
    for row in rows:
        revoked = f"{row.revoked_at:%Y-%m-%d %H:%M}" if row.revoked_at else "-"
        say(
            f"{row.id:>5}  {row.created_at:%Y-%m-%d %H:%M}  {row.expires_at:%Y-%m-%d %H:%M}  "
            f"{revoked:<16}  {_status(row.revoked_at, row.expires_at, now)}"
        )


def _status(revoked_at: datetime | None, expires_at: datetime, now: datetime) -> str:
    if revoked_at is not None:
        return "revoked"
    return "expired" if expires_at <= now else "active"
