"""`signoff approve`/`reject` with no credential is bad input: with no terminal to ask
the password on and nothing on stdin, one sentence says which credential to give, exit
2, and nothing is decided (no prompt, no GetPassWarning, no `Aborted!`)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from signoff.wiring.local_stack import SIGNOFF, free_port

HASH = "a" * 64


def signoff(
    home: Path, *args: str, stdin: int | None = subprocess.DEVNULL
) -> subprocess.CompletedProcess[str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("ANTHROPIC")}
    env.update(SIGNOFF_HOME=str(home), SIGNOFF_TEMPORAL_ADDRESS=f"127.0.0.1:{free_port()}")
    return subprocess.run(
        [SIGNOFF, *args], env=env, stdin=stdin, capture_output=True, text=True, timeout=60
    )


@pytest.mark.parametrize("verdict", ["approve", "reject"])
def test_no_terminal_and_no_stdin_option_names_the_credential(tmp_path: Path, verdict: str) -> None:
    extra = ["--reason", "no photo", "--category", "other"] if verdict == "reject" else []
    shown = signoff(tmp_path, verdict, "run-demo-x", "--hash", HASH, "--as", "alice", *extra)
    assert shown.returncode == 2, shown.stderr
    [line] = shown.stderr.strip().splitlines()
    assert "--password-stdin" in line and "--token-stdin" in line and "alice" in line
    assert "Aborted" not in shown.stderr and "Warning" not in shown.stderr
    assert shown.stdout == ""


def test_an_empty_stdin_is_refused(tmp_path: Path) -> None:
    shown = signoff(
        tmp_path, "approve", "run-demo-x", "--hash", HASH, "--as", "alice", "--password-stdin"
    )
    assert shown.returncode == 2
    assert "Nothing on stdin" in shown.stderr and "password" in shown.stderr
