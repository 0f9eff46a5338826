"""`POST /api/slack/actions` on real runs of the dev stack, as Slack sends it: signed
with the tenant's Slack app secret, in Slack's block_actions format. No Slack server:
the test is Slack. Each refusal decides nothing (the run still waits on the same hash);
each decision is the decision service's signed one, which `signoff audit verify` proves.
"""

from __future__ import annotations

from datetime import timedelta
from decimal import Decimal
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from signoff.config.settings import Settings
from signoff.wiring.local_stack import free_port
from tests.clock import clock_now
from tests.slack_requests import GLOBEX_SECRET, GLOBEX_TEAM, form_body, press_payload
from tests.ui.conftest import DevStack, RefundCase, add_case, sign_in, start_run
from tests.ui.conftest import wait_until_pending as wait_pending
from tests.ui.slack_api import BOT_TOKEN, member, slack_api
from tests.ui.slack_client import SlackFront, slack_front, slack_user
from tests.ui.test_routes import wait_completed
from tests.workflow.webhook_receiver import webhook_receiver

pytestmark = pytest.mark.devserver
APPROVE, REJECT, RESPOND = "signoff_approve", "signoff_reject", "signoff_respond"


def test_an_unlinked_slack_user_is_asked_to_link_and_nothing_is_decided(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with slack_front(app_settings, tmp_path) as slack:
        answer = slack.press(APPROVE, pending_case.run_id, action_hash, user=slack_user())
    assert answer.status_code == 200
    assert answer.json()["response_type"] == "ephemeral"
    assert answer.json()["text"].startswith("Link your account first")
    assert "Nothing was decided." in answer.json()["text"]
    assert wait_pending(dev_stack, pending_case) == action_hash


def test_a_linked_reviewer_approves_from_slack_and_the_audit_proves_it(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with webhook_receiver() as slack_side:  # stands in for Slack's response_url
        prefix = slack_side.url.removesuffix("hook")
        with slack_front(app_settings, tmp_path, slack_response_url_prefix=prefix) as slack:
            bobs = slack_user()
            slack.link("bob", bobs)
            answer = slack.press(
                APPROVE, pending_case.run_id, action_hash, user=bobs, response_url=slack_side.url
            )
            assert answer.status_code == 200, answer.text
            message = answer.json()
            assert message["replace_original"] is True
            assert message["text"].startswith("Approved") and "(Bob" in message["text"]
            # The controls are gone from the replacement: nothing waits any more.
            assert [b["type"] for b in message["blocks"]] == ["section", "context"]
            assert [post.body for post in slack_side.posts] == [message]
            timeline = wait_completed(slack.client_for("alice"), pending_case.run_id)
    assert "Approved from Slack." in timeline and f"on order {pending_case.order_id}" in timeline
    verified = dev_stack.signoff("audit", "verify", "--tenant", "demo")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_bad_signature_is_401_and_decides_nothing(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with slack_front(app_settings, tmp_path) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        body = form_body(press_payload(APPROVE, pending_case.run_id, action_hash, user=bobs))
        forged = slack.post(body, secret="f" * 40)
        unsigned = slack.client.post("/api/slack/actions", content=body)
    assert forged.status_code == 401 and forged.json()["reason"] == "bad_signature"
    assert "SIGNOFF_SLACK_APPS" in forged.json()["detail"]
    assert unsigned.status_code == 401 and unsigned.json()["reason"] == "unsigned"
    assert wait_pending(dev_stack, pending_case) == action_hash


def test_a_stale_or_replayed_request_decides_nothing(
    app_settings: Settings, tmp_path: Path, store: Engine, dev_stack: DevStack
) -> None:
    case = four_eyes_case(store, dev_stack)
    action_hash = wait_pending(dev_stack, case)
    with slack_front(app_settings, tmp_path) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        body = form_body(press_payload(APPROVE, case.run_id, action_hash, user=bobs))
        stale = slack.post(body, at=clock_now() - timedelta(minutes=6))
        assert stale.status_code == 401 and stale.json()["reason"] == "stale"
        sent_at = clock_now()
        first = slack.post(body, at=sent_at)
        assert first.status_code == 200 and "need a second reviewer" in first.json()["text"]
        replayed = slack.post(body, at=sent_at)  # the same timestamp and signature
    assert replayed.status_code == 409 and replayed.json()["reason"] == "replayed"
    assert wait_pending(dev_stack, case) == action_hash  # still one approval of two


def test_a_slack_user_of_another_tenants_workspace_decides_nothing(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with slack_front(app_settings, tmp_path) as slack:
        carols = slack_user()
        slack.link("carol", carols, team=GLOBEX_TEAM, secret=GLOBEX_SECRET)
        # Through the demo tenant's app, from globex's workspace: refused outright.
        foreign = slack.press(
            APPROVE, pending_case.run_id, action_hash, user=carols, team=GLOBEX_TEAM
        )
        # Through globex's own app, on a demo run: not a run of her tenant.
        own_app = slack.press(
            APPROVE,
            pending_case.run_id,
            action_hash,
            user=carols,
            team=GLOBEX_TEAM,
            secret=GLOBEX_SECRET,
        )
    assert foreign.status_code == 403 and foreign.json()["reason"] == "other_workspace"
    assert own_app.status_code == 200 and own_app.json()["response_type"] == "ephemeral"
    assert "There is no such run in your tenant." in own_app.json()["text"]
    assert wait_pending(dev_stack, pending_case) == action_hash


def four_eyes_case(store: Engine, dev_stack: DevStack) -> RefundCase:
    case = add_case(store)
    with store.begin() as connection:  # above the 200.00 threshold: two reviewers
        connection.exec_driver_sql(
            "UPDATE orders SET amount_paid_minor = 35000 WHERE id = ?", (case.order_id,)
        )
    start_run(dev_stack, case)
    return case


def test_four_eyes_second_approval_from_slack(
    app_settings: Settings, tmp_path: Path, store: Engine, dev_stack: DevStack
) -> None:
    case = four_eyes_case(store, dev_stack)
    action_hash = wait_pending(dev_stack, case)
    with slack_front(app_settings, tmp_path) as slack:
        alices, bobs = slack_user(), slack_user()
        slack.link("alice", alices)
        slack.link("bob", bobs)
        first = slack.press(APPROVE, case.run_id, action_hash, user=alices).json()
        # Recorded, and the controls stay for the second reviewer.
        assert "need a second reviewer" in first["text"]
        assert "actions" in [block["type"] for block in first["blocks"]]
        again = slack.press(APPROVE, case.run_id, action_hash, user=alices).json()
        assert again["response_type"] == "ephemeral" and "already approved" in again["text"]
        second = slack.press(APPROVE, case.run_id, action_hash, user=bobs).json()
        assert second["text"].startswith("Approved") and second["replace_original"] is True
        timeline = wait_completed(slack.client_for("alice"), case.run_id)
    assert "350.00 EUR" in timeline and "alice" in timeline and "bob" in timeline
    verified = dev_stack.signoff("audit", "verify", "--tenant", "demo")
    assert verified.returncode == 0, verified.stdout + verified.stderr


def test_a_rejection_from_slack_carries_its_category(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with slack_front(app_settings, tmp_path) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        answer = slack.press(
            REJECT, pending_case.run_id, action_hash, user=bobs, category="wrong_amount"
        ).json()
        assert answer["text"].startswith("Rejected") and answer["replace_original"] is True
        timeline = wait_completed(slack.client_for("bob"), pending_case.run_id)
    assert "Rejected from Slack: wrong amount." in timeline
    assert "no refund was made" in timeline


def test_a_reason_typed_in_the_message_reaches_the_decision_and_the_audit(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    typed = "The carrier confirmed the parcel was delivered intact."
    with slack_front(app_settings, tmp_path) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        answer = slack.press(
            REJECT,
            pending_case.run_id,
            action_hash,
            user=bobs,
            category="not_eligible",
            reason=f"  {typed}\n",
        ).json()
        assert answer["text"].startswith("Rejected") and answer["replace_original"] is True
        # Nothing waits: the buttons and the reason box are gone from the message.
        assert [block["type"] for block in answer["blocks"]] == ["section", "context"]
        timeline = wait_completed(slack.client_for("bob"), pending_case.run_id)
    assert f"{typed} (from Slack)" in timeline and "Rejected from Slack" not in timeline
    audit = dev_stack.signoff("audit", "list", "--tenant", "demo", "--json")
    assert audit.returncode == 0, audit.stderr
    assert f"not eligible: {typed} (from Slack)" in audit.stdout


def test_an_approval_that_needs_a_passkey_is_sent_to_the_reviewer_ui(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    above = {"demo": Decimal("50.00")}  # the case's refund is 60.00
    with slack_front(app_settings, tmp_path, passkey_above=above) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        answer = slack.press(APPROVE, pending_case.run_id, action_hash, user=bobs).json()
    assert answer["response_type"] == "ephemeral"
    assert "decide it in the reviewer UI" in answer["text"]
    assert wait_pending(dev_stack, pending_case) == action_hash


def test_a_link_code_is_used_once_and_only_by_a_signed_in_reviewer(
    app_settings: Settings, tmp_path: Path
) -> None:
    with slack_front(app_settings, tmp_path) as slack:
        asked = slack.press(APPROVE, "run-linking", "0" * 64, user=slack_user()).json()
        code = asked["text"].split("code=")[1].split("|")[0]
        anonymous = slack.client.get(f"/slack/link?code={code}")
        assert anonymous.status_code == 303 and anonymous.headers["location"].startswith("/signin")
        browser: TestClient = slack.client
        token = sign_in(browser, "bob")
        assert (
            browser.post("/slack/link", data={"csrf_token": "forged", "code": code}).status_code
            == 403
        )
        assert (
            browser.post("/slack/link", data={"csrf_token": token, "code": code}).status_code == 200
        )
        used = browser.get(f"/slack/link?code={code}")
    assert used.status_code == 410 and "used already" in used.text


def test_a_linked_reviewer_without_the_role_and_open_decide_nothing(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    action_hash = wait_pending(dev_stack, pending_case)
    with slack_front(app_settings, tmp_path) as slack:
        daves = slack_user()
        slack.link("dave", daves)  # a reviewer of the tenant, without refund_approver
        answer = slack.press(APPROVE, pending_case.run_id, action_hash, user=daves).json()
        opened = slack.press("signoff_open", pending_case.run_id, user=daves)
    assert answer["response_type"] == "ephemeral"
    assert "You do not have the refund_approver role" in answer["text"]
    assert opened.status_code == 200 and opened.content == b""
    assert wait_pending(dev_stack, pending_case) == action_hash


def test_a_reviewer_of_another_tenant_cannot_take_a_link_code(
    app_settings: Settings, tmp_path: Path
) -> None:
    with slack_front(app_settings, tmp_path) as slack:
        asked = slack.press(APPROVE, "run-linking", "0" * 64, user=slack_user()).json()
        code = asked["text"].split("code=")[1].split("|")[0]
        token = sign_in(slack.client, "carol")  # tenant globex; the code is demo's
        opened = slack.client.get(f"/slack/link?code={code}")
        taken = slack.client.post("/slack/link", data={"csrf_token": token, "code": code})
    assert opened.status_code == 403 and "another tenant" in opened.text
    assert 'id="slack-link-confirm"' not in opened.text
    assert taken.status_code == 409 and "another tenant" in taken.text


def link_page(slack: SlackFront, reviewer: str, user: str) -> str:
    """The page `reviewer` sees on opening the link Slack gave `user` (nothing linked)."""
    asked = slack.press(APPROVE, "run-linking", "0" * 64, user=user).json()
    code = asked["text"].split("code=")[1].split("|")[0]
    page = slack.client_for(reviewer).get(f"/slack/link?code={code}")
    assert page.status_code == 200, page.text
    return page.text


def test_the_link_page_names_the_slack_user_as_slack_does(
    app_settings: Settings, tmp_path: Path
) -> None:
    alices = slack_user()
    with slack_api({alices: member(alices, "Alice Martin", "alice.m")}) as api:
        with slack_front(
            app_settings, tmp_path, bot_token=BOT_TOKEN, slack_api_url=api.url
        ) as slack:
            page = link_page(slack, "alice", alices)
    assert "<bdi>Alice Martin</bdi></strong> (<code>" + alices in page
    assert 'id="slack-no-name"' not in page
    assert api.asked == [(BOT_TOKEN, alices)]  # the demo tenant's app's token, for her


def test_when_slack_does_not_name_the_user_the_page_shows_the_id_and_says_so(
    app_settings: Settings, tmp_path: Path
) -> None:
    user = slack_user()
    with slack_api({}) as api:  # Slack knows nobody here
        unanswered = f"http://127.0.0.1:{free_port()}/api/"  # nothing listens there
        for token, url in (
            (None, api.url),  # the tenant's app has no bot token: Slack is not asked
            (BOT_TOKEN, api.url),  # Slack answers ok: false, user_not_found
            ("xoxb-0000-revoked-token", api.url),  # invalid_auth
            (BOT_TOKEN, unanswered),
        ):
            with slack_front(app_settings, tmp_path, bot_token=token, slack_api_url=url) as slack:
                page = link_page(slack, "alice", user)
            assert f"Slack user <code>{user}</code>" in page and 'id="slack-no-name"' in page
            assert 'id="slack-link-confirm"' in page  # the id alone still links
    assert [token for token, _ in api.asked] == [BOT_TOKEN, "xoxb-0000-revoked-token"]


def test_a_reviewer_sends_words_to_the_agent_from_slack(
    app_settings: Settings, tmp_path: Path, pending_case: RefundCase, dev_stack: DevStack
) -> None:
    """Send to the agent (a response): it needs the box's words; the request ends
    without happening, and the agent reads them as the reviewer's instruction."""
    action_hash = wait_pending(dev_stack, pending_case)
    typed = "Check the carrier tracking first."
    with slack_front(app_settings, tmp_path) as slack:
        bobs = slack_user()
        slack.link("bob", bobs)
        wordless = slack.press(RESPOND, pending_case.run_id, action_hash, user=bobs).json()
        assert "Write your words for the agent" in wordless["text"]
        assert wordless.get("replace_original") is not True  # nothing was sent
        answer = slack.press(
            RESPOND, pending_case.run_id, action_hash, user=bobs, reason=typed
        ).json()
        assert answer["text"].startswith("Sent to the agent") and answer["replace_original"]
        timeline = wait_completed(slack.client_for("bob"), pending_case.run_id)
    assert f"{typed} (from Slack)" in timeline and "no refund was made" in timeline
