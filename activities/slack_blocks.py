"""A notice as a Slack Block Kit message: the text, then Approve, Reject, Send to the
agent and Open.

The message goes to a Slack app's incoming webhook (SIGNOFF_NOTIFY_FORMAT=slack_blocks);
Slack sends a press to the app's interactivity URL, `POST /api/slack/actions`
(docs/ui/slack.md). What a press needs travels in the message itself: the actions
block's `block_id` is the run id, and each control names the action hash, so the press
decides on exactly the action the reviewer read. Reject is a select menu of the
rejection categories (an option's value is at most 150 characters: the category and
the hash fit, a run id might not, hence the block id). Open is a link button.

Above them, an optional text box takes the reviewer's reason. It sends nothing by
itself: Slack puts what was typed in the `state` of the next press on the same message
(block_actions payloads carry every input of their message), so Reject (or Approve)
takes it with it, as the decision page's reason box does; Send to the agent sends it
as a response (the request ends without happening and the agent reads the words as the
reviewer's instruction), and needs words. A message needs no modal,
hence no bot token and no scope beyond the incoming webhook.

Nothing in it is trusted on the way back without Slack's signature, and even then the
run checks the hash, the tenant and the reviewer as for any decision.
"""

from __future__ import annotations

from typing import Any

from workflows.reject_reasons import LABELS
from workflows.reviewer_notices import SETTLED_KINDS, Notice

APPROVE_ACTION = "signoff_approve"
REJECT_ACTION = "signoff_reject"
# Send the reason box's words to the agent instead of deciding (a response).
RESPOND_ACTION = "signoff_respond"
OPEN_ACTION = "signoff_open"
# A reject option's value: "<category>:<action hash>".
OPTION_SEPARATOR = ":"
# The reason box: one per message, so its ids need not name the run.
REASON_BLOCK = "signoff_reason"
REASON_ACTION = "signoff_reason_text"
# The longest reason a decision holds (workflows/actions.py, Decision.reason).
REASON_CHARS = 2000


def _plain(text: str) -> dict[str, Any]:
    return {"type": "plain_text", "text": text}


def _confirm(title: str, text: str, confirm: str) -> dict[str, Any]:
    return {
        "title": _plain(title),
        "text": {"type": "mrkdwn", "text": text},
        "confirm": _plain(confirm),
        "deny": _plain("Cancel"),
    }


def decision_controls(notice: Notice, link: str, title: str | None = None) -> dict[str, Any]:
    """The actions block: Approve, Reject (choose why) and Open; `title`: the tool's card
    title, where it has one."""
    what = notice.subject(title)
    return {
        "type": "actions",
        "block_id": notice.run_id,
        "elements": [
            {
                "type": "button",
                "action_id": APPROVE_ACTION,
                "text": _plain("Approve"),
                "style": "primary",
                "value": notice.action_hash,
                "confirm": _confirm("Approve?", f"{what}: approve it as proposed.", "Approve"),
            },
            {
                "type": "static_select",
                "action_id": REJECT_ACTION,
                "placeholder": _plain("Reject: choose why"),
                "options": [
                    {
                        "text": _plain(label),
                        "value": f"{category}{OPTION_SEPARATOR}{notice.action_hash}",
                    }
                    for category, label in LABELS.items()
                ],
                "confirm": _confirm("Reject?", f"{what}: reject it.", "Reject"),
            },
            {
                "type": "button",
                "action_id": RESPOND_ACTION,
                "text": _plain("Send to the agent"),
                "value": notice.action_hash,
                "confirm": _confirm(
                    "Send your words to the agent?",
                    f"{what}: it does not happen as proposed; the agent reads what you "
                    "wrote above as your instruction.",
                    "Send",
                ),
            },
            {"type": "button", "action_id": OPEN_ACTION, "text": _plain("Open"), "url": link},
        ],
    }


def reason_box() -> dict[str, Any]:
    """The optional reason, sent with the next Approve or Reject pressed below it."""
    return {
        "type": "input",
        "block_id": REASON_BLOCK,
        "optional": True,
        "label": _plain("Why (optional): sent with your decision, or to the agent"),
        "element": {
            "type": "plain_text_input",
            "action_id": REASON_ACTION,
            "multiline": True,
            "max_length": REASON_CHARS,
            "placeholder": _plain("e.g. the parcel was delivered intact"),
        },
    }


def notice_blocks(
    notice: Notice, text: str, link: str, title: str | None = None
) -> list[dict[str, Any]]:
    """The message's blocks; a request no one can decide on any more (expired, or
    approved but not carried out) gets only its text and Open."""
    section = {"type": "section", "text": {"type": "mrkdwn", "text": text}}
    if notice.kind in SETTLED_KINDS:
        open_only = {
            "type": "actions",
            "block_id": notice.run_id,
            "elements": [
                {"type": "button", "action_id": OPEN_ACTION, "text": _plain("Open"), "url": link}
            ],
        }
        return [section, open_only]
    return [section, reason_box(), decision_controls(notice, link, title)]
