"""The Block Kit notice (SIGNOFF_NOTIFY_FORMAT=slack_blocks) and the press Slack sends
back from it: what each control carries is what the payload reader takes, within
Slack's documented limits; the plain `text` notice stays the default."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from temporalio.testing import ActivityEnvironment

from activities.reviewer_notifier import ReviewerNotifier, notice_body
from activities.slack_blocks import (
    APPROVE_ACTION,
    OPEN_ACTION,
    REASON_ACTION,
    REJECT_ACTION,
    RESPOND_ACTION,
)
from signoff.config.settings import Settings
from signoff.service.slack_payloads import parse_press
from signoff.service.slack_signatures import SlackRefused
from tests.slack_requests import form_body, press_payload
from tests.unit.test_reviewer_notifier import NOTICE
from tests.workflow.webhook_receiver import webhook_receiver
from workflows.reject_reasons import CATEGORIES

# Slack's documented maxima: block_id 255, a button's value 2000, an option's value 150,
# a plain-text input's max_length 3000.
BLOCK_ID_MAX, BUTTON_VALUE_MAX, OPTION_VALUE_MAX, INPUT_MAX = 255, 2000, 150, 3000


def controls(body: dict[str, Any]) -> dict[str, Any]:
    (actions,) = [block for block in body["blocks"] if block["type"] == "actions"]
    return actions  # type: ignore[no-any-return]


def test_text_stays_the_default_and_blocks_add_approve_reject_open() -> None:
    assert "blocks" not in notice_body(NOTICE, "https://ui.example/")
    body = notice_body(NOTICE, "https://ui.example/", blocks=True)
    assert body["text"].startswith("Reminder: Refund 250.00 EUR")  # the fallback text
    actions = controls(body)
    assert actions["block_id"] == NOTICE.run_id and len(actions["block_id"]) <= BLOCK_ID_MAX
    approve, reject, respond, open_button = actions["elements"]
    assert (approve["action_id"], approve["value"]) == (APPROVE_ACTION, NOTICE.action_hash)
    assert len(approve["value"]) <= BUTTON_VALUE_MAX and "confirm" in approve
    assert reject["type"] == "static_select" and reject["action_id"] == REJECT_ACTION
    assert [o["value"].split(":")[0] for o in reject["options"]] == list(CATEGORIES)
    assert all(len(o["value"]) <= OPTION_VALUE_MAX for o in reject["options"])
    assert (respond["action_id"], respond["value"]) == (RESPOND_ACTION, NOTICE.action_hash)
    assert "the agent reads what you wrote above" in respond["confirm"]["text"]["text"]
    assert open_button["url"] == f"https://ui.example/approvals/{NOTICE.run_id}"


def test_the_confirmations_name_any_tool_and_its_money_only_where_it_has_some() -> None:
    reply = NOTICE.model_copy(update={"tool": "send_reply", "exposure": None})
    approve, reject, _, _ = controls(notice_body(reply, "u/", blocks=True))["elements"]
    assert approve["confirm"]["text"]["text"] == "send_reply: approve it as proposed."
    assert reject["confirm"]["text"]["text"] == "send_reply: reject it."
    refund_approve, _, _, _ = controls(notice_body(NOTICE, "u/", blocks=True))["elements"]
    assert refund_approve["confirm"]["text"]["text"].startswith("Refund 250.00 EUR on order C-3107")


def test_an_expired_notice_offers_only_open() -> None:
    expired = NOTICE.model_copy(update={"kind": "expired"})
    (only,) = controls(notice_body(expired, "https://ui.example/", blocks=True))["elements"]
    assert only["action_id"] == OPEN_ACTION and only["url"].endswith(f"/runs/{NOTICE.run_id}")


@pytest.mark.parametrize("category", CATEGORIES)
def test_each_control_reads_back_as_the_press_it_means(category: str) -> None:
    approve = parse_press(form_body(press_payload(APPROVE_ACTION, NOTICE.run_id, "b" * 64)))
    assert (approve.kind, approve.run_id, approve.action_hash) == (
        "approve",
        NOTICE.run_id,
        "b" * 64,
    )
    payload = press_payload(REJECT_ACTION, NOTICE.run_id, "b" * 64, category=category)
    reject = parse_press(form_body(payload))
    assert (reject.kind, reject.category, reject.action_hash) == ("reject", category, "b" * 64)
    assert reject.team_id == "TDEMO0001" and reject.user_id == "UBOB00001"
    typed = "check the tracking first"
    payload = press_payload(RESPOND_ACTION, NOTICE.run_id, "b" * 64, reason=typed)
    respond = parse_press(form_body(payload))
    assert (respond.kind, respond.action_hash, respond.reason) == ("respond", "b" * 64, typed)


@pytest.mark.parametrize(
    "body",
    [
        b"payload=not-json",
        b"nothing=here",
        form_body(
            {**press_payload(APPROVE_ACTION, "run-demo-a", "b" * 64), "type": "view_submission"}
        ),
        form_body(press_payload(APPROVE_ACTION, "run-demo-a", "not-a-hash")),
        form_body(press_payload(REJECT_ACTION, "run-demo-a", "b" * 64, category="because")),
        form_body(press_payload("somebody_elses_button", "run-demo-a", "b" * 64)),
        form_body(press_payload(APPROVE_ACTION, "../../etc", "b" * 64)),
    ],
)
def test_a_body_that_is_not_our_press_is_malformed(body: bytes) -> None:
    with pytest.raises(SlackRefused) as refused:
        parse_press(body)
    assert refused.value.reason == "malformed" and refused.value.status_code == 400


async def test_the_notifier_posts_the_blocks_when_asked(tmp_path: Path) -> None:
    with webhook_receiver() as receiver:
        settings = Settings(
            home=tmp_path,
            notify_webhook_url=receiver.url,
            ui_base_url="https://ui.example/",
            notify_format="slack_blocks",
        )
        sent = await ActivityEnvironment().run(ReviewerNotifier(settings).send, NOTICE)
    assert sent.status == "sent"
    (post,) = receiver.posts
    assert post.body == notice_body(NOTICE, "https://ui.example/", blocks=True)


def test_a_reason_box_above_the_controls_is_sent_with_the_next_press() -> None:
    blocks = notice_body(NOTICE, "https://ui.example/", blocks=True)["blocks"]
    assert [block["type"] for block in blocks] == ["section", "input", "actions"]
    box = blocks[1]
    assert box["optional"] is True and box["element"]["action_id"] == REASON_ACTION
    assert box["element"]["type"] == "plain_text_input"
    assert box["element"]["max_length"] <= INPUT_MAX
    typed = "  The parcel arrived intact.\n"
    payload = press_payload(REJECT_ACTION, NOTICE.run_id, "b" * 64, reason=typed)
    assert parse_press(form_body(payload)).reason == "The parcel arrived intact."
    empty = press_payload(APPROVE_ACTION, NOTICE.run_id, "b" * 64)  # Slack's null
    assert parse_press(form_body(empty)).reason == ""
    older = {**empty, "state": {"values": {}}}  # a message sent before the box
    assert parse_press(form_body(older)).reason == ""


@pytest.mark.parametrize("typed", ["x" * 2001, ["not", "text"]])
def test_a_reason_that_no_box_of_ours_sends_is_malformed(typed: object) -> None:
    payload = press_payload(REJECT_ACTION, NOTICE.run_id, "b" * 64)
    payload["state"]["values"]["signoff_reason"][REASON_ACTION]["value"] = typed
    with pytest.raises(SlackRefused) as refused:
        parse_press(form_body(payload))
    assert refused.value.reason == "malformed"
