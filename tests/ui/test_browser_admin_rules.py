"""The standing rules page in Chromium: an administrator follows the header's link,
makes a rule with the form, sees it listed with its bounds, and revokes it with its
button (the reviewer UI served on its own store; no Temporal is needed)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, Page, expect

from approvals_ui.main import create_app
from signoff.config.settings import Settings
from tests.conftest import fresh_demo_store
from tests.live_ui import served
from tests.ui.axe import axe_violations
from tests.ui.browser import new_page, screenshot, watch_console

WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}


async def unreachable_connect(_: Settings) -> Any:
    raise RuntimeError("no Temporal in this test")


@pytest.fixture
def ui_url(tmp_path: Path, demo_store_template: Path) -> Iterator[str]:
    engine = fresh_demo_store(demo_store_template, tmp_path / "signoff.db")
    engine.dispose()
    with served(create_app(Settings(home=tmp_path), temporal_connect=unreachable_connect)) as url:
        yield url


def test_an_administrator_makes_and_revokes_a_rule_in_the_browser(page: Page, ui_url: str) -> None:
    problems = watch_console(page)
    page.goto(f"{ui_url}/signin")
    page.get_by_label("Reviewer name").fill("admin")
    page.get_by_label("Password").fill("demo-admin")
    page.get_by_role("button", name="Sign in").click()
    page.get_by_role("link", name="Standing rules").click()
    expect(page.get_by_role("heading", name="Standing rules", level=1)).to_be_visible()

    page.get_by_label("Maximum amount").fill("30.00")
    page.get_by_label("Currency").fill("EUR")
    page.get_by_label("Maximum uses").fill("3")
    page.get_by_label("Shadow: only record what it would have approved").check()
    page.get_by_role("button", name="Make the rule").click()

    row = page.locator("tr[data-rule-id]")
    expect(row).to_have_count(1)
    expect(row).to_contain_text("0 / 3")
    expect(row).to_contain_text("active (shadow)")
    rule_id = row.get_attribute("data-rule-id")
    expect(page.get_by_role("status")).to_contain_text(f"Standing rule {rule_id} is made.")
    screenshot(page, "admin-rules.png")

    page.get_by_role("button", name=f"Revoke {rule_id}").click()
    expect(row).to_contain_text("revoked")
    expect(page.get_by_role("button", name=f"Revoke {rule_id}")).to_have_count(0)
    assert problems == []


def test_the_standing_rules_page_passes_axe_on_desktop_and_phone(
    browser: Browser, ui_url: str
) -> None:
    # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
    for page in new_page(browser, viewport=WIDE, bypass_csp=True):
        page.goto(f"{ui_url}/signin")
        page.get_by_label("Reviewer name").fill("admin")
        page.get_by_label("Password").fill("demo-admin")
        page.get_by_role("button", name="Sign in").click()
        page.goto(f"{ui_url}/admin/rules")
        page.get_by_label("Maximum amount").fill("30.00")
        page.get_by_label("Currency").fill("EUR")
        page.get_by_role("button", name="Make the rule").click()
        expect(page.locator("tr[data-rule-id]")).to_have_count(1)
        found = [f"@1280: {line}" for line in axe_violations(page)]
        page.set_viewport_size(PHONE)
        found += [f"@375: {line}" for line in axe_violations(page)]
        assert found == []
