"""Shows `--help` for `signoff` and each of its commands and sub-commands, in one process.

Run by path with another install's interpreter (tests/deploy/test_clean_install.py), so
it imports that install's signoff, never this checkout's. It prints each command it
showed, one a line, and exits 1 if any failed, with the failure's traceback: a missing
runtime dependency is then named by its ModuleNotFoundError.
"""

from __future__ import annotations

import sys
import traceback

from typer import _click  # typer's own click, as signoff/cli/lazy_commands.py uses
from typer.core import TyperGroup
from typer.main import get_command
from typer.testing import CliRunner

from signoff.wiring.app import app


def command_paths() -> list[list[str]]:
    """Every command and sub-command of `signoff`, as the words that name it."""
    paths: list[list[str]] = []

    def walk(command: _click.Command, path: list[str]) -> None:
        paths.append(path)
        if isinstance(command, TyperGroup):
            context = _click.Context(command)
            for name in command.list_commands(context):
                child = command.get_command(context, name)
                if child is None:
                    raise LookupError(f"signoff {' '.join([*path, name])} is listed but not found")
                walk(child, [*path, name])

    walk(get_command(app), [])
    return paths


def main() -> int:
    failed = 0
    for path in command_paths():
        shown = CliRunner().invoke(app, [*path, "--help"])
        words = " ".join(["signoff", *path, "--help"])
        if shown.exit_code != 0 or "Usage:" not in shown.stdout:
            failed += 1
            sys.stderr.write(f"FAILED {words}: exit {shown.exit_code}\n{shown.output}\n")
            if shown.exc_info is not None and not isinstance(shown.exception, SystemExit):
                sys.stderr.write("".join(traceback.format_exception(*shown.exc_info)))
        else:
            sys.stdout.write(words + "\n")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
