"""Sub-commands loaded when they run, so that `signoff --help` starts in a blink.

Each command module pulls in what its commands use (the Temporal client, SQLAlchemy,
pydantic models): about a second of imports that `signoff --help`, or a command that
needs none of it, should not pay. The top-level group therefore knows each command by
name, module and one line of help, and imports the module only when that command is
looked up to run (or to show its own `--help`). `tests/cli/test_lazy_commands.py` holds
every line of help here to the command's own docstring, so the two cannot drift.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import import_module

import typer
from typer import _click
from typer.core import TyperGroup
from typer.main import get_group

# No rich: plain help, and no import of rich (a tenth of a second) for it.
MARKUP = None


@dataclass(frozen=True)
class Lazy:
    """A command by the module whose `register(app)` adds it, and its help line."""

    module: str
    help: str


@cache
def loaded_group(module: str) -> TyperGroup:
    """The click group holding what `module.register` adds: imported once, on demand."""
    holder = typer.Typer(rich_markup_mode=MARKUP, add_completion=False)
    import_module(module).register(holder)
    return get_group(holder)


def lazy_group(table: dict[str, Lazy]) -> type[TyperGroup]:
    """A TyperGroup class that adds the commands of `table`, loading each when needed."""

    class LazyGroup(TyperGroup):
        def list_commands(self, ctx: _click.Context) -> list[str]:
            return [*table, *super().list_commands(ctx)]

        def get_command(self, ctx: _click.Context, cmd_name: str) -> _click.Command | None:
            if cmd_name in table:
                return loaded_group(table[cmd_name].module).get_command(ctx, cmd_name)
            return super().get_command(ctx, cmd_name)

        def format_commands(self, ctx: _click.Context, formatter: _click.HelpFormatter) -> None:
            rows = []
            for name in self.list_commands(ctx):
                if name in table:
                    rows.append((name, table[name].help))
                    continue
                command = super().get_command(ctx, name)
                if command is not None and not command.hidden:
                    # The first sentence whole, as the table gives it for the others.
                    rows.append((name, command.get_short_help_str(limit=200)))
            with formatter.section("Commands"):
                formatter.write_dl(rows)

    return LazyGroup
