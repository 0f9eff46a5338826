"""Every page of the reviewer app, in English and in French, on a phone (issue 42).

The pages are the app's own route table (tests/ui/route_walk.py says which routes are
pages and why the others are not), so a page added to the app is walked here without
editing this test; a path parameter gets its value from PATH_VALUES, by name, filled
from the data seeded below. Each page is opened in one browser, one context per
language (the browser's Accept-Language), signed out first, then signed in as a
reviewer who is both an approver and an administrator (every link, every control);
and at 375 px wide, its disclosures open, the rules of tests/ui/phone.py hold (no
sideways scroll, targets of 44 by 44 px as WCAG 2.5.5, text of 16 px), axe-core
finds nothing, and no form offers more than one primary button. Each page is
photographed at 1280 and 375 px: into test-artifacts/pages/, or, with
SIGNOFF_DOCS_IMAGES=1 (`make docs-images`), into docs/images/pages/, which
docs/ui/pages.md shows.

The decision page is seen at its fullest: a refund over the four-eyes threshold that
alice approved once, on an order refunded by hand since, with a run id as long as a
default-generated one (32 hex digits).
"""

from __future__ import annotations

import dataclasses
import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles
from fastapi.testclient import TestClient
from playwright.sync_api import Browser, Page, expect
from sqlalchemy import Engine

from activities.store import add_reviewer
from activities.store.account_admin import ADMIN_ROLE
from approvals_ui.main import create_app
from signoff.config.settings import Settings
from signoff.service.email_links import decision_link
from signoff.service.handles import Store
from tests.admin import ADMIN
from tests.ui import route_walk
from tests.ui.axe import axe_violations
from tests.ui.browser import ARTIFACTS, DOCS_IMAGES, new_page, watch_console
from tests.ui.conftest import DevStack, add_case, start_run, wait_until_pending
from tests.ui.default_ids import add_prior_refund, decide_as
from tests.ui.page_reading import crowded_groups
from tests.ui.phone import PHONE_WIDTH, phone_problems
from tests.ui.still import held_still
from tests.ui.test_browser_access import NEXT_INBOX_SWAP
from workflows.actions import REFUND_APPROVER_ROLE

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
LANGUAGES = {"en": "en-US", "fr": "fr-FR"}
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": PHONE_WIDTH, "height": 812}
WIDTHS = (WIDE, PHONE)
FOUR_EYES_PAID_MINOR = 35_000  # above the demo tenant's 200.00 threshold: two reviewers
PAGES_DOC = Path(__file__).resolve().parents[2] / "docs" / "ui" / "pages.md"
OPEN_DISCLOSURES = "() => document.querySelectorAll('details').forEach(d => { d.open = true; })"
KEEP_LIST = "() => { window.keptList = document.getElementById('inbox').firstElementChild; }"
SAME_LIST = "() => document.getElementById('inbox').firstElementChild === window.keptList"
# On window, a poll's event arrives after the hold's listener on document has seen it.
NEXT_POLL_CALLED_OFF = """() => new Promise(asked => {
  const seen = event => {
    if (event.target.id !== "inbox") return;
    window.removeEventListener("htmx:beforeRequest", seen);
    asked(event.defaultPrevented);
  };
  window.addEventListener("htmx:beforeRequest", seen);
})"""


@dataclass(frozen=True)
class Seeded:
    reviewer: str  # approver and administrator
    password: str
    run_id: str  # waits for a second approval
    email_code: str  # the reviewer's one-tap link to approve it


# A path parameter's value, by the parameter's name.
PATH_VALUES: dict[str, Callable[[Seeded], str]] = {
    "run_id": lambda seeded: seeded.run_id,
    "code": lambda seeded: seeded.email_code,
}


def shots_folder() -> Path:
    """docs/images/pages/ when the docs' pictures are asked for, else test-artifacts/."""
    if os.environ.get("SIGNOFF_DOCS_IMAGES") == "1":
        return DOCS_IMAGES / "pages"
    return ARTIFACTS / "pages"


def shot_name(language: str, width: int, page: route_walk.Page) -> str:
    return f"{language}-{width}-{page.name}.png"


@pytest.fixture(scope="module")
def seeded(dev_stack: DevStack, store: Engine, app_settings: Settings) -> Seeded:
    suffix = uuid.uuid4().hex[:6]
    reviewer, password = f"sam{suffix}", f"demo-sam{suffix}"
    add_reviewer(
        store,
        ADMIN,
        reviewer,
        "demo",
        [REFUND_APPROVER_ROLE, ADMIN_ROLE],
        password,
        display_name="Sam Lee",
    )
    case = add_case(store)
    case = dataclasses.replace(case, run_id=f"run-{case.tenant_id}-{uuid.uuid4().hex}")
    with store.begin() as connection:
        connection.exec_driver_sql(
            "UPDATE orders SET amount_paid_minor = ? WHERE id = ?",
            (FOUR_EYES_PAID_MINOR, case.order_id),
        )
    start_run(dev_stack, case)
    action_hash = wait_until_pending(dev_stack, case)
    decide_as(dev_stack, case, action_hash, "approve", "alice", "")
    add_prior_refund(store, case)
    url, _ = decision_link(
        Store(store), app_settings, reviewer, case.run_id, action_hash, "approve"
    )
    return Seeded(reviewer, password, case.run_id, url.rsplit("/", 1)[1])


@pytest.fixture(scope="module")
def walked(dev_stack: DevStack, app_settings: Settings, seeded: Seeded) -> list[route_walk.Page]:
    values = {name: value(seeded) for name, value in PATH_VALUES.items()}
    with TestClient(create_app(app_settings)) as client:  # the app's route table
        pages, others = route_walk.pages_of(
            client.app,  # type: ignore[arg-type]
            values,
            f"PATH_VALUES in {__name__}",
            dev_stack.ui_url,
            (seeded.reviewer, seeded.password),
        )
    # A floor, not the list: a walk that found no page at all would check nothing.
    assert {"/signin", "/approvals"} <= {page.route for page in pages}, (pages, others)
    return pages


def sign_in(page: Page, stack: DevStack, seeded: Seeded) -> None:
    """Through the form, by its fields' ids: the words differ by language."""
    page.goto(f"{stack.ui_url}/signin")
    page.locator("#username").fill(seeded.reviewer)
    page.locator("#password").fill(seeded.password)
    page.locator("#password").press("Enter")
    expect(page).to_have_url(f"{stack.ui_url}/approvals")


def test_every_page_reads_well_on_a_phone_in_english_and_french(
    browser: Browser, dev_stack: DevStack, seeded: Seeded, walked: list[route_walk.Page]
) -> None:
    folder = shots_folder()
    folder.mkdir(parents=True, exist_ok=True)
    problems: list[str] = []
    for language, locale in LANGUAGES.items():
        # bypass_csp: axe-core is injected as a script, which the UI's CSP forbids.
        for page in new_page(browser, locale=locale, viewport=WIDE, bypass_csp=True):
            console = watch_console(page)
            signed_in = False
            for visit in walked:  # signed-out pages first
                if visit.signed_in and not signed_in:
                    sign_in(page, dev_stack, seeded)
                    signed_in = True
                problems += [
                    f"{language} {visit.route} {line}"
                    for line in checked(page, dev_stack, language, visit, folder)
                ]
            problems += [f"{language} console: {line}" for line in console]
    assert not problems, "\n".join(problems)


def checked(
    page: Page, stack: DevStack, language: str, visit: route_walk.Page, folder: Path
) -> list[str]:
    """The page photographed at each width, then, its disclosures open (what they hold is
    checked too), what keeps it from reading well on a phone, what axe-core finds at
    375 and 1280 px, and any form with more than one primary button."""
    page.set_viewport_size(WIDE)
    answer = page.goto(stack.ui_url + visit.path)
    assert answer is not None and answer.ok, (visit.path, answer)
    expect(page.locator("html")).to_have_attribute("lang", language)
    for size in WIDTHS:
        page.set_viewport_size(size)
        # caret: as tests/ui/browser.py's screenshot says, hiding it sets a style that an
        # inbox swap meanwhile would copy.
        page.screenshot(path=folder / shot_name(language, size["width"], visit), caret="initial")
    page.evaluate(OPEN_DISCLOSURES)
    found = [f"@375: {line}" for line in phone_problems(page) + axe_violations(page)]
    # One primary action per form, on every page the walk takes (page_reading.py).
    found += [f"form: {line}" for line in crowded_groups(page.content())]
    page.set_viewport_size(WIDE)
    return found + [f"@1280: {line}" for line in axe_violations(page)]


def test_the_docs_show_every_page_the_walk_photographs(walked: list[route_walk.Page]) -> None:
    """docs/ui/pages.md shows each picture the walk takes (a new page's too), from
    docs/images/pages/, where `make docs-images` writes them."""
    shown = PAGES_DOC.read_text()
    missing = [
        shot_name(language, size["width"], visit)
        for visit in walked
        for language in LANGUAGES
        for size in WIDTHS
        if f"../images/pages/{shot_name(language, size['width'], visit)}" not in shown
    ]
    assert not missing, f"add to {PAGES_DOC}, then run `make docs-images`: {missing}"


def test_a_held_page_calls_its_polls_off_until_the_walk_ends(
    browser: Browser, dev_stack: DevStack, seeded: Seeded
) -> None:
    """The inbox polls every second here; held still for a walk, a poll is called off
    before it asks and the list stays the very nodes the walk reads; let go, the next
    poll swaps the list again."""
    for page in new_page(browser):
        sign_in(page, dev_stack, seeded)
        with held_still(page):
            page.evaluate(KEEP_LIST)
            assert page.evaluate(NEXT_POLL_CALLED_OFF) is True
            assert page.evaluate(SAME_LIST) is True
        page.evaluate(NEXT_INBOX_SWAP)
        assert page.evaluate(SAME_LIST) is False


def test_the_walk_takes_every_get_route_of_the_app_but_those_for_programs() -> None:
    """A route added to an included router is walked; /api/ and /metrics, other methods
    and mounted files are not."""
    app = FastAPI(docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")  # as ours
    pages = APIRouter(prefix="/things")
    pages.get("/{thing_id}")(lambda thing_id: thing_id)
    pages.post("/{thing_id}")(lambda thing_id: thing_id)
    app.include_router(pages)
    app.get("/api/things")(lambda: [])
    app.get("/metrics")(lambda: "")
    app.mount("/static", StaticFiles(directory=Path(__file__).parent))
    assert route_walk.get_routes(app) == ["/things/{thing_id}"]


def test_a_path_parameter_without_a_value_fails_the_walk_saying_where_to_add_one() -> None:
    with pytest.raises(pytest.fail.Exception) as failed:
        route_walk.filled("/things/{thing_id}", {"run_id": "run-demo-1"}, "PATH_VALUES in here")
    assert str(failed.value) == (
        "/things/{thing_id}: no value for the path parameter {thing_id}. Add one, from "
        "seeded data, to PATH_VALUES in here, so that the page is walked."
    )
