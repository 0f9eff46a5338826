"""Any irreversible tool's effect, on the store's side: the proof checked, the key claimed.

Design note. The effect activity (activities/tool_effects.py) runs a tool that may call
another system, so the tool cannot run inside a database transaction. The store's part
is two short transactions around it:

1. `claim_effect`: the command proves itself (the module note of `effect_proofs.py`:
   the caller is the run, the action hashes to its own hash, the key is the run's and
   the action's, every proof is a signed approval of this action accepted by this run
   and unspent), the run's decision records not in the audit yet (`trail`: the
   approvals, or the standing rule's approval) are written, each checked as
   `record_decision` checks it (`effect_trail.py`), the approvers are read again
   (active, of the tenant, holding a role the worker's profile asks for, not the run's
   actor) and counted against what the worker's own profiles demand of the tool
   (`workflows/effect_requirements.py`). Then the effect's row is written (`started`)
   and the proofs are spent on it (a rule's use, with its `rule_used` row). All in one
   transaction: the approval is on the record before the tool runs, even when the
   run's own `record_decision` never got through; a record the store refuses refuses
   the effect. A refusal writes a `refused` audit row instead and spends nothing. A
   key whose effect is done answers with its stored output: a retried activity never
   acts twice.
2. `finish_effect`: the tool's output is stored (`done`) with an `executed` audit row;
   or `fail_effect`: the tool answered that it did not act (an MCP tool's error
   result), stored (`failed`) with a `refused` audit row. A retry of a failed key
   answers with the same refusal and never calls the tool again: its proofs were
   spent on that attempt, and a new call needs a new approval.

Between the two the worker may die: the retry finds the row `started` and runs the
tool again with the same idempotency key, which the tool must honour (docs/configuration/
add-a-tool.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from sqlalchemy import Engine
from sqlalchemy.orm import Session

from activities.store.approvers import approvers_read_again
from activities.store.connector_schema import ToolEffect
from activities.store.database import use_session, write_transaction
from activities.store.decisions import (
    append_executed_effect,
    append_refused,
)
from activities.store.effect_proofs import (
    ProofCheck,
    caller_and_hash_problem,
    signature_problem,
    signers,
    spending_problem,
)
from activities.store.effect_trail import trail_problem
from activities.store.passkey_proofs import passkey_problem
from activities.store.rule_grants import rule_approvers, spend_approvals, tool_grant_refusal
from workflows.actions import ToolActionCommand
from workflows.approval_policy import effect_key
from workflows.effect_requirements import Requirements, unmet

STARTED = "started"
DONE = "done"
FAILED = "failed"
NOTHING_DONE_HERE = "Nothing was done."


@dataclass(frozen=True)
class EffectClaim:
    """`go`: run the tool now. `done`: it ran already; `output` is what it returned."""

    status: Literal["go", "done", "refused", "approver_invalid"]
    message: str = ""
    output: str = ""


def claim_effect(
    engine: Engine, command: ToolActionCommand, check: ProofCheck, requirements: Requirements
) -> EffectClaim:
    with write_transaction(engine) as session:
        problem = _command_problem(command, check.caller_run_id)
        if problem is None and requirements.refusal:
            problem = f"The {command.action.tool} tool may not run here: {requirements.refusal}."
        if problem is None and command.proofs:
            problem = signature_problem(
                command.action, command.proofs, command.run_id, check.keys
            ) or spending_problem(session, command.proofs, command.run_id, command.idempotency_key)
        if problem is None:
            problem = passkey_problem(
                session, command.action, command.proofs, command.run_id, check.passkeys, check.keys
            )
        if problem is None:
            # The approvals on the record first, in this transaction: an effect never
            # runs unless they are (module note).
            problem = trail_problem(
                session, command.trail, command.run_id, check.keys, command.action
            )
        if problem is not None:
            _append_refused(session, command, f"{problem} {NOTHING_DONE_HERE}", check.caller_run_id)
            return EffectClaim("refused", f"{problem} {NOTHING_DONE_HERE}")
        stored = session.get(ToolEffect, command.idempotency_key)
        if stored is not None and stored.status == DONE:
            return EffectClaim("done", output=stored.output)
        if stored is not None and stored.status == FAILED:
            return EffectClaim("refused", stored.output)
        by_rule = command.action.rule_grant is not None  # a standing rule: rule_grants.py
        if by_rule:
            void = tool_grant_refusal(session, command, check, requirements, datetime.now(UTC))
            if void is not None:
                _append_refused(session, command, void, check.caller_run_id)
                return EffectClaim("approver_invalid", void)
        void = None if by_rule else _approvals_problem(session, command, requirements)
        if void is not None:
            if not command.proofs:  # no approval to void: a call that needed one had none
                _append_refused(session, command, void, check.caller_run_id)
                return EffectClaim("refused", void)
            return EffectClaim("approver_invalid", void)
        if stored is None:
            session.add(
                ToolEffect(
                    idempotency_key=command.idempotency_key,
                    tenant_id=command.tenant_id,
                    run_id=command.run_id,
                    tool=command.action.tool,
                    action_hash=command.action.action_hash,
                    approvers=",".join(signers(command.proofs) or rule_approvers(command.action)),
                    status=STARTED,
                    output="",
                    created_at=datetime.now(UTC),
                )
            )
            session.flush()
        spend_approvals(session, command, datetime.now(UTC))
        return EffectClaim("go")


def finish_effect(engine: Engine, command: ToolActionCommand, output: str) -> None:
    """The tool's output stored, and its `executed` audit row, in one transaction."""
    with write_transaction(engine) as session:
        stored = session.get(ToolEffect, command.idempotency_key)
        if stored is None or stored.status == DONE:
            return
        stored.status = DONE
        stored.output = output
        stored.finished_at = datetime.now(UTC)
        approvers = signers(command.proofs) or rule_approvers(command.action)
        append_executed_effect(
            session,
            tenant_id=command.tenant_id,
            run_id=command.run_id,
            ticket_id=command.ticket_id,
            action_hash=command.action.action_hash,
            effect_key=command.idempotency_key,
            reason=(
                f"{command.action.tool} carried out, approved by {', '.join(approvers)}"
                if approvers
                else f"{command.action.tool} carried out without approval (policy auto)"
            ),
        )


def fail_effect(engine: Engine, command: ToolActionCommand, why: str) -> str:
    """The tool said it did not act: stored (`failed`), with a `refused` audit row that
    says why, in one transaction. Returns the message the run is told (the stored one
    when a retry got here first)."""
    message = f"The {command.action.tool} tool answered with an error and did not act: {why}"
    with write_transaction(engine) as session:
        stored = session.get(ToolEffect, command.idempotency_key)
        if stored is None or stored.status != STARTED:
            return stored.output if stored is not None else message
        stored.status = FAILED
        stored.output = message
        stored.finished_at = datetime.now(UTC)
        _append_refused(session, command, message, command.run_id)
    return message


def _command_problem(command: ToolActionCommand, caller_run_id: str) -> str | None:
    action = command.action
    problem = caller_and_hash_problem(action, command.run_id, caller_run_id, "effect")
    if problem is not None:
        return problem
    expected = (
        action.targets.get("tenant_id"),
        action.targets.get("ticket_id"),
        effect_key(command.run_id, action.tool, action.action_hash),
    )
    if (command.tenant_id, command.ticket_id, command.idempotency_key) != expected:
        return "The command does not match the action it claims to carry out."
    return None


def _approvals_problem(
    session: Session, command: ToolActionCommand, requirements: Requirements
) -> str | None:
    """None when the approvers who still count meet every requirement; else why not."""
    counted, problems = approvers_read_again(session, signers(command.proofs), command)
    if problems:
        return (
            "An approval no longer counts: " + "; ".join(problems) + ". The approval is void; "
            f"it must be given again. {NOTHING_DONE_HERE}"
        )
    for needed in requirements.needed:
        problem = unmet(needed, counted)
        if problem is not None:
            return f"{command.action.tool} {problem}. {NOTHING_DONE_HERE}"
    return None


def _append_refused(session: Session, command: ToolActionCommand, why: str, caller: str) -> None:
    append_refused(
        session,
        tenant_id=command.tenant_id,
        run_id=command.run_id,
        ticket_id=command.ticket_id,
        action_hash=command.action.action_hash,
        why=why,
        caller_run_id=caller,
    )


def effect_status(engine: Engine, key: str) -> str | None:
    """The status of the effect claimed under `key` (started, done), or None."""
    with use_session(engine) as session:
        stored = session.get(ToolEffect, key)
        return None if stored is None else stored.status


def refuse_effect(engine: Engine, command: ToolActionCommand, why: str, caller_run_id: str) -> None:
    """A `refused` audit row for an effect refused before its claim (its connector
    switched off): the store says why nothing was done."""
    with write_transaction(engine) as session:
        _append_refused(session, command, why, caller_run_id)
