"""`signoff approve`, `reject`: deciding on irreversible actions from a terminal.

A decision names the exact action hash that `signoff pending` (commands_pending.py)
showed. The CLI holds no decision key: it sends the reviewer's password or API token
and the decision to the decision service (decision_service.py), which authenticates
the reviewer, reads their tenant and roles from its store and signs. The workflow's
update validator has the last word, and its refusal is printed as it was written.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from datetime import UTC, datetime
from http import HTTPStatus
from typing import Annotated, NoReturn

import typer

from signoff.cli.decision_service import (
    NotThatReviewer,
    ServiceCredential,
    ServiceRefused,
    ServiceUnreachable,
    send_to_service,
)
from signoff.cli.support import EXIT_RUN_FAILED, JsonOption, emit_json, fail, say, settings
from signoff.config.settings import Settings
from signoff.service.decisions import INVALID_HASH
from workflows.actions import Verdict
from workflows.reject_reasons import CATEGORIES, category_problem

# What the service takes (approvals_ui DecisionBody); checked first, to say it here.
ACTION_HASH_PATTERN = r"[0-9a-f]{64}"
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
    reason: Annotated[
        str, typer.Option(help="Why you approve (optional; required with an edit).")
    ] = "",
    amount: Annotated[
        str | None,
        typer.Option(
            help="Approve a lower refund instead, e.g. 50.00 (where the policy lets a "
            "reviewer edit the amount)."
        ),
    ] = None,
    text: Annotated[
        str | None,
        typer.Option(help="Approve send_reply with this text instead of the draft."),
    ] = None,
    password_stdin: PasswordStdin = False,
    token_stdin: TokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Approve the exact action with this hash, as REVIEWER (their password is asked).

    With --amount or --text, approve it with that change (a new action, a new hash)."""
    edits = {name: value for name, value in (("amount", amount), ("text", text)) if value}
    if (amount is not None or text is not None) and not edits:
        fail("An edit needs a value: give --amount 50.00 or --text '...'.")
    if edits and not reason.strip():
        fail("Say why you changed it with --reason: the agent is told your reason.")
    proof = Credential(password_stdin, token_stdin)
    chosen = Chosen(edits=edits or None)
    _decide(run_id, action_hash, reviewer, "approve", reason, proof, json_output, chosen)


def reject_command(
    run_id: Annotated[str, typer.Argument(help="The run waiting for a decision.")],
    action_hash: HashOption,
    reviewer: ReviewerOption,
    reason: Annotated[str, typer.Option(help="Why you reject it (required).")],
    category: Annotated[
        str,
        typer.Option(
            help="Why, in a form the agent can use (required): "
            + ", ".join(CATEGORIES)
            + ". suspected_fraud ends the run."
        ),
    ],
    password_stdin: PasswordStdin = False,
    token_stdin: TokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Reject the exact action with this hash; the agent is told the category and why."""
    problem = category_problem(category.strip())
    if problem is not None:
        fail(problem)
    proof = Credential(password_stdin, token_stdin)
    chosen = Chosen(category=category.strip())
    _decide(run_id, action_hash, reviewer, "reject", reason, proof, json_output, chosen)


@dataclass(frozen=True)
class Chosen:
    """A rejection's category, or an approval's edits."""

    category: str | None = None
    edits: dict[str, str] | None = None


def _decide(
    run_id: str,
    action_hash: str,
    reviewer_id: str,
    verdict: Verdict,
    reason: str,
    credential: Credential,
    as_json: bool,
    chosen: Chosen,
) -> None:
    current = settings()
    if not re.fullmatch(ACTION_HASH_PATTERN, action_hash.strip().lower()):
        fail(f"{INVALID_HASH} Copy it from `signoff pending`.")
    proof = credential.read(reviewer_id, current)
    url = current.resolved_decision_service_url
    try:
        result = send_to_service(
            url,
            proof,
            run_id,
            action_hash.strip().lower(),
            verdict,
            reason.strip(),
            category=chosen.category,
            edits=chosen.edits,
        )
    except NotThatReviewer:
        fail(
            f"That API token is not '{reviewer_id}''s (or was revoked). Nothing was "
            "decided; the reviewer gets a new one with `signoff user token`."
        )
    except ServiceUnreachable as unreachable:
        fail(str(unreachable), EXIT_RUN_FAILED)
    except ServiceRefused as refused:
        _refused(refused, proof)
    if as_json:
        emit_json(result)
    else:
        say(f"{result.status}: {result.message}")
        say(f"decided at {datetime.now(UTC):%H:%M:%S} UTC; `signoff status {run_id}` follows it.")


def _refused(refused: ServiceRefused, proof: ServiceCredential) -> NoReturn:
    """The service's answer, with today's exit codes: bad input 2, could not decide 1."""
    if refused.status_code == HTTPStatus.UNAUTHORIZED:
        if proof.is_token:
            # The service says why (expired, revoked, unknown); its words, then what to do.
            fail(f"{refused.detail} Nothing was decided.")
        fail(
            f"Wrong password for '{proof.reviewer_id}', or no such reviewer with a "
            "password. Nothing was decided; the reviewer sets one with `signoff user passwd`."
        )
    if refused.status_code == HTTPStatus.CONFLICT:
        fail(f"refused: {refused.detail}")
    if refused.status_code in (HTTPStatus.TOO_MANY_REQUESTS,) or refused.status_code >= 500:
        fail(refused.detail, EXIT_RUN_FAILED)
    fail(refused.detail)


@dataclass(frozen=True)
class Credential:
    """How the reviewer proves who they are: a password (prompted or on stdin) or a token."""

    password_stdin: bool
    token_stdin: bool

    def read(self, reviewer_id: str, current: Settings) -> ServiceCredential:
        if self.password_stdin and self.token_stdin:
            fail("Give a password or a token, not both.")
        what = "API token" if self.token_stdin else "password"
        if self.password_stdin or self.token_stdin:
            secret = sys.stdin.readline().rstrip("\n")
            if not secret:
                fail(f"Nothing on stdin: give {reviewer_id}'s {what} on one line. Nothing decided.")
            return ServiceCredential(reviewer_id, secret, is_token=self.token_stdin)
        if current.token is not None:  # the caller's API token, as for `--as` elsewhere
            return ServiceCredential(reviewer_id, current.token.get_secret_value(), is_token=True)
        if not sys.stdin.isatty():
            # No terminal to ask on: a prompt would only fail (GetPassWarning, Aborted!).
            fail(
                f"No terminal to ask {reviewer_id}'s password: give it with --password-stdin, "
                "or an API token with --token-stdin (or SIGNOFF_TOKEN). Nothing was "
                "decided."
            )
        entered: str = typer.prompt(f"Password of {reviewer_id}", hide_input=True)
        return ServiceCredential(reviewer_id, entered, is_token=False)
