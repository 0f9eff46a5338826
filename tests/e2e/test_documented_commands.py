"""The shell commands of the operating, reviewing and API pages, read from each page and
run as printed, through bash and a terminal, against the shared dev stack.

What a reader fills in is filled in here, from the stack: the run ids and hashes that
`signoff pending` shows, a token's id, a rule's id, the UI's address (the stack's free
port for 127.0.0.1:8000). A password is typed when the command asks for it, on a
pseudo-terminal, as a reader types it. The refunds are fresh orders of their own
(testkit.refund_cases), so that no page's commands touch what another module of this
package decides on the demo's T-1042, T-2210 or T-3107; the ticket a page names is
replaced by one of them. What a test adds to the shared stack (a standing rule, a
language) it takes back. A command that cannot run here is in
tests/docs/commands_not_run.py, with why, and tests/docs/test_documented_commands.py
holds every page to a test or a reason. Each test takes its page's commands by count:
one more on the page fails it until it is run here or listed there.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pytest

from activities.connectors.breaker import BreakerPolicy
from activities.store import demo_password, make_engine
from activities.store.connector_breakers import record_failure
from signoff.config.settings import Settings
from signoff.wiring.local_stack import SIGNOFF
from testkit.refund_cases import add_refund_cases
from tests.docs.commands_not_run import COMMANDS_NOT_RUN, SECTIONS_RUN_ELSEWHERE
from tests.docs.shell_commands import DOCS, REPO_ROOT, Ran, run_in_terminal, shell_commands
from tests.e2e.cli import signoff, signoff_at_once
from tests.e2e.stack_runs import (
    refunded,
    start_runs,
    start_waiting,
    wait_ended,
    wait_pending,
)

ADMIN = ("Password of admin", demo_password("admin"))
ALICE = ("Password of alice", demo_password("alice"))
BOB = ("Password of bob", demo_password("bob"))
RUN_ID = re.compile(r"\brun-demo-[0-9a-z-]+")
TOKEN_ROW = re.compile(r"^\s*(\d+)\s.*\s(active|revoked|expired)$", re.M)
RULE_ID = re.compile(r"\bSR-[0-9A-Z]+\b")
SMALL_REFUND_MINOR = 1500  # 15.00 EUR: under the batch page's --max-amount 20.00
FOLLOW_SECONDS = 60
ACME_FAILURES = BreakerPolicy(  # the page's five failures
    failures_to_open=5, cooldown=timedelta(minutes=10), trial_timeout=timedelta(minutes=1)
)


def page(name: str) -> Path:
    return DOCS / name


def commands_run(name: str) -> list[str]:
    """The page's commands but those tests/docs/commands_not_run.py lists, with why, and
    those of its sections that another module runs (SECTIONS_RUN_ELSEWHERE)."""
    not_run = COMMANDS_NOT_RUN.get(f"docs/{name}", {})
    elsewhere = {
        command
        for section in SECTIONS_RUN_ELSEWHERE.get(f"docs/{name}", {})
        for command in shell_commands(page(name), section)
    }
    return [c for c in shell_commands(page(name)) if c not in not_run.keys() | elsewhere]


def filled(command: str, **values: str) -> str:
    """`command` with each placeholder the page prints replaced by the stack's value;
    a placeholder the page no longer prints fails, so that this test follows the page."""
    for placeholder, value in values.items():
        assert placeholder in command, f"{placeholder!r} is not in {command!r}"
        command = command.replace(placeholder, value)
    return command


class Shell:
    """A reader's terminal on the stack: its environment, `signoff` on PATH, and a
    folder of its own whose `.venv` is the repository's, so that `.venv/bin/signoff`
    works as printed and nothing a command writes lands in the repository."""

    def __init__(self, env: dict[str, str], folder: Path) -> None:
        (folder / ".venv").symlink_to(REPO_ROOT / ".venv")
        self.folder = folder
        self.env = {**env, "PATH": f"{Path(SIGNOFF).parent}{os.pathsep}{env['PATH']}"}
        self.ui = f"http://127.0.0.1:{env['SIGNOFF_UI_PORT']}"

    def run(self, command: str, *answers: tuple[str, str], stdout_apart: bool = False) -> Ran:
        command = command.replace("http://127.0.0.1:8000", self.ui)
        ran = run_in_terminal(command, self.env, self.folder, answers, stdout_apart=stdout_apart)
        assert ran.returncode == 0, f"{command}\n{ran.terminal}{ran.stdout}"
        return ran

    def database_url(self) -> str:
        return Settings(home=Path(self.env["SIGNOFF_HOME"])).resolved_database_url


@pytest.fixture(scope="module")
def reader(dev_stack: dict[str, str], tmp_path_factory: pytest.TempPathFactory) -> Shell:
    return Shell(dev_stack, tmp_path_factory.mktemp("reader"))


def cancel(shell: Shell, run_ids: list[str]) -> None:
    """The runs a test left waiting end, so that the package's later modules find the
    shared stack as they would without this one."""
    for result in signoff_at_once(shell.env, *(["cancel", run_id] for run_id in run_ids)):
        assert result.returncode == 0, result.stderr


def test_accounts_page_adds_erin_gives_her_a_token_and_revokes_it(reader: Shell) -> None:
    add, token, tokens, revoke, audit = commands_run("operating/accounts.md")
    assert add.endswith("user add erin --tenant demo --role refund_approver --as admin")
    # "admin's password, then erin's twice"
    erin = "erin-walks-the-docs"
    added = reader.run(add, ADMIN, ("Password:", erin), ("Repeat the password", erin))
    assert added.terminal == (
        "Password of admin: \nPassword: \nRepeat the password: \n"
        "reviewer erin added (tenant demo, roles: refund_approver)\n"
    )

    issued = reader.run(token, ADMIN, stdout_apart=True)
    assert issued.stdout.strip().startswith("so_")  # printed once, on stdout alone
    [(token_id, status)] = TOKEN_ROW.findall(reader.run(tokens, ADMIN).terminal)
    assert status == "active"
    revoked = reader.run(filled(revoke, **{"revoke 3": f"revoke {token_id}"}), ADMIN)
    assert f"API token {token_id} of erin revoked" in revoked.terminal
    assert TOKEN_ROW.findall(reader.run(tokens, ADMIN).terminal) == [(token_id, "revoked")]

    rows = reader.run(audit).terminal  # the account rows beside the decisions
    for change in (
        "user add erin: tenant demo, roles refund_approver",
        f"user token revoke {token_id}: token {token_id} of erin revoked",
    ):
        assert re.search(rf"  account +admin +- +{re.escape(change)}$", rows, re.M), rows


def test_decision_page_approves_with_the_session_and_with_a_token(reader: Shell) -> None:
    """docs/ui/api.md: one refund decided with the session cookie and its CSRF token,
    another with alice's personal token, while `signoff status --follow` of
    docs/ui/live-runs.md follows it to its end."""
    with_cookie, with_token = add_refund_cases(reader.database_url(), "demo", 2)
    run_line, follow_line = commands_run("ui/live-runs.md")
    started = reader.run(filled(run_line, **{"T-1042": with_token}))
    [token_run] = set(RUN_ID.findall(started.terminal))
    [(cookie_run, cookie_hash)] = start_waiting(reader.env, [with_cookie]).items()
    token_hash = wait_pending(reader.env, token_run)

    *session, mint, decide_with_token = commands_run("ui/api.md")
    assert len(session) == 5  # the sign-in page, its token, the sign-in, the CSRF token, the POST
    decided = reader.run(
        filled("\n".join(session), **{"run-demo-…": cookie_run, "<hash>": cookie_hash}),
        stdout_apart=True,
    )
    assert json.loads(decided.stdout)["status"] == "approved", decided.stdout

    following = subprocess.Popen(
        ["bash", "-c", filled(follow_line, RUN_ID=token_run)],
        env=reader.env,
        cwd=reader.folder,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        decide = filled(decide_with_token, **{"run-demo-…": token_run, "<hash>": token_hash})
        decided = reader.run(f"{mint}\n{decide}", ADMIN, stdout_apart=True)
        assert json.loads(decided.stdout)["status"] == "approved", decided.stdout
        followed, errors = following.communicate(timeout=FOLLOW_SECONDS)
    finally:
        following.kill()
    assert following.returncode == 0, errors
    assert "outcome:  completed" in followed and "approved by alice" in followed
    wait_ended(reader.env, [cookie_run])
    paid = Decimal("60.00")
    assert (refunded(reader.env, with_cookie), refunded(reader.env, with_token)) == (paid, paid)


def test_batch_page_decides_several_runs_and_a_filter(reader: Shell) -> None:
    curl, approve_two, reject_two, approve_small = commands_run("ui/batch-decisions.md")
    *_, mint, _ = commands_run("ui/api.md")  # where the page's $API_TOKEN comes from
    database = reader.database_url()
    tickets = add_refund_cases(database, "demo", 5)
    tickets += add_refund_cases(database, "demo", 1, paid_minor=SMALL_REFUND_MINOR)
    hashes = start_waiting(reader.env, tickets)
    by_curl, *two_approved, first_rejected, second_rejected, small = hashes

    batch = filled(curl, **{"run-demo-…": by_curl, "<hash>": hashes[by_curl]})
    answered = json.loads(reader.run(f"{mint}\n{batch}", ADMIN, stdout_apart=True).stdout)
    assert (answered["succeeded"], answered["failed"]) == (1, 0), answered

    two_runs = "run-demo-7f3a run-demo-91c2"
    approved = reader.run(
        filled(approve_two, **{two_runs: " ".join(two_approved)}), ALICE, ("Approve these 2?", "y")
    )
    assert "2 of 2 decided." in approved.terminal
    rejected = reader.run(
        filled(reject_two, **{two_runs: f"{first_rejected} {second_rejected}"}),
        BOB,
        ("Reject these 2?", "y"),
    )
    assert "2 of 2 decided." in rejected.terminal

    # Every request of the tenant at most 20.00 EUR: the 15.00 one, and none of 60.00.
    filtered = reader.run(approve_small, ALICE, ("Approve these 1?", "y"))
    assert f"{small} {hashes[small][:12]}: approved" in filtered.terminal
    assert "15.00 EUR" in filtered.terminal and "60.00 EUR" not in filtered.terminal

    wait_ended(reader.env, list(hashes))
    ledger = [refunded(reader.env, ticket) for ticket in tickets]  # in the runs' order
    paid, nothing = Decimal("60.00"), Decimal(0)
    assert ledger == [paid, paid, paid, nothing, nothing, Decimal("15.00")]


def test_reviewing_page_approves_a_lower_refund(reader: Shell) -> None:
    [lower] = commands_run("reviewing.md")
    [ticket] = add_refund_cases(reader.database_url(), "demo", 1)
    [(run_id, action_hash)] = start_waiting(reader.env, [ticket]).items()
    edited = reader.run(filled(lower, RUN=run_id, HASH=action_hash), ALICE)
    assert "edited: Approved with changes." in edited.terminal
    wait_ended(reader.env, [run_id])
    assert refunded(reader.env, ticket) == Decimal("50.00")


def test_command_line_page_pages_through_pending(reader: Shell) -> None:
    first_page, next_page = commands_run("command-line.md")
    waiting_runs = start_runs(reader.env, add_refund_cases(reader.database_url(), "demo", 2))
    for run_id in waiting_runs:
        wait_pending(reader.env, run_id)
    shown = json.loads(reader.run(first_page, stdout_apart=True).stdout)
    assert shown.keys() == {"total", "next", "first"} and shown["total"] >= 2, shown
    # Twenty-five waiting requests to reach a second page would cost 25 runs: the cursor
    # comes from a page of one, and belongs to the same listing.
    one = json.loads(signoff(reader.env, "pending", "--limit", "1", "--json").stdout)
    after = reader.run(filled(next_page, **{"p1.…": one["next"]}))
    assert one["items"][0]["run_id"] not in after.terminal
    assert f"; 2-{shown['total']} on this page" in after.terminal, after.terminal
    cancel(reader, waiting_runs)


def test_replay_page_exports_histories_and_replays_them(reader: Shell) -> None:
    export_running, export_one, replay = commands_run("development/replay.md")
    # An answered question about a parcel (a run that ended), and a refund that waits.
    finished, running_run = start_runs(
        reader.env, ["T-4512", *add_refund_cases(reader.database_url(), "demo", 1)]
    )
    wait_pending(reader.env, running_run)
    reader.run(export_running)
    running = sorted(path.name for path in (reader.folder / "histories").glob("*.json"))
    assert f"{running_run}.json" in running, running
    wait_ended(reader.env, [finished])
    one = filled(export_one, **{"run-demo-42": finished})
    reader.run(one)
    replayed = reader.run(replay).terminal
    count = len(running) + 1
    assert f"{count} histories replayed: {count} ok, 0 failed" in replayed
    cancel(reader, [running_run])


def test_standing_rules_page_makes_lists_and_revokes_rules(reader: Shell) -> None:
    first, for_marie, active, every, revoke, shadow = commands_run("standing-rules.md")
    made = []
    try:
        for command in (first, for_marie, shadow):
            [rule_id] = set(RULE_ID.findall(reader.run(command, ADMIN).terminal))
            made.append(rule_id)
        listed = reader.run(active, ADMIN).terminal
        assert all(f"{rule_id}  active" in listed for rule_id in made), listed
        revoked = reader.run(filled(revoke, **{"SR-1A2B3C4D5E": made[0]}), ADMIN)
        assert f"{made[0]} revoked after 0 of 20 use(s)." in revoked.terminal
        assert made[0] not in reader.run(active, ADMIN).terminal
        assert f"{made[0]}  revoked" in reader.run(every, ADMIN).terminal
    finally:
        for rule_id in made[1:]:  # the shared stack's tenant gets no standing rule from here
            reader.run(filled(revoke, **{"SR-1A2B3C4D5E": rule_id}), ADMIN)


def test_languages_page_sets_alices_language(reader: Shell) -> None:
    set_it, show_it = commands_run("ui/languages.md")
    try:
        reader.run(set_it, ADMIN)
        assert reader.run(show_it).terminal == "reviewer alice: language fr\n"
    finally:
        reader.run(set_it.replace(" fr ", " auto "), ADMIN)  # "`auto` clears the choice"
    assert "language fr" not in reader.run(show_it).terminal


def test_helpdesk_page_lists_a_breaker_and_closes_it(reader: Shell) -> None:
    """docs/connect-helpdesk.md: acme's helpdesk failed five times (written to the stack's
    store as a worker's replies write it); the list shows it open, the reset closes it."""
    listing, reset = commands_run("connect-helpdesk.md")
    engine = make_engine(reader.database_url())
    try:
        for _ in range(ACME_FAILURES.failures_to_open):
            record_failure(engine, "helpdesk:acme", ACME_FAILURES, datetime.now(UTC), "HTTP 503")
    finally:
        engine.dispose()
    [acme] = [line for line in reader.run(listing).terminal.splitlines() if "helpdesk:acme" in line]
    assert acme.split()[:3] == ["helpdesk:acme", "open", "5"] and acme.endswith("HTTP 503")
    assert "helpdesk:acme: closed" in reader.run(reset).terminal
    after = [line.split()[:2] for line in reader.run(listing).terminal.splitlines()]
    assert ["helpdesk:acme", "open"] not in after  # closed: its failures forgotten
