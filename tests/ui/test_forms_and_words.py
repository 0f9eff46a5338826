"""Forms and words on the reviewer pages, through TestClient on a real run: one primary
action per form (and per decision area, whose forms stand side by side), the edit form
not prefilled with what was proposed, a labelled "Time left" that says the duration
once, and support words where the policy and the store hold codes: no `refund_approver`,
`confirm`, `service:signoff` or `signoff audit verify` on a reviewer's page, in English
or in French. The operators' page (standing rules) and an administrator's audit keep
the codes and the command."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from tests.ui.conftest import RefundCase, sign_in
from tests.ui.page_reading import crowded_groups, visible_text
from tests.ui.test_routes import hash_on

pytestmark = pytest.mark.devserver
FRENCH = {"Accept-Language": "fr-FR,fr;q=0.9"}
JARGON = re.compile(r"refund_approver|service:signoff|signoff audit verify|\bconfirm\b")
# The inbox card's countdown, labelled "Time left": the duration alone, then the label.
BARE_COUNTDOWN = re.compile(r'<span class="countdown"[^>]*data-bare[^>]*>([^<]*)</span>')
EDIT_AMOUNT = re.compile(r'<input id="edit-amount-1"[^>]*>')


def signed_in_as(ui: TestClient, name: str) -> str:
    """Signs `name` in afresh (the sign-in page sends a signed-in reviewer away)."""
    ui.cookies.clear()
    return sign_in(ui, name)


def jargon_on(pages: dict[str, str]) -> dict[str, list[str]]:
    found = {path: JARGON.findall(visible_text(html)) for path, html in pages.items()}
    return {path: words for path, words in found.items() if words}


def pages_of(
    ui: TestClient, paths: list[str], headers: dict[str, str] | None = None
) -> dict[str, str]:
    pages = {}
    for path in paths:
        answer = ui.get(path, headers=headers or {})
        assert answer.status_code == 200, (path, answer.status_code)
        pages[path] = answer.text
    return pages


def test_the_checks_find_what_they_look_for() -> None:
    """The two readings fail on a page that breaks them (so the tests below can fail)."""
    side_by_side = (
        '<div class="decide"><form><button class="primary">Approve</button></form>'
        '<form><button class="primary">Approve with changes</button></form></div>'
    )
    assert crowded_groups(side_by_side) == ["div.decide#?: 2 primary buttons"]
    assert crowded_groups('<form id="f"><button class="primary">a</button></form>') == []
    code_words = '<dd>confirm: one reviewer</dd><option value="confirm">one reviewer</option>'
    assert jargon_on({"/": code_words}) == {"/": ["confirm"]}


def test_every_form_a_reviewer_sees_has_one_primary_action(
    ui: TestClient, pending_case: RefundCase
) -> None:
    run_id = pending_case.run_id
    signed_out = pages_of(ui, ["/signin"])
    sign_in(ui, "alice")
    pages = signed_out | pages_of(
        ui,
        [
            "/approvals",
            f"/approvals/{run_id}",
            f"/runs/{run_id}",
            "/audit",
            "/language",
            "/passkeys",
        ],
    )
    signed_in_as(ui, "admin")
    pages |= pages_of(ui, ["/admin/rules"])
    crowded = {path: crowded_groups(html) for path, html in pages.items()}
    assert {path: groups for path, groups in crowded.items() if groups} == {}
    detail = pages[f"/approvals/{run_id}"]
    assert '<button type="submit" class="secondary" name="approve_edited">' in detail


def test_the_edit_form_starts_empty_and_an_unchanged_edit_is_answered_on_the_page(
    ui: TestClient, pending_case: RefundCase
) -> None:
    """The amount box is not prefilled: approving what was proposed is Approve's. An
    edit that changes nothing is answered on the decision page, with its forms."""
    token = sign_in(ui, "alice")
    detail = ui.get(f"/approvals/{pending_case.run_id}").text
    (amount,) = EDIT_AMOUNT.findall(detail)
    assert re.search(r'value="[^"]', amount) is None, amount
    action_hash = hash_on(detail)
    unchanged = ui.post(
        f"/approvals/{pending_case.run_id}/decision",
        data={
            "csrf_token": token,
            "action_hash": action_hash,
            "verdict": "approve",
            "edit": "1",
            "edit_amount": "60.00",
            "reason": "same as proposed",
        },
    )
    assert unchanged.status_code == 400
    assert 'id="refusal"' in unchanged.text and "approve the request as it stands" in unchanged.text
    assert 'name="approve"' in unchanged.text  # the page again, with its Approve button


@pytest.mark.parametrize(
    ("headers", "label", "duration"),
    [
        ({}, "Time left", r"\d+\s+hr\s+\d+\s+min"),
        (FRENCH, "Temps restant", r"\d+\s+h\s+\d+\s+min"),  # Babel's no-break spaces
    ],
)
def test_a_labelled_time_left_says_the_duration_once(
    ui: TestClient, pending_case: RefundCase, headers: dict[str, str], label: str, duration: str
) -> None:
    sign_in(ui, "alice")
    inbox = ui.get("/approvals", headers=headers).text
    card = inbox[inbox.index(f'data-run-id="{pending_case.run_id}"') :]
    card = card[: card.index("</li>")]
    assert f"<dt>{label}</dt>" in card
    (said,) = BARE_COUNTDOWN.findall(card)
    assert re.fullmatch(duration, said), said
    # Where no label says it, the countdown still says "left" (the decision page's subtitle).
    detail = ui.get(f"/approvals/{pending_case.run_id}", headers=headers).text
    assert re.search(r'id="decision-subtitle".*?(left|il reste)', detail, re.S)


@pytest.mark.parametrize("headers", [{}, FRENCH], ids=["en", "fr"])
def test_reviewer_pages_show_roles_and_modes_in_support_words(
    ui: TestClient, pending_case: RefundCase, headers: dict[str, str]
) -> None:
    run_id = pending_case.run_id
    sign_in(ui, "alice")
    # The audit as alice reads her own rows: on the package's shared stack, other tests'
    # rows quote the run's refusals as the run wrote them (data, with role codes).
    pages = pages_of(
        ui,
        ["/approvals", f"/approvals/{run_id}", f"/runs/{run_id}", "/audit?reviewer=alice"],
        headers,
    )
    assert jargon_on(pages) == {}
    english = not headers
    run_page = visible_text(pages[f"/runs/{run_id}"])
    assert ("signoff itself" if english else "signoff lui-même") in run_page
    inbox = visible_text(pages["/approvals"])
    assert ("one reviewer" if english else "validation unique") in inbox

    signed_in_as(ui, "dave")  # no role: the page names the role he lacks, in words
    detail = visible_text(ui.get(f"/approvals/{run_id}", headers=headers).text)
    assert ("refund approver" if english else "approbateur des remboursements") in detail


def test_the_audit_command_is_for_administrators(ui: TestClient) -> None:
    sign_in(ui, "alice")
    assert "signoff audit verify" not in ui.get("/audit").text
    signed_in_as(ui, "admin")
    assert "<code>signoff audit verify</code>" in ui.get("/audit").text
