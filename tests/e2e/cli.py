"""Running the `signoff` command as a user does: a real process, with the dev stack's env."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from signoff.wiring.local_stack import SIGNOFF

COMMAND_SECONDS = 120
VISIBILITY_SECONDS = 20
POLL_SECONDS = 0.5

T = TypeVar("T")


def signoff(
    env: dict[str, str], *args: str, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SIGNOFF, *args],
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=COMMAND_SECONDS,
    )


def signoff_at_once(
    env: dict[str, str], *commands: Sequence[str], inputs: Sequence[str] = ()
) -> list[subprocess.CompletedProcess[str]]:
    """Run several commands side by side (each process pays its own start-up), in order.

    `inputs[i]`, when given, is the standard input of the i-th command (a password)."""
    processes = [
        subprocess.Popen(
            [SIGNOFF, *args],
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for args in commands
    ]
    results = []
    for index, (args, process) in enumerate(zip(commands, processes, strict=True)):
        given = inputs[index] if index < len(inputs) else ""
        stdout, stderr = process.communicate(given, timeout=COMMAND_SECONDS)
        results.append(
            subprocess.CompletedProcess([SIGNOFF, *args], process.returncode, stdout, stderr)
        )
    return results


def json_of(result: subprocess.CompletedProcess[str]) -> Any:
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def eventually(
    read: Callable[[], T], holds: Callable[[T], bool], what: str, within: float = VISIBILITY_SECONDS
) -> T:
    """Visibility is eventually consistent: read again until `holds`, for a while."""
    deadline = time.monotonic() + within
    while True:
        value = read()
        if holds(value):
            return value
        assert time.monotonic() < deadline, f"never {what}: {value}"
        time.sleep(POLL_SECONDS)
