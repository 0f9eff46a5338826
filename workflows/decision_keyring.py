"""The run's own check of a decision's signature, in the `decide` validator, with no I/O.

Design note. Checking an Ed25519 signature is pure computation over public keys, so the
run can do it itself, at once, before anything reaches its history: a forged or altered
decision is refused by the validator and no activity runs for it. The run cannot read
the key file, so it gets the worker's public keys deterministically: the run's first
model turn returns them with the worker's limits (run_limits.py), and its result is in
the history (replay reads the same keys). No action waits for a decision before then.

Rotation. A run may wait for days; meanwhile the decision service may sign with a key
made after the run started. The validator therefore refuses only what it can judge: a
decision signed with a key the run knows whose signature does not match, or one older
than the decisions' maximum age, or dated in the future. A decision that names a key the
run does not know is not refused here: the handler asks the `verify_decision` activity,
whose keys are the worker's current ones (`decision_update.py`). A key retired after the
run started still passes this check, but the effect, which reads the worker's keys in
its own transaction, refuses it (`activities/store/effect_proofs.py`): the effect stays
the authority, and this check is the fast way to say no.

`cryptography` is pure computation here (no I/O, no clock, no randomness): it is passed
through the sandbox.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    from workflows.actions import Decision
    from workflows.decision_proof import CLOCK_SKEW, canonical_bytes, key_id_of
    from workflows.run_limits import DecisionKey

FORGED = (
    "This decision's proof does not match it: no signoff front end signed this decision "
    "for this run and this action. Nothing was decided."
)


def stale_refusal(issued_at: datetime, now: datetime, max_age: timedelta) -> str | None:
    """Why a decision issued at `issued_at` is too old or dated ahead, or None."""
    age = now - issued_at
    if age > max_age:
        return (
            f"This decision was signed {int(age.total_seconds() // 60)} min ago, longer "
            f"ago than the {int(max_age.total_seconds())} s a decision stays valid. "
            "Nothing was decided; decide again from a fresh page."
        )
    if age < -CLOCK_SKEW:
        return (
            "This decision is dated in the future; the signing clock is wrong. Nothing was decided."
        )
    return None


@dataclass(frozen=True)
class RunKeyring:
    """The public keys the run got at its start, and how old a decision may be."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    max_age: timedelta | None = None

    @classmethod
    def of(cls, keys: list[DecisionKey], max_age_seconds: float | None) -> RunKeyring:
        loaded: dict[str, Ed25519PublicKey] = {}
        for key in keys:
            raw = bytes.fromhex(key.public_key)
            if key_id_of(raw) == key.key_id:  # an entry whose id is not its key's: ignored
                loaded[key.key_id] = Ed25519PublicKey.from_public_bytes(raw)
        max_age = None if max_age_seconds is None else timedelta(seconds=max_age_seconds)
        return cls(loaded, max_age)

    def knows(self, decision: Decision) -> bool:
        """Whether this run can judge the decision's signature itself."""
        return decision.key_id is not None and decision.key_id in self.keys

    def refusal(self, decision: Decision, run_id: str, now: datetime) -> str | None:
        """Why the validator refuses a signed decision, or None (see the module note:
        None also when the key is one this run does not know)."""
        if not self.knows(decision) or decision.signature is None:
            return None
        assert decision.key_id is not None  # knows() says so
        if decision.issued_at is None or decision.nonce is None:
            return FORGED  # a signature over a document it does not carry
        try:
            self.keys[decision.key_id].verify(
                bytes.fromhex(decision.signature),
                canonical_bytes(decision.signed_document(run_id)),
            )
        except (InvalidSignature, ValueError):
            return FORGED
        if self.max_age is None:
            return None
        return stale_refusal(decision.issued_at, now, self.max_age)
