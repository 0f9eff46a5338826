"""The `notify_reviewers` activity against a local receiver (activities/reviewer_notifier.py):
what a 2xx, a 5xx and a refusing 4xx become, and the header that lets a receiver drop
the copy a retry delivers."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from activities.reviewer_notifier import IDEMPOTENCY_HEADER, ReviewerNotifier, notice_body
from signoff.config.profiles import BUILTIN_PROFILES, load_profile_file
from signoff.config.settings import Settings
from tests.exposures import refund_exposure, voucher_exposure
from tests.workflow.webhook_receiver import webhook_receiver
from workflows.reviewer_notices import Notice

SENT = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)
NOTICE = Notice(
    kind="reminder",
    run_id="run-demo-" + "a" * 32,
    tenant_id="demo",
    action_hash="b" * 64,
    tool="refund",
    exposure=refund_exposure("250.00", "C-3107"),
    mode="review",
    required_approvals=2,
    approvals=1,
    expires_at=SENT + timedelta(hours=4, minutes=48),
    sent_at=SENT,
)


def notifier(url: str | None, tmp_path: Path) -> ReviewerNotifier:
    return ReviewerNotifier(
        Settings(home=tmp_path, notify_webhook_url=url, ui_base_url="https://ui.example/")
    )


def test_the_body_says_what_waits_and_links_to_it() -> None:
    body = notice_body(NOTICE, "https://ui.example/")
    assert body["text"] == (
        "Reminder: Refund 250.00 EUR on order C-3107 still waits for a decision (tenant demo, "
        "four eyes: 1 of 2 approvals); 4 h 48 min left, it expires at 2026-11-30 16:48:00 UTC. "
        f"Decide: https://ui.example/approvals/{NOTICE.run_id}"
    )
    assert body["signoff"]["time_left"] == "4 h 48 min left"


@pytest.mark.parametrize("tool", ["send_reply", "shop__issue_voucher"])
def test_a_tool_without_exposure_is_named_with_no_amount(tool: str) -> None:
    # An MCP tool's string argument named `amount` is no exposure: the notice has none.
    body = notice_body(NOTICE.model_copy(update={"tool": tool, "exposure": None}), "u/")
    assert body["text"].startswith(f"Reminder: {tool} still waits for a decision (tenant")
    assert "None" not in body["text"] and "order" not in body["text"]
    facts = body["signoff"]
    assert (facts["tool"], facts["amount"], facts["currency"], facts["order"]) == (
        tool,
        None,
        None,
        None,
    )


def test_a_tool_that_declares_its_money_is_named_with_it() -> None:
    voucher = NOTICE.model_copy(update={"tool": "issue_voucher", "exposure": voucher_exposure()})
    body = notice_body(voucher, "u/")
    assert body["text"].startswith("Reminder: issue_voucher 15.00 EUR still waits for a")
    facts = body["signoff"]
    assert (facts["amount"], facts["currency"], facts["order"]) == ("15.00", "EUR", None)


def test_an_escalation_tells_the_new_role_under_a_key_of_its_own() -> None:
    escalated = NOTICE.model_copy(
        update={
            "kind": "escalated",
            "approver_roles": ["refund_approver", "support_lead"],
            "escalations": 1,
            "approvals": 0,
        }
    )
    body = notice_body(escalated, "https://ui.example/")
    assert body["text"].startswith(
        "Escalated to refund_approver or support_lead: Refund 250.00 EUR on order C-3107 got "
        "no decision in time and now waits for you"
    )
    assert body["signoff"]["approver_roles"] == ["refund_approver", "support_lead"]
    # Its reminder is another notice than the first round's: a receiver keeps both.
    reminder = escalated.model_copy(update={"kind": "reminder"})
    assert reminder.idempotency_key() != NOTICE.idempotency_key()


NOT_CARRIED_OUT = NOTICE.model_copy(
    update={
        "kind": "not_carried_out",
        "mode": "confirm",
        "required_approvals": 1,
        "approvals": 1,
        "approved_by": ["alice"],
        "connector": "payments:demo",
        "waiting_since": SENT - timedelta(hours=2),
    }
)


def test_a_refund_given_up_tells_who_approved_it_what_did_not_happen_and_what_to_do() -> None:
    body = notice_body(NOT_CARRIED_OUT, "https://ui.example/", blocks=True)
    assert body["text"] == (
        "Approved but not carried out: Refund 250.00 EUR on order C-3107 (tenant demo), "
        "approved by alice. payments:demo was unavailable from 2026-11-30 10:00 UTC until the "
        "run gave up at 2026-11-30 12:00 UTC. Nothing was refunded. The customer may still be "
        "waiting for it: follow up with them, and once the service is back, a new request must "
        f"be approved to try again. Run: https://ui.example/runs/{NOTICE.run_id}"
    )
    facts = body["signoff"]
    assert (facts["kind"], facts["approved_by"], facts["connector"]) == (
        "not_carried_out",
        ["alice"],
        "payments:demo",
    )
    assert facts["waiting_since"] == "2026-11-30T10:00:00+00:00"
    assert facts["time_left"] == "given up"  # nothing waits any more, whatever the expiry
    # Slack: no Approve or Reject on what can no longer be decided; Open only.
    section, actions = body["blocks"]
    assert section["text"]["text"] == body["text"]
    assert [element["action_id"] for element in actions["elements"]] == ["signoff_open"]
    assert NOT_CARRIED_OUT.idempotency_key() == f"{NOTICE.run_id}:{'b' * 64}:not_carried_out"


def test_another_tool_given_up_says_nothing_was_done() -> None:
    reply = NOT_CARRIED_OUT.model_copy(
        update={"tool": "send_reply", "exposure": None, "connector": "helpdesk:demo"}
    )
    text = notice_body(reply, "u/")["text"]
    assert text.startswith("Approved but not carried out: send_reply (tenant demo)")
    assert "helpdesk:demo was unavailable" in text and "Nothing was done." in text


async def test_a_tool_with_a_card_is_told_by_its_title_and_its_name_stays_for_ops(
    tmp_path: Path,
) -> None:
    """The worker's own profiles title `send_reply` (the built-in file's card): support
    reads "Send a reply to the customer", ops still find `send_reply` beside it and in
    the facts. A tool no card titles keeps its name alone."""
    reply = NOTICE.model_copy(update={"tool": "send_reply", "exposure": None})
    unknown = reply.model_copy(update={"tool": "shop__issue_voucher"})
    builtin = load_profile_file(BUILTIN_PROFILES, builtin=True).profiles
    with webhook_receiver() as receiver:
        settings = Settings(
            home=tmp_path,
            notify_webhook_url=receiver.url,
            notify_format="slack_blocks",
            ui_base_url="https://ui.example/",
        )
        for notice in (reply, unknown):
            await ActivityEnvironment().run(ReviewerNotifier(settings, builtin).send, notice)
    titled, untitled = (post.body for post in receiver.posts)
    assert titled["text"].startswith(
        "Reminder: Send a reply to the customer (send_reply) still waits for a decision"
    )
    assert (titled["signoff"]["tool"], titled["signoff"]["title"]) == (
        "send_reply",
        "Send a reply to the customer",
    )
    approve = titled["blocks"][-1]["elements"][0]
    assert approve["confirm"]["text"]["text"].startswith(
        "Send a reply to the customer (send_reply): approve it"
    )
    assert untitled["text"].startswith("Reminder: shop__issue_voucher still waits for a")
    assert untitled["signoff"]["title"] is None
    # Without the worker's profiles (a test's notifier), the name alone, as before.
    assert notice_body(reply, "u/")["text"].startswith("Reminder: send_reply still waits")


async def test_a_2xx_is_sent_with_the_idempotency_key(tmp_path: Path) -> None:
    with webhook_receiver() as receiver:
        sent = await ActivityEnvironment().run(notifier(receiver.url, tmp_path).send, NOTICE)
    assert sent.status == "sent"
    (post,) = receiver.posts
    assert post.headers[IDEMPOTENCY_HEADER] == f"{NOTICE.run_id}:{'b' * 64}:reminder"
    assert post.body == notice_body(NOTICE, "https://ui.example/")


@pytest.mark.parametrize(("status", "retried"), [(500, True), (429, True), (400, False)])
async def test_failures_are_retried_unless_the_body_was_refused(
    tmp_path: Path, status: int, retried: bool
) -> None:
    with webhook_receiver(status=status) as receiver:
        with pytest.raises(ApplicationError) as raised:
            await ActivityEnvironment().run(notifier(receiver.url, tmp_path).send, NOTICE)
    assert raised.value.non_retryable is not retried
    assert f"HTTP {status}" in raised.value.message


async def test_a_webhook_that_is_down_is_a_retryable_failure(tmp_path: Path) -> None:
    with webhook_receiver() as receiver:
        url = receiver.url
    with pytest.raises(ApplicationError) as raised:  # the receiver is gone now
        await ActivityEnvironment().run(notifier(url, tmp_path).send, NOTICE)
    assert not raised.value.non_retryable and "did not answer" in raised.value.message


async def test_without_a_webhook_nothing_is_sent(tmp_path: Path) -> None:
    sent = await ActivityEnvironment().run(notifier(None, tmp_path).send, NOTICE)
    assert sent.status == "skipped"
