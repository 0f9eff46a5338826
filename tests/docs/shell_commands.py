"""The shell commands a docs page prints, read from the page, and a way to run them as a
reader does: through bash, from a folder of their own, with a terminal to answer on.

A command is a logical line of a ```sh, ```bash or ```console block (for ```console,
a `$ ` line: the rest is output), with its `\\` continuations joined and its trailing
comment cut. A block indented under a list item counts as well.
"""

from __future__ import annotations

import os
import re
import select
import subprocess
import termios
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
DOCS = REPO_ROOT / "docs"
SHELL_BLOCK = re.compile(
    r"^(?P<indent> *)```(?P<language>sh|bash|console)\n(?P<body>.*?)^(?P=indent)```$",
    re.S | re.M,
)
COMMENT = re.compile(r"\s+#\s.*$")
HEADING = re.compile(r"^(?P<level>#{1,6}) (?P<title>.+?)\s*$")
TERMINAL_SECONDS = 120.0


def pages_with_shell_blocks() -> list[Path]:
    pages = [*sorted(DOCS.rglob("*.md")), REPO_ROOT / "README.md"]
    return [page for page in pages if SHELL_BLOCK.search(page.read_text())]


def shell_commands(page: Path, section: str | None = None) -> list[str]:
    """Every command of the page's shell blocks, in order, as one line each; with
    `section`, those under that heading alone (down to the next heading of its level or
    above)."""
    text = page.read_text()
    commands: list[str] = []
    for block in SHELL_BLOCK.finditer(text if section is None else _section(text, section)):
        indent = len(block["indent"])
        lines = [line[indent:] for line in block["body"].splitlines()]
        if block["language"] == "console":
            lines = _console_input(lines)
        joined = ""
        for line in lines:
            joined += line.lstrip() if joined else line
            if joined.endswith("\\"):
                joined = joined[:-1].rstrip() + " "
                continue
            command = COMMENT.sub("", joined).strip()
            joined = ""
            if command and not command.startswith("#"):
                commands.append(command)
    return commands


def _section(text: str, heading: str) -> str:
    """The lines under `heading`, to the next heading of its level or above; a `#` line
    inside a fenced block is a shell comment, not a heading."""
    lines, fenced, level = text.splitlines(keepends=True), False, 0
    kept: list[str] = []
    for line in lines:
        if line.lstrip().startswith("```"):
            fenced = not fenced
        found = None if fenced else HEADING.match(line)
        if found and level and len(found["level"]) <= level:
            break
        if found and found["title"] == heading:
            level = len(found["level"])
        elif level:
            kept.append(line)
    assert level, f"no heading {heading!r}"
    return "".join(kept)


def _console_input(lines: list[str]) -> list[str]:
    """The lines typed at the `$ ` prompt and their continuations; the rest is output."""
    typed: list[str] = []
    continuing = False
    for line in lines:
        if line.startswith("$ ") or continuing:
            typed.append(line.removeprefix("$ "))
            continuing = line.endswith("\\")
    return typed


@dataclass(frozen=True)
class Ran:
    returncode: int
    stdout: str
    terminal: str  # what the terminal showed: prompts, stderr and the answers echoed


def run_in_terminal(
    command: str,
    env: dict[str, str],
    cwd: Path,
    answers: Sequence[tuple[str, str]] = (),
    stdout_apart: bool = False,
    within: float = TERMINAL_SECONDS,
) -> Ran:
    """`command` through bash, on a pseudo-terminal: each answer is typed once its
    prompt shows, a password only once the terminal stopped echoing, so that getpass's
    flush cannot drop it. `stdout_apart` keeps stdout off the terminal, for a command
    whose output is read as data (a token, JSON)."""
    controller, terminal = os.openpty()
    process = subprocess.Popen(
        ["bash", "-c", command],
        env=env,
        cwd=cwd,
        stdin=terminal,
        stdout=subprocess.PIPE if stdout_apart else terminal,
        stderr=terminal,
        start_new_session=True,
    )
    os.close(terminal)
    stdout: list[bytes] = []
    reader = threading.Thread(target=_read_all, args=(process, stdout))
    if stdout_apart:
        reader.start()
    shown, answered, left = "", 0, list(answers)
    deadline = time.monotonic() + within
    try:
        while True:
            assert time.monotonic() < deadline, f"{command!r} still runs; it showed {shown!r}"
            readable, _, _ = select.select([controller], [], [], 0.1)
            if readable:
                try:
                    chunk = os.read(controller, 4096)
                except OSError:  # the terminal closed: every process on it ended
                    chunk = b""
                if not chunk:
                    break
                shown += chunk.decode(errors="replace").replace("\r\n", "\n")
            if left and re.search(left[0][0], shown[answered:]) and _may_type(controller, left[0]):
                answered = len(shown)
                os.write(controller, left.pop(0)[1].encode() + b"\n")
        process.wait(timeout=max(deadline - time.monotonic(), 1))
    finally:
        if process.poll() is None:
            process.kill()
        os.close(controller)
        if stdout_apart:
            reader.join()
    assert not left, f"{command!r} never asked {left[0][0]!r}; it showed {shown!r}"
    return Ran(process.returncode, stdout[0].decode() if stdout else "", shown)


def _read_all(process: subprocess.Popen[bytes], into: list[bytes]) -> None:
    assert process.stdout is not None
    with process.stdout:
        into.append(process.stdout.read())


def _may_type(controller: int, answer: tuple[str, str]) -> bool:
    prompt, _ = answer
    if "assword" not in prompt:
        return True
    return not termios.tcgetattr(controller)[3] & termios.ECHO
