"""The `signoff user` command group, alone: commands_users.py, commands_user_admin.py
and commands_user_tokens.py each add their commands to it, and none imports another."""

from __future__ import annotations

from typing import Annotated

import typer

users = typer.Typer(help="Reviewer accounts: who signs in to the reviewer UI.")
# A reviewer named on the command line; the store finds the account under any spelling.
ReviewerName = Annotated[str, typer.Argument(help="The reviewer's name (any case).")]
