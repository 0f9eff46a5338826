"""`signoff approve`, `reject`: deciding on irreversible actions from a terminal.

A decision names the exact action hash that `signoff pending` (commands_pending.py)
showed. The reviewer's tenant and roles come from the store, never from the command
line; the workflow's update validator has the last word, and its refusal is printed
as it was written.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Annotated

import typer
from temporalio.service import RPCError

from signoff.cli.commands_runs import describe_or_fail
from signoff.cli.store import opened_store
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    JsonOption,
    emit_json,
    fail,
    run_async,
    say,
    settings,
)
from signoff.config.decision_key import load_decision_key
from signoff.config.secret_files import WeakSecret
from signoff.config.settings import Settings
from signoff.config.temporal_client import connect
from signoff.config.temporal_tls import TemporalSettingsError
from signoff.service.accounts import Credential as AccountCredential
from signoff.service.accounts import CredentialKind, authenticated
from signoff.service.decisions import (
    Decider,
    DecisionNotAccepted,
    DecisionUnavailable,
    InvalidDecision,
    decide,
)
from workflows.actions import Verdict
from workflows.agent_run import AgentRun

HashOption = Annotated[str, typer.Option("--hash", help="The full action hash `pending` showed.")]
ReviewerOption = Annotated[str, typer.Option("--as", help="The reviewer deciding, e.g. alice.")]


def register(app: typer.Typer) -> None:
    app.command("approve")(approve_command)
    app.command("reject")(reject_command)


PasswordStdin = Annotated[
    bool,
    typer.Option("--password-stdin", help="Read the reviewer's password from stdin (one line)."),
]
TokenStdin = Annotated[
    bool,
    typer.Option(
        "--token-stdin",
        help="Read the reviewer's API token (`signoff user token`) from stdin instead of a "
        "password: for deployments where reviewers sign in through an auth proxy.",
    ),
]


def approve_command(
    run_id: Annotated[str, typer.Argument(help="The run waiting for a decision.")],
    action_hash: HashOption,
    reviewer: ReviewerOption,
    reason: Annotated[str, typer.Option(help="Why you approve (optional).")] = "",
    password_stdin: PasswordStdin = False,
    token_stdin: TokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Approve the exact action with this hash, as REVIEWER (their password is asked)."""
    proof = Credential(password_stdin, token_stdin)
    _decide(run_id, action_hash, reviewer, "approve", reason, proof, json_output)


def reject_command(
    run_id: Annotated[str, typer.Argument(help="The run waiting for a decision.")],
    action_hash: HashOption,
    reviewer: ReviewerOption,
    reason: Annotated[str, typer.Option(help="Why you reject it (required).")],
    password_stdin: PasswordStdin = False,
    token_stdin: TokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Reject the exact action with this hash; the agent is told why and must not retry."""
    proof = Credential(password_stdin, token_stdin)
    _decide(run_id, action_hash, reviewer, "reject", reason, proof, json_output)


def _decide(
    run_id: str,
    action_hash: str,
    reviewer_id: str,
    verdict: Verdict,
    reason: str,
    credential: Credential,
    as_json: bool,
) -> None:
    current = settings()
    decider = authenticate(current, reviewer_id, credential)
    try:
        key = load_decision_key(current)
    except WeakSecret as weak:
        fail(str(weak))
    run_async(_send(current, key, run_id, decider, action_hash, verdict, reason, as_json))


@dataclass(frozen=True)
class Credential:
    """How the reviewer proves who they are: a password (prompted or on stdin) or a token."""

    password_stdin: bool
    token_stdin: bool

    def read(self, reviewer_id: str) -> str:
        if self.password_stdin and self.token_stdin:
            fail("Give a password or a token, not both.")
        what = "API token" if self.token_stdin else "password"
        if self.password_stdin or self.token_stdin:
            secret = sys.stdin.readline().rstrip("\n")
            if not secret:
                fail(f"Nothing on stdin: give {reviewer_id}'s {what} on one line. Nothing decided.")
            return secret
        if not sys.stdin.isatty():
            # No terminal to ask on: a prompt would only fail (GetPassWarning, Aborted!).
            fail(
                f"No terminal to ask {reviewer_id}'s password: give it with --password-stdin, "
                "or an API token with --token-stdin. Nothing was decided."
            )
        entered: str = typer.prompt(f"Password of {reviewer_id}", hide_input=True)
        return entered


def authenticate(current: Settings, reviewer_id: str, credential: Credential) -> Decider:
    """The reviewer, once their own password or API token proved it is them; exit 2
    otherwise.

    `--as` names the reviewer and the credential proves it: nobody decides as someone
    else without that person's credential, so one operator cannot supply both approvals
    of a four-eyes refund.
    """
    secret = credential.read(reviewer_id)
    kind: CredentialKind = "token" if credential.token_stdin else "password"
    with opened_store(current) as engine:
        proof = authenticated(engine, AccountCredential(reviewer_id, secret, kind))
    if proof.reviewer is None:
        fail(f"{proof.problem} Nothing was decided.")
    reviewer = proof.reviewer
    return Decider(reviewer.id, reviewer.tenant_id, tuple(reviewer.role_list))


async def _send(
    current: Settings,
    key: bytes,
    run_id: str,
    decider: Decider,
    action_hash: str,
    verdict: Verdict,
    reason: str,
    as_json: bool,
) -> None:
    try:
        try:
            client = await connect(current)
        except TemporalSettingsError as error:
            fail(str(error))
        except RuntimeError:  # connect raises plain RuntimeErrors for network failures
            raise DecisionUnavailable() from None
        handle = client.get_workflow_handle_for(AgentRun.run, run_id)
        try:
            await describe_or_fail(handle)
        except RPCError:
            raise DecisionUnavailable() from None
        result = await decide(client, key, run_id, decider, action_hash, verdict, reason)
    except InvalidDecision as invalid:
        fail(f"{invalid} Copy it from `signoff pending`.")
    except DecisionNotAccepted as refused:
        fail(refused.message if refused.run_ended else f"refused: {refused.message}")
    except DecisionUnavailable as unavailable:
        fail(unavailable.message, EXIT_RUN_FAILED)
    if as_json:
        emit_json(result)
    else:
        say(f"{result.status}: {result.message}")
        say(f"decided at {datetime.now(UTC):%H:%M:%S} UTC; `signoff status {run_id}` follows it.")
