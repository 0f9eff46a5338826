"""Linking a reviewer's Slack account, for the faces: see activities/store/slack_links.py
for why a link needs both Slack's signed request and the reviewer's own session.

Whose code a reviewer may read is decided here, not by the face: a code made in a Slack
workspace of another tenant is refused (`LinkCodeOfOtherTenant`), and the Slack user it
names is not shown. Redeeming it is refused by the store, which checks the reviewer's
tenant in the transaction that links.
"""

from __future__ import annotations

import asyncio
from datetime import datetime

from activities import slack_directory
from activities.store import slack_links
from activities.store.slack_links import (
    LinkCodeRefused,
    SlackUser,
)
from signoff.config.settings import Settings
from signoff.config.slack_apps import SlackConfigError, load_slack_apps
from signoff.service.handles import Store, engine_of, on_store

__all__ = [
    "LinkCodeOfOtherTenant",
    "LinkCodeRefused",
    "SlackUser",
    "links_of",
    "read_link_code",
    "redeem_link_code",
    "slack_user_name",
    "unlink",
]

# Word for word in approvals_ui/link_words.py, which marks it for the page's catalog.
OTHER_TENANT = "This link is for a Slack workspace of another tenant than yours."


class LinkCodeOfOtherTenant(LinkCodeRefused):
    """The code is for a Slack workspace of another tenant than the reviewer's."""


def read_link_code(store: Store, code: str, tenant_id: str, now: datetime) -> SlackUser:
    """The Slack user the code would link to a reviewer of `tenant_id` (it stays unused).

    LinkCodeRefused for a code that cannot link (unknown, used, expired);
    LinkCodeOfOtherTenant, a LinkCodeRefused too, for another tenant's code."""
    user = slack_links.read_link_code(engine_of(store), code, now)
    if user.tenant_id != tenant_id:
        raise LinkCodeOfOtherTenant(OTHER_TENANT)
    return user


async def slack_user_name(settings: Settings, user: SlackUser) -> str | None:
    """The Slack user's name, as Slack gives it (users.info, with the bot token of the app
    of the user's tenant and workspace); None when that app has no bot token, the apps
    file cannot be used, or Slack does not answer: the face then shows the id alone."""
    try:
        apps = await asyncio.to_thread(load_slack_apps, settings.slack_apps)
    except SlackConfigError:
        return None
    token = next(
        (
            app.bot_token
            for app in apps
            if (app.tenant_id, app.team_id) == (user.tenant_id, user.team_id)
        ),
        None,
    )
    if token is None:
        return None
    return await slack_directory.slack_user_name(settings.slack_api_url, token, user.user_id)


# The store layer's calls, each taking the face's Store (handles.py).
links_of = on_store(slack_links.links_of)
redeem_link_code = on_store(slack_links.redeem_link_code)
unlink = on_store(slack_links.unlink)
