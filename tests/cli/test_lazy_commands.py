"""`signoff --help` lists every command without importing what the commands use, and the
help line it shows for each is the command's own."""

from __future__ import annotations

import json
import subprocess
import sys

from typer import _click
from typer.main import get_group

from signoff.cli.lazy_commands import loaded_group
from signoff.wiring.app import COMMANDS, app

HEAVY = ("temporalio", "sqlalchemy", "anthropic", "pydantic", "rich", "fastapi")
MODULES_AFTER_HELP = f"""
import json, sys
sys.argv = ["signoff", "--help"]
from signoff.wiring.app import app
try:
    app()
except SystemExit:
    pass
print(json.dumps(sorted({{name.split(".")[0] for name in sys.modules}} & set({HEAVY!r}))))
"""


def test_help_imports_none_of_the_sdks() -> None:
    ran = subprocess.run(
        [sys.executable, "-c", MODULES_AFTER_HELP], capture_output=True, text=True, check=True
    )
    *_, last = ran.stdout.strip().splitlines()
    assert "run" in ran.stdout and "audit" in ran.stdout  # it did print the help
    assert json.loads(last) == []


def test_each_help_line_is_the_commands_own() -> None:
    context = _click.Context(get_group(app))
    for name, lazy in COMMANDS.items():
        command = loaded_group(lazy.module).get_command(context, name)
        assert command is not None, f"{lazy.module} does not register '{name}'"
        own = " ".join((command.help or "").split("\n\n")[0].split())  # first paragraph
        assert own == lazy.help, f"'{name}': the table says {lazy.help!r}, the command {own!r}"


def test_every_registered_command_is_listed() -> None:
    context = _click.Context(get_group(app))
    for module in {lazy.module for lazy in COMMANDS.values()}:
        registered = set(loaded_group(module).list_commands(context))
        listed = {name for name, lazy in COMMANDS.items() if lazy.module == module}
        assert registered == listed, f"{module} registers {registered}, the table has {listed}"
