"""A reviewer's reason with a NUL byte is refused before anything is signed or sent, in
words, whichever face sent it (the UI, the API and the CLI all draft here): the audit's
reason column could not hold it on PostgreSQL."""

from __future__ import annotations

import pytest

from signoff.service.decisions import Choice, Decider, InvalidDecision, signed_decision
from tests.workflow.approvals import TEST_SIGNER

BOB = Decider("bob", "demo", ("refund_approver",))


def test_a_reason_with_a_nul_byte_is_refused_in_words() -> None:
    with pytest.raises(InvalidDecision, match=r"The reason holds a NUL byte \(\\x00\)"):
        signed_decision(
            TEST_SIGNER, "run-demo-1", BOB, "a" * 64, "reject", "No\x00photo",
            choice=Choice(category="not_eligible"),
        )  # fmt: skip
    signed = signed_decision(
        TEST_SIGNER, "run-demo-1", BOB, "a" * 64, "reject", "No photo",
        choice=Choice(category="not_eligible"),
    )  # fmt: skip
    assert signed.reason == "No photo" and signed.signature
