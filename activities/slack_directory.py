"""A Slack user's name, from Slack's own Web API (`users.info`), for the page where a
reviewer links a Slack account: "Alice Martin (UALICE001)" is checked at a glance, a
member id alone hardly.

Asked with the bot token of the tenant's own Slack app (scope `users:read`), only for a
user of that app's workspace. The name is shown, never trusted: what a link proves
comes from the signed press and the reviewer's session (activities/store/slack_links.py),
and a Slack user chooses their own display name. So any failure (no answer in time, an
error, `ok: false`, no name) is None, and the page falls back to the id and says so.
"""

from __future__ import annotations

import logging
from typing import Any

import httpx

log = logging.getLogger("activities")
# The page waits on this answer: a short wait, then the id alone.
LOOKUP_TIMEOUT_SECONDS = 3.0
# A name longer than this is cut: it is shown inside a sentence.
NAME_CHARS = 80


async def slack_user_name(api_url: str, bot_token: str, user_id: str) -> str | None:
    """The user's name as Slack shows it, or None when Slack does not say."""
    try:
        async with httpx.AsyncClient(timeout=LOOKUP_TIMEOUT_SECONDS) as client:
            answer = await client.get(
                f"{api_url}users.info",
                params={"user": user_id},
                headers={"Authorization": f"Bearer {bot_token}"},
            )
        document = answer.json() if answer.status_code == httpx.codes.OK else None
    except (httpx.HTTPError, ValueError) as error:
        log.warning("slack: users.info unreachable: %s", type(error).__name__)
        return None
    if not isinstance(document, dict) or document.get("ok") is not True:
        error_name = document.get("error") if isinstance(document, dict) else answer.status_code
        log.warning("slack: users.info refused: %s", str(error_name)[:64])
        return None
    return _name_of(document.get("user"))


def _name_of(user: Any) -> str | None:
    """The first name Slack gives: the profile's real name, then the display name, then
    the handle."""
    if not isinstance(user, dict):
        return None
    found = user.get("profile")
    profile: dict[str, Any] = found if isinstance(found, dict) else {}
    for candidate in (
        profile.get("real_name"),
        user.get("real_name"),
        profile.get("display_name"),
        user.get("name"),
    ):
        if isinstance(candidate, str) and candidate.strip():
            return candidate.strip()[:NAME_CHARS]
    return None
