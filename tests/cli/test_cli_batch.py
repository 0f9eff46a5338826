"""`signoff approve RUN RUN…` and `signoff reject --all-pending …`: several decisions from
a terminal, against a real `signoff dev` stack (Temporal dev server, worker, and the
reviewer UI as the decision service), its demo tenant's approvals above 50.00 needing a
passkey.

The CLI shows what it will decide, asks to confirm it (a real pseudo-terminal answers
here) unless --yes, and prints a line per run: exit 0 when every one was decided, 1 when
any was not. Another tenant's run named in the batch is "not found", and still waits.
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import Engine

from activities.store import issue_token, list_refunds, make_engine, write_transaction
from activities.store.schema import Order
from signoff.wiring.local_stack import SIGNOFF, signoff_dev_stack
from tests.admin import ADMIN
from tests.conftest import demo_home
from tests.ui.conftest import DevStack, RefundCase, add_case, start_run, wait_until_pending

pytestmark = [pytest.mark.devserver, pytest.mark.slow]
CLI_SECONDS = 120


@pytest.fixture(scope="module")
def stack(
    tmp_path_factory: pytest.TempPathFactory, demo_store_template: Path
) -> Iterator[DevStack]:
    home = demo_home(demo_store_template, tmp_path_factory.mktemp("cli-batch-home"))
    with signoff_dev_stack(
        home, task_queue=f"cli-batch-{os.getpid()}", SIGNOFF_PASSKEY_ABOVE='{"demo": "50.00"}'
    ) as (env, _):
        yield DevStack(env=env, home=home, ui_url=f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}")


@pytest.fixture(scope="module")
def store(stack: DevStack) -> Iterator[Engine]:
    engine = make_engine(stack.settings().resolved_database_url)
    yield engine
    engine.dispose()


def waiting(stack: DevStack, store: Engine, amount_minor: int, tenant: str = "demo") -> RefundCase:
    """A run that asks to refund its order in full: `amount_minor` paid."""
    case = add_case(store, tenant)
    with write_transaction(store) as session:
        order = session.get(Order, (case.tenant_id, case.order_id))
        assert order is not None
        order.amount_paid_minor = amount_minor
    start_run(stack, case)
    wait_until_pending(stack, case)
    return case


def refunds(store: Engine, case: RefundCase) -> list[int]:
    return [row.amount_minor for row in list_refunds(store, case.tenant_id, case.order_id)]


def line_of(stdout: str, case: RefundCase) -> str:
    (line,) = [line for line in stdout.splitlines() if line.startswith(case.run_id)]
    return line


def test_several_runs_are_shown_then_each_decided(stack: DevStack, store: Engine) -> None:
    first, second = waiting(stack, store, 3000), waiting(stack, store, 4000)
    answer = stack.signoff(
        "approve", first.run_id, second.run_id, "--as", "alice", "--password-stdin", "--yes",
        stdin="demo-alice\n",
    )  # fmt: skip
    assert answer.returncode == 0, answer.stderr
    # The plan, on stderr: each request, and what they add up to.
    assert first.order_id in answer.stderr and second.order_id in answer.stderr
    assert "2 request(s): 70.00 EUR; by mode: 2 confirm." in answer.stderr
    assert "approved: " in line_of(answer.stdout, first)
    assert "approved: " in line_of(answer.stdout, second)
    assert "2 of 2 decided." in answer.stdout
    assert wait_for_refund(store, first) == [3000] and wait_for_refund(store, second) == [4000]


def wait_for_refund(store: Engine, case: RefundCase) -> list[int]:
    """The order's refunds once there is one (the run carries out the approval itself)."""
    deadline = time.monotonic() + 30
    while not (found := refunds(store, case)):
        assert time.monotonic() < deadline, f"{case.run_id} was never refunded"
        time.sleep(0.3)
    return found


def test_a_mix_of_success_and_failure_is_a_line_each_and_exit_1(
    stack: DevStack, store: Engine
) -> None:
    fine = waiting(stack, store, 3500)
    foreign = waiting(stack, store, 2000, tenant="globex")
    foreign_hash = wait_until_pending(stack, foreign)
    above = waiting(stack, store, 6000)  # above 50.00: approved with a passkey only
    above_hash = wait_until_pending(stack, above)
    answer = stack.signoff(
        "approve", fine.run_id, foreign.run_id, above.run_id, "--as", "alice",
        "--password-stdin", "--yes", stdin="demo-alice\n",
    )  # fmt: skip
    assert answer.returncode == 1, answer.stderr
    assert "approved: " in line_of(answer.stdout, fine)
    assert "failed: not found: no such run waits" in line_of(answer.stdout, foreign)
    assert "decide it in the reviewer UI" in line_of(answer.stdout, above)
    assert "1 of 3 decided." in answer.stdout
    assert foreign.order_id not in answer.stdout + answer.stderr  # nothing of globex is shown
    assert "Traceback" not in answer.stderr
    assert wait_for_refund(store, fine) == [3500]
    # The two that failed still wait, untouched.
    assert wait_until_pending(stack, foreign) == foreign_hash
    assert wait_until_pending(stack, above) == above_hash
    assert refunds(store, foreign) == [] and refunds(store, above) == []


def in_terminal(stack: DevStack, args: list[str], answer: str, token: str) -> tuple[int, str, str]:
    """`signoff ARGS` with a pseudo-terminal as its stdin, answering its question."""
    controller, terminal = os.openpty()
    env = {**stack.env, "SIGNOFF_TOKEN": token}
    try:
        process = subprocess.Popen(
            [SIGNOFF, *args], stdin=terminal, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env=env, text=True,
        )  # fmt: skip
        os.close(terminal)
        os.write(controller, f"{answer}\n".encode())
        stdout, stderr = process.communicate(timeout=CLI_SECONDS)
    finally:
        os.close(controller)
    return process.returncode, stdout, stderr


def test_the_filter_shows_its_requests_and_decides_only_when_confirmed(
    stack: DevStack, store: Engine
) -> None:
    small = waiting(stack, store, 1500)
    small_hash = wait_until_pending(stack, small)
    larger = waiting(stack, store, 2500)
    larger_hash = wait_until_pending(stack, larger)
    args = [
        "reject", "--all-pending", "--tool", "refund", "--max-amount", "20.00", "--as", "bob",
        "--reason", "a duplicate of an earlier ticket", "--category", "not_eligible",
    ]  # fmt: skip

    # No terminal to confirm on, no --yes: the list is shown and nothing is decided.
    piped = stack.signoff(*args, "--password-stdin", stdin="demo-bob\n")
    assert piped.returncode == 2, piped.stderr
    assert "No terminal to confirm on" in piped.stderr and "--yes" in piped.stderr
    assert small.order_id in piped.stderr and larger.order_id not in piped.stderr
    assert "1 request(s): 15.00 EUR; by mode: 1 confirm." in piped.stderr
    assert wait_until_pending(stack, small) == small_hash

    _, _, token = issue_token(store, ADMIN, "bob", timedelta(days=1))
    # In a terminal, "n" decides nothing (exit 1); "y" decides what was shown.
    code, stdout, stderr = in_terminal(stack, args, "n", token)
    assert code == 1 and "Nothing was decided." in stderr, stderr
    assert wait_until_pending(stack, small) == small_hash
    code, stdout, stderr = in_terminal(stack, args, "y", token)
    assert code == 0, stderr
    assert "Reject these 1?" in stderr
    assert "rejected: " in line_of(stdout, small) and larger.run_id not in stdout
    assert wait_until_pending(stack, larger) == larger_hash
    assert refunds(store, small) == [] and refunds(store, larger) == []


def test_bad_batch_input_is_exit_2_before_anything_is_asked(stack: DevStack) -> None:
    for args, words in (
        (["approve", "--as", "alice"], "Name the run to decide"),
        (["approve", "r1", "r2", "--hash", "ab" * 32, "--as", "alice"], "--hash names one run"),
        (["approve", "r1", "--all-pending", "--as", "alice"], "name no run"),
        (["approve", "--tool", "refund", "--as", "alice"], "add --all-pending"),
        (["approve", "--all-pending", "--max-amount", "lots", "--as", "alice"], "such as 20.00"),
        (["approve", "r1", "r2", "--amount", "5.00", "--reason", "x", "--as", "alice"], "alone"),
    ):
        answer = stack.signoff(*args)
        assert answer.returncode == 2 and words in answer.stderr, (args, answer.stderr)
        assert "Traceback" not in answer.stderr
