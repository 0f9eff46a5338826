"""Linking a reviewer's Slack account, for the faces: see activities/store/slack_links.py
for why a link needs both Slack's signed request and the reviewer's own session."""

from __future__ import annotations

from activities.store.slack_links import (
    LinkCodeRefused,
    SlackUser,
    links_of,
    read_link_code,
    redeem_link_code,
    unlink,
)

__all__ = [
    "LinkCodeRefused",
    "SlackUser",
    "links_of",
    "read_link_code",
    "redeem_link_code",
    "unlink",
]
