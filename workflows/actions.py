"""The types of irreversible actions: what a reviewer decides on, and what executes.

A `PendingAction` is bound to the exact action by `action_hash`, the SHA-256 of the RFC
8785 canonical JSON of the tool, its normalized arguments, its targets, the model's
stated reason, the policy version and `state_hash` (the hash of what the decision is
judged on: paid amount, refunded total, order status). A decision names that hash; a
changed payload or a changed state has another hash, so a stale approval cannot
authorize it.
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Literal

from pydantic import Field

from workflows.command_wire import TrailCommand
from workflows.connector_waits import ConnectorWait
from workflows.contract_base import Contract, Identifier
from workflows.decision_proof import KEY_ID_PATTERN, SIGNATURE_PATTERN, signed_document
from workflows.exposure import ActionExposure
from workflows.passkey_assertion import PasskeyAssertion as PasskeyAssertion  # re-exported
from workflows.rule_grant import RuleGrant, RuleMatch
from workflows.wire_contract import WireContract

READ_ACTION_STATE_ACTIVITY = "read_action_state"
EXECUTE_REFUND_ACTIVITY = "execute_refund"
HOLD_PENDING_REFUND_ACTIVITY = "hold_pending_refund"
RELEASE_PENDING_REFUND_ACTIVITY = "release_pending_refund"
RECORD_DECISION_ACTIVITY = "record_decision"
# Any other irreversible tool (`tool_gate.py`): its arguments checked, its action's inbox
# row, and its effect, which verifies its proofs itself (activities/tool_effects.py).
PREPARE_TOOL_CALL_ACTIVITY = "prepare_tool_call"
HOLD_WAITING_ACTION_ACTIVITY = "hold_waiting_action"
EXECUTE_TOOL_ACTION_ACTIVITY = "execute_tool_action"
REFUND_APPROVER_ROLE = "refund_approver"

ApprovalMode = Literal["auto", "confirm", "review", "deny"]
# `respond`: the reviewer answers the agent instead of deciding ("check the tracking
# first"): the action ends without happening, and the model reads the words as the
# reviewer's instruction (workflows/gate_results.py). Signed and audited like the others.
Verdict = Literal["approve", "reject", "respond"]
# Why a reviewer rejected, in a form the agent can act on (`workflows/reject_reasons.py`
# says what each tells the model).
RejectCategory = Literal[
    "wrong_amount", "not_eligible", "needs_more_information", "suspected_fraud", "other"
]
# `refused`: a decide attempt that reached the run but failed verification (a forged or
# stale proof, a replayed nonce, a reviewer the store no longer lets decide).
# `edited`: a reviewer changed the action's editable arguments; an edited action
# (`workflows/action_edits.py`) with its own hash takes its place.
# `escalated`: the action expired unanswered and its policy sent it to another role
# with a new time to live (`workflows/escalation.py`); the same action keeps waiting.
DecisionKind = Literal[
    "approved",
    "rejected",
    "expired",
    "voided",
    "denied",
    "cancelled",
    "refused",
    "edited",
    "escalated",
    "responded",
    # A standing rule approved it (`rule_approved`), or would have, were it not in
    # shadow mode (`rule_shadow`): the run's own records, naming the rule.
    "rule_approved",
    "rule_shadow",
]


class ActionStateRequest(Contract):
    tenant_id: str
    ticket_id: str


class ActionState(Contract):
    """What a refund decision is judged on, read from the store by an activity."""

    order_id: str | None
    currency: str | None
    paid_minor: int = 0
    refunded_minor: int = 0
    order_status: str | None = None
    review_threshold_minor: int

    @property
    def refundable_minor(self) -> int:
        return max(0, self.paid_minor - self.refunded_minor)


class DecisionRecord(WireContract):
    """One line of the decision trail: who decided what on which action, and why.

    The order, amount and currency of the action travel with the record, so that the
    trail of a rejected, expired or voided action still says what it was about. They
    are None in records written before they were added.
    """

    WIRE_OMITS = ("category", "roles")

    action_hash: str
    kind: DecisionKind
    reviewer_id: str | None = None
    at: datetime
    reason: str = ""
    order_id: str | None = None
    amount: str | None = None
    currency: str | None = None
    # A rejection's category; None for other kinds and for records written before it.
    category: RejectCategory | None = None
    # An approval's reviewer's roles as the store verified them, for a policy that asks
    # one approval from a role or a chain of roles (`workflows/approval_requirements.py`);
    # empty on other kinds and on records written before it.
    roles: list[str] = []


class DecisionEvent(Contract):
    """One decision record on its way to the store's append-only audit table.

    `sequence` is the record's index in the run's trail: with the run id it names the
    event, so a retried activity finds its own row instead of writing a second one.
    `approval_number` and `approvals_required` tell a first approval of two apart from
    the approval that authorizes the action; both are None for other kinds.
    """

    run_id: str
    tenant_id: str
    ticket_id: str
    sequence: int
    record: DecisionRecord
    approval_number: int | None = None
    approvals_required: int | None = None
    # The action's mode and when it started to wait, for the approval-wait span and
    # metrics (activities/observe.py); None for records of no waiting action, and in
    # events sent before they were added. Not part of the audit row.
    mode: Literal["confirm", "review"] | None = None
    requested_at: datetime | None = None
    # The reviewer's signed decision, for an approved or rejected record: the audit
    # writes a reviewer's decision only with its proof (activities/store/record_proofs.py).
    proof: Decision | None = None


class PendingAction(WireContract):
    WIRE_OMITS = (
        "approvals",
        "supersedes",
        "note",
        "pending_minor",
        "editable",
        "edited_by",
        "proposed",
        "one_from",
        "chain",
        "escalations",
        "rule_grant",
        "exposure",
        "category_argument",
    )

    action_hash: str
    tool_use_id: str
    tool: str
    arguments: dict[str, str]
    targets: dict[str, str]
    reason: str
    policy_version: str
    state: ActionState
    state_hash: str
    mode: Literal["confirm", "review"]
    required_approvals: int
    # Who may decide: a reviewer holds one of these roles (the tool's profile policy).
    approver_roles: list[str] = [REFUND_APPROVER_ROLE]
    approvals: list[DecisionRecord] = []
    requested_at: datetime
    expires_at: datetime
    # Set when this action replaces one whose approval went void (the state changed).
    supersedes: str | None = None
    note: str = ""
    # The other refunds still pending on the order (of this run and of other runs) when
    # the mode was judged; 0 on actions judged per call, before exposure counted.
    pending_minor: int = 0
    # The arguments a reviewer may change before approving (the tool policy's
    # `editable`); none on an action that is itself an edit.
    editable: list[str] = []
    # On an edited action: who edited it and the arguments the agent proposed. Its
    # `supersedes` is the proposed action's hash, so its own hash names the original.
    edited_by: str | None = None
    proposed: dict[str, str] | None = None
    # N of M (`workflows/approval_requirements.py`): one approval of the
    # `required_approvals` must come from a holder of `one_from`; or each approval in
    # turn from the role of its `chain` step.
    one_from: str | None = None
    chain: list[str] = []
    # How many times it expired and was escalated (`workflows/escalation.py`).
    escalations: int = 0
    # The standing rule that approved it instead of a reviewer (`workflows/standing_rules.py`);
    # not part of its hash: the effect checks the rule itself.
    rule_grant: RuleGrant | None = None
    # Its money, currency and order where its tool's policy declares them (exposure.py;
    # hashed). None: no amount, whatever its arguments are called.
    exposure: ActionExposure | None = None
    # The argument a standing rule's `category` term reads, where its tool's policy
    # names one (`category_argument`; hashed). None: no rule with a category covers it.
    category_argument: str | None = None


class Decision(WireContract):
    """The input of the `decide` update, sent by the CLI or the reviewer UI.

    What it claims (reviewer, roles, tenant) proves nothing by itself: the proof is the
    signature of the front end that authenticated the reviewer (see
    `workflows/decision_proof.py`). The four proof fields are None only in decisions
    recorded before proofs existed.
    """

    WIRE_OMITS = ("original_hash", "edits", "category")

    action_hash: Annotated[str, Field(min_length=64, max_length=64, pattern=r"^[0-9a-f]{64}$")]
    verdict: Verdict
    reviewer_id: Identifier
    reviewer_roles: list[str]
    tenant_id: Identifier
    reason: Annotated[str, Field(max_length=2000)] = ""
    issued_at: datetime | None = None
    nonce: Annotated[str, Field(pattern=r"^[0-9a-f]{32}$")] | None = None
    # The id of the decision service's key that signed (decision_proof.key_id_of), and
    # its Ed25519 signature over `signed_document`.
    key_id: Annotated[str, Field(pattern=KEY_ID_PATTERN)] | None = None
    signature: Annotated[str, Field(pattern=SIGNATURE_PATTERN)] | None = None
    # An approval with changes: `action_hash` is the edited action's, `original_hash`
    # the proposed one's, and `edits` the arguments the reviewer changed (all signed).
    original_hash: (
        Annotated[str, Field(min_length=64, max_length=64, pattern=r"^[0-9a-f]{64}$")] | None
    ) = None
    edits: dict[str, Annotated[str, Field(max_length=4000)]] | None = None
    # A rejection's category (signed); None on approvals.
    category: RejectCategory | None = None
    # The reviewer's passkey over this decision, where the policy asks for a step-up
    # (`passkey_above`); not part of the signed document, whose hash it signs.
    passkey: PasskeyAssertion | None = None

    def signed_document(self, run_id: str) -> dict[str, Any]:
        """What the signature covers; the proof fields must be set."""
        if self.issued_at is None or self.nonce is None or self.key_id is None:
            raise ValueError("an unsigned decision has no signed document")
        return signed_document(
            run_id=run_id,
            action_hash=self.action_hash,
            verdict=self.verdict,
            reviewer_id=self.reviewer_id,
            tenant_id=self.tenant_id,
            reason=self.reason,
            issued_at=self.issued_at,
            nonce=self.nonce,
            key_id=self.key_id,
            original_hash=self.original_hash,
            edits=self.edits,
            category=self.category,
        )


class DecisionResult(Contract):
    # With `edited`, `action_hash` is the edited action's: it is carried out after a
    # last check, or waits for a second reviewer when its exposure needs one.
    action_hash: str
    status: Literal["approved", "rejected", "approval_recorded", "edited", "responded"]
    message: str


class RefundCommand(TrailCommand):
    """Executes one approved refund; the idempotency key comes from run and action.

    It carries its proof: the action the reviewers approved and their signed decisions.
    The ledger trusts no field of it by itself (anyone who reaches the task queue can
    call the activity): it computes the action's hash again, checks that the command's
    fields are the action's, verifies every signature and spends each decision on this
    one refund (`activities/store/effect_proofs.py`).
    """

    run_id: str
    tenant_id: str
    ticket_id: str
    order_id: str
    amount_minor: int
    currency: str
    idempotency_key: str
    action_hash: str
    expected_state_hash: str
    approvers: list[str]
    reason: str = ""
    # Who asked for the run: never one of its approvers. None in commands recorded
    # before it was added; the ledger still checks everything else about each approver.
    actor_id: str | None = None
    action: PendingAction
    proofs: list[Decision]
    # The run's decision records not in the audit yet (the approvals that led here): the
    # effect writes them in its own transaction (activities/store/effect_trail.py).
    trail: list[DecisionEvent] = []


class PreparedArguments(Contract):
    """A tool call's arguments checked against the tool's own model and normalized (each
    value as text: a string as it is, anything else as compact JSON), or why not."""

    arguments: dict[str, str] | None = None
    problem: str = ""


class ToolActionCommand(TrailCommand):
    """Carries out one irreversible tool call. Like `RefundCommand`, it carries its
    proof: the action and the signed approvals, which the effect verifies itself.
    `agent_name` says which agent of the worker's profiles judges the tool's policy;
    the effect takes the strictest policy any agent gives the tool whatever it says."""

    run_id: str
    tenant_id: str
    ticket_id: str
    actor_id: str | None = None
    idempotency_key: str
    action: PendingAction
    proofs: list[Decision] = []
    # As the refund's: the run's decision records not in the audit yet, which the effect
    # writes in its claim's transaction (activities/store/tool_effects.py). Empty in
    # commands recorded before it was added.
    trail: list[DecisionEvent] = []
    # As ToolCallInput's: the run's profile and agent, which the effect looks up in its
    # worker's own; empty for a run without a profile.
    profile_hash: str = ""
    agent_name: str = ""


class EffectResult(Contract):
    """What an irreversible tool's effect answered: `done` with the tool's output for
    the model, or why nothing was done (`unavailable`: not now, see `ConnectorWait`)."""

    status: Literal["done", "approver_invalid", "refused", "unavailable"]
    message: str = ""
    content: str = ""
    wait: ConnectorWait | None = None


class RefundResult(Contract):
    # `approver_invalid`: an approver no longer counts (disabled, role or tenant gone,
    # the run's actor), or too few count for the order's total; nothing was refunded.
    # `unavailable`: the payment platform cannot take it now; nothing was refunded and
    # the approvals stay valid (`wait` says for what).
    status: Literal["refunded", "state_changed", "approver_invalid", "refused", "unavailable"]
    message: str
    refund_id: str | None = None
    # The state the store holds now, with `state_changed` (it no longer matches the
    # approved one) and `approver_invalid`.
    state: ActionState | None = None
    # Every record of the command's `trail` is in the audit: the run need not write it.
    trail_written: bool = False
    wait: ConnectorWait | None = None


class PendingRefundHold(Contract):
    """Counts an action that starts waiting in its order's exposure (see
    `activities/store/pending_refunds.py`); `supersedes` names the voided action it
    replaces, whose hold goes in the same transaction."""

    run_id: str
    tenant_id: str
    order_id: str
    action_hash: str
    amount_minor: int
    expires_at: datetime
    supersedes: str | None = None
    # The action and its ticket: its inbox row, in the same transaction (waiting_actions.py);
    # None from holds sent before the inbox, whose rows the reconciliation writes.
    ticket_id: str | None = None
    action: PendingAction | None = None


class ActionHold(Contract):
    """The hold a run sends: the action and its run, nothing beside them. The order,
    hash, amount, expiry and the action it supersedes are the action's own, so its
    history carries them once; `workflows/action_hold.py` reads the `PendingRefundHold`
    they make. `match_rules`: the action starts to wait, and the hold asks the standing
    rules too (activities/hold_rules.py); an escalation's hold does not."""

    run_id: str
    tenant_id: str
    ticket_id: str
    action: PendingAction
    match_rules: bool = False


class PendingRefundHeld(Contract):
    # The other live holds' sum, read as this one is written; the rules' answer if asked.
    pending_minor: int
    rules: RuleMatch = RuleMatch()


class PendingRefundRelease(Contract):
    run_id: str
    action_hash: str
