"""How `--as NAME` is proven to the decision service (`approve`, `reject`, `rules`): NAME's
password or API token from one line of stdin (`--password-stdin`, `--token-stdin`), else
the API token in SIGNOFF_TOKEN, else the password asked on the terminal. The service
checks it (the CLI holds no key); account changes prove theirs to the store instead
(credentials.py). Both read stdin the same way (support.stdin_secret).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import typer

from signoff.cli.decision_service import ServiceCredential
from signoff.cli.support import fail, stdin_secret
from signoff.config.settings import Settings


@dataclass(frozen=True)
class ServiceProof:
    """What the command line gave: a password or a token on stdin, or neither."""

    password_stdin: bool
    token_stdin: bool

    def read(self, name: str, current: Settings, doing: str) -> ServiceCredential:
        """NAME's credential; a clean exit, saying that nothing was `doing`, when none
        can be read."""
        if self.password_stdin and self.token_stdin:
            fail(f"Give a password or a token, not both. Nothing was {doing}.")
        if self.password_stdin or self.token_stdin:
            what = "API token" if self.token_stdin else "password"
            secret = stdin_secret(name, what, doing)
            return ServiceCredential(name, secret, is_token=self.token_stdin)
        if current.token is not None:  # the caller's API token, as for `--as` elsewhere
            return ServiceCredential(name, current.token.get_secret_value(), is_token=True)
        if not sys.stdin.isatty():
            # No terminal to ask on: a prompt would only fail (GetPassWarning, Aborted!).
            fail(
                f"No terminal to ask {name}'s password: give it with --password-stdin, or "
                f"an API token with --token-stdin (or SIGNOFF_TOKEN). Nothing was {doing}."
            )
        entered: str = typer.prompt(f"Password of {name}", hide_input=True, err=True)
        return ServiceCredential(name, entered, is_token=False)
