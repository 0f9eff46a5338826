"""Runs started the way a person starts them: no --request-id, so the run id carries a
default-generated request id (32 hex digits), the longest id a page must hold."""

from __future__ import annotations

import dataclasses
import re
import uuid
from datetime import UTC, datetime

from sqlalchemy import Engine

from activities.store import write_transaction
from activities.store.schema import Refund
from tests.ui.conftest import DevStack, RefundCase

RUN_STARTED = re.compile(r"^run (run-\S+) started", re.MULTILINE)
DEFAULT_RUN_ID = re.compile(r"run-[a-z0-9]+-[0-9a-f]{32}")
PRIOR_REFUND_REASON = "Shipping fee refunded by hand"


def start_default_run(stack: DevStack, case: RefundCase) -> RefundCase:
    """Starts the case's run without a request id; the case with the run id it got."""
    started = stack.signoff("run", "--ticket", case.ticket_id, "--tenant", case.tenant_id)
    assert started.returncode == 0, started.stderr
    found = RUN_STARTED.search(started.stdout)
    assert found is not None, started.stdout
    assert DEFAULT_RUN_ID.fullmatch(found.group(1)), found.group(1)
    return dataclasses.replace(case, run_id=found.group(1))


def decide_as(
    stack: DevStack, case: RefundCase, action_hash: str, verdict: str, reviewer: str, reason: str
) -> None:
    """A decision through `signoff approve/reject`, with the reviewer's own password."""
    args = [verdict, case.run_id, "--hash", action_hash, "--as", reviewer, "--password-stdin"]
    if verdict == "reject":
        args += ["--category", "not_eligible"]
    decided = stack.signoff(*args, "--reason", reason, stdin=f"demo-{reviewer}\n")
    assert decided.returncode == 0, decided.stderr


def add_prior_refund(store: Engine, case: RefundCase, minor: int = 1000) -> None:
    """A refund made earlier on the case's order, by hand, approved by bob."""
    with write_transaction(store) as session:
        session.add(
            Refund(
                id="R-" + uuid.uuid4().hex[:10].upper(),
                tenant_id=case.tenant_id,
                order_id=case.order_id,
                amount_minor=minor,
                currency="EUR",
                idempotency_key=f"test-{uuid.uuid4().hex}",
                run_id="manual",
                action_hash="0" * 64,
                approvers="bob",
                reason=PRIOR_REFUND_REASON,
                created_at=datetime.now(UTC),
            )
        )
