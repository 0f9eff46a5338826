"""The strict profile in a real browser: the agent's reply to the customer waits for a
reviewer, who sees the exact draft (escaped, as text) in the generic card and approves
it; only then is it sent, once. The gate is not about money.

Its own `signoff dev`, on the shipped strict profile (SIGNOFF_PROFILES), with the
scripted model's `reply` script: the stack docs/configuration/profiles.md starts, whose
last commands (the run from another terminal) are run here as written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from sqlalchemy import Engine

from activities.store import make_engine
from signoff.config.profiles import STRICT_PROFILES
from signoff.wiring.local_stack import SIGNOFF, signoff_dev_stack
from tests.conftest import demo_home
from tests.docs.shell_commands import REPO_ROOT, shell_commands
from tests.store.outbox import replies_of
from tests.ui.browser import screenshot, sign_in, watch_console
from tests.ui.conftest import DevStack, RefundCase, add_case, wait_until_pending

pytestmark = [pytest.mark.devserver, pytest.mark.browser]
DRAFT = (
    "Hello, thank you for writing. A replacement <kettle> ships tomorrow & you need not "
    "send the broken one back."
)
SENT_SECONDS = 60
WIDE = {"width": 1280, "height": 900}
PHONE = {"width": 375, "height": 800}
PROFILES_PAGE = REPO_ROOT / "docs" / "configuration" / "profiles.md"
STRICT_SECTION = "The reply to the customer, and the strict profile"
RUN_ID = re.compile(r"\brun-demo-[0-9a-z-]+")
FOLLOW_SECONDS = 60


@pytest.fixture(scope="module")
def strict_stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("signoff-strict-home"))
    with signoff_dev_stack(
        home, task_queue=f"strict-{os.getpid()}", SIGNOFF_PROFILES=str(STRICT_PROFILES)
    ) as (env, _):
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}")


@pytest.fixture(scope="module")
def strict_store(strict_stack: DevStack) -> Iterator[Engine]:
    engine = make_engine(strict_stack.settings().resolved_database_url)
    yield engine
    engine.dispose()


def test_a_reviewer_confirms_the_exact_draft_and_only_then_it_is_sent(
    page: Page, strict_stack: DevStack, strict_store: Engine
) -> None:
    problems = watch_console(page)
    case = add_case(strict_store)
    request_id = case.run_id.removeprefix("run-demo-")
    started = strict_stack.signoff(
        "run", "--ticket", case.ticket_id, "--request-id", request_id, "--model", "scripted:reply"
    )
    assert started.returncode == 0, started.stderr
    wait_until_pending(strict_stack, case)
    assert replies_of(strict_store, "demo", case.ticket_id) == []  # nothing sent yet

    sign_in(page, strict_stack, "alice")
    page.goto(f"{strict_stack.ui_url}/approvals/{case.run_id}")
    # The profile's card: its title in support words, what approving does, the draft.
    expect(page.locator("#decision-title")).to_contain_text("Send a reply to the customer")
    expect(page.locator("#effect-1")).to_have_text(
        "The reply below is sent to the customer on this ticket, once, exactly as written."
    )
    draft = page.locator("#arguments-1 pre.long-text")
    expect(draft).to_have_text(DRAFT)  # as text, escaped
    assert page.locator("kettle").count() == 0  # no markup from the draft
    expect(page.locator("#order")).to_have_count(0)  # not a refund's card
    # The reply gives no reason of its own: no empty box, a sentence that says so.
    expect(page.locator("#no-reason-1")).to_be_visible()
    expect(page.locator("section.action > blockquote.agent")).to_have_count(0)
    # On a phone the draft wraps: the page never scrolls sideways.
    page.set_viewport_size(PHONE)
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    box = draft.bounding_box()
    assert box is not None and box["width"] <= PHONE["width"]
    screenshot(page, "decision-reply-phone.png", docs=True, top="#action-1")
    page.set_viewport_size(WIDE)
    page.get_by_role("button", name="Approve: Send a reply to the customer").click()
    expect(page.get_by_role("status")).to_contain_text("Approved.")

    deadline = time.monotonic() + SENT_SECONDS
    while not replies_of(strict_store, "demo", case.ticket_id):
        assert time.monotonic() < deadline, "the approved reply was never sent"
        time.sleep(0.3)
    (sent,) = replies_of(strict_store, "demo", case.ticket_id)
    assert sent.text == DRAFT
    assert problems == []


def test_the_stack_runs_on_the_strict_profile(strict_stack: DevStack) -> None:
    shown = strict_stack.signoff("profiles", "show")
    assert shown.returncode == 0, shown.stderr
    assert "strict" in shown.stdout and Path(STRICT_PROFILES).name in shown.stdout


def test_the_profiles_pages_run_from_another_terminal_waits_on_the_draft(
    strict_stack: DevStack,
) -> None:
    """The page starts the demo on the strict profile, then in another terminal sets
    SIGNOFF_PROFILES too and runs `signoff run ... --wait`, which waits on the reply's
    draft. Without that export the run took the built-in profile, whose reply waits for
    no reviewer, and nothing waited: the step failed as written."""
    make_demo, export, run = shell_commands(PROFILES_PAGE, STRICT_SECTION)
    profiles = Path(STRICT_PROFILES).relative_to(REPO_ROOT)
    assert make_demo == f"SIGNOFF_PROFILES={profiles} make demo"  # this module's stack
    # Another terminal in the repository: the stack's addresses (the page's defaults),
    # and no profile but what the page's lines set.
    env = {key: value for key, value in strict_stack.env.items() if key != "SIGNOFF_PROFILES"}
    env["PATH"] = f"{Path(SIGNOFF).parent}{os.pathsep}{env['PATH']}"
    following = subprocess.Popen(
        ["bash", "-c", f"{export}\n{run}"],
        env=env,
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        assert following.stdout is not None
        started = following.stdout.readline()  # "run RUN_ID started"
        found = RUN_ID.search(started)
        assert found is not None, started
        run_id = found[0]
        wait_until_pending(strict_stack, RefundCase("demo", "C-1042", "T-1042", run_id))
        listed = json.loads(strict_stack.signoff("pending", "--json").stdout)["items"]
        assert [item["tool"] for item in listed if item["run_id"] == run_id] == ["send_reply"]
        assert following.poll() is None, "--wait returned while the draft waited"
        cancelled = strict_stack.signoff("cancel", run_id)
        assert cancelled.returncode == 0, cancelled.stderr
        shown, _ = following.communicate(timeout=FOLLOW_SECONDS)
    finally:
        following.kill()
    assert "outcome:  cancelled" in shown, shown
