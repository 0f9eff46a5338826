"""The demo administrator's credential, as the seed creates it (`seed_demo`): what a
test passes to an account change that is not itself about the admin check."""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Engine

from activities.store import Credential, demo_password, issue_token

ADMIN_NAME = "admin"
ADMIN = Credential(ADMIN_NAME, demo_password(ADMIN_NAME), "password")


def admin_token(engine: Engine) -> str:
    """An API token of the demo administrator, for CLI tests (SIGNOFF_TOKEN)."""
    _, _, token = issue_token(engine, ADMIN, ADMIN_NAME, timedelta(days=1))
    return token
