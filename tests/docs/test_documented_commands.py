"""Every shell command the docs print is run by a test, or is listed with why it is not
(tests/docs/commands_not_run.py); and the commands that need no stack are run here.

A page with a ```sh, ```bash or ```console block is either run by the test module
named below (which reads the page and takes its commands by count, so that a command
added to the page fails it until it runs or is listed) or not run at all, for a reason.
A section that needs a stack of its own is run by the module SECTIONS_RUN_ELSEWHERE
names for it, and the page's module takes the rest.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from tests.docs.commands_not_run import COMMANDS_NOT_RUN, PAGES_NOT_RUN, SECTIONS_RUN_ELSEWHERE
from tests.docs.shell_commands import (
    REPO_ROOT,
    pages_with_shell_blocks,
    run_in_terminal,
    shell_commands,
)

E2E = "tests/e2e/test_documented_commands.py"
HERE = "tests/docs/test_documented_commands.py"
RUN_BY = {
    "README.md": "tests/e2e/test_getting_started_commands.py",
    "docs/getting-started.md": "tests/e2e/test_getting_started_commands.py",
    "docs/concepts/gate.md": "tests/e2e/test_getting_started_commands.py",
    "docs/configuration/add-a-tool.md": "tests/cli/test_profiles_commands.py",
    "docs/configuration/profiles.md": HERE,
    "docs/configuration/mcp.md": "tests/mcp/test_mcp_commands.py",
    "docs/connect-stripe.md": "tests/payments/test_connect_stripe_doc.py",
    "docs/connect-helpdesk.md": E2E,
    "docs/ask-the-customer.md": "tests/intake/test_ask_customer_docs.py",
    # Its one shell line, and the address where the page's passkey registers; its
    # browser steps (register, approve with the passkey) are not shell commands:
    # tests/ui/test_browser_passkey.py takes them in Chromium, at http://localhost.
    "docs/passkeys.md": "tests/unit/test_passkeys_doc.py",
    "docs/operating/audit.md": "tests/ui/test_audit_export_check.py",
    "docs/operating/observability.md": "tests/e2e/test_observability_on_dev_server.py",
    "docs/operating/accounts.md": E2E,
    "docs/ui/api.md": E2E,
    "docs/ui/live-runs.md": E2E,
    "docs/ui/batch-decisions.md": E2E,
    "docs/ui/approval-insight.md": "tests/ui/test_insight_docs.py",
    "docs/reviewing.md": E2E,
    "docs/command-line.md": E2E,
    "docs/development/replay.md": E2E,
    "docs/standing-rules.md": E2E,
    "docs/ui/languages.md": E2E,
    "docs/operating/decision-keys.md": HERE,
    "docs/approvals-policies.md": HERE,
    "docs/operating/index.md": HERE,
}
KEY_ID = re.compile(r"\b[0-9a-f]{16}\b")


def relative(page: Path) -> str:
    return page.relative_to(REPO_ROOT).as_posix()


def test_every_page_with_commands_is_run_by_a_test_or_says_why_not() -> None:
    pages = {relative(page) for page in pages_with_shell_blocks()}
    left_alone = {
        page
        for page, commands in COMMANDS_NOT_RUN.items()
        if page not in RUN_BY and set(shell_commands(REPO_ROOT / page)) == commands.keys()
    }
    assert pages - RUN_BY.keys() - PAGES_NOT_RUN.keys() - left_alone == set()
    assert RUN_BY.keys() & PAGES_NOT_RUN.keys() == set()
    assert RUN_BY.keys() | PAGES_NOT_RUN.keys() <= pages, "a page listed prints no command"


def commands_of(page: str) -> list[str]:
    """What the page's own module runs: its commands but those listed as not run and
    those of its sections run elsewhere."""
    elsewhere = {
        command
        for section in SECTIONS_RUN_ELSEWHERE.get(page, {})
        for command in shell_commands(REPO_ROOT / page, section)
    }
    not_run = COMMANDS_NOT_RUN.get(page, {}).keys()
    return [c for c in shell_commands(REPO_ROOT / page) if c not in not_run | elsewhere]


RUNNERS = {(doc, runner) for doc, runner in RUN_BY.items()} | {
    (doc, runner) for doc, runs in SECTIONS_RUN_ELSEWHERE.items() for runner in runs.values()
}


@pytest.mark.parametrize("page", sorted({runner for _, runner in RUNNERS}))
def test_the_test_named_for_a_page_reads_it(page: str) -> None:
    module = (REPO_ROOT / page).read_text()
    for doc, runner in RUNNERS:
        if runner == page:
            assert Path(doc).name in module, f"{runner} never names {doc}"


@pytest.mark.parametrize(
    ("page", "section"),
    [(page, section) for page, runs in SECTIONS_RUN_ELSEWHERE.items() for section in runs],
)
def test_a_section_run_elsewhere_prints_commands_of_a_page_run_by_a_test(
    page: str, section: str
) -> None:
    assert page in RUN_BY
    assert shell_commands(REPO_ROOT / page, section), f"{section!r} prints no command"


def test_a_page_not_run_prints_the_commands_it_was_judged_on() -> None:
    counted = {page: len(shell_commands(REPO_ROOT / page)) for page in PAGES_NOT_RUN}
    assert counted == {page: count for page, (count, _) in PAGES_NOT_RUN.items()}


def test_each_command_listed_as_not_run_is_still_printed() -> None:
    for page, commands in COMMANDS_NOT_RUN.items():
        printed = shell_commands(REPO_ROOT / page)
        assert commands.keys() <= set(printed), (page, sorted(commands.keys() - set(printed)))


@pytest.fixture
def reader(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """A terminal in a folder of its own whose `.venv` is the repository's, with a new
    SIGNOFF_HOME: a host of its own, as the key commands' page says they run."""
    (tmp_path / ".venv").symlink_to(REPO_ROOT / ".venv")
    env = {key: value for key, value in os.environ.items() if not key.startswith("SIGNOFF_")}
    env["SIGNOFF_HOME"] = str(tmp_path / "home")
    env["PATH"] = f"{REPO_ROOT / '.venv' / 'bin'}{os.pathsep}{env['PATH']}"
    return env, tmp_path


def test_decision_keys_page_makes_rotates_and_retires_keys(
    reader: tuple[dict[str, str], Path],
) -> None:
    env, folder = reader
    # The decision service's host: its configuration says where its key ring goes.
    env = {**env, "SIGNOFF_DECISION_SIGNING_KEYS_FILE": str(folder / "ring.json")}
    init, listed, rotate, retire = shell_commands(REPO_ROOT / "docs/operating/decision-keys.md")

    def run(command: str) -> str:
        ran = run_in_terminal(command, env, folder)
        assert ran.returncode == 0, ran.terminal
        return ran.terminal

    [first] = KEY_ID.findall(run(init))
    assert re.search(rf"^{first}\s+signing\s", run(listed), re.M)
    [second] = KEY_ID.findall(run(rotate))
    keys = run(listed)  # "KEY_ID  signing|verifying|retired  created ..."
    assert re.search(rf"^{first}\s+verifying\s+created ", keys, re.M), keys
    assert re.search(rf"^{second}\s+signing\s+created ", keys, re.M), keys
    run(retire.replace("KEY_ID", first))
    assert re.search(rf"^{first}\s+retired\s", run(listed), re.M)


def test_approvals_policies_page_says_what_check_refuses(
    reader: tuple[dict[str, str], Path],
) -> None:
    """The page's first example, with one approval asked of a review: the check's
    message is the one the page prints."""
    env, folder = reader
    page = (REPO_ROOT / "docs/approvals-policies.md").read_text()
    [check, *_] = shell_commands(REPO_ROOT / "docs/approvals-policies.md")
    example = re.findall(r"```toml\n(.*?)```", page, re.S)[0]
    builtin = (REPO_ROOT / "signoff/config/default_profiles.toml").read_text()
    refund = re.compile(r"\[agents\.support\.tool_policy\.refund\]\n.*?\n\n", re.S)
    profile = folder / "profiles.toml"

    profile.write_text(refund.sub(lambda _: example + "\n", builtin))
    ran = run_in_terminal(check, env, folder)
    assert ran.returncode == 0, ran.terminal

    profile.write_text(refund.sub(lambda _: example.replace("= 3", "= 1") + "\n", builtin))
    ran = run_in_terminal(check, env, folder)
    printed = page.split(f"$ {check}\n", 1)[1].split("\n", 1)[0]
    assert (ran.returncode, ran.terminal) == (2, printed + "\n")


def test_operating_page_makes_payload_keys_the_settings_take(
    reader: tuple[dict[str, str], Path],
) -> None:
    env, folder = reader
    define, first, rotation = shell_commands(REPO_ROOT / "docs/operating/index.md")
    script = "\n".join(
        [
            define,
            first,
            'OLD="${SIGNOFF_PAYLOAD_KEYS#k1:}"',
            rotation.replace("<the old key>", "$OLD"),
            ".venv/bin/python -c 'from signoff.config.settings import Settings; "
            "from signoff.config.payload_keys import payload_cipher; "
            "print(payload_cipher(Settings()) is not None)'",
            'echo "$SIGNOFF_PAYLOAD_KEYS"',
        ]
    )
    shown = run_in_terminal(script, env, folder).terminal.splitlines()
    assert shown[0] == "True"
    assert re.fullmatch(r"k2:[A-Za-z0-9+/]{43}=,k1:[A-Za-z0-9+/]{43}=", shown[1])


def test_profiles_page_checks_and_shows_a_profile(reader: tuple[dict[str, str], Path]) -> None:
    env, folder = reader
    name = "docs/configuration/profiles.md"
    check, show = commands_of(name)
    builtin = (REPO_ROOT / "signoff/config/default_profiles.toml").read_text()
    read_only = '[agents.support.tool_policy.get_order]\nrisk = "read"\n'
    assert read_only in builtin
    (folder / "profiles.toml").write_text(
        builtin.replace(read_only, read_only + 'approval = "confirm"\n')
    )
    ran = run_in_terminal(check, env, folder)
    printed = (REPO_ROOT / name).read_text().split(f"$ {check}", 1)[1].split("\n")[1]
    assert (ran.returncode, ran.terminal) == (2, printed + "\n")

    assert show == "signoff profiles show [--json]"
    shown = run_in_terminal("signoff profiles show", env, folder)
    assert shown.terminal.startswith("profile builtin (built-in: "), shown.terminal
    sha = re.search(r"^sha256 ([0-9a-f]{64})$", shown.terminal, re.M)
    as_json = run_in_terminal("signoff profiles show --json", env, folder, stdout_apart=True)
    described = json.loads(as_json.stdout)
    assert sha and (described["name"], described["content_hash"]) == ("builtin", sha[1])
