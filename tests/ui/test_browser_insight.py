"""The approval insight in Chromium, on known audit rows (tests/insight_rows.py): a team
lead follows the header's link and reads the figures the rows make, at 1280 px and at
375 px, in English and French; on a phone nothing scrolls sideways, targets and text
keep their size, and axe-core finds nothing at either width (the reviewer UI served on
its own store; no Temporal is needed)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect
from sqlalchemy.orm import Session

from activities.store.passwords import hash_password
from activities.store.schema import Reviewer
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.conftest import fresh_demo_store
from tests.insight_rows import known_rows
from tests.live_ui import served
from tests.ui.axe import axe_violations
from tests.ui.browser import ARTIFACTS, DOCS_IMAGES, new_page, watch_console
from tests.ui.phone import phone_problems

pytestmark = pytest.mark.browser
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 812}
LANGUAGES = {"en": "en-US", "fr": "fr-FR"}
# What the known rows make of demo's period, as each language writes it.
FIGURES = {
    "en": {"requests": "29", "money": "255.00 EUR", "alice_p50": "10 min", "agreement": "50%"},
    "fr": {
        "requests": "29",
        "money": "255,00\u00a0EUR",
        "alice_p50": "10 min",
        "agreement": "50\u00a0%",
    },
}


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("no Temporal in this test")


@pytest.fixture
def ui_url(tmp_path: Path, demo_store_template: Path) -> Iterator[str]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    with Session(engine) as session, session.begin():
        session.add(
            Reviewer(
                id="lena",
                tenant_id="demo",
                display_name="Lena",
                roles="lead",
                password_hash=hash_password("demo-lena"),
            )
        )
    known_rows(engine)
    engine.dispose()
    with served(create_app(Settings(home=tmp_path), temporal_connect=unreachable_connect)) as url:
        yield url


def shots() -> Path:
    """docs/images/pages/ for `make docs-images` (SIGNOFF_DOCS_IMAGES=1), as the walk of
    every page names them, else test-artifacts/."""
    folder = DOCS_IMAGES / "pages" if os.environ.get("SIGNOFF_DOCS_IMAGES") == "1" else ARTIFACTS
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def sign_in(page: Page, ui_url: str) -> None:
    page.goto(f"{ui_url}/signin")
    page.locator("#username").fill("lena")
    page.locator("#password").fill("demo-lena")
    page.locator("#password").press("Enter")
    expect(page).to_have_url(f"{ui_url}/approvals")


def figure(page: Page, where: str, name: str = "") -> str:
    scope = page.locator(where)
    if name:
        scope = scope.locator(f'[data-name="{name}"]')
    return scope.inner_text().strip()


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_lead_reads_the_figures_at_1280_and_375_px_and_axe_is_clean(
    browser: Browser, ui_url: str, language: str
) -> None:
    expected = FIGURES[language]
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
    for page in new_page(browser, locale=LANGUAGES[language], viewport=WIDE, bypass_csp=True):
        problems = watch_console(page)
        sign_in(page, ui_url)
        page.locator('nav a[href="/insight"]').click()
        expect(page.locator("h1")).to_have_text(
            "Approval insight" if language == "en" else "Aperçu des approbations"
        )
        found: list[str] = []
        for size in (WIDE, PHONE):
            page.set_viewport_size(size)
            summary = page.locator("#insight-summary")
            expect(summary.locator('[data-figure="requests"]')).to_have_text(expected["requests"])
            expect(summary.locator('[data-figure="money_approved"]')).to_have_text(
                expected["money"]
            )
            alice = page.locator('#insight-reviewers tr[data-name="alice"]')
            expect(alice.locator('[data-figure="p50"]')).to_have_text(expected["alice_p50"])
            expect(alice).to_be_visible()
            expect(page.locator('#insight-shadows [data-figure="agreement"]')).to_have_text(
                expected["agreement"]
            )
            # The charts: one bar per tool, each drawn and named for a screen reader.
            bars = page.locator('.insight-bar[data-name="refund"] svg[role="img"]')
            expect(bars.first).to_be_visible()
            label = bars.first.get_attribute("aria-label") or ""
            assert label.startswith("refund: 20 "), label
            width = size["width"]
            page.screenshot(path=shots() / f"{language}-{width}-insight.png")
            found += [f"@{width}: {line}" for line in axe_violations(page)]
            if size is PHONE:
                found += [f"@375: {line}" for line in phone_problems(page)]
        assert found == []
        assert problems == []
