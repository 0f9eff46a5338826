"""The service decides whose Slack link code a reviewer may read: their own tenant's.
A reviewer of another tenant is refused, and is not shown the Slack user it names."""

from __future__ import annotations

import pytest
from sqlalchemy import Engine

from activities.store.slack_links import issue_link_code, linked_reviewer
from approvals_ui import link_words
from signoff.service.handles import Store
from signoff.service.slack_accounts import (
    OTHER_TENANT,
    LinkCodeOfOtherTenant,
    LinkCodeRefused,
    read_link_code,
)
from tests.clock import clock_now
from tests.store.test_slack_links import MINUTES, SLACK_BOB


def test_a_reviewer_reads_a_code_of_their_own_tenant(store: Engine) -> None:
    now = clock_now()
    code = issue_link_code(store, SLACK_BOB, MINUTES, now)
    assert read_link_code(Store(store), code, "demo", now) == SLACK_BOB
    assert linked_reviewer(store, SLACK_BOB) is None  # reading links nothing


def test_a_reviewer_of_another_tenant_is_refused_the_code(store: Engine) -> None:
    now = clock_now()
    code = issue_link_code(store, SLACK_BOB, MINUTES, now)
    with pytest.raises(LinkCodeOfOtherTenant) as refused:
        read_link_code(Store(store), code, "globex", now)
    assert str(refused.value) == OTHER_TENANT
    assert SLACK_BOB.user_id not in str(refused.value)
    assert isinstance(refused.value, LinkCodeRefused)  # a face that knows only the base
    assert read_link_code(Store(store), code, "demo", now) == SLACK_BOB  # still unused


def test_a_code_that_cannot_link_is_refused_whatever_the_tenant(store: Engine) -> None:
    with pytest.raises(LinkCodeRefused, match="not one we gave out") as refused:
        read_link_code(Store(store), "made-up", "globex", clock_now())
    assert not isinstance(refused.value, LinkCodeOfOtherTenant)


def test_the_page_catalog_holds_the_services_words() -> None:
    assert link_words.OTHER_TENANT == OTHER_TENANT
