"""The `notify_reviewers` activity: one JSON POST to the reviewers' webhook.

The body is what Slack and Microsoft Teams incoming webhooks both accept: a `text`
field (Markdown-ish, with the link), and beside it a `signoff` object with the same
facts as data, for receivers that read JSON. It names the tool by its review card's
title where the worker's own profiles give one ("Send a reply to the customer
(send_reply)"), its name kept beside it and in `tool` for ops; it says the amount,
currency and order of its exposure (null for a tool that declares none), mode, tenant
and time left, and links to the request's page (`SIGNOFF_UI_BASE_URL`); it
never carries ticket text, customer names or the agent's reason: the link is the way
in. A `not_carried_out` notice tells who approved an action that its connector's outage
voided, and what to do about it (it names reviewers, never the customer). The
`Idempotency-Key` header (run, action hash, kind) lets a receiver drop the copy
a retry may deliver.

Errors: a receiver that is down, slow, rate-limits (429) or fails (5xx) is retried by
Temporal (bounded, see workflows/reviewer_notices.py); one that refuses the body (any
other 4xx) is not, since the same body would be refused again.
"""

from __future__ import annotations

import logging
from typing import Any

from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities.caller import only_its_own
from activities.rule_callers import only_signoffs_run
from activities.slack_blocks import notice_blocks
from signoff.config.settings import Settings
from workflows.approval_policy import expired_message
from workflows.effect_requirements import card_title
from workflows.profile_contracts import ProfileSet
from workflows.reviewer_notices import NOTIFY_ACTIVITY, SETTLED_KINDS, Notice, NoticeSent
from workflows.tool_catalog import REFUND

log = logging.getLogger(__name__)
IDEMPOTENCY_HEADER = "Idempotency-Key"
TOO_MANY_REQUESTS = 429


def _time_left(notice: Notice) -> str:
    if notice.kind == "not_carried_out":
        return "given up"  # the run no longer waits for anything, whatever the expiry
    seconds = int((notice.expires_at - notice.sent_at).total_seconds())
    if seconds <= 0:
        return "expired"
    hours, minutes = divmod(seconds // 60, 60)
    return f"{hours} h {minutes} min left" if hours else f"{max(minutes, 1)} min left"


def _mode(notice: Notice) -> str:
    if notice.mode == "review":
        return f"four eyes: {notice.approvals} of {notice.required_approvals} approvals"
    return "confirm: one reviewer"


def _not_carried_out(notice: Notice, link: str, title: str | None) -> str:
    """For the support person who approved it: what did not happen, why, and what to do."""
    what = notice.subject(title)
    who = ", ".join(notice.approved_by) or "a reviewer"
    since = notice.waiting_since or notice.sent_at
    gave_up = notice.sent_at.strftime("%Y-%m-%d %H:%M UTC")
    nothing = "Nothing was refunded" if notice.tool == REFUND.name else "Nothing was done"
    return (
        f"Approved but not carried out: {what} (tenant {notice.tenant_id}), approved by "
        f"{who}. {notice.connector or 'Its connector'} was unavailable from "
        f"{since:%Y-%m-%d %H:%M} UTC until the run gave up at {gave_up}. {nothing}. The "
        "customer may still be waiting for it: follow up with them, and once the service "
        f"is back, a new request must be approved to try again. Run: {link}"
    )


def notice_text(notice: Notice, link: str, title: str | None = None) -> str:
    """The notice in a sentence; `title`: the tool's card title, where it has one."""
    if notice.kind == "not_carried_out":
        return _not_carried_out(notice, link, title)
    what = notice.subject(title)
    where = f"tenant {notice.tenant_id}, {_mode(notice)}"
    expires = notice.expires_at.strftime("%Y-%m-%d %H:%M:%S UTC")
    if notice.kind == "waiting":
        return f"{what} waits for a decision ({where}); {_time_left(notice)}. Decide: {link}"
    if notice.kind == "reminder":
        return (
            f"Reminder: {what} still waits for a decision ({where}); {_time_left(notice)}, "
            f"it expires at {expires}. Decide: {link}"
        )
    if notice.kind == "escalated":
        roles = " or ".join(notice.approver_roles)
        return (
            f"Escalated to {roles}: {what} got no decision in time and now waits for you "
            f"({where}); {_time_left(notice)}. Decide: {link}"
        )
    ago = expired_message(notice.expires_at, notice.sent_at)
    return f"Expired: {what} ({where}) got no decision by {expires}. {ago} Run: {link}"


def notice_body(
    notice: Notice, ui_base_url: str, blocks: bool = False, title: str | None = None
) -> dict[str, Any]:
    """The JSON body; with `blocks`, also Slack Block Kit blocks with Approve, Reject and
    Open (activities/slack_blocks.py), which Slack shows instead of `text`. `title`: the
    tool's card title, where it has one (null in `signoff.title` otherwise)."""
    base = ui_base_url.rstrip("/")
    page = "runs" if notice.kind in SETTLED_KINDS else "approvals"
    link = f"{base}/{page}/{notice.run_id}"
    text = notice_text(notice, link, title)
    exposure, since = notice.exposure, notice.waiting_since
    return {
        "text": text,
        **({"blocks": notice_blocks(notice, text, link, title)} if blocks else {}),
        "signoff": {
            "kind": notice.kind,
            "tool": notice.tool,
            "title": title,
            "amount": None if exposure is None else exposure.amount,
            "currency": None if exposure is None else exposure.currency,
            "order": None if exposure is None else exposure.order_id,
            "mode": notice.mode,
            "approvals": notice.approvals,
            "required_approvals": notice.required_approvals,
            "tenant": notice.tenant_id,
            "expires_at": notice.expires_at.isoformat(),
            "time_left": _time_left(notice),
            "link": link,
            "run_id": notice.run_id,
            "action_hash": notice.action_hash,
            "approver_roles": notice.approver_roles,
            "escalations": notice.escalations,
            "approved_by": notice.approved_by,
            "connector": notice.connector,
            "waiting_since": None if since is None else since.isoformat(),
        },
    }


class ReviewerNotifier:
    """`profiles`: the worker's own, whose review cards title the tools it tells about;
    without them a tool is named by its name."""

    def __init__(self, settings: Settings, profiles: ProfileSet | None = None) -> None:
        self._profiles = profiles
        self._url = settings.notify_webhook_url
        self._base = settings.ui_base_url
        self._timeout = settings.notify_timeout_seconds
        self._blocks = settings.notify_format == "slack_blocks"

    @activity.defn(name=NOTIFY_ACTIVITY)
    async def notify_reviewers(self, notice: Notice) -> NoticeSent:
        """Only a run's own gate tells reviewers about its actions: a workflow of someone
        else's would post a message of its making to the reviewers' channel (a made-up
        request, a made-up approver), in signoff's name. Refused on the audit."""
        only_its_own(notice.run_id)
        await only_signoffs_run(
            "to notify reviewers", "only a run's own gate tells reviewers about its actions"
        )
        return await self.send(notice)

    async def send(self, notice: Notice) -> NoticeSent:
        """The POST itself, once the caller is known to be the notice's run."""
        if self._url is None:  # the webhook was removed since the run started
            return NoticeSent(status="skipped", detail="no webhook configured")
        # Here: httpx loads rich and pygments for its own CLI, which a worker without a
        # webhook should not hold in memory.
        import httpx

        headers = {IDEMPOTENCY_HEADER: notice.idempotency_key()}
        title = None if self._profiles is None else card_title(self._profiles, notice.tool)
        body = notice_body(notice, self._base, self._blocks, title)
        try:
            async with httpx.AsyncClient(timeout=self._timeout) as client:
                response = await client.post(self._url, json=body, headers=headers)
        except httpx.HTTPError as error:
            raise ApplicationError(
                f"the webhook did not answer: {type(error).__name__}", type="WebhookUnreachable"
            ) from None
        status = response.status_code
        if status < 300:
            return NoticeSent(status="sent", detail=f"HTTP {status}")
        if status == TOO_MANY_REQUESTS or status >= 500:
            raise ApplicationError(f"the webhook answered HTTP {status}", type="WebhookFailed")
        log.warning("the webhook refused a notice (HTTP %s): %s", status, response.text[:200])
        # Not retried: the same body would be refused again (see the module note).
        raise ApplicationError(
            f"the webhook refused the notice (HTTP {status})",
            type="NotificationRefused",
            non_retryable=True,
        )
