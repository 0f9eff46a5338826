"""A Slack `block_actions` payload, read into the one press signoff acts on.

Slack POSTs `application/x-www-form-urlencoded` with one field, `payload`: JSON with
`type` ("block_actions"), `team` and `user` (each with an `id`; a user also names their
own workspace, `team_id`, which differs from `team` in a channel shared between
workspaces), `response_url`, the `message` pressed, and `actions` (each with
`action_id`, `block_id` and a button's `value` or a select's `selected_option`), and
`state.values`: what the message's inputs hold, here the reason box's text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal
from urllib.parse import parse_qs

from activities.slack_blocks import (
    APPROVE_ACTION,
    OPEN_ACTION,
    OPTION_SEPARATOR,
    REASON_ACTION,
    REASON_BLOCK,
    REASON_CHARS,
    REJECT_ACTION,
    RESPOND_ACTION,
)
from signoff.service.slack_signatures import SlackRefused
from workflows.contract_base import IDENTIFIER_PATTERN
from workflows.reject_reasons import CATEGORIES

SLACK_ID = re.compile(r"^[A-Z0-9]{2,64}$")
ACTION_HASH = re.compile(r"^[0-9a-f]{64}$")
PressKind = Literal["approve", "reject", "respond", "open"]


@dataclass(frozen=True)
class SlackPress:
    team_id: str  # the pressing user's own workspace
    user_id: str
    kind: PressKind
    run_id: str
    action_hash: str
    category: str | None = None
    # What the reviewer typed in the message's reason box; "" when nothing.
    reason: str = ""
    response_url: str | None = None
    # The message pressed, as Slack sent it back: the base of its replacement.
    message_blocks: list[dict[str, Any]] = field(default_factory=list)


def _malformed(what: str) -> SlackRefused:
    return SlackRefused(
        "malformed", f"Not a Slack block_actions payload signoff sent: {what}.", 400
    )


def parse_press(body: bytes) -> SlackPress:
    """The press; SlackRefused("malformed") when the body is not one of ours."""
    try:
        fields = parse_qs(body.decode(), strict_parsing=True, max_num_fields=4)
        payload = json.loads(fields["payload"][0])
    except (UnicodeDecodeError, ValueError, KeyError):
        raise _malformed("send a form with a `payload` JSON field") from None
    if not isinstance(payload, dict) or payload.get("type") != "block_actions":
        raise _malformed("`type` must be block_actions")
    user, team = payload.get("user"), payload.get("team")
    actions = payload.get("actions")
    if not isinstance(user, dict) or not isinstance(team, dict) or not isinstance(actions, list):
        raise _malformed("it needs `user`, `team` and `actions`")
    user_id = user.get("id")
    team_id = user.get("team_id") or team.get("id")
    if not all(isinstance(x, str) and SLACK_ID.match(x) for x in (user_id, team_id)):
        raise _malformed("the user or workspace id is not a Slack id")
    if len(actions) != 1 or not isinstance(actions[0], dict):
        raise _malformed("one action per press")
    kind, run_id, action_hash, category = _action(actions[0])
    response_url = payload.get("response_url")
    message = payload.get("message")
    blocks = message.get("blocks") if isinstance(message, dict) else None
    return SlackPress(
        team_id=str(team_id),
        user_id=str(user_id),
        kind=kind,
        run_id=run_id,
        action_hash=action_hash,
        category=category,
        reason=_typed_reason(payload.get("state")),
        response_url=response_url if isinstance(response_url, str) else None,
        message_blocks=[b for b in blocks if isinstance(b, dict)]
        if isinstance(blocks, list)
        else [],
    )


def _typed_reason(state: object) -> str:
    """The reason box's text (`state.values[block][action].value`); Slack sends null for
    an empty box, and a message without the box has no entry."""
    values = state.get("values") if isinstance(state, dict) else None
    block = values.get(REASON_BLOCK) if isinstance(values, dict) else None
    box = block.get(REASON_ACTION) if isinstance(block, dict) else None
    typed = box.get("value") if isinstance(box, dict) else None
    if typed is None:
        return ""
    if not isinstance(typed, str) or len(typed) > REASON_CHARS:
        raise _malformed(f"the reason is not text of at most {REASON_CHARS} characters")
    return typed.strip()


def _action(action: dict[str, Any]) -> tuple[PressKind, str, str, str | None]:
    action_id, run_id = action.get("action_id"), action.get("block_id")
    if not isinstance(run_id, str) or not re.match(IDENTIFIER_PATTERN, run_id):
        raise _malformed("the block id is not a run id")
    if action_id == OPEN_ACTION:
        return "open", run_id, "", None
    if action_id in (APPROVE_ACTION, RESPOND_ACTION):
        value = action.get("value")
        if not isinstance(value, str) or not ACTION_HASH.match(value):
            raise _malformed("the button's value is not an action hash")
        return ("approve" if action_id == APPROVE_ACTION else "respond"), run_id, value, None
    if action_id == REJECT_ACTION:
        option = action.get("selected_option")
        value = option.get("value") if isinstance(option, dict) else None
        category, _, action_hash = (value or "").partition(OPTION_SEPARATOR)
        if category not in CATEGORIES or not ACTION_HASH.match(action_hash):
            raise _malformed("the option chosen is not a category and an action hash")
        return "reject", run_id, action_hash, category
    raise _malformed(f"unknown action_id {str(action_id)[:64]!r}")
