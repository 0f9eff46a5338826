"""`signoff approve`, `reject`: deciding on irreversible actions from a terminal.

A decision names the exact action hash that `signoff pending` (commands_pending.py)
showed. The CLI holds no decision key: it sends the reviewer's password or API token
and the decision to the decision service (decision_service.py), which authenticates
the reviewer, reads their tenant and roles from its store and signs. The workflow's
update validator has the last word, and its refusal is printed as it was written.
Several runs, or `--all-pending` with its filters, decide several at once
(batch_approvals.py): shown first, confirmed, then a line per run.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal, InvalidOperation
from http import HTTPStatus
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from signoff.cli.approval_edits import edits_of
from signoff.cli.decision_service import (
    ServiceCredential,
    ServiceRefused,
    ServiceUnreachable,
    send_to_service,
)
from signoff.cli.service_proof import ServiceProof
from signoff.cli.support import (
    EXIT_RUN_FAILED,
    AsPasswordStdin,
    AsTokenStdin,
    JsonOption,
    checked_run_ids,
    emit_json,
    fail,
    say,
    settings,
)
from workflows.actions import Verdict
from workflows.reject_reasons import CATEGORIES, category_problem

if TYPE_CHECKING:  # imported by the batches that use them: one decision needs neither
    from signoff.cli.batch_service import Filter

# What the service takes (approvals_ui DecisionBody); checked first, to say it here.
ACTION_HASH_PATTERN = r"[0-9a-f]{64}"
HashOption = Annotated[
    str | None,
    typer.Option(
        "--hash", help="The full action hash `pending` showed (deciding one run's request)."
    ),
]
RunsArgument = Annotated[
    list[str] | None,
    typer.Argument(
        metavar="RUN",
        help="The run(s) waiting for a decision. One with --hash decides that request; "
        "several decide every request they hold, after showing them.",
        show_default=False,
        callback=checked_run_ids,
    ),
]
AllPendingOption = Annotated[
    bool,
    typer.Option(
        "--all-pending",
        help="Decide every request waiting in your tenant that --tool and --max-amount keep.",
    ),
]
ToolOption = Annotated[
    str | None, typer.Option(help="With --all-pending: only this tool's requests, e.g. refund.")
]
MaxAmountOption = Annotated[
    str | None,
    typer.Option(
        help="With --all-pending: only requests whose exposure (the money their tool's "
        "policy declares) is at most this amount, e.g. 20.00; a request without one "
        "never matches."
    ),
]
YesOption = Annotated[
    bool,
    typer.Option("--yes", help="Decide the requests shown without asking to confirm."),
]
ReviewerOption = Annotated[str, typer.Option("--as", help="The reviewer deciding, e.g. alice.")]


def register(app: typer.Typer) -> None:
    app.command("approve")(approve_command)
    app.command("reject")(reject_command)
    app.command("respond")(respond_command)


def approve_command(
    reviewer: ReviewerOption,
    run_ids: RunsArgument = None,
    action_hash: HashOption = None,
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
    set_values: Annotated[
        list[str] | None,
        typer.Option(
            "--set",
            metavar="NAME=VALUE",
            help="Approve with this argument changed, NAME=VALUE (repeatable), for any "
            "argument the tool's policy lets a reviewer edit, e.g. --set value=10.",
        ),
    ] = None,
    all_pending: AllPendingOption = False,
    tool: ToolOption = None,
    max_amount: MaxAmountOption = None,
    yes: YesOption = False,
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Approve the exact action with this hash, as REVIEWER (their password is asked).

    With --amount, --text or --set, approve it with that change (a new action, a new hash).
    With several runs, or --all-pending and its filters, approve every request they
    hold: the list is shown first and confirmed (or --yes); each is decided on its own."""
    edits = edits_of(amount, text, set_values or [])
    if edits and not reason.strip():
        fail("Say why you changed it with --reason: the agent is told your reason.")
    proof = ServiceProof(password_stdin, token_stdin)
    wanted = Wanted(run_ids, action_hash, all_pending, tool, max_amount, yes)
    if wanted.is_batch():
        if edits:
            fail("An edit is one request's: approve it alone (one RUN with --hash).")
        _decide_several(wanted, reviewer, "approve", reason, None, proof, json_output)
        return
    chosen = Chosen(edits=edits or None)
    _decide(
        wanted.one_run(), wanted.one_hash(), reviewer, "approve", reason, proof, json_output, chosen
    )


def reject_command(
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
    run_ids: RunsArgument = None,
    action_hash: HashOption = None,
    all_pending: AllPendingOption = False,
    tool: ToolOption = None,
    max_amount: MaxAmountOption = None,
    yes: YesOption = False,
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Reject the exact action with this hash; the agent is told the category and why.

    With several runs, or --all-pending and its filters, reject every request they hold
    with this one category and reason: the list is shown first and confirmed (or --yes)."""
    problem = category_problem(category.strip())
    if problem is not None:
        fail(problem)
    if not reason.strip():
        fail("A reason is required to reject: give it with --reason; the agent is told it.")
    proof = ServiceProof(password_stdin, token_stdin)
    wanted = Wanted(run_ids, action_hash, all_pending, tool, max_amount, yes)
    if wanted.is_batch():
        _decide_several(wanted, reviewer, "reject", reason, category.strip(), proof, json_output)
        return
    chosen = Chosen(category=category.strip())
    _decide(
        wanted.one_run(), wanted.one_hash(), reviewer, "reject", reason, proof, json_output, chosen
    )


def respond_command(
    reviewer: ReviewerOption,
    run_id: Annotated[str, typer.Argument(metavar="RUN", help="The run waiting for a decision.")],
    action_hash: Annotated[
        str, typer.Option("--hash", help="The full action hash `pending` showed.")
    ],
    text: Annotated[
        str,
        typer.Option(help="What the agent should do instead, e.g. 'check the tracking first'."),
    ],
    password_stdin: AsPasswordStdin = False,
    token_stdin: AsTokenStdin = False,
    json_output: JsonOption = False,
) -> None:
    """Answer the agent instead of deciding: the request ends without happening, and the
    agent reads TEXT as your instruction (no category; not a rejection). Signed and on
    the audit like a decision. One request at a time."""
    if not text.strip():
        fail("Give the agent your words with --text, e.g. --text 'check the tracking first'.")
    proof = ServiceProof(password_stdin, token_stdin)
    _decide(run_id, action_hash, reviewer, "respond", text, proof, json_output, Chosen())


@dataclass(frozen=True)
class Wanted:
    """Which requests the command names: one run's by hash, several runs, or a filter."""

    run_ids: list[str] | None
    action_hash: str | None
    all_pending: bool
    tool: str | None
    max_amount: str | None
    yes: bool

    def is_batch(self) -> bool:
        runs = self.run_ids or []
        if self.all_pending:
            if runs or self.action_hash:
                fail("--all-pending decides what a filter keeps: name no run and no --hash.")
            return True
        if self.tool is not None or self.max_amount is not None:
            fail("--tool and --max-amount filter --all-pending: add --all-pending.")
        if not runs:
            fail("Name the run to decide (with --hash), several runs, or --all-pending.")
        if len(runs) > 1 and self.action_hash:
            fail("--hash names one run's request: leave it out to decide several runs.")
        return self.action_hash is None

    def one_run(self) -> str:
        return (self.run_ids or [""])[0]

    def one_hash(self) -> str:
        return self.action_hash or ""

    def filter(self) -> Filter | None:
        if not self.all_pending:
            return None
        limit = None
        if self.max_amount is not None:
            try:
                limit = Decimal(self.max_amount.strip())
            except InvalidOperation:
                limit = None
            if limit is None or not limit.is_finite() or limit < 0:
                fail(f"--max-amount takes an amount such as 20.00, not '{self.max_amount}'.")
        from signoff.cli.batch_service import Filter

        return Filter(tool=self.tool, max_amount=limit)


def _decide_several(
    wanted: Wanted,
    reviewer_id: str,
    verdict: Verdict,
    reason: str,
    category: str | None,
    credential: ServiceProof,
    as_json: bool,
) -> None:
    # The batch's listing and plan (the policies' approver rules, the tool catalog)
    # only for a batch: one decision, typed all day, loads none of it (bench/cli).
    from signoff.cli.batch_approvals import Batch, decide_several

    chosen = wanted.filter()
    current = settings()
    proof = credential.read(reviewer_id, current, "decided")
    batch = Batch(
        run_ids=list(dict.fromkeys(wanted.run_ids or [])),
        chosen=chosen,
        verdict=verdict,
        reason=reason.strip(),
        category=category,
        yes=wanted.yes,
        as_json=as_json,
    )
    decide_several(current.resolved_decision_service_url, proof, batch)


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
    credential: ServiceProof,
    as_json: bool,
    chosen: Chosen,
) -> None:
    current = settings()
    if not re.fullmatch(ACTION_HASH_PATTERN, action_hash.strip().lower()):
        fail(
            "That is not a valid action hash: copy the full 64-character hash that "
            "`signoff pending` shows."
        )
    proof = credential.read(reviewer_id, current, "decided")
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
