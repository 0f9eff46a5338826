"""Slack's request signing, checked as Slack documents it: the tenant is the one whose
secret verifies, a wrong or missing signature and a timestamp outside five minutes are
refused, and a rotated-out secret still verifies while listed."""

from __future__ import annotations

from datetime import timedelta

import pytest

from signoff.config.slack_apps import SlackApp
from signoff.service.slack_signatures import SlackRefused, verified_request
from tests.clock import clock_now
from tests.slack_requests import (
    DEMO_SECRET,
    DEMO_TEAM,
    GLOBEX_SECRET,
    GLOBEX_TEAM,
    form_body,
    press_payload,
    signed_headers,
)

OLD_SECRET = "0" * 32 + "-previous-demo-secret"
APPS = (
    SlackApp("demo", DEMO_TEAM, (DEMO_SECRET, OLD_SECRET)),
    SlackApp("globex", GLOBEX_TEAM, (GLOBEX_SECRET,)),
)
BODY = form_body(press_payload("signoff_approve", "run-demo-a", "a" * 64))


def lower(headers: dict[str, str]) -> dict[str, str]:
    return {name.lower(): value for name, value in headers.items()}


def test_the_secret_that_verifies_names_the_tenant() -> None:
    now = clock_now()
    assert (
        verified_request(
            lower(signed_headers(DEMO_SECRET, BODY, now)), BODY, APPS, now
        ).app.tenant_id
        == "demo"
    )
    globex = verified_request(lower(signed_headers(GLOBEX_SECRET, BODY, now)), BODY, APPS, now)
    assert globex.app.tenant_id == "globex"
    old = verified_request(lower(signed_headers(OLD_SECRET, BODY, now)), BODY, APPS, now)
    assert old.app.tenant_id == "demo"


def test_a_wrong_secret_or_a_changed_body_is_refused() -> None:
    now = clock_now()
    wrong = lower(signed_headers("x" * 40, BODY, now))
    with pytest.raises(SlackRefused, match="No Slack signing secret") as refused:
        verified_request(wrong, BODY, APPS, now)
    assert refused.value.status_code == 401 and refused.value.reason == "bad_signature"
    good = lower(signed_headers(DEMO_SECRET, BODY, now))
    with pytest.raises(SlackRefused, match="No Slack signing secret"):
        verified_request(good, BODY + b"&x=1", APPS, now)


def test_an_unsigned_request_is_refused() -> None:
    with pytest.raises(SlackRefused, match="not signed") as refused:
        verified_request({}, BODY, APPS, clock_now())
    assert refused.value.reason == "unsigned" and refused.value.status_code == 401


@pytest.mark.parametrize("skew", [timedelta(minutes=5, seconds=1), -timedelta(minutes=6)])
def test_a_timestamp_outside_five_minutes_is_stale(skew: timedelta) -> None:
    now = clock_now()
    headers = lower(signed_headers(DEMO_SECRET, BODY, now - skew))
    with pytest.raises(SlackRefused, match="more than 300 s from now") as refused:
        verified_request(headers, BODY, APPS, now)
    assert refused.value.reason == "stale" and refused.value.status_code == 401


def test_inside_the_window_is_accepted() -> None:
    now = clock_now()
    headers = lower(signed_headers(DEMO_SECRET, BODY, now - timedelta(minutes=4, seconds=59)))
    assert verified_request(headers, BODY, APPS, now).app.team_id == DEMO_TEAM
