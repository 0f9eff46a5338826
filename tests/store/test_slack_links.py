"""Slack links, their codes, the Slack signatures taken, and e-mail decision links, on
each backend: a code or link works once, within its life, for its own tenant or
reviewer; a link is on the audit's record; a signature is taken once."""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import Engine, select

from activities.store.database import use_session
from activities.store.decision_chain import verify_chain
from activities.store.email_links import (
    EmailLinkGrant,
    EmailLinkRefused,
    issue_email_link,
    read_email_link,
    spend_email_link,
)
from activities.store.schema import DecisionRow
from activities.store.slack_links import (
    LinkCodeRefused,
    SlackUser,
    first_use_of_signature,
    issue_link_code,
    linked_reviewer,
    read_link_code,
    redeem_link_code,
    unlink,
)
from tests.clock import clock_now

MINUTES = timedelta(minutes=10)
SLACK_BOB = SlackUser("demo", "TDEMO01", "UBOB0001")


def test_a_code_links_its_slack_user_to_who_redeems_it_once(store: Engine) -> None:
    now = clock_now()
    code = issue_link_code(store, SLACK_BOB, MINUTES, now)
    assert read_link_code(store, code, now) == SLACK_BOB  # reading links nothing
    assert linked_reviewer(store, SLACK_BOB) is None
    assert redeem_link_code(store, code, "bob", now) == SLACK_BOB
    assert linked_reviewer(store, SLACK_BOB) == "bob"
    with pytest.raises(LinkCodeRefused, match="used already"):
        redeem_link_code(store, code, "alice", now)
    assert linked_reviewer(store, SLACK_BOB) == "bob"
    with use_session(store) as session:
        reasons = session.scalars(select(DecisionRow.reason)).all()
    assert "linked Slack user UBOB0001 of workspace TDEMO01 to bob" in reasons


def test_an_expired_or_unknown_code_links_nothing(store: Engine) -> None:
    now = clock_now()
    code = issue_link_code(store, SLACK_BOB, MINUTES, now)
    with pytest.raises(LinkCodeRefused, match="expired"):
        redeem_link_code(store, code, "bob", now + MINUTES)
    with pytest.raises(LinkCodeRefused, match="not one we gave out"):
        redeem_link_code(store, "made-up", "bob", now)
    assert linked_reviewer(store, SLACK_BOB) is None


def test_a_reviewer_of_another_tenant_cannot_redeem_the_code(store: Engine) -> None:
    now = clock_now()
    code = issue_link_code(store, SLACK_BOB, MINUTES, now)
    with pytest.raises(LinkCodeRefused, match="another tenant"):
        redeem_link_code(store, code, "carol", now)  # tenant globex
    assert linked_reviewer(store, SLACK_BOB) is None
    assert redeem_link_code(store, code, "bob", now) == SLACK_BOB  # still unused


def test_a_new_link_replaces_the_reviewers_old_one_and_unlink_is_recorded(
    store: Engine,
) -> None:
    now = clock_now()
    redeem_link_code(store, issue_link_code(store, SLACK_BOB, MINUTES, now), "bob", now)
    other = SlackUser("demo", "TDEMO01", "UBOB0002")
    redeem_link_code(store, issue_link_code(store, other, MINUTES, now), "bob", now)
    assert linked_reviewer(store, SLACK_BOB) is None
    assert linked_reviewer(store, other) == "bob"
    assert unlink(store, "demo", "bob", now) == 1
    assert linked_reviewer(store, other) is None
    assert verify_chain(store, "demo").intact  # the link rows are chained in the audit


def test_a_signature_is_taken_once(store: Engine) -> None:
    now = clock_now()
    keep = timedelta(minutes=10)
    assert first_use_of_signature(store, "demo", "a" * 64, now, now, keep)
    assert not first_use_of_signature(store, "demo", "a" * 64, now, now, keep)
    assert first_use_of_signature(store, "demo", "b" * 64, now, now, keep)


GRANT = EmailLinkGrant("demo", "bob", "run-demo-x", "c" * 64, "approve", clock_now())


def test_an_email_link_is_its_reviewers_and_is_spent_once(store: Engine) -> None:
    now = clock_now()
    code, grant = issue_email_link(store, GRANT, now, MINUTES)
    assert grant.expires_at == now + MINUTES
    with pytest.raises(EmailLinkRefused, match="another reviewer"):
        read_email_link(store, code, "alice", now)
    with pytest.raises(EmailLinkRefused, match="another reviewer"):
        spend_email_link(store, code, "alice", now)
    assert read_email_link(store, code, "bob", now).action_hash == "c" * 64
    assert spend_email_link(store, code, "bob", now).run_id == "run-demo-x"
    with pytest.raises(EmailLinkRefused, match="used already"):
        spend_email_link(store, code, "bob", now)


def test_an_email_link_expires(store: Engine) -> None:
    now = clock_now()
    code, _ = issue_email_link(store, GRANT, now, MINUTES)
    with pytest.raises(EmailLinkRefused, match="expired"):
        read_email_link(store, code, "bob", now + MINUTES)
    with pytest.raises(EmailLinkRefused, match="expired"):
        spend_email_link(store, code, "bob", now + MINUTES)
