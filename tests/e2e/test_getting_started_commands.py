"""The commands of docs/getting-started.md (and the README's, the same), read from the page
and run as printed against a `signoff dev` stack of their own: the first run answers as
the page shows, and the refund it walks through waits, is approved by alice and is made.

What a reader fills in is filled in here: the run id (`run-demo-…`) and the hash
(`<hash>`) that the commands before printed, and, since a test has no terminal to type
alice's password on, `--password-stdin` with her demo password. The stack is private:
the shared one's T-1042 is refunded by tests/e2e/test_approvals_on_dev_server.py.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from activities.store import demo_password
from signoff.wiring.local_stack import signoff_dev_stack
from tests.e2e.cli import eventually, signoff

pytestmark = pytest.mark.devserver

PAGE = Path(__file__).resolve().parents[2] / "docs" / "getting-started.md"
SH_BLOCK = re.compile(r"```sh\n(.*?)```", re.S)
RUN_ID = re.compile(r"run-demo-[0-9a-z-]+")
HASH = re.compile(r"\b[0-9a-f]{64}\b")


def documented_commands(page: Path = PAGE) -> list[list[str]]:
    """Each `.venv/bin/signoff` line of the page's sh blocks, as arguments, comment cut."""
    commands = []
    for block in SH_BLOCK.findall(page.read_text()):
        for line in block.splitlines():
            if line.startswith(".venv/bin/signoff "):
                words = line.split("  #")[0].split()
                commands.append(words[1:])
    return commands


@pytest.fixture(scope="module")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, str]]:
    home = tmp_path_factory.mktemp("getting-started")
    with signoff_dev_stack(home, task_queue=f"docs-{os.getpid()}") as (env, _launcher):
        yield env


def test_the_page_holds_the_commands_this_test_runs() -> None:
    assert documented_commands() == [
        ["run", "--ticket", "T-4512", "--wait"],
        ["run", "--ticket", "T-1042"],
        ["pending"],
        ["approve", "run-demo-…", "--hash", "<hash>", "--as", "alice"],
        ["status", "run-demo-…"],
    ]
    # The README's first run and approval are these same commands, and so are the
    # gate's walk-through (docs/concepts/gate.md) from its refund on.
    assert documented_commands(PAGE.parents[1] / "README.md") == documented_commands()
    assert documented_commands(PAGE.parent / "concepts" / "gate.md") == documented_commands()[1:]


def test_the_first_run_answers_as_the_page_shows(stack: dict[str, str]) -> None:
    first, *_ = documented_commands()
    result = signoff(stack, *first)
    assert result.returncode == 0, result.stderr
    shown = PAGE.read_text().split("```\nrun run-demo-", 1)[1].split("```", 1)[0]
    for line in ("outcome:  completed (answered)", "tools:    read_ticket ok, get_order ok"):
        assert line in shown and line in result.stdout
    assert "Tracking number: TRK-88" in result.stdout


def test_the_refund_waits_then_alice_approves_it(stack: dict[str, str]) -> None:
    _, start, pending, approve, status = documented_commands()
    started = signoff(stack, *start)
    assert started.returncode == 0, started.stderr
    [run_id] = set(RUN_ID.findall(started.stdout + started.stderr))

    listed = eventually(
        lambda: signoff(stack, *pending).stdout, lambda out: run_id in out, "pending"
    )
    [action_hash] = set(HASH.findall(listed))

    filled = [run_id if word == "run-demo-…" else word for word in approve]
    filled = [action_hash if word == "<hash>" else word for word in filled]
    approved = signoff(stack, *filled, "--password-stdin", stdin=demo_password("alice") + "\n")
    assert approved.returncode == 0, approved.stderr

    shown = eventually(
        lambda: signoff(stack, *[run_id if w == "run-demo-…" else w for w in status]),
        lambda result: "outcome:  completed" in result.stdout,
        "completed",
    )
    assert "approved by alice  89.90 EUR on order C-1042" in shown.stdout
    assert "effects:  none" not in shown.stdout  # the refund was made
