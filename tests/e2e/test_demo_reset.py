"""Starting the demo over, as the README and docs/getting-started.md print it (issue 42):
after a refund of T-1042 is approved, the same ticket refunds nothing more (its order has
nothing left); `make demo-reset`, with the demo stopped, and a new `signoff dev` (what
`make demo` runs) make T-1042 wait for a refund again. While the demo runs, the reset
refuses and deletes nothing.
"""

from __future__ import annotations

import os
import re
import subprocess
from decimal import Decimal
from pathlib import Path

import pytest
from sqlalchemy import func, select

from activities.store import demo_password, make_engine
from activities.store.schema import Refund
from signoff.wiring.local_stack import signoff_dev_stack
from tests.docs.shell_commands import COMMENT, REPO_ROOT, SHELL_BLOCK
from tests.e2e.cli import COMMAND_SECONDS, signoff
from tests.e2e.stack_runs import TENANT, stack_settings, start_runs, start_waiting, wait_ended

pytestmark = pytest.mark.devserver

PAGES = (REPO_ROOT / "README.md", REPO_ROOT / "docs" / "getting-started.md")
SECTION = re.compile(r"^## Start the demo over\n(.*?)(?=^## )", re.S | re.M)
# `make` would first bring the venv up to date when pyproject.toml or uv.lock changed
# since the install (the $(STAMP) prerequisite): a test runs the recipe, not an install.
INSTALLED = ".venv/.installed"
STOPPED = "stop `make demo` with Ctrl-C first"


def reset_commands(page: Path) -> list[str]:
    """The commands of the page's section on starting over."""
    found = SECTION.search(page.read_text())
    assert found is not None, f"{page.name} has no section 'Start the demo over'"
    blocks = SHELL_BLOCK.finditer(found.group(1))
    lines = [line for block in blocks for line in block["body"].splitlines()]
    return [COMMENT.sub("", line).strip() for line in lines if line.strip()]


def make(env: dict[str, str], command: str) -> subprocess.CompletedProcess[str]:
    """A `make TARGET` line of the page, run from the repository as a reader does."""
    target = command.removeprefix("make ")
    return subprocess.run(
        ["make", "--no-print-directory", f"--old-file={INSTALLED}", target],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )


def test_the_readme_and_getting_started_print_the_same_reset() -> None:
    readme, getting_started = (reset_commands(page) for page in PAGES)
    assert readme == getting_started == ["make demo-reset", "make demo"]


ORDER = "C-1042"  # T-1042's order in the demo data


def refunded(env: dict[str, str]) -> Decimal:
    """What the demo's ledger holds as refunded on T-1042's order."""
    engine = make_engine(stack_settings(env).resolved_database_url, migrate=False)
    total = func.coalesce(func.sum(Refund.amount_minor), 0)
    query = select(total).where(Refund.tenant_id == TENANT, Refund.order_id == ORDER)
    try:
        with engine.connect() as connection:
            return Decimal(connection.execute(query).scalar_one()) / 100
    finally:
        engine.dispose()


def approve_a_refund_of_t1042(env: dict[str, str]) -> None:
    [(run_id, action_hash)] = start_waiting(env, ["T-1042"]).items()
    approved = signoff(
        env, "approve", run_id, "--hash", action_hash, "--as", "alice", "--password-stdin",
        stdin=demo_password("alice") + "\n",
    )  # fmt: skip
    assert approved.returncode == 0, approved.stderr
    wait_ended(env, [run_id])


def test_the_reset_lets_a_refunded_demo_refund_again(tmp_path: Path) -> None:
    home = tmp_path / "demo-home"
    home.mkdir()
    reset, _ = reset_commands(PAGES[0])
    queue = f"reset-{os.getpid()}"
    with signoff_dev_stack(home, task_queue=queue) as (env, _launcher):
        approve_a_refund_of_t1042(env)
        assert refunded(env) == Decimal("89.90")
        # The same ticket again: the run ends, refunding nothing (no refund is left).
        wait_ended(env, start_runs(env, ["T-1042"]))
        assert refunded(env) == Decimal("89.90")

        refused = make(env, reset)
        assert refused.returncode != 0 and STOPPED in refused.stderr, refused.stderr
        assert (home / "signoff.db").exists() and (home / "temporal.db").exists()

    done = make(env, reset)
    assert done.returncode == 0, done.stderr
    assert "Demo reset: deleted signoff.db" in done.stdout and "temporal.db" in done.stdout
    assert not (home / "signoff.db").exists()

    with signoff_dev_stack(home, task_queue=queue) as (env, _launcher):
        assert refunded(env) == Decimal("0")
        [waiting] = start_waiting(env, ["T-1042"])  # it waits for a reviewer again
        listed = signoff(env, "list")
        assert listed.returncode == 0 and listed.stdout.count("run-demo-") == 1, listed.stdout
        assert waiting in listed.stdout
