"""Linking a reviewer's Slack account, for the faces: see activities/store/slack_links.py
for why a link needs both Slack's signed request and the reviewer's own session."""

from __future__ import annotations

from activities.store import slack_links
from activities.store.slack_links import (
    LinkCodeRefused,
    SlackUser,
)
from signoff.service.handles import on_store

__all__ = [
    "LinkCodeRefused",
    "SlackUser",
    "links_of",
    "read_link_code",
    "redeem_link_code",
    "unlink",
]

# The store layer's calls, each taking the face's Store (handles.py).
links_of = on_store(slack_links.links_of)
read_link_code = on_store(slack_links.read_link_code)
redeem_link_code = on_store(slack_links.redeem_link_code)
unlink = on_store(slack_links.unlink)
