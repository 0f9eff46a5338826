"""The reviewers' side of the gate: the `decide` update's rules and what a decision does.

Design note. The validator (`validate`) refuses, before anything reaches history, a
hash that is not open (`waiting_action.WaitingAction.open`), an expired action, a
reviewer without one of its roles, of another tenant, the run's actor, the same
reviewer twice, or one its next step does not accept (N of M, chains:
`approval_requirements.py`); a late reviewer reads what became of the action. The
handler (`decide`) then appends the decision to the trail and replaces the action's
record: one more approval and its signed proof, a rejection, or an edit, whose edited
action waits in the original's place with this approval as its first. The gate's
loop (`approval_gate.py`) sees the record change and goes on.

This is workflow code: no I/O, and time only through `workflow.now()`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from temporalio import workflow
from temporalio.exceptions import ApplicationError

with workflow.unsafe.imports_passed_through():
    from workflows.action_edits import edited_action
    from workflows.actions import Decision, DecisionRecord, DecisionResult, PendingAction
    from workflows.approval_policy import DecisionRefused, check_decision, expired_words
    from workflows.approval_requirements import next_step_words, recorded_message
    from workflows.audit_trail import TrailRecorder
    from workflows.contracts import RunRequest
    from workflows.gate_results import GateResults, trail_record
    from workflows.refusal_kinds import DECISION_REFUSED, NOT_PENDING, UNKNOWN_ACTION
    from workflows.waiting_action import WaitingAction
    from workflows.wording import N_, Wording, worded
    from workflows.wording_wire import wire_of

# The trail's word for each verdict (read-only: workflow code holds no mutable global).
DECIDED_KIND: Mapping[str, Literal["approved", "rejected", "responded"]] = MappingProxyType(
    {"approve": "approved", "reject": "rejected", "respond": "responded"}
)
# How a refusal names what became of a request (a page translates these).
RESOLUTION_WORDS: Mapping[str, str] = MappingProxyType(
    {
        "approved": N_("approved"),
        "rejected": N_("rejected"),
        "expired": N_("expired"),
        "edited": N_("edited"),
        "responded": N_("answered with an instruction"),
    }
)


def refusal_error(why: str | Wording, kind: str) -> ApplicationError:
    """The update's refusal: its English message, and its wording in the details, so a
    page writes it in its own language (`workflows/wording_wire.py`)."""
    if isinstance(why, str):
        return ApplicationError(why, type=kind)
    return ApplicationError(why.english(), wire_of(why), type=kind)


@dataclass
class GateDecisions(GateResults):
    """The gate's records of its actions, and the decisions reviewers make on them."""

    request: RunRequest
    # Every action the gate held, by hash, one record each; the waiting ones in the
    # order they started to wait.
    records: dict[str, WaitingAction] = field(default_factory=dict)
    # Writes the trail to the store's audit table.
    recorder: TrailRecorder = field(init=False)

    def __post_init__(self) -> None:
        self.recorder = TrailRecorder(self.request, self.decisions, self.records)

    @property
    def pending(self) -> list[PendingAction]:
        """The actions that wait, in the order they started to wait."""
        return [record.action for record in self.records.values() if record.waiting]

    def waiting_action(self, digest: str) -> PendingAction | None:
        record = self.records.get(digest)
        return record.action if record is not None and record.waiting else None

    def validate(self, decision: Decision) -> None:
        """The update validator: raise to refuse, write nothing."""
        digest = decision.original_hash or decision.action_hash
        record = self.records.get(digest)
        if record is None or not record.open:
            raise self._not_pending(digest)
        action = record.action
        try:
            if decision.original_hash is not None or decision.edits is not None:
                self._edited(action, decision)
                # An approval of the original does not count for its edit: only the
                # edit's own approvals do, so the original's approvers may edit too.
                action = action.model_copy(update={"approvals": []})
            check_decision(
                action,
                decision,
                run_tenant=self.request.tenant_id,
                run_actor=self.request.actor_id,
                now=workflow.now(),
            )
            if decision.verdict == "approve":
                # N of M, one from a role, a chain's order (approval_requirements.py).
                why = next_step_words(action, decision.reviewer_id, decision.reviewer_roles)
                if why is not None:
                    raise DecisionRefused(why)
        except DecisionRefused as refused:
            raise refusal_error(refused.wording or str(refused), DECISION_REFUSED) from None

    def _edited(self, original: PendingAction, decision: Decision) -> PendingAction:
        """The edited action the decision approves; DecisionRefused when it does not
        match what was signed, or the edit is not allowed."""
        if decision.original_hash is None or decision.edits is None:
            raise DecisionRefused(N_("An edit names both the original action and its edits."))
        if decision.verdict != "approve":
            raise DecisionRefused(
                N_("Only an approval carries edits; reject the request as it is.")
            )
        if not decision.reason.strip():
            raise DecisionRefused(N_("Say why you changed it: the agent is told your reason."))
        edited = edited_action(
            original,
            decision.edits,
            editor=decision.reviewer_id,
            run_id=workflow.info().workflow_id,
        )
        if edited.action_hash != decision.action_hash:
            raise DecisionRefused(
                "The decision's hash is not the hash of the edited action; open the request "
                "again and edit it there."
            )
        return edited

    def decide(self, decision: Decision) -> DecisionResult:
        if decision.original_hash is not None:
            return self._decide_edit(decision)
        record = self.records[decision.action_hash]
        action = record.action
        kind = DECIDED_KIND[decision.verdict]
        line = trail_record(
            action,
            kind,
            reviewer_id=decision.reviewer_id,
            reason=decision.reason,
            category=(decision.category or "other") if kind == "rejected" else None,
        )
        self.decisions.append(line)
        self.recorder.signed[len(self.decisions) - 1] = decision  # the audit writes it
        if kind == "responded":
            self.records[action.action_hash] = record.ended("responded")
            return DecisionResult(
                action_hash=action.action_hash,
                status="responded",
                message=(
                    f"Sent to the agent. The {record.hooks.noun} does not happen as proposed; "
                    "the agent reads your words as your instruction."
                ),
            )
        if kind == "rejected":
            self.records[action.action_hash] = record.ended("rejected")
            return DecisionResult(
                action_hash=action.action_hash,
                status="rejected",
                message=(
                    f"Rejected. The {record.hooks.noun} will not happen, and the agent is told why."
                ),
            )
        if action.one_from is not None or action.chain:
            # The roles the store verified: what a role's or a chain's step counts on.
            line = line.model_copy(update={"roles": list(decision.reviewer_roles)})
            self.decisions[-1] = line
        # The signed decision itself goes to the effect, which verifies it again.
        record = record.approved_by(line, decision)
        self.records[action.action_hash] = record
        if record.resolution != "approved":
            return DecisionResult(
                action_hash=action.action_hash,
                status="approval_recorded",
                message=recorded_message(record.action),
            )
        return DecisionResult(
            action_hash=action.action_hash,
            status="approved",
            message=(f"Approved. The {record.hooks.noun} is carried out once, after a last check."),
        )

    def _decide_edit(self, decision: Decision) -> DecisionResult:
        """The original ends as `edited`; the edited action, with this approval as its
        first, waits in its place (the gate judges its mode on its own arguments)."""
        assert decision.original_hash is not None
        record = self.records[decision.original_hash]
        original = record.action
        edited = self._edited(original, decision)
        self.decisions.append(
            trail_record(
                original,
                "edited",
                reviewer_id=decision.reviewer_id,
                reason=f"{edited.note} {decision.reason}",
            )
        )
        approval = trail_record(
            edited, "approved", reviewer_id=decision.reviewer_id, reason=decision.reason
        )
        if edited.one_from is not None or edited.chain:
            approval = approval.model_copy(update={"roles": list(decision.reviewer_roles)})
        self.decisions.append(approval)
        self.recorder.signed[len(self.decisions) - 1] = decision
        edit = edited.model_copy(update={"approvals": [approval]})
        self.records[edited.action_hash] = WaitingAction(edit, record.hooks, proofs=(decision,))
        self.records[original.action_hash] = replace(record.ended("edited"), edit=edit)
        return DecisionResult(
            action_hash=edited.action_hash,
            status="edited",
            message=(
                f"Approved with changes. The edited {record.hooks.noun} is checked again "
                "and carried out once; if its amount still needs four eyes, a second "
                "reviewer must approve the edited version."
            ),
        )

    def refuse(self, decision: Decision, why: str) -> None:
        """A decide attempt that failed verification: kept in the trail, decides nothing."""
        action = self.waiting_action(decision.action_hash)
        if action is not None:
            line = trail_record(action, "refused", reviewer_id=decision.reviewer_id, reason=why)
        else:
            line = DecisionRecord(
                action_hash=decision.action_hash,
                kind="refused",
                reviewer_id=decision.reviewer_id,
                at=workflow.now(),
                reason=why,
            )
        self.decisions.append(line)

    def _not_pending(self, digest: str) -> ApplicationError:
        record = self.records.get(digest)
        kind = NOT_PENDING if record is not None and record.known else UNKNOWN_ACTION
        return refusal_error(self._why_not_pending(record), kind)

    def _why_not_pending(self, record: WaitingAction | None) -> str | Wording:
        if record is not None and record.voided:
            return N_("This request changed since you opened it; review the new version.")
        resolution = None if record is None else record.resolution
        if resolution == "expired":
            assert record is not None and record.expired_at is not None
            return expired_words(record.expired_at, workflow.now())
        if resolution == "edited":
            assert record is not None and record.edit is not None
            edited = record.edit
            return worded(
                N_(
                    "This request was edited by %(editor)s; decide on the edited version "
                    "(%(hash)s)."
                ),
                editor=edited.edited_by or "",
                hash=edited.action_hash,
            )
        if resolution is not None:
            return worded(
                N_("This request was already decided (%(resolution)s)."),
                resolution=worded(RESOLUTION_WORDS[resolution]),
            )
        return N_("No pending request has this hash in this run; it may have been decided already.")
