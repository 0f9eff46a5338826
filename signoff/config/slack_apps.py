"""The Slack apps file (SIGNOFF_SLACK_APPS): per tenant, its Slack workspace and the
signing secret(s) of the Slack app installed there.

    {"acme": {"team_id": "T0123ABCD", "signing_secrets": ["CURRENT", "PREVIOUS"],
              "bot_token": "xoxb-..."}}

The bot token is optional: with it (scope `users:read`), the link page names the Slack
user by the name Slack gives (users.info); without it, by their member id alone.

Design note. One Slack app per tenant, in the tenant's own workspace: the tenant of a
request is the one whose signing secret verified it, never a field of the body, and the
body's workspace must then be that tenant's (a Slack user of another workspace is
refused even with a valid signature). A secret or a workspace named by two tenants is
refused at load. The first secret is current, the others still accepted while a
rotation is under way. The file is JSON, mode 0600, read on each request so that a
rotation needs no restart.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from signoff.config.secret_files import (
    MIN_SECRET_BYTES,
    read_private_json,
    rotation_list,
    short_secret_bytes,
)
from workflows.contract_base import tenant_id_problem

# Slack's workspace ids: T followed by upper-case letters and digits.
TEAM_ID_PATTERN = re.compile(r"^T[A-Z0-9]{2,63}$")
# A bot token, as Slack shows it under OAuth & Permissions.
BOT_TOKEN_PATTERN = re.compile(r"^xoxb-[A-Za-z0-9-]{8,250}$")
REQUIRED_KEYS = {"team_id", "signing_secrets"}
OPTIONAL_KEYS = {"bot_token"}
EXAMPLE = '{"acme": {"team_id": "T0123ABCD", "signing_secrets": ["SECRET"]}}'


class SlackConfigError(ValueError):
    """A Slack apps file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class SlackApp:
    tenant_id: str
    team_id: str
    signing_secrets: tuple[str, ...]
    bot_token: str | None = None  # to ask Slack a user's name; None: ids alone are shown


def load_slack_apps(path: Path | None) -> tuple[SlackApp, ...]:
    """The file's apps; none when `path` is None (every request is then refused)."""
    if path is None:
        return ()
    document = read_private_json(path, "SIGNOFF_SLACK_APPS", SlackConfigError)
    if not isinstance(document, dict):
        raise SlackConfigError(f"{path}: expected an object of tenants, e.g. {EXAMPLE}.")
    apps = [_app(path, tenant_id, entry) for tenant_id, entry in document.items()]
    for field, values in (
        ("workspace", [app.team_id for app in apps]),
        ("signing secret", [s for app in apps for s in app.signing_secrets]),
    ):
        if len(set(values)) != len(values):
            raise SlackConfigError(
                f"{path}: two tenants share a {field}; each tenant needs its own Slack "
                "app in its own workspace."
            )
    return tuple(apps)


def _app(path: Path, tenant_id: object, entry: object) -> SlackApp:
    problem = tenant_id_problem(tenant_id) if isinstance(tenant_id, str) else "not text"
    if problem is not None:
        raise SlackConfigError(f"{path}: tenant {tenant_id!r}: {problem}.")
    assert isinstance(tenant_id, str)
    if (
        not isinstance(entry, dict)
        or not REQUIRED_KEYS <= set(entry) <= REQUIRED_KEYS | OPTIONAL_KEYS
    ):
        raise SlackConfigError(
            f"{path}: tenant '{tenant_id}' needs team_id and signing_secrets, and may have "
            f"a bot_token, nothing else; e.g. {EXAMPLE}."
        )
    bot_token = entry.get("bot_token")
    if bot_token is not None and not (
        isinstance(bot_token, str) and BOT_TOKEN_PATTERN.match(bot_token)
    ):
        raise SlackConfigError(
            f"{path}: tenant '{tenant_id}': bot_token is not a Slack bot token (xoxb-..., "
            "under OAuth & Permissions); remove it to show Slack users by their id alone."
        )
    team_id, secrets = entry["team_id"], entry["signing_secrets"]
    if not isinstance(team_id, str) or not TEAM_ID_PATTERN.match(team_id):
        raise SlackConfigError(
            f"{path}: tenant '{tenant_id}': team_id {team_id!r} is not a Slack workspace "
            "id (T followed by letters and digits; Slack shows it in the workspace URL)."
        )
    listed = rotation_list(secrets)
    if listed is None:
        raise SlackConfigError(
            f"{path}: tenant '{tenant_id}': signing_secrets is a list of the app's signing "
            "secrets (Basic Information > App Credentials), the current one first."
        )
    short = short_secret_bytes(listed)
    if short is not None:
        raise SlackConfigError(
            f"{path}: tenant '{tenant_id}': a signing secret of {short} bytes; Slack's "
            f"have 32, and at least {MIN_SECRET_BYTES} are needed."
        )
    return SlackApp(tenant_id, team_id, tuple(listed), bot_token)
