"""Every reviewer page beside the decision page, in French and in English, on a real dev
stack: the inbox and its polled rows, the batch summary, review and results, the run
page and its live stream, the audit, the passkeys page, the Slack link page and an
e-mail link's confirmation and refusal. In French none shows English of ours
(tests/ui/untranslated.py; the run's own words are marked `lang="en"`); the same check
on the English page finds our English, so it can fail. Amounts and times on them are
written the French way.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta

import httpx
import pytest
from fastapi.testclient import TestClient
from sqlalchemy import Engine

from activities.store.slack_links import (
    LinkCodeRefused,
    SlackUser,
    issue_link_code,
    read_link_code,
    redeem_link_code,
)
from approvals_ui.link_words import SLACK_REFUSALS
from signoff.config.settings import Settings
from signoff.service.email_links import decision_link
from signoff.service.handles import Store
from tests.clock import clock_now
from tests.ui.conftest import DevStack, RefundCase, sign_in, wait_until_pending
from tests.ui.test_run_events_routes import messages
from tests.ui.untranslated import untranslated

pytestmark = pytest.mark.devserver
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}
ENGLISH = {"Accept-Language": "en-US,en;q=0.9"}
ENDED_SECONDS = 120
FRENCH_TIME = re.compile(r"\d{1,2} [a-zéû]+\.? 20\d\d, \d\d:\d\d:\d\d UTC\+00:00</time>")


def html_lang(page: str) -> str:
    found = re.search(r'<html lang="([^"]+)"', page)
    assert found is not None, page[:200]
    return found.group(1)


def english_in(pages: dict[str, str]) -> dict[str, list[str]]:
    """Each page's English of ours, for the pages that show some."""
    found = {name: untranslated(page, "fr") for name, page in pages.items()}
    return {name: words for name, words in found.items() if words}


def waiting_pages(
    ui: TestClient, token: str, case: RefundCase, key: str, headers: dict[str, str]
) -> dict[str, str]:
    """The pages a reviewer reads while the case's refund waits."""
    return {
        "inbox": ui.get("/approvals", headers=headers).text,
        "inbox rows": ui.get("/approvals/rows", headers={**headers, "HX-Request": "true"}).text,
        "batch summary": ui.get(
            "/approvals/batch/summary", params={"selected": key}, headers=headers
        ).text,
        "batch review": ui.post(
            "/approvals/batch", data={"csrf_token": token, "selected": key}, headers=headers
        ).text,
        "run, waiting": ui.get(f"/runs/{case.run_id}", headers=headers).text,
        "passkeys": ui.get("/passkeys", headers=headers).text,
        "slack link": ui.get("/slack/link", headers=headers).text,
        "slack link refused": ui.get("/slack/link?code=made-up", headers=headers).text,
        "e-mail link refused": ui.get("/decide/made-up", headers=headers).text,
        "audit refused": ui.get(
            "/audit", params={"reviewer": "no such name!"}, headers=headers
        ).text,
    }


def test_the_pages_of_a_run_read_in_french_from_the_inbox_to_the_audit(
    ui: TestClient,
    dev_stack: DevStack,
    store: Engine,
    app_settings: Settings,
    pending_case: RefundCase,
) -> None:
    case = pending_case
    action_hash = wait_until_pending(dev_stack, case)
    token = sign_in(ui, "alice")
    key = f"{case.run_id}/{action_hash}"
    link, _ = decision_link(Store(store), app_settings, "alice", case.run_id, action_hash, "reject")
    email_path = link[link.index("/decide/") :]

    french = waiting_pages(ui, token, case, key, FRENCH)
    french["e-mail link"] = ui.get(email_path, headers=FRENCH).text
    english = waiting_pages(ui, token, case, key, ENGLISH)
    english["e-mail link"] = ui.get(email_path, headers=ENGLISH).text

    decided = ui.post(
        "/approvals/batch/decision",
        data={
            "csrf_token": token,
            "selected": key,
            "verdict": "reject",
            "category": "not_eligible",
            "reason": "Hors délai de retour.",
        },
        headers=FRENCH,
    )
    assert decided.status_code == 200, decided.text
    french["batch results"] = decided.text
    _wait_completed(ui, case)
    for name, headers, pages in (("fr", FRENCH, french), ("en", ENGLISH, english)):
        pages["run, ended"] = ui.get(f"/runs/{case.run_id}", headers=headers).text
        pages["audit"] = ui.get("/audit", params={"reviewer": "alice"}, headers=headers).text
        assert all(html_lang(page) == name for page in pages.values() if "<html" in page)

    assert english_in(french) == {}
    run_page = french["run, ended"]
    assert f"Le client (Kim Test) a écrit sur le ticket {case.ticket_id}" in run_page
    assert "a proposé un remboursement de 60,00 EUR sur la commande" in run_page
    assert "refusée par alice, le " in run_page
    assert "Hors délai de retour." in run_page and "aucun remboursement n’a été fait" in run_page
    assert FRENCH_TIME.search(run_page)
    shown_order = f'<bdi class="id">{case.order_id}</bdi>'
    assert f"Rembourser 60,00 EUR sur la commande {shown_order}" in french["inbox rows"]
    assert "1 demande sélectionnée</strong> : " in french["batch summary"]
    assert "60,00 EUR</span> au total" in french["batch summary"]
    assert "Ce code de liaison ne vient pas de nous." in french["slack link refused"]
    assert "Ce lien de décision ne vient pas de nous." in french["e-mail link refused"]
    assert "Refusées : 1 sur 1" in french["batch results"]
    assert (
        "Refusé. L’action n’aura pas lieu, et l’agent apprend pourquoi." in french["batch results"]
    )
    assert "Le filtre d’approbateur n’est pas un nom d’approbateur." in french["audit refused"]
    assert 'data-kind="rejected"' in french["audit"] and "60,00 EUR" in french["audit"]

    # The same check on the English pages finds our English: it can fail, page by page.
    found = english_in(english)
    expected = {
        "inbox rows": "Time left",
        "batch summary": "request selected",
        "batch review": "What you selected",
        "run, waiting": "In short",
        "run, ended": "Effects performed",
        "passkeys": "Register a passkey",
        "slack link": "Your Slack accounts",
        "slack link refused": (
            "This link code is not one we gave out. Press a button in Slack again to get a new link"
        ),
        "e-mail link": "Read the request first",
        "e-mail link refused": (
            "This decision link is not one we sent. Open the request from the inbox instead"
        ),
        "audit": "Download as CSV",
        "audit refused": "The reviewer filter is not a reviewer name",
    }
    for name, words in expected.items():
        assert words in found.get(name, []), (name, found.get(name))


def _wait_completed(ui: TestClient, case: RefundCase) -> None:
    deadline = time.monotonic() + ENDED_SECONDS
    while 'id="run-status">completed' not in (page := ui.get(f"/runs/{case.run_id}").text):
        assert time.monotonic() < deadline, page
        time.sleep(0.3)


def test_the_live_stream_speaks_the_language_of_the_page_that_opened_it(
    live_url: str, dev_stack: DevStack, pending_case: RefundCase
) -> None:
    wait_until_pending(dev_stack, pending_case)
    sent: dict[str, dict[str, str]] = {}
    for language, headers in (("fr", FRENCH), ("en", ENGLISH)):
        with httpx.Client(base_url=live_url, timeout=90, follow_redirects=False) as client:
            sign_in(client, "alice")  # type: ignore[arg-type]  # the same calls on httpx
            path = f"/runs/{pending_case.run_id}/events"
            stream_headers = {**headers, "Accept": "text/event-stream"}
            with client.stream("GET", path, headers=stream_headers) as response:
                stream = messages(response)
                first = [next(stream), next(stream), next(stream)]
        sent[language] = {message.event: message.data for message in first}
    assert set(sent["fr"]) == {"state", "numbers", "entries"}
    assert {event: untranslated(data, "fr") for event, data in sent["fr"].items()} == {
        "state": [],
        "numbers": [],
        "entries": [],
    }
    assert 'id="run-status">en attente d’approbation' in sent["fr"]["state"]
    assert "[approbation]" in sent["fr"]["entries"] and "il reste" in sent["fr"]["state"]
    assert "In short" in untranslated(sent["en"]["state"], "fr")
    assert "Tool calls" in untranslated(sent["en"]["numbers"], "fr")


def test_the_slack_refusals_the_page_translates_are_the_stores_word_for_word(
    store: Engine,
) -> None:
    now = clock_now()
    slack_user = SlackUser("demo", "TDEMO01", "U" + str(time.monotonic_ns())[-9:])
    other_tenant = SlackUser("globex", "TGLOBEX01", slack_user.user_id)  # carol's tenant
    used = issue_link_code(store, slack_user, timedelta(minutes=10), now)
    redeem_link_code(store, used, "alice", now)
    expired = issue_link_code(store, slack_user, timedelta(minutes=10), now)
    foreign = issue_link_code(store, other_tenant, timedelta(minutes=10), now)
    refusals = set()
    for attempt in (
        lambda: read_link_code(store, "made-up", now),
        lambda: read_link_code(store, used, now),
        lambda: read_link_code(store, expired, now + timedelta(minutes=10)),
        lambda: redeem_link_code(store, foreign, "alice", now),
    ):
        with pytest.raises(LinkCodeRefused) as refused:
            attempt()
        refusals.add(str(refused.value))
    assert refusals == set(SLACK_REFUSALS)
