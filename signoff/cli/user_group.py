"""The `signoff user` command group, alone: commands_users.py, commands_user_admin.py
and commands_user_tokens.py each add their commands to it, and none imports another."""

from __future__ import annotations

import typer

users = typer.Typer(help="Reviewer accounts: who signs in to the reviewer UI.")
