"""An MCP server's declaration in a profile file: each mistake is refused with the file,
the key and what to do, like every profile error; a tool without a risk is irreversible."""

from __future__ import annotations

from pathlib import Path

import pytest

from signoff.config.profiles import ProfileError, load_profile_file

AGENT = """\
[agents.support]
system_prompt = "Answer the ticket."
tools = ["read_ticket"]
model = { provider = "scripted" }
budgets.default = { steps = 8, tokens = 1000, deadline = "2h" }

"""
SERVER = "agents.support.mcp_servers.warranty"
PIN = "0123456789abcdef" * 4


def written(tmp_path: Path, declaration: str) -> Path:
    path = tmp_path / "profiles.toml"
    path.write_text(AGENT + declaration)
    return path


def problems(tmp_path: Path, declaration: str) -> list[tuple[str, str]]:
    path = written(tmp_path, declaration)
    with pytest.raises(ProfileError) as raised:
        load_profile_file(path)
    assert str(raised.value).startswith(f"{path}: ")
    return raised.value.problems


@pytest.mark.parametrize(
    ("declaration", "problem"),
    [
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\ncommand = ["x"]\n',
            (SERVER, "give url (streamable HTTP) or command (stdio), exactly one (both given)"),
        ),
        (
            f'[{SERVER}]\npin = "{PIN}"\n',
            (SERVER, "give url (streamable HTTP) or command (stdio), exactly one (neither given)"),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\npin = "sha256:abc"\n',
            (
                f"{SERVER}.pin",
                "'sha256:abc' is not a pin: 64 lowercase hex digits, as `signoff mcp pin` "
                "prints them",
            ),
        ),
        (
            f'[{SERVER}]\nurl = "file:///etc/passwd"\n',
            (
                f"{SERVER}.url",
                "'file:///etc/passwd' is not an http(s) URL, e.g. \"http://127.0.0.1:8765/mcp\"",
            ),
        ),
        (
            f"[{SERVER}]\ncommand = []\n",
            (f"{SERVER}.command", 'a program and its arguments, e.g. ["python", "-m", "x"]'),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\nenv = {{ TOKEN = "x" }}\n',
            (f"{SERVER}.env", "env applies only to a command (stdio) server"),
        ),
        (
            '[agents.support.mcp_servers.a__b]\nurl = "http://127.0.0.1:1/mcp"\n',
            (
                "agents.support.mcp_servers.a__b",
                "'a__b' is not a valid MCP server name: use 1 to 16 letters, digits, '_' or "
                "'-', starting with a letter or digit, without '__'",
            ),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\n[{SERVER}.tools."a/b"]\nrisk = "read"\n',
            (
                f'{SERVER}.tools."a/b"',
                "'a/b' is not a tool name signoff can offer: use 1 to 46 letters, digits, '_' "
                "or '-'",
            ),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\n[{SERVER}.tools.lookup]\n'
            'risk = "read"\napproval = "confirm"\n',
            (
                f"{SERVER}.tools.lookup.approval",
                "a read tool takes no approval mode ('confirm' given); allowed: auto",
            ),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\n[{SERVER}.tools.create_label]\n',
            (
                f"{SERVER}.tools.create_label.approver_roles",
                "a tool with approval 'review' names the roles that may approve it, e.g. "
                'approver_roles = ["refund_approver"]',
            ),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\n[{SERVER}.tools.create_label]\n'
            'approval = "confirm"\nfour_eyes_above = "100.00"\n'
            'approver_roles = ["refund_approver"]\n',
            (
                f"{SERVER}.tools.create_label.four_eyes_above",
                'an MCP tool has no amount to compare; use approval = "review" for two reviewers',
            ),
        ),
        (
            f'[{SERVER}]\nurl = "http://127.0.0.1:1/mcp"\ntransport = "sse"\n',
            (f"{SERVER}.transport", "unknown key; allowed: url, command, env, pin, tools"),
        ),
    ],
    ids=[
        "url-and-command",
        "neither",
        "pin-format",
        "url-scheme",
        "empty-command",
        "env-without-command",
        "server-name",
        "tool-name",
        "read-with-approval",
        "no-risk-needs-approvers",
        "no-amount-threshold",
        "unknown-key",
    ],
)
def test_a_bad_declaration_names_the_file_and_key(
    tmp_path: Path, declaration: str, problem: tuple[str, str]
) -> None:
    assert problems(tmp_path, declaration) == [problem]


def test_a_declared_tool_without_a_risk_is_irreversible_and_the_pin_is_hashed(
    tmp_path: Path,
) -> None:
    declaration = (
        f'[{SERVER}]\ncommand = ["python", "-m", "x"]\nenv = {{ REGION = "eu" }}\n'
        f'pin = "{PIN}"\n[{SERVER}.tools.create_label]\napprover_roles = ["refund_approver"]\n'
    )
    loaded = load_profile_file(written(tmp_path, declaration))
    server = loaded.profiles.agent().mcp_servers["warranty"]
    policy = server.tools["create_label"]
    assert (policy.risk, policy.approval) == ("irreversible", "review")
    assert server.command == ("python", "-m", "x")
    other = load_profile_file(written(tmp_path, declaration.replace(PIN, "f" * 64)))
    assert other.content_hash != loaded.content_hash
